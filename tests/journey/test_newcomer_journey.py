"""The first hour of a new user, scripted: their own spec of a transcoding service and its
side file (``project/``), in a folder of their own, through the installed ``jobgen`` command.

Planted mistakes are all reported by one ``jobgen validate``; once fixed, ``jobgen generate``
writes the SDK the config names; ``jobgen serve`` simulates the API, and the user's sync and
async scripts, their pytest suite and their FastAPI app run against it; mypy --strict and
pyright --strict accept their code. Then a spec change (a new terminal state) goes through
``jobgen generate --check``, ``jobgen diff`` and the CI script, each saying what a user
must read: what is stale, what breaks, and how to let it through."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "project"
BIN = Path(sys.executable).parent
JOBGEN = BIN / "jobgen"
TOKEN = "tok_newcomer"
SECRET = "whsec_bmV3Y29tZXIncyB3ZWJob29rIHNlY3JldCwgMzIgYnl0ZXM="

CONFIG = """\
[project]
name = "transcoder-app"
version = "0.1.0"

[[tool.jobgen.sdk]]
spec = "transcoder.yaml"
jobs = "transcoder.jobs.yaml"
output = "sdk"
package = "transcoder_sdk"
keep = ["README.md"]

[tool.mypy]
strict = true
mypy_path = "sdk"

