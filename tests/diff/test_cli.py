"""``jobgen diff``: exit codes, text and JSON output, side files and git revisions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from jobgen.cli import main
from tests.diff.specs import dump, job, props, schemas, sume
from tests.helpers import SPECS, write


def terminal_state_added(spec: dict[str, Any]) -> dict[str, Any]:
    props(spec, "Job")["status"]["enum"].append("expired")
    job(spec)["state"]["failure"].append("expired")
    return spec


def pending_state_added(spec: dict[str, Any]) -> dict[str, Any]:
    props(spec, "Job")["status"]["enum"].append("paused")
    job(spec)["state"]["pending"].append("paused")
    return spec


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    old = dump(tmp_path / "old.yaml", sume())
    new = dump(tmp_path / "new.yaml", terminal_state_added(sume()))
    return old, new


def test_identical_specs_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    spec = str(SPECS / "sume.yaml")
    assert main(["diff", spec, spec]) == 0
    out = capsys.readouterr().out
    assert "no changes for SDK callers; suggested version bump: none" in out


def test_breaking_change_exits_1_with_text(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = pair
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Sume API 1.0.0 -> Sume API 1.0.0"
    assert "2 changes: 1 breaking, 1 addition, 0 other; suggested version bump: major" in out
    breaking = lines.index("Breaking changes (1):")
    additions = lines.index("Additions (1):")
    assert breaking < additions
    assert lines[breaking + 1 : breaking + 3] == [
        (
            "  job job: new terminal state 'expired' (failure): regenerated waiters stop on it "
            "[job.terminal_state_added]"
        ),
        "    server first: deployed SDKs raise UnknownJobState when the server reports 'expired'",
    ]
    assert lines[2] == (
        "rollout: 1 break SDKs already deployed if the server ships first, 0 break regenerated "
        "SDKs if they ship before the server"
    )
    assert "schema JobStatus: new value 'expired'" in lines[additions + 1]


def test_non_breaking_change_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = dump(tmp_path / "old.yaml", sume())
    spec = sume()
    props(spec, "Job")["priority"] = {"type": "integer"}
    new = dump(tmp_path / "new.yaml", spec)
    assert main(["diff", str(old), str(new), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["bump"] == "minor"
    assert data["summary"]["breaking"] == 0
    assert {c["kind"] for c in data["changes"]} == {"field.added"}


def test_a_new_pending_state_breaks_deployed_sdks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regenerated waiters poll through it; SDKs already deployed raise UnknownJobState (W2)
    the moment the server ships it: breaking, with the population it breaks in the JSON."""
    old = dump(tmp_path / "old.yaml", sume())
    new = dump(tmp_path / "new.yaml", pending_state_added(sume()))
    assert main(["diff", str(old), str(new), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["bump"] == "major"
    assert data["summary"]["breaks_deployed"] == 1
    assert data["summary"]["breaks_regenerated"] == 0
    (state,) = [c for c in data["changes"] if c["kind"] == "job.pending_state_added"]
    assert state["breaking"] is True
    assert state["rollout"] == {
        "deployed": "deployed SDKs raise UnknownJobState when the server reports 'paused'",
        "regenerated": None,
    }


def test_json_output_is_stable(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old, new = pair
    assert main(["diff", str(old), str(new), "--format", "json"]) == 1
    first = capsys.readouterr().out
    assert main(["diff", str(old), str(new), "--format", "json"]) == 1
    assert capsys.readouterr().out == first
    data = json.loads(first)
    assert first == json.dumps(data, indent=2, sort_keys=True) + "\n"
    assert data["summary"] == {
        "additions": 1,
        "breaking": 1,
        "breaks_deployed": 1,
        "breaks_regenerated": 0,
        "bump": "major",
        "other": 0,
        "total": 2,
    }
    assert data["changes"][0] == {
        "breaking": True,
        "kind": "job.terminal_state_added",
        "location": "job job",
        "message": "new terminal state 'expired' (failure): regenerated waiters stop on it",
        "rollout": {
            "deployed": "deployed SDKs raise UnknownJobState when the server reports 'expired'",
            "regenerated": None,
        },
    }
    assert (data["old"], data["new"]) == ("Sume API 1.0.0", "Sume API 1.0.0")


def test_bad_spec_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = sume()
    job(bad)["state"]["field"] = "/stat"
    broken = dump(tmp_path / "broken.yaml", bad)
    assert main(["diff", str(SPECS / "sume.yaml"), str(broken)]) == 2
    err = capsys.readouterr().err
    assert f"error: {broken}#/x-jobgen/jobs/job/state/field:" in err
    assert "Traceback" not in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(SPECS / "sume.yaml"), str(tmp_path / "nope.yaml")]) == 2
    assert f"error: {tmp_path / 'nope.yaml'}#: file not found" in capsys.readouterr().err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["diff", "a.yaml", "b.yaml", "--format", "xml"])
    assert caught.value.code == 2
    capsys.readouterr()


