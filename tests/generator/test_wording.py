"""What the CLI prints and the generated files say reads as written by a person: counts are
pluralised, the API and job names are not doubled, "nothing was written" only where
something would have been, the advice after ``--check`` is the exact command, and a closed
pipe ends the command quietly."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from jobgen.cli import main
from tests.helpers import ROOT, SPECS, write

BROKEN = """\
openapi: 3.1.0
info: {title: Broken, version: "1"}
paths: {}
components:
  schemas:
    B: {type: wobbly}
"""


def test_generate_pluralises_its_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sdk"
    assert main(["generate", str(SPECS / "sume.yaml"), "-o", str(out)]) == 0
    line = capsys.readouterr().out
    assert " 1 job (" in line and "1 jobs" not in line, line
    assert main(["validate", str(SPECS / "sume.yaml")]) == 0
    assert capsys.readouterr().out.rstrip().endswith(", 1 job)")


def test_nothing_was_written_only_where_something_would_have_been(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "broken.yaml", BROKEN)
    assert main(["validate", str(spec)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "1 problem"
    assert main(["serve", str(spec), "--port", "0"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "1 problem"
    assert main(["generate", str(spec), "-o", str(tmp_path / "out"), "--check"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "1 problem"
    assert main(["generate", str(spec), "-o", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "1 problem; nothing was written"


@pytest.mark.parametrize(
    "options",
    [
        ["--package", "sume_sdk"],
        ["--package", "sume_sdk", "--sdk-version", "1.2.3", "--keep", "a*", "--keep", "b c"],
    ],
)
def test_check_without_a_config_names_the_exact_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    out = tmp_path / "my sdk"
    argv = ["generate", str(SPECS / "sume.yaml"), "-o", str(out), *options]
    assert main([*argv, "--check"]) == 1
    err = capsys.readouterr().err
    command = shlex.join(["jobgen", *argv])
    assert f"1 SDK stale: run `{command}` and commit the result" in err, err
    # That command is the one that makes it current.
    assert main(argv) == 0
    assert main([*argv, "--check"]) == 0


def test_a_closed_pipe_ends_check_quietly(tmp_path: Path) -> None:
    """``jobgen generate --check | head``: the reader is gone before the first write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "jobgen", "generate", "--check"],
            cwd=ROOT,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == 141  # 128 + SIGPIPE, as the shell reports a Unix tool


def test_generated_files_do_not_double_words() -> None:
    """Titles ending in "API" or holding it ("Bulk API 2.0 (ingest jobs)"), and jobs named
    "job" or "ingest_job": no "API API", no "job job"."""
    texts = [
        path.read_text(encoding="utf-8")
        for path in (ROOT / "generated").rglob("*")
        if path.suffix in (".py", ".md", ".toml")
    ]
    assert texts
    for text in texts:
        assert "API API" not in text and ") API" not in text
        assert "job job" not in text and "job\\_job job" not in text and "_job job" not in text
    readme = (ROOT / "generated" / "salesforce_bulk" / "README.md").read_text(encoding="utf-8")
    assert "client for the Salesforce Bulk API 2.0 (ingest jobs) (version" in readme
    assert "polls until the ingest job is terminal" in readme
    readme = (ROOT / "generated" / "azure_operations" / "README.md").read_text(encoding="utf-8")
    assert "client for the Text Analysis API (Azure long-running operations)" in readme
