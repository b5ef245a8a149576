"""``python -m jobgen.ci``, the script behind the GitHub Action, run on a git repository
with two commits, as the action runs it in a pull request."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.ci.repo import CONFIG, clean_env, commit, generate, git, new_repo, sume, write_spec
from tests.helpers import write


def ci(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run the report as the action does; returns the process and the job summary."""
    if env is None:
        summary = repo.parent / "summary.md"
        summary.unlink(missing_ok=True)
        env = clean_env(GITHUB_STEP_SUMMARY=str(summary))
    summary = Path(env["GITHUB_STEP_SUMMARY"])
    done = subprocess.run(
        [sys.executable, "-m", "jobgen.ci", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    return done, summary.read_text(encoding="utf-8") if summary.exists() else ""


def test_compatible_change_regenerated_passes(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    spec["components"]["schemas"]["Job"]["properties"]["priority"] = {"type": "integer"}
    spec["info"]["version"] = "1.1.0"  # the minor bump an addition needs
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "Jobs have a priority")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 0, done.stderr
    assert "| `generated/sume` | `specs/sume.yaml` | up to date | " in summary
    assert "0 breaking, 1 addition, 0 other; suggested bump: minor" in summary
    assert "schema Job.priority: new optional field priority" in summary
    assert "Specs compared with `HEAD~1`." in summary
    assert done.stdout.startswith("generated/sume: up to date;")
    # As docs/ci.md runs it outside GitHub: the report into a file named on the command line.
    report = repo.parent / "report.md"
    again = subprocess.run(
        [sys.executable, "-P", "-m", "jobgen.ci", "--base", "HEAD~1", "--summary", str(report)],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=clean_env(),
    )
    assert again.returncode == 0
    assert report.read_text(encoding="utf-8") == summary


def test_breaking_change_fails_unless_allowed(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    del spec["components"]["schemas"]["Job"]["properties"]["mode"]
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "Drop Job.mode")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 1
    assert "| up to date | 2 breaking, 0 additions, 0 other; suggested bump: major |" in summary
    assert "schema Job.mode: field mode was removed from Job [field.removed]" in summary
    assert done.stderr.splitlines()[-2:] == [
        "error: specs/sume.yaml: 2 changes break SDK callers (suggested bump: major)",
        (
            '  to release them, bump the major version (info.version = "2.0.0" in '
            'specs/sume.yaml, now "1.0.0"; the SDK\'s version follows it), or let the check '
            "through with --allow-breaking (the Action's allow-breaking input, e.g. from a "
            "'breaking-change' label: docs/ci.md)"
        ),
    ]
    allowed, again = ci(repo, "--base", "HEAD~1", "--allow-breaking")
    assert allowed.returncode == 0
    assert again == summary
    assert "error:" not in allowed.stderr
    # Let through, the report still says which bump is missing.
    assert allowed.stderr.splitlines()[-1] == (
        "warning: generated/sume: 2 changes break callers and the major version bump is still "
        'missing: set info.version = "2.0.0" in specs/sume.yaml, now "1.0.0"; the SDK\'s '
        "version follows it"
    )


def test_a_breaking_change_with_its_major_bump_passes(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    del spec["components"]["schemas"]["Job"]["properties"]["mode"]
    spec["info"]["version"] = "2.0.0"
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "Drop Job.mode, version 2")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 0, done.stderr
    assert "suggested bump: major" in summary
    assert "error:" not in done.stderr and "warning:" not in done.stderr


def test_an_addition_without_a_minor_bump_fails_or_warns_as_configured(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    spec["components"]["schemas"]["Job"]["properties"]["priority"] = {"type": "integer"}
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "Jobs have a priority, info.version unchanged")
    done, _ = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "error: specs/sume.yaml: 1 addition without a minor version bump: set "
        'info.version = "1.1.0" in specs/sume.yaml, now "1.0.0"; the SDK\'s version follows it'
        ' (or version_check = "warn" in its config entry)'
    )
    # --allow-breaking is about breaking changes: an unbumped addition still fails.
    allowed, _ = ci(repo, "--base", "HEAD~1", "--allow-breaking")
    assert allowed.returncode == 1
    (repo / "pyproject.toml").write_text(CONFIG + 'version_check = "warn"\n', encoding="utf-8")
    commit(repo, "Warn only")
    warned, _ = ci(repo, "--base", "HEAD~2")
    assert warned.returncode == 0, warned.stderr
    assert warned.stderr.splitlines()[-1].startswith(
        "warning: specs/sume.yaml: 1 addition without a minor version bump: set "
    )


def test_a_new_pending_state_breaks_deployed_sdks_and_needs_a_major_bump(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    spec["components"]["schemas"]["Job"]["properties"]["status"]["enum"].append("paused")
    spec["x-jobgen"]["jobs"]["job"]["state"]["pending"].append("paused")
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "A paused state")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 1
    assert "job job: new pending state 'paused'" in summary
    assert (
        "server first: deployed SDKs raise UnknownJobState when the server reports 'paused'"
        in summary
    )
    assert "error: specs/sume.yaml: 1 change breaks SDK callers (suggested bump: major)" in (
        done.stderr
    )


def test_a_pinned_version_kept_across_a_breaking_change_is_named(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", config=CONFIG + 'version = "1.4.0"\n')
    spec = sume()
    del spec["components"]["schemas"]["Job"]["properties"]["mode"]
    spec["info"]["version"] = "2.0.0"
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "Drop Job.mode")
    done, _ = ci(repo, "--base", "HEAD~1", "--allow-breaking")
    assert done.returncode == 0
    assert done.stderr.splitlines()[-1] == (
        'warning: generated/sume keeps version = "1.4.0" from the base revision in '
        'pyproject.toml although 2 changes break callers: set version = "2.0.0" for '
        "generated/sume in pyproject.toml"
    )
    failed, _ = ci(repo, "--base", "HEAD~1")
    assert failed.returncode == 1
    assert '(version = "2.0.0" for generated/sume in pyproject.toml)' in failed.stderr


def test_stale_sdk_fails_and_names_the_file(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    spec["components"]["schemas"]["Job"]["properties"]["priority"] = {"type": "integer"}
    write_spec(repo, spec)
    commit(repo, "Spec changed, SDK not regenerated")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 1
    assert "| stale (" in summary
    assert "run `jobgen generate` and commit the result" in summary
    assert "- `sume_sdk/models/job.py (stale)`" in summary
    assert "<details><summary>Diff</summary>" in summary


def test_hand_edit_of_generated_code_fails(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    client = next((repo / "generated" / "sume").rglob("_client.py"))
    client.write_text(client.read_text(encoding="utf-8") + "# edited by hand\n", "utf-8")
    commit(repo, "Hand edit")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 1
    assert "_client.py (stale)" in summary
    assert "no changes" in summary


def test_spec_new_in_the_pull_request_is_reported_as_new(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    other = sume()
    other["info"]["title"] = "Other API"
    write_spec(repo, other, "other.yaml")
    config = CONFIG + CONFIG.replace("sume", "other")
    write(repo / "pyproject.toml", config)
    generate(repo)
    commit(repo, "A second SDK")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 0, done.stderr
    assert (
        "| `generated/other` | `specs/other.yaml` | up to date | "
        "new spec (absent at the base revision) |" in summary
    )
    assert "| `generated/sume` | `specs/sume.yaml` | up to date | no changes |" in summary


def test_spec_that_does_not_validate_exits_2(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    spec["paths"]["/v1/jobs/{job_id}"]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ] = {"$ref": "#/components/schemas/Missing"}
    write_spec(repo, spec)
    commit(repo, "A broken reference")
    done, summary = ci(repo, "--base", "HEAD~1")
    assert done.returncode == 2
    assert "| `generated/sume` | `specs/sume.yaml` | error | error |" in summary
    assert "specs/sume.yaml#/paths/~1v1~1jobs~1{job_id}/get/responses/200" in summary
    assert "Traceback" not in done.stderr


def test_unknown_base_exits_2(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    done, summary = ci(repo, "--base", "origin/nope")
    assert done.returncode == 2
    assert "unknown base revision 'origin/nope'" in summary
    assert "fetch-depth: 0" in done.stderr


def test_pull_request_base_comes_from_the_environment(tmp_path: Path) -> None:
    """In a pull request GitHub sets GITHUB_BASE_REF; the base is origin/<that branch>."""
    repo = new_repo(tmp_path / "repo")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    spec = sume()
    del spec["components"]["schemas"]["Job"]["properties"]["mode"]
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "Drop Job.mode")
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    env = clean_env(GITHUB_BASE_REF="main", GITHUB_STEP_SUMMARY=str(summary))
    done, text = ci(repo, env=env)
    assert done.returncode == 1
    assert text.startswith("earlier step\n## jobgen: generated SDKs\n")
    assert "Specs compared with `origin/main`." in text


def test_without_a_base_only_the_stale_check_runs(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    done = subprocess.run(
        [sys.executable, "-m", "jobgen.ci"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=clean_env(),
    )
    assert done.returncode == 0
    assert "No base revision: stale check only." in done.stdout
    assert "| `generated/sume` | `specs/sume.yaml` | up to date | not compared |" in done.stdout