def test_side_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = sume()
    jobs = {"jobs": spec.pop("x-jobgen")["jobs"]}
    path = dump(tmp_path / "spec.yaml", spec)
    old_side = dump(tmp_path / "old.jobs.yaml", jobs)
    jobs["jobs"]["job"]["poll"]["cap"] = 60.0
    new_side = dump(tmp_path / "new.jobs.yaml", jobs)
    args = ["diff", str(path), str(path), "--jobs", str(old_side)]
    assert main(args) == 0
    assert "suggested version bump: none" in capsys.readouterr().out
    assert main([*args, "--new-jobs", str(new_side), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["kind"] for c in data["changes"]] == ["job.poll_changed"]
    assert data["summary"]["bump"] == "patch"


# --- git revisions -----------------------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def split_errors(spec: dict[str, Any]) -> dict[str, Any]:
    """Move the JobError schema to common/errors.yaml, so the spec has a relative $ref."""
    common = {"components": {"schemas": {"JobError": schemas(spec).pop("JobError")}}}
    text = yaml.safe_dump(spec, sort_keys=False).replace(
        "'#/components/schemas/JobError'", "common/errors.yaml#/components/schemas/JobError"
    )
    return {"spec": yaml.safe_load(text), "common": common}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    first = split_errors(sume())
    dump(repo / "spec.yaml", first["spec"])
    dump(repo / "common" / "errors.yaml", first["common"])
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "one")
    second = split_errors(terminal_state_added(sume()))
    job_error = second["common"]["components"]["schemas"]["JobError"]
    job_error["properties"]["retryable"] = {"type": "boolean"}
    job_error["required"].append("retryable")
    dump(repo / "spec.yaml", second["spec"])
    dump(repo / "common" / "errors.yaml", second["common"])
    git(repo, "commit", "-q", "-am", "two")
    monkeypatch.chdir(repo)
    return repo


@needs_git
def test_git_revisions(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "git:HEAD~1:spec.yaml", "git:HEAD:spec.yaml", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {(c["kind"], c["location"]) for c in data["changes"]} == {
        ("job.terminal_state_added", "job job"),
        ("enum.value_added", "schema JobStatus"),
        ("field.added", "schema JobError.retryable"),
    }


@needs_git
def test_git_revision_against_working_tree(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "git:HEAD:spec.yaml", "spec.yaml"]) == 0
    assert "suggested version bump: none" in capsys.readouterr().out


@needs_git
def test_git_path_relative_to_current_folder(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo / "common")
    assert main(["diff", "git:HEAD~1:../spec.yaml", "git:HEAD~1:spec.yaml"]) == 0
    assert "suggested version bump: none" in capsys.readouterr().out


