"""The output directory: swapped atomically whenever the run dies, locked against a second
run, repaired by the next run, and never stripped of files jobgen did not write."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from jobgen.cli import main
from jobgen.render import output
from tests.helpers import ROOT, SPECS, write

# Runs jobgen with the operations of write_tree wrapped to stop at one step (before or
# after a real call), so the test can SIGKILL the process exactly there; "fallback"
# disables the one-step exchange.
DRIVER = """
import os, shutil, sys, time
import jobgen.render.output as output
step, mode = sys.argv[1], sys.argv[2]

def stop_at(name, fn, *, after, nth=1, when=lambda *a: True):
    calls = []
    def wrapped(*args, **kwargs):
        if step == name and when(*args):
            calls.append(args)
        if not after and len(calls) == nth and step == name and when(*args):
            print("paused", flush=True); time.sleep(600)
        result = fn(*args, **kwargs)
        if after and len(calls) == nth and step == name and when(*args):
            print("paused", flush=True); time.sleep(600)
        return result
    return wrapped

if mode == "fallback":
    output._exchange = lambda staging, out: False
output._recover = stop_at("locked", output._recover, after=False)
output._write_file = stop_at("writing", output._write_file, after=True)
output._exchange = stop_at("staged", output._exchange, after=False)
output._exchange = stop_at("exchanged", output._exchange, after=True)
os.rename = stop_at("retired", os.rename, after=True)
os.rename = stop_at("swapped", os.rename, after=True, nth=2)
os.unlink = stop_at("done", os.unlink, after=False, when=lambda p, *a: str(p).endswith("-lock"))
from jobgen.cli import main
sys.exit(main(sys.argv[3:]))
"""

STEPS = ["locked", "writing", "staged", "exchanged", "retired", "swapped", "done"]


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Path, dict[str, bytes]]:
    """spec v1 generated into out/sume; spec v2 (one more field); v2's tree, for reference."""
    spec = tmp_path / "sume.yaml"
    shutil.copy(SPECS / "sume.yaml", spec)
    out = tmp_path / "out" / "sume"
    assert main(["generate", str(spec), "-o", str(out), "--package", "sume_sdk"]) == 0
    v2 = tmp_path / "v2" / "sume.yaml"
    write(
        v2,
        spec.read_text().replace(
            "        title: { type: string }\n",
            "        title: { type: string }\n        level: { type: integer }\n",
        ),
    )
    reference = tmp_path / "reference"
    assert main(["generate", str(v2), "-o", str(reference), "--package", "sume_sdk"]) == 0
    return v2, out, snapshot(reference)


