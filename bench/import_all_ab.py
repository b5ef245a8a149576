"""Importing every module of one generated SDK: this checkout against another revision and
the peer, run alternately in one session.

Usage: python bench/import_all_ab.py [--base REV] [--rounds N] [--no-peer] [--profile] SPEC

The SDK of SPEC is generated once by the revision's ``generator`` (extracted as
``bench/gen_ab.py`` does), once by this checkout's (both with this checkout's ``.venv``),
and once by openapi-python-client from the bench venv (``bench/.work/venv``, made by
``bench/run.py``). Each round runs, in a fresh interpreter of ``bench/.work/sdk-venv``
(the SDKs' runtime dependencies only), the very script of ``bench/imports.py``'s "Import
every module" section on each tree, alternating which goes first, after one untimed run
that compiles the bytecode. Reported per side: the median and the least seconds of the
script's own timing (the machine is shared: the least is the steadier figure), the
median CPU time of the whole process, the module count, and the lines of Python (all,
and code lines as the size section counts them). ``--profile`` also prints, for both
jobgen trees, the self time of one cProfile pass grouped by where it goes (attrs class
creation, enum class creation, the import system, module bodies).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import BIN, SDK_PY, bench_env, count_lines, tree_stats
from gen_ab import PYTHON, env_for, extract
from imports import IMPORT_ALL

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "sdk"

PROFILE = """
import cProfile, importlib, pathlib, pstats, sys
root, pkg = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
base = pathlib.Path(root) / pkg
names = sorted(
    ".".join((pkg, *p.relative_to(base).with_suffix("").parts)).removesuffix(".__init__")
    for p in base.rglob("*.py") if "__pycache__" not in p.parts
)
profile = cProfile.Profile()
profile.enable()
for name in names:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError:
        pass
profile.disable()
groups = {}
for (file, _, func), (_, _, own, _, _) in pstats.Stats(profile).stats.items():
    if "/attr/" in file or file.startswith("<attrs generated"):
        key = "attrs (class creation)"
    elif file.endswith("enum.py"):
        key = "enum (class creation)"
    elif "importlib" in file or func in ("<built-in method marshal.loads>",
            "<built-in method io.open_code>", "<built-in method posix.stat>",
            "<method 'read' of '_io.BufferedReader' objects>"):
        key = "import system (find, read, unmarshal)"
    elif file.startswith(root):
        key = "module bodies of the SDK"
    elif file == "~":
        key = "builtins: " + func
    else:
        key = "other"
    groups[key] = groups.get(key, 0.0) + own
total = sum(groups.values())
for key, own in sorted(groups.items(), key=lambda kv: -kv[1])[:14]:
    print(f"  {own:6.3f} s {own / total:5.1%}  {key}")
print(f"  {total:6.3f} s in all (under cProfile)")
"""


def generate_jobgen(source: Path, spec: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(
        [str(PYTHON), "-m", "generator", "generate", str(spec), "-o", str(out)]
        + ["--package", PACKAGE],
        env=env_for(source),
        cwd=tempfile.gettempdir(),
        capture_output=True,
        check=True,
    )


def generate_peer(spec: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    subprocess.run(
        [str(BIN / "openapi-python-client"), "generate", "--path", str(spec)]
        + ["--meta", "none", "--output-path", str(out / PACKAGE)],
        env=bench_env(),
        cwd=out,
        capture_output=True,
        check=False,  # the peer exits non-zero on warnings; the tree is what counts
    )


def import_all(root: Path) -> dict[str, object]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [str(SDK_PY), "-c", IMPORT_ALL, str(root), PACKAGE],
        env=bench_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["cpu_s"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", type=Path)
    parser.add_argument("--base", default="main")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    spec = args.spec.resolve()
    out_root = Path(tempfile.mkdtemp(prefix="import-all-ab-"))
    try:
        trees = {args.base: out_root / "base", "this": out_root / "this"}
        generate_jobgen(extract(args.base), spec, trees[args.base])
        generate_jobgen(REPO, spec, trees["this"])
        if not args.no_peer:
            trees["peer"] = out_root / "peer"
            generate_peer(spec, trees["peer"])
        runs: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
        for root in trees.values():  # compiles the bytecode, untimed
            import_all(root)
        for i in range(args.rounds):
            order = list(trees.items())
            for name, root in order[i % len(order) :] + order[: i % len(order)]:
                runs[name].append(import_all(root))
        for name, samples in runs.items():
            seconds = sorted(float(str(s["total_s"])) for s in samples)
            cpu = statistics.median(float(str(s["cpu_s"])) for s in samples)
            stats = tree_stats(trees[name] / PACKAGE)
            code = sum(
                count_lines(p, code_only=True) for p in (trees[name] / PACKAGE).rglob("*.py")
            )
            failed = samples[-1]["failed"]
            print(
                f"{name:6} every module: median {statistics.median(seconds):.3f} s, "
                f"min {seconds[0]:.3f} s, process CPU {cpu:.3f} s; "
                f"{samples[-1]['modules']} modules, {stats['py_lines']} lines "
                f"({code} code lines)  (n={len(samples)}"
                + (f", {len(failed)} failed" if failed else "")  # type: ignore[arg-type]
                + ")"
            )
        if args.profile:
            for name in (args.base, "this"):
                print(f"\nwhere the time goes, {name}:")
                subprocess.run(
                    [str(SDK_PY), "-c", PROFILE, str(trees[name]), PACKAGE],
                    env=bench_env(),
                    check=True,
                )
    finally:
        shutil.rmtree(out_root, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