@needs_git
@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("git:HEAD~5:spec.yaml", "error: git:HEAD~5:spec.yaml#: git ls-tree failed: "),
        ("git:HEAD:missing.yaml", "error: git:HEAD:missing.yaml#: no file missing.yaml at"),
        ("git:HEAD", "error: git:HEAD#: expected git:REV:path"),
    ],
)
def test_git_errors_exit_2(
    repo: Path, source: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", source, "spec.yaml"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


@needs_git
def test_git_spec_errors_name_the_revision(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = sume()
    job(broken)["state"]["field"] = "/stat"
    write(repo / "spec.yaml", yaml.safe_dump(broken))
    git(repo, "commit", "-q", "-am", "three")
    assert main(["diff", "git:HEAD~1:spec.yaml", "git:HEAD:spec.yaml"]) == 2
    assert "error: git:HEAD:spec.yaml#/x-jobgen/jobs/job/state/field:" in capsys.readouterr().err


def test_git_outside_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert main(["diff", "git:HEAD:spec.yaml", str(SPECS / "sume.yaml")]) == 2
    assert "error: git:HEAD:spec.yaml#: " in capsys.readouterr().err


@needs_git
def test_git_side_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    side = {"jobs": yaml.safe_load((repo / "spec.yaml").read_text())["x-jobgen"]["jobs"]}
    side["jobs"]["job"]["poll"]["floor"] = 3.0
    dump(repo / "side.jobs.yaml", side)
    git(repo, "add", "side.jobs.yaml")
    git(repo, "commit", "-q", "-m", "side")
    args = ["diff", "spec.yaml", "spec.yaml", "--new-jobs", "git:HEAD:side.jobs.yaml"]
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["message"] for c in data["changes"]] == ["poll floor 2.0 -> 3.0"]


@needs_git
def test_git_revisions_compare_constraints_in_referenced_files(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Constraints are read from the documents of each revision, after they are gone from
    disk, through a relative ``$ref`` into another file."""
    errors = yaml.safe_load((repo / "common" / "errors.yaml").read_text(encoding="utf-8"))
    errors["components"]["schemas"]["JobError"]["properties"]["message"]["maxLength"] = 100
    dump(repo / "common" / "errors.yaml", errors)
    git(repo, "commit", "-q", "-am", "three")
    assert main(["diff", "git:HEAD~1:spec.yaml", "git:HEAD:spec.yaml"]) == 0
    out = capsys.readouterr().out
    assert "schema JobError.message: maxLength (none) -> 100 [constraint.tightened]" in out


@pytest.fixture
def side_file_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose config lists the spec with its side file; the second commit adds
    a terminal state to both, as a spec change does."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for version, change in (("one", lambda s: s), ("two", terminal_state_added)):
        spec = change(sume())
        dump(repo / "api" / "spec.yaml", {k: v for k, v in spec.items() if k != "x-jobgen"})
        dump(repo / "api" / "spec.jobs.yaml", {"jobs": spec["x-jobgen"]["jobs"]})
        write(
            repo / "pyproject.toml",
            '[[tool.jobgen.sdk]]\nspec = "api/spec.yaml"\noutput = "sdk"\n'
            'jobs = "api/spec.jobs.yaml"\n',
        )
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", version)
    monkeypatch.chdir(repo)
    return repo


@pytest.fixture
def shared_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The spec in svc/ refers to common/errors.yaml above its folder (as Azure's do)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    first = split_errors(sume())
    text = yaml.safe_dump(first["spec"], sort_keys=False).replace(
        "common/errors.yaml#", "../common/errors.yaml#"
    )
    (repo / "svc").mkdir()
    (repo / "svc" / "spec.yaml").write_text(text)
    dump(repo / "common" / "errors.yaml", first["common"])
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "one")
    job_error = first["common"]["components"]["schemas"]["JobError"]
    job_error["properties"]["retryable"] = {"type": "boolean"}
    dump(repo / "common" / "errors.yaml", first["common"])
    monkeypatch.chdir(repo)
    return repo


@needs_git
def test_diff_reads_the_side_files_the_config_lists(
    side_file_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --jobs, each spec gets the side file the config names for it, a revision's
    as it was at that revision: the new terminal state is seen and breaks."""
    assert main(["diff", "git:HEAD~1:api/spec.yaml", "api/spec.yaml"]) == 1
    out, err = capsys.readouterr()
    assert "[job.terminal_state_added]" in out
    assert err.splitlines() == [
        (
            "side files from pyproject.toml: "  # named from where the command runs
            "git:HEAD~1:api/spec.jobs.yaml (old), api/spec.jobs.yaml (new)"
        )
    ]


@needs_git
def test_an_old_spec_refused_by_the_new_side_file_says_which_revision_and_what_to_pass(
    side_file_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new_side = side_file_repo / "api" / "spec.jobs.yaml"
    text = new_side.read_text().replace("status: getJob", "status: getJobV2")
    spec = side_file_repo / "api" / "spec.yaml"
    write(spec, spec.read_text().replace("operationId: getJob\n", "operationId: getJobV2\n"))
    write(new_side, text)
    assert main(["diff", "git:HEAD:api/spec.yaml", "api/spec.yaml", "--jobs", str(new_side)]) == 2
    err = capsys.readouterr().err
    assert "unknown operationId 'getJobV2'" in err
    assert err.rstrip().splitlines()[-1] == (
        f"note: these problems are in the old spec git:HEAD:api/spec.yaml read with the side "
        f"file {new_side}; if that side file describes the new spec only, give the old spec's "
        "with --old-jobs OLD_SIDE and the new one's with --new-jobs NEW_SIDE"
    )
    old_side = "git:HEAD:api/spec.jobs.yaml"
    args = ["diff", "git:HEAD:api/spec.yaml", "api/spec.yaml", "--old-jobs", old_side]
    assert main([*args, "--new-jobs", str(new_side)]) == 1
    assert "[operation.renamed]" in capsys.readouterr().out


def test_ref_root_reaches_shared_files_at_the_revision_too(
    shared_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", "svc/spec.yaml", "svc/spec.yaml"]) == 2
    assert "points outside the spec's folder; widen it with --ref-root DIR" in (
        capsys.readouterr().err
    )
    assert main(["diff", "svc/spec.yaml", "svc/spec.yaml", "--ref-root", "."]) == 0
    capsys.readouterr()
    # The old spec's errors.yaml is the committed one: the working tree added a field.
    args = ["diff", "git:HEAD:svc/spec.yaml", "svc/spec.yaml", "--ref-root", "."]
    assert main([*args, "--format", "json"]) == 0
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert [(c["kind"], c["location"]) for c in changes] == [
        ("field.added", "schema JobError.retryable")
    ]