@contextmanager
def paused(step: str, mode: str, *args: str) -> Iterator[subprocess.Popen[str]]:
    """A jobgen run stopped at ``step`` (killed on exit if still alive)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, step, mode, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line == "paused\n", f"never reached {step}: {line!r} {proc.communicate()}"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.mark.parametrize(
    ("step", "mode"),
    [(s, "exchange") for s in STEPS if s not in ("retired", "swapped")]
    + [(s, "fallback") for s in STEPS if s != "exchanged"],
)
def test_a_kill_at_any_step_leaves_the_old_or_the_new_tree(
    versions: tuple[Path, Path, dict[str, bytes]], step: str, mode: str
) -> None:
    v2, out, new = versions
    old = snapshot(out)
    with paused(step, mode, "generate", str(v2), "-o", str(out), "--package", "sume_sdk") as proc:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    if mode == "exchange" or step != "retired":
        assert snapshot(out) in (old, new), "the output is one whole tree"
    else:
        assert not out.exists(), "between the two renames of the fallback"
    # The next run repairs and completes, leaving nothing behind.
    assert main(["generate", str(v2), "-o", str(out), "--package", "sume_sdk", "--check"]) in (
        0,
        1,
    )
    assert main(["generate", str(v2), "-o", str(out), "--package", "sume_sdk"]) == 0
    assert snapshot(out) == new
    assert leftovers(out.parent) == []


def test_the_fallback_puts_the_old_tree_back_when_killed_between_renames(
    versions: tuple[Path, Path, dict[str, bytes]], tmp_path: Path
) -> None:
    v2, out, new = versions
    notes = write(out / "NOTES.md", "kept by the user\n")
    old = snapshot(out)
    with paused("retired", "fallback", "generate", str(v2), "-o", str(out)) as proc:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert not out.exists()
    # A run that fails on bad input writes nothing, repairs nothing.
    broken = write(tmp_path / "broken.yaml", "openapi: 3.0.3\ninfo: {}\npaths: {}\n")
    assert main(["generate", str(broken), "-o", str(out)]) == 2
    assert not out.exists()
    # The next good run puts the old tree back (the user's file with it), then writes.
    assert main(["generate", str(v2), "-o", str(out), "--package", "sume_sdk"]) == 0
    assert notes.read_text() == "kept by the user\n"
    assert snapshot(out) == {**new, "NOTES.md": old["NOTES.md"]}
    assert leftovers(out.parent) == []


def test_a_second_run_into_the_same_output_is_refused_while_the_first_writes(
    versions: tuple[Path, Path, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    v2, out, new = versions
    args = ["generate", str(v2), "-o", str(out), "--package", "sume_sdk"]
    with paused("staged", "exchange", *args) as proc:
        before = snapshot(out)
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"another jobgen run (pid {proc.pid}) is writing {out}" in err
        assert "Traceback" not in err
        assert snapshot(out) == before
    assert main(args) == 0, "the lock died with the killed run"
    assert snapshot(out) == new


def test_regeneration_keeps_files_jobgen_did_not_write(tmp_path: Path) -> None:
    project = tmp_path / "project"
    out = project / "sdk"
    # The spec lives inside the output folder, next to the user's own files.
    spec = write(out / "spec" / "api.yaml", (SPECS / "sume.yaml").read_text())
    notes = write(out / "NOTES.md", "mine\n")
    write(project / "jobgen.toml", '[[sdk]]\nspec = "sdk/spec/api.yaml"\noutput = "sdk"\n')
    assert main(["generate", "--config", str(project / "jobgen.toml")]) == 0
    pkg = next(p for p in out.iterdir() if (p / "__init__.py").is_file())
    custom = write(pkg / "_custom" / "__init__.py", "EXTRA = 1\n")
    os.symlink("NOTES.md", out / "LINK.md")
    spec.write_text(spec.read_text().replace("title: { type: string }", "title: {type: string}"))
    assert main(["generate", "--config", str(project / "jobgen.toml")]) == 0
    assert spec.is_file() and notes.read_text() == "mine\n" and custom.read_text() == "EXTRA = 1\n"
    assert os.readlink(out / "LINK.md") == "NOTES.md"
    assert main(["generate", "--config", str(project / "jobgen.toml"), "--check"]) == 0


def test_a_file_in_the_way_of_a_generated_one_is_named_and_nothing_changes(
    versions: tuple[Path, Path, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    v2, out, _ = versions
    v3 = v2.parent / "v3.yaml"
    v3.write_text(
        v2.read_text().replace(
            "    ResultSection:\n",
            "    Appendix:\n      type: object\n      properties:\n        page: {type: integer}\n"
            "    ResultSection:\n",
        )
    )
    mine = write(out / "sume_sdk" / "models" / "appendix.py", "# my own module\n")
    before = snapshot(out)
    assert main(["generate", str(v3), "-o", str(out), "--package", "sume_sdk"]) == 2
    err = capsys.readouterr().err
    assert f"{mine} was not written by jobgen" in err
    assert snapshot(out) == before
    assert leftovers(out.parent) == []


def test_files_jobgen_wrote_and_no_longer_generates_are_extra_then_deleted(
    versions: tuple[Path, Path, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    v2, out, _ = versions
    spec = v2.parent.parent / "sume.yaml"
    spec.write_text(
        spec.read_text()
        .replace(
            '            $ref: "#/components/schemas/ResultSection"', "            type: string"
        )
        .replace(
            "    ResultSection:\n      type: object\n      description: One titled part of the summary.\n"
            "      required: [title, text]\n      properties:\n        title: { type: string }\n"
            "        text: { type: string }\n",
            "",
        )
    )
    args = ["generate", str(spec), "-o", str(out), "--package", "sume_sdk"]
    capsys.readouterr()
    assert main([*args, "--check"]) == 1
    assert f"{out}/sume_sdk/models/result_section.py: extra" in capsys.readouterr().out
    assert main(args) == 0
    assert not (out / "sume_sdk" / "models" / "result_section.py").exists()


def test_only_the_manifest_says_what_jobgen_wrote(
    versions: tuple[Path, Path, dict[str, bytes]],
) -> None:
    """A copy of a generated module, marker line and all, is the user's once it is not in
    the manifest; without a manifest (a tree from before manifests) the marker decides."""
    v2, out, _ = versions
    models = out / "sume_sdk" / "models"
    copy = write(models / "my_job.py", (models / "job.py").read_text())
    args = ["generate", str(v2), "-o", str(out), "--package", "sume_sdk"]
    assert main(args) == 0
    assert copy.is_file()
    (out / ".jobgen-manifest.json").unlink()
    assert main(args) == 0
    assert not copy.exists()


@pytest.mark.parametrize("flush", ["syncfs", "fsync"])
def test_the_new_tree_and_its_parent_reach_the_disk_around_the_swap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flush: str
) -> None:
    """The new tree is on the disk before the swap: its file system flushed in one
    syncfs(2) call where Linux offers it, otherwise every file and directory fsynced;
    the parent directory is fsynced before the swap (the staging entry) and after it
    (the swap itself)."""
    if flush == "syncfs" and output._syncfs_call() is None:
        pytest.skip("syncfs(2) is Linux-only")  # the fsync case covers other systems
    if flush == "fsync":
        monkeypatch.setattr(output, "_syncfs_call", lambda: None)
    out = tmp_path / "out" / "sume"
    args = ["generate", str(SPECS / "sume.yaml"), "-o", str(out), "--package", "sume_sdk"]
    assert main(args) == 0
    events: list[tuple[str, str]] = []
    real_fsync, real_exchange, real_syncfs = os.fsync, output._exchange, output._syncfs

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def syncfs(call: Callable[[int], int], root: Path) -> None:
        events.append(("syncfs", str(root)))
        real_syncfs(call, root)

    def exchange(staging: Path, target: Path) -> bool:
        events.append(("swap", str(staging)))
        return real_exchange(staging, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(output, "_syncfs", syncfs)
    monkeypatch.setattr(output, "_exchange", exchange)
    assert main([*args, "--sdk-version", "9.9.9"]) == 0

    swaps = [n for n, (what, _) in enumerate(events) if what == "swap"]
    assert len(swaps) == 1, events
    staging = Path(events[swaps[0]][1])
    before = {path for what, path in events[: swaps[0]] if what == "fsync"}
    after = {path for what, path in events[swaps[0] :] if what == "fsync"}
    synced = [path for what, path in events[: swaps[0]] if what == "syncfs"]
    if flush == "syncfs":
        assert synced == [str(staging)]
        assert not any(path.startswith(f"{staging}/") for path in before)  # no fsync per file
    else:
        assert not synced
        written = {
            staging / p.relative_to(out) for p in out.rglob("*") if "__pycache__" not in p.parts
        }
        assert {str(p) for p in written} | {str(staging)} <= before
    assert str(out.parent) in before and str(out.parent) in after