[tool.pyright]
typeCheckingMode = "strict"
extraPaths = ["sdk"]
exclude = ["sdk"]
"""
USER_CODE = (
    "transcode_video.py",
    "transcode_many.py",
    "test_transcodes.py",
    "webapp.py",
    "test_webapp.py",
)

# Each planted mistake: the right text, and the slip that replaces it.
SPEC_SLIPS = (
    (
        '$ref: "#/components/schemas/TranscodeRequest"',
        '$ref: "#/components/schemas/TranscodeRequst"',
    ),
    ("percent:\n          type: number", "percent:\n          type: numbr"),
)
SIDE_SLIPS = (
    ("status: getTranscode\n", "status: getTranscod\n"),
    ("id_parameter: transcode_id", "id_paramter: transcode_id"),
)
CONFIG_SLIPS = (('keep = ["README.md"]', 'kep = ["README.md"]'),)


def slipped(text: str, slips: tuple[tuple[str, str], ...]) -> str:
    for right, wrong in slips:
        assert text.count(right) == 1, right
        text = text.replace(right, wrong)
    return text


def user_env(**extra: str) -> dict[str, str]:
    """The user's shell: jobgen's environment on PATH, no test runner's or CI's variables."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "GITHUB_", "GIT_", "PYTHON", "MYPY"))
    }
    env.update(
        PATH=os.pathsep.join([str(BIN), env.get("PATH", "")]),
        GIT_AUTHOR_NAME="New User",
        GIT_AUTHOR_EMAIL="new@example.com",
        GIT_COMMITTER_NAME="New User",
        GIT_COMMITTER_EMAIL="new@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    env.update(extra)
    return env


def run(
    cwd: Path, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=env or user_env(),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def jobgen(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(cwd, str(JOBGEN), *args)


@contextmanager
def serving(cwd: Path, *args: str) -> Iterator[tuple[str, str]]:
    """``jobgen serve ARGS`` in the background: its URL and its banner; Ctrl-C at the end."""
    process = subprocess.Popen(
        [str(JOBGEN), "serve", *args],
        cwd=cwd,
        env=user_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        banner = [process.stdout.readline()]
        assert banner[0].startswith("Simulating Transcoder on http://127.0.0.1:"), (
            banner[0] + process.stderr.read()
        )
        while (line := process.stdout.readline()) and not line.startswith("Press Ctrl-C"):
            banner.append(line)
        yield banner[0].split()[-1], "".join(banner)
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 0
        assert process.stderr.read() == ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        process.stdout.close()
        process.stderr.close()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_first_hour(tmp_path: Path) -> None:
    app = tmp_path / "transcoder-app"
    app.mkdir()
    spec = (PROJECT / "transcoder.yaml").read_text(encoding="utf-8")
    side = (PROJECT / "transcoder.jobs.yaml").read_text(encoding="utf-8")

    # 1. Every planted mistake, config, spec and side file alike, in one run.
    (app / "pyproject.toml").write_text(slipped(CONFIG, CONFIG_SLIPS), encoding="utf-8")
    (app / "transcoder.yaml").write_text(slipped(spec, SPEC_SLIPS), encoding="utf-8")
    (app / "transcoder.jobs.yaml").write_text(slipped(side, SIDE_SLIPS), encoding="utf-8")
    checked = jobgen(app, "validate")
    assert checked.returncode == 2
    assert checked.stdout == ""
    assert checked.stderr.splitlines() == [
        "error: pyproject.toml#/tool/jobgen/sdk/0/kep: unknown key 'kep' (did you mean 'keep'?)",
        (
            "error: transcoder.yaml#/components/schemas/Transcode/properties/percent/type: "
            "unknown type 'numbr' (did you mean 'number'?)"
        ),
        (
            "error: transcoder.yaml#/paths/~1transcodes/post/requestBody/content/application~1json"
            "/schema/$ref: target '/components/schemas/TranscodeRequst' does not exist "
            "(did you mean '/components/schemas/TranscodeRequest'?)"
        ),
        (
            "error: transcoder.jobs.yaml#/jobs/transcode/id_paramter: unknown key 'id_paramter' "
            "(did you mean 'id_parameter'?)"
        ),
        (
            "error: transcoder.jobs.yaml#/jobs/transcode/status: unknown operationId 'getTranscod' "
            "(did you mean 'getTranscode'?)"
        ),
        "5 problems",
    ]
    # generate refuses the same input with the same problems, and writes nothing.
    refused = jobgen(app, "generate")
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[:-1] == checked.stderr.splitlines()[:-1]
    assert refused.stderr.splitlines()[-1] == "5 problems; nothing was written"
    assert not (app / "sdk").exists()

    # 2. Fixed: valid, and generated where the config says.
    (app / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (app / "transcoder.yaml").write_text(spec, encoding="utf-8")
    (app / "transcoder.jobs.yaml").write_text(side, encoding="utf-8")
    valid = jobgen(app, "validate")
    assert (valid.returncode, valid.stderr) == (0, "")
    assert valid.stdout == "transcoder.yaml: valid (6 schemas, 3 operations, 1 job)\n"
    made = jobgen(app, "generate")
    assert (made.returncode, made.stderr) == (0, ""), made.stderr
    assert re.fullmatch(
        r"sdk: \d+ files, \d+ lines, 6 schemas, 3 operations, 1 job \(\d+\.\d\d s\)\n", made.stdout
    )
    assert (app / "sdk" / "transcoder_sdk" / "py.typed").is_file()
    for name in USER_CODE:
        shutil.copy(PROJECT / name, app / name)

    # 3. The user's code type-checks strictly (both checkers run while the API is simulated).
    checkers = [
        subprocess.Popen(
            argv,
            cwd=app,
            env=user_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for argv in (
            [str(BIN / "mypy"), *USER_CODE],
            [str(BIN / "pyright"), "--pythonpath", sys.executable],
        )
    ]

    # 4. Against `jobgen serve`: first without the side file (it says which to pass), then
    # with it: the scripts, the pytest suite and the FastAPI app.
    forgot = jobgen(app, "serve", "transcoder.yaml", "--port", "0")
    assert forgot.returncode == 2
    assert forgot.stderr.splitlines() == [
        "error: transcoder.yaml#/x-jobgen: declares no jobs: there is nothing to simulate",
        "1 problem",
        (
            "note: pyproject.toml names transcoder.jobs.yaml as its side file: "
            "pass it with --jobs transcoder.jobs.yaml"
        ),
    ]
    args = ("transcoder.yaml", "--jobs", "transcoder.jobs.yaml", "--port", "0")
    with serving(app, *args, "--time-scale", "50", "--webhook-secret", SECRET) as (url, banner):
        assert "transcode    create  POST   /transcodes  (createTranscode)" in banner
        env = user_env(
            TRANSCODER_URL=url,
            TRANSCODER_TOKEN=TOKEN,
            TRANSCODE_WEBHOOK_SECRET=SECRET,
            PUBLIC_URL="http://127.0.0.1:9",  # nothing listens: the test posts the delivery
            PYTHONPATH="sdk",
        )
        one = run(
            app, sys.executable, "transcode_video.py", "https://v.example.com/cat.mov", env=env
        )
        assert (one.returncode, one.stderr) == (0, ""), one.stderr
        assert one.stdout.startswith("transcoded: ")
        many = run(
            app,
            sys.executable,
            "transcode_many.py",
            "https://v.example.com/a",
            "https://v.example.com/b",
            env=env,
        )
        assert (many.returncode, many.stderr) == (0, ""), many.stderr
        assert re.fullmatch(r"(transcode_\w+: done\n){2}", many.stdout), many.stdout
        suite = run(app, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", env=env)
        assert suite.returncode == 0, suite.stdout + suite.stderr
        assert re.search(r"^6 passed", suite.stdout.splitlines()[-1]), suite.stdout

    typed = [checker.communicate(timeout=240)[0] for checker in checkers]
    assert typed[0].splitlines()[-1] == f"Success: no issues found in {len(USER_CODE)} source files"
    assert typed[1].splitlines()[-1] == "0 errors, 0 warnings, 0 informations", typed[1]
    assert [checker.returncode for checker in checkers] == [0, 0]

    # 5. The spec gains a terminal state, the side file classifies it; nothing regenerated.
    run(app, "git", "init", "-q", "-b", "main")
    (app / ".gitignore").write_text(".mypy_cache/\n__pycache__/\n", encoding="utf-8")
    run(app, "git", "add", "-A")
    assert run(app, "git", "commit", "-q", "-m", "Transcoder SDK").returncode == 0
    states = "enum: [queued, transcoding, done, failed]"
    (app / "transcoder.yaml").write_text(
        spec.replace(states, states.replace("failed]", "failed, expired]")), encoding="utf-8"
    )
    (app / "transcoder.jobs.yaml").write_text(
        side.replace("failure: [failed]", "failure: [failed, expired]"), encoding="utf-8"
    )

    stale = jobgen(app, "generate", "--check")
    assert stale.returncode == 1
    assert '+    EXPIRED = "expired"' in stale.stdout
    assert stale.stdout.splitlines()[-3:] == [
        "sdk/transcoder_sdk/models/transcode.py: stale",
        "sdk/transcoder_sdk/resources/transcodes.py: stale",
        (
            "sdk/.jobgen-manifest.json: stale: jobs transcoder.jobs.yaml; spec transcoder.yaml; "
            "2 file hashes"
        ),
    ]
    assert stale.stderr == "1 SDK stale: run `jobgen generate` and commit the result\n"

    diff = jobgen(app, "diff", "git:HEAD:transcoder.yaml", "transcoder.yaml")
    assert diff.returncode == 1
    assert diff.stderr == (
        "side files from pyproject.toml: git:HEAD:transcoder.jobs.yaml (old), "
        "transcoder.jobs.yaml (new)\n"
    )
    assert (
        "  job transcode: new terminal state 'expired' (failure): regenerated waiters stop on it "
        "[job.terminal_state_added]"
    ) in diff.stdout.splitlines()
    assert "suggested version bump: major" in diff.stdout

    run(app, "git", "commit", "-q", "-am", "Transcodes can expire")
    ci = run(
        app,
        sys.executable,
        "-P",
        "-m",
        "jobgen.ci",
        "--base",
        "HEAD~1",
        "--summary",
        "report.md",
    )
    assert ci.returncode == 1
    assert ci.stderr.splitlines()[-3:] == [
        "error: sdk is stale: run `jobgen generate` and commit the result",
        "error: transcoder.yaml: 1 change breaks SDK callers (suggested bump: major)",
        (
            '  to release it, bump the major version (info.version = "2.0.0" in transcoder.yaml, '
            'now "1.0.0"; the SDK\'s version follows it), or let the check through with '
            "--allow-breaking (the Action's allow-breaking input, e.g. from a 'breaking-change' "
            "label: docs/ci.md)"
        ),
    ]
    assert "[job.terminal_state_added]" in (app / "report.md").read_text(encoding="utf-8")
