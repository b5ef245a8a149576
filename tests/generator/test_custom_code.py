"""Hand-written code in a generated SDK survives regeneration: modules the user adds, and
files the config keeps."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

from jobgen.cli import main
from tests.helpers import SPECS, write

EXTENSION = '''"""Our own helpers on top of the generated client."""

from __future__ import annotations

from .models import ResultSection


def headline(section: ResultSection) -> str:
    return section.title.upper()
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(SPECS / "sume.yaml", tmp_path / "sume.yaml")
    return tmp_path


def _forget_sume_sdk() -> None:
    for name in [n for n in sys.modules if n == "sume_sdk" or n.startswith("sume_sdk.")]:
        del sys.modules[name]


@contextmanager
def load(out: Path, module: str) -> Iterator[ModuleType]:
    """Import ``module`` from ``out`` (not from another sume_sdk an earlier test imported)."""
    _forget_sume_sdk()
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(module)
    finally:
        sys.path.remove(str(out))
        _forget_sume_sdk()


def test_a_module_the_user_adds_survives_regeneration_and_keeps_working(project: Path) -> None:
    out = project / "out"
    config = write(
        project / "jobgen.toml",
        '[[sdk]]\nspec = "sume.yaml"\noutput = "out"\npackage = "sume_sdk"\n',
    )
    assert main(["generate", "--config", str(config)]) == 0
    write(out / "sume_sdk" / "extensions.py", EXTENSION)
    write(out / "tests" / "test_extensions.py", "from sume_sdk.extensions import headline\n")
    spec = project / "sume.yaml"
    spec.write_text(
        spec.read_text().replace(
            "        title: { type: string }\n",
            "        title: { type: string }\n        level: { type: integer }\n",
        )
    )
    assert main(["generate", "--config", str(config)]) == 0
    assert (out / "sume_sdk" / "extensions.py").read_text() == EXTENSION
    assert (out / "tests" / "test_extensions.py").is_file()
    assert main(["generate", "--config", str(config), "--check"]) == 0
    with load(out, "sume_sdk.extensions") as extensions:
        section = extensions.ResultSection(title="intro", text="...", level=2)
        assert extensions.headline(section) == "INTRO"


def test_a_kept_file_is_never_written_compared_or_deleted(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project / "out"
    config = write(
        project / "jobgen.toml",
        '[[sdk]]\nspec = "sume.yaml"\noutput = "out"\npackage = "sume_sdk"\n'
        'keep = ["README.md", "docs/*"]\n',
    )
    assert main(["generate", "--config", str(config)]) == 0
    assert not (out / "README.md").exists(), "a kept file is the user's to write"
    write(out / "README.md", "# Our SDK\n\nHand-written.\n")
    write(out / "docs" / "guide.md", "# Guide\n")
    assert main(["generate", "--config", str(config)]) == 0
    assert (out / "README.md").read_text() == "# Our SDK\n\nHand-written.\n"
    assert (out / "docs" / "guide.md").is_file()
    assert main(["generate", "--config", str(config), "--check"]) == 0
    manifest = json.loads((out / ".jobgen-manifest.json").read_text())
    assert "README.md" not in manifest["files"]
    assert manifest["inputs"]["options"]["keep"] == ["README.md", "docs/*"]


def test_keeping_a_file_jobgen_wrote_before_leaves_it_as_it_is(project: Path) -> None:
    out = project / "out"
    args = ["generate", str(project / "sume.yaml"), "-o", str(out), "--package", "sume_sdk"]
    assert main(args) == 0
    readme = out / "README.md"
    readme.write_text(readme.read_text().replace("## Usage", "## Usage (see also our wiki)"))
    assert main([*args, "--check"]) == 1
    assert main([*args, "--keep", "README.md"]) == 0
    assert "## Usage (see also our wiki)" in readme.read_text()
    assert main([*args, "--keep", "README.md", "--check"]) == 0


@pytest.mark.parametrize("pattern", ["../x", "/etc/passwd", "", ".jobgen-manifest.json", "*"])
def test_a_bad_keep_pattern_is_exit_2(
    project: Path, pattern: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project / "out"
    code = main(["generate", str(project / "sume.yaml"), "-o", str(out), "--keep", pattern])
    assert code == 2
    assert "jobgen: --keep: " in capsys.readouterr().err
    assert not out.exists()
    config = write(
        project / "jobgen.toml",
        f'[[sdk]]\nspec = "sume.yaml"\noutput = "out"\nkeep = [{json.dumps(pattern)}, 3]\n',
    )
    assert main(["generate", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"{config}#/sdk/0/keep/0: " in err and f"{config}#/sdk/0/keep/1: must be a string" in err
