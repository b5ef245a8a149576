"""`jobgen serve` from the shell: prints its URL, serves until Ctrl-C, exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import yaml

from jobgen.server.listen import bind
from tests.helpers import ROOT, SPECS, imported_sdk, write
from tests.server.test_answers import IMPOSSIBLE

JOBGEN = Path(sys.executable).with_name("jobgen")


@contextmanager
def serving(*args: str) -> Iterator[tuple[subprocess.Popen[str], str, list[str]]]:
    """Run ``jobgen serve ARGS`` in the background; yield it, its base URL and its banner."""
    process = subprocess.Popen(
        [str(JOBGEN), "serve", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("Simulating "), first + (
            process.stderr.read() if process.stderr else ""
        )
        url = first.split()[-1]
        banner = [first]
        while (line := process.stdout.readline()) and not line.startswith("Press Ctrl-C"):
            banner.append(line)
        yield process, url, banner
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_serve_in_the_background_then_ctrl_c() -> None:
    with serving("specs/sume.yaml", "--port", "0") as (process, url, banner):
        text = "".join(banner)
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
        assert f"SDK base_url: {url}\n" in banner
        assert "GET    /v1/jobs/{job_id}  (getJob)" in text and f"{url}/_jobgen/jobs" in text
        # Every route served, with its operation id: cancel and events too.
        assert "cancel  POST   /v1/jobs/{job_id}/cancel  (cancelJob)" in text
        assert "events  GET    /v1/jobs/{job_id}/events  (streamJobEvents)" in text
        made = httpx.post(f"{url}/_jobgen/jobs", json={"states": [], "final": "failed"})
        job_id = made.json()["id"]
        answer = httpx.get(f"{url}/v1/jobs/{job_id}", headers={"x-api-key": "k"})
        assert answer.json()["data"]["status"] == "failed"
        created = httpx.post(
            f"{url}/v1/jobs",
            headers={"x-api-key": "k", "x-jobgen-scenario": '{"final": "never"}'},
            json={"input": {"type": "text", "text": "x"}},
        )
        assert created.status_code == 202
        log = httpx.get(f"{url}/_jobgen/requests", headers={"x-api-key": "k"}).json()
        assert [entry["operation"] for entry in log["requests"]] == ["status", "create"]
        assert httpx.get(f"{url}/_jobgen/requests").json() == {"requests": []}
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
        assert process.stderr is not None and process.stderr.read() == ""


def test_serve_lenient_answers_what_the_spec_forbids() -> None:
    wrong = {"input": {"type": "nope"}}
    with serving("specs/sume.yaml", "--port", "0") as (process, url, _):
        strict = httpx.post(f"{url}/v1/jobs", headers={"x-api-key": "k"}, json=wrong)
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    with serving("specs/sume.yaml", "--port", "0", "--lenient") as (process, url, _):
        lenient = httpx.post(f"{url}/v1/jobs", headers={"x-api-key": "k"}, json=wrong)
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    assert (strict.status_code, lenient.status_code) == (400, 202)
    assert "/body/input" in strict.json()["message"]


def test_bad_spec_exits_2(tmp_path: Path) -> None:
    broken = write(
        tmp_path / "broken.yaml", "openapi: 3.0.3\ninfo: {title: X, version: '1'}\npaths: [\n"
    )
    done = subprocess.run(
        [str(JOBGEN), "serve", str(broken), "--port", "0"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "is not valid YAML" in done.stderr and "Traceback" not in done.stderr


def test_spec_without_jobs_exits_2(tmp_path: Path) -> None:
    plain = write(
        tmp_path / "plain.yaml", "openapi: 3.0.3\ninfo: {title: X, version: '1'}\npaths: {}\n"
    )
    done = subprocess.run(
        [str(JOBGEN), "serve", str(plain), "--port", "0"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "declares no jobs" in done.stderr


def test_port_in_use_exits_2() -> None:
    taken = bind("127.0.0.1", 0)
    try:
        port = str(taken.getsockname()[1])
        done = subprocess.run(
            [str(JOBGEN), "serve", str(SPECS / "sume.yaml"), "--port", port],
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        taken.close()
    assert done.returncode == 2
    assert "Address already in use" in done.stderr


def test_job_limits_on_the_command_line() -> None:
    args = ("specs/sume.yaml", "--port", "0", "--job-ttl", "60", "--max-jobs", "2")
    with serving(*args) as (process, url, _):
        made = [httpx.post(f"{url}/_jobgen/jobs").json()["id"] for _ in range(3)]
        codes = [
            httpx.get(f"{url}/v1/jobs/{job}", headers={"x-api-key": "k"}).status_code
            for job in made
        ]
        assert codes == [404, 200, 200]  # the oldest of three was forgotten
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


def test_bad_job_limits_exit_2() -> None:
    for flag, value in (("--job-ttl", "-1"), ("--max-jobs", "many"), ("--max-log", "1.5")):
        done = subprocess.run(
            [str(JOBGEN), "serve", str(SPECS / "sume.yaml"), "--port", "0", flag, value],
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 2, (flag, value)
        assert f"argument {flag}" in done.stderr and "Traceback" not in done.stderr


def test_serve_reads_refs_above_the_spec_with_ref_root(tmp_path: Path) -> None:
    spec = yaml.safe_load((SPECS / "sume.yaml").read_text())
    common = {
        "components": {"schemas": {"JobError": spec["components"]["schemas"].pop("JobError")}}
    }
    text = yaml.safe_dump(spec, sort_keys=False).replace(
        "'#/components/schemas/JobError'", "../common/errors.yaml#/components/schemas/JobError"
    )
    path = write(tmp_path / "svc" / "sume.yaml", text)
    write(tmp_path / "common" / "errors.yaml", yaml.safe_dump(common))
    refused = subprocess.run(
        [str(JOBGEN), "serve", str(path), "--port", "0"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2
    assert "points outside the spec's folder; widen it with --ref-root DIR" in refused.stderr
    with serving(str(path), "--port", "0", "--ref-root", str(tmp_path)) as (process, url, _):
        made = httpx.post(f"{url}/_jobgen/jobs", json={"states": [], "final": "failed"})
        assert made.status_code in (200, 201)
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


def test_a_bad_time_scale_exits_2() -> None:
    for value in ("0", "-2", "nan", "fast", "1e9"):
        done = subprocess.run(
            [str(JOBGEN), "serve", str(SPECS / "sume.yaml"), "--port", "0", "--time-scale", value],
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 2, value
        assert "--time-scale" in done.stderr and "Traceback" not in done.stderr


def test_serve_self_check_strict_names_the_violation(tmp_path: Path) -> None:
    """An answer the spec forbids (a quota no integer satisfies) is a 500 naming it."""
    spec = write(tmp_path / "impossible.yaml", yaml.safe_dump(IMPOSSIBLE))
    with serving(str(spec), "--port", "0", "--self-check", "strict") as (process, url, banner):
        assert f"GET  {url}/_jobgen/self-check" in "".join(banner)
        answer = httpx.post(f"{url}/jobs", headers={"x-key": "k"})
        seen = httpx.get(f"{url}/_jobgen/self-check", headers={"x-key": "k"}).json()
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    assert answer.status_code == 500 and "/body/quota" in answer.json()["error"]["message"]
    assert (seen["mode"], seen["violations"]) == ("strict", 1)
    assert "/body/quota" in seen["yours"][0]["problems"][0]


def test_a_bad_self_check_mode_exits_2() -> None:
    done = subprocess.run(
        [str(JOBGEN), "serve", str(SPECS / "sume.yaml"), "--port", "0", "--self-check", "loud"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "--self-check" in done.stderr
    env = {**os.environ, "JOBGEN_SERVE_SELF_CHECK": "loud"}
    done = subprocess.run(
        [str(JOBGEN), "serve", str(SPECS / "sume.yaml"), "--port", "0"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert done.returncode == 2, done.stderr
    assert "JOBGEN_SERVE_SELF_CHECK" in done.stderr and "Traceback" not in done.stderr


def test_the_banner_base_url_works_as_printed(tmp_path: Path) -> None:
    """A spec whose server URL has a path (``https://{endpoint}/documentintelligence``):
    the banner prints routes as paths and the one URL to give the SDK, which waits for a
    job there as printed."""
    spec = ROOT / "tests" / "specs" / "azure_document_intelligence_lro.yaml"
    with (
        serving(str(spec), "--port", "0") as (process, url, banner),
        imported_sdk(spec, tmp_path, "di_banner_sdk") as sdk,
    ):
        (printed,) = [line for line in banner if line.startswith("SDK base_url: ")]
        base_url = printed.removeprefix("SDK base_url: ").strip()
        assert base_url == url
        routes = [line for line in banner if "(analyzeDocument)" in line]
        assert routes and all("://" not in line for line in routes)
        fast = sdk.WaitConfig(floor=0.0, first=0.01, cap=0.02)
        with sdk.Client(base_url=base_url, api_key="k", wait_config=fast) as client:
            result = client.document_models.create_and_wait(
                model_id="prebuilt-layout",
                body=sdk.models.AnalyzeDocumentRequest(url_source="https://example.test/a.pdf"),
                deadline=30,
                extra_headers={"x-jobgen-scenario": '{"states": [], "final": "succeeded"}'},
            )
        # The operation's result (the succeeded record's analyzeResult).
        assert type(result).__name__ == "AnalyzeResult"
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
