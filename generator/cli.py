"""The ``jobgen`` command line.

Exit codes: 0 success; 1 ``generate --check`` found stale output, or ``diff`` found a
breaking change; 2 bad input (spec, side file, config or arguments), with every problem
printed as ``file#pointer: message``; 70 an internal error (a bug in jobgen, or an
installation missing one of its dependencies, which is named), reported without a traceback; 141 the reader of the output went away (``jobgen generate --check |
head``), quietly, as other Unix tools do.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .model.build import load_and_build, package_problem, version_problem
from .pipeline import Target, check_all, generate_all, load_target, problems_of
from .problems import NoJobs, Problem, SpecError, counted, printable
from .render.output import Drift

if TYPE_CHECKING:
    from .model import ir

__all__ = ["main"]

EXIT_STALE = 1
EXIT_BREAKING = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 70
EXIT_PIPE = 141  # 128 + SIGPIPE (13): what a shell reports for a writer whose reader left
FILE_DIFF_LIMIT = 60
DIFF_LIMIT = 1000
REF_ROOT_HELP = (
    "a folder holding the spec's own that its $refs may reach into"
    " (default: they stay in the spec's folder)"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobgen",
        description="Generate typed Python SDKs, with job waiters, from OpenAPI specs.",
    )
    parser.add_argument("--version", action="version", version=f"jobgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = commands.add_parser("generate", help="write an SDK (or every SDK the config lists)")
    gen.add_argument(
        "spec", nargs="?", type=Path, help="OpenAPI spec (YAML or JSON); omit to use the config"
    )
    gen.add_argument("-o", "--output", type=Path, help="output directory (required with SPEC)")
    gen.add_argument("--package", help="import name of the generated package")
    gen.add_argument(
        "--sdk-version",
        metavar="VERSION",
        help="the generated package's own version (default: from the spec's info.version)",
    )
    gen.add_argument(
        "--jobs", type=Path, help="side file declaring the jobs of a spec you do not own"
    )
    gen.add_argument(
        "--keep",
        action="append",
        metavar="PATTERN",
        help="a file of the output you own (fnmatch pattern, repeatable): never written",
    )
    gen.add_argument("--ref-root", type=Path, metavar="DIR", help=REF_ROOT_HELP)
    gen.add_argument("--config", type=Path, help="jobgen.toml or pyproject.toml listing SDKs")
    gen.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the output is stale"
    )

    val = commands.add_parser(
        "validate", help="report every problem in a spec, with file and JSON pointer"
    )
    val.add_argument(
        "spec", nargs="?", type=Path, help="OpenAPI spec (YAML or JSON); omit to use the config"
    )
    val.add_argument("--jobs", type=Path, help="side file declaring the jobs")
    val.add_argument("--ref-root", type=Path, metavar="DIR", help=REF_ROOT_HELP)
    val.add_argument("--config", type=Path, help="jobgen.toml or pyproject.toml listing SDKs")

    serve = commands.add_parser("serve", help="run a simulated job API for a spec over HTTP")
    serve.add_argument("spec", type=Path)
    serve.add_argument("--jobs", type=Path, help="side file declaring the jobs")
    serve.add_argument("--ref-root", type=Path, metavar="DIR", help=REF_ROOT_HELP)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--job-ttl",
        type=_limit(float),
        default=3600.0,
        metavar="SECONDS",
        help="forget a job this long after it was created (default 3600; 0: never)",
    )
    serve.add_argument(
        "--max-jobs",
        type=_limit(int),
        default=10_000,
        metavar="N",
        help="keep at most N jobs, forgetting the oldest (default 10000; 0: no limit)",
    )
    serve.add_argument(
        "--max-log",
        type=_limit(int),
        default=10_000,
        metavar="N",
        help="keep the newest N requests in the log (default 10000; 0: no limit)",
    )
    serve.add_argument(
        "--webhook-url",
        metavar="URL",
        help="deliver the webhooks of jobs whose create names no URL here",
    )
    serve.add_argument(
        "--webhook-secret",
        metavar="SECRET",
        help="sign webhooks with this secret (default: a new whsec_ secret, printed)",
    )
    serve.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="N",
        help="run every duration and hint of a job N times faster (default 1)",
    )
    serve.add_argument(
        "--lenient",
        action="store_true",
        help="answer requests the spec forbids instead of refusing them with a 400/415/422",
    )
    serve.add_argument(
        "--self-check",
        choices=("log", "strict"),
        default=None,
        help="an answer of the server that breaks the spec (a bug) is logged and counted "
        "(log), or also sent as a 500 naming the violation (strict); default: "
        "$JOBGEN_SERVE_SELF_CHECK, else log",
    )

    diff = commands.add_parser(
        "diff", help="what changed for SDK callers between two versions of a spec"
    )
    diff.add_argument("old", metavar="OLD_SPEC", help="a file, or git:REV:path")
    diff.add_argument("new", metavar="NEW_SPEC", help="a file, or git:REV:path")
    diff.add_argument(
        "--jobs",
        "--old-jobs",
        dest="jobs",
        metavar="OLD_SIDE",
        help="side file of OLD_SPEC (and of NEW_SPEC, by default); without it and --new-jobs, "
        "the side files the config lists for the specs",
    )
    diff.add_argument("--new-jobs", metavar="NEW_SIDE", help="side file of NEW_SPEC")
    diff.add_argument("--format", choices=("text", "json"), default="text")
    diff.add_argument("--ref-root", type=Path, metavar="DIR", help=REF_ROOT_HELP)

    jobs = commands.add_parser("jobs", help="side files of job declarations")
    jobs_commands = jobs.add_subparsers(dest="jobs_command", required=True, metavar="COMMAND")
    init = jobs_commands.add_parser(
        "init", help="draft a side file from the shapes of a spec that declares no jobs"
    )
    init.add_argument("spec", type=Path)
    init.add_argument(
        "-o",
        "--output",
        type=Path,
        help="the draft to write (default: SPEC_STEM.jobs.yaml; -: stdout)",
    )
    init.add_argument("--force", action="store_true", help="replace an existing file")
    return parser


def _limit(kind: Callable[[str], float]) -> Callable[[str], float | None]:
    """An argparse type for a limit: a non-negative number, 0 meaning none."""

    def parse(text: str) -> float | None:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value >= 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, not {text}")
        return value or None

    return parse


def _targets(args: argparse.Namespace) -> list[Target]:
    if args.spec is not None:
        if args.output is None:
            raise _Usage("generate SPEC needs -o/--output DIR")
        if args.config is not None:
            raise _Usage("give either SPEC or --config, not both")
        if args.package is not None and (problem := package_problem(args.package)):
            raise _Usage(f"--package: {printable(problem)}")
        if args.sdk_version is not None and (problem := version_problem(args.sdk_version)):
            raise _Usage(f"--sdk-version: {printable(problem)}")
        for pattern in args.keep or ():
            if problem := _keep_problem(pattern):
                raise _Usage(f"--keep: {printable(problem)}")
        return [
            Target(
                spec=args.spec,
                output=args.output,
                package=args.package,
                jobs=args.jobs,
                version=args.sdk_version,
                keep=tuple(args.keep or ()),
                ref_root=args.ref_root,
            )
        ]
    for flag, value in (("-o/--output", args.output), *_per_spec(args)):
        if value is not None:
            raise _Usage(f"{flag} applies to `jobgen generate SPEC`; set it in the config instead")
    return _config_targets(args.config)


def _config_targets(named: Path | None) -> list[Target]:
    """The SDKs of the config; its problems are reported with those of every spec and side
    file its sound entries name, all in one run."""
    from .config import find_config, read_targets  # tomllib, for a run from the config

    config = named or find_config(Path.cwd())
    if config is None:
        raise _Usage("no SPEC given and no [tool.jobgen] in pyproject.toml (or jobgen.toml) found")
    if config.is_absolute() and config.is_relative_to(Path.cwd()):
        config = config.relative_to(Path.cwd())  # named as the specs it lists are
    targets, problems = read_targets(config)
    if problems:
        raise SpecError([*problems, *problems_of(targets)])
    return targets


def _keep_problem(pattern: str) -> str | None:
    from .config import keep_problem

    return keep_problem(pattern)


class _Usage(Exception):
    pass


def _regenerate_command(args: argparse.Namespace) -> str:
    """The command that regenerates what ``--check`` found stale, as typed."""
    import shlex  # only for a stale tree

    if args.spec is None:
        return "jobgen generate" + (
            f" --config {shlex.quote(str(args.config))}" if args.config else ""
        )
    argv = ["jobgen", "generate", str(args.spec), "-o", str(args.output)]
    for flag, value in _per_spec(args):
        for one in value if isinstance(value, list) else [] if value is None else [value]:
            argv += [flag, str(one)]
    return shlex.join(argv)


def _per_spec(args: argparse.Namespace) -> tuple[tuple[str, object], ...]:
    """The options of ``generate SPEC`` that a config sets per SDK instead: flag, value."""
    return (
        ("--package", args.package),
        ("--jobs", args.jobs),
        ("--sdk-version", args.sdk_version),
        ("--keep", args.keep),
        ("--ref-root", args.ref_root),
    )


def _generate(args: argparse.Namespace) -> int:
    targets = _targets(args)
    if args.check:
        stale = 0
        for target, drift in zip(targets, check_all(targets)):
            if drift.clean:
                print(f"{target.output}: up to date")
                continue
            stale += 1
            _print_drift(str(target.output), drift)
        if stale:
            print(
                f"{counted(stale, 'SDK')} stale: run `{_regenerate_command(args)}` "
                "and commit the result",
                file=sys.stderr,
            )
            return EXIT_STALE
        return 0
    # Several SDKs are rendered at once, one per core; none is written unless all render.
    for target, done in zip(targets, generate_all(targets)):
        _print_warnings(done.sdk.warnings)
        operations = sum(len(r.operations) for r in done.sdk.resources)
        print(
            f"{target.output}: {counted(done.files, 'file')}, {counted(done.lines, 'line')}, "
            f"{counted(len(done.sdk.schemas), 'schema')}, {counted(operations, 'operation')}, "
            f"{counted(len(done.sdk.jobs), 'job')} ({done.seconds:.2f} s)"
        )
        if not done.sdk.jobs:
            _print_no_jobs(target.spec, target.jobs)
    return 0


def _print_no_jobs(spec: Path, jobs: Path | None, command: str = "generate") -> None:
    from .config import no_jobs_hint

    print(f"note: {spec} declares no jobs: {no_jobs_hint(spec, jobs, command)}", file=sys.stderr)


def _print_drift(out: str, drift: Drift) -> None:
    """Real content changes first, then one line per stale, missing or extra file, and
    header-only and manifest drift in one line each."""
    print(drift.diff_text(FILE_DIFF_LIMIT, DIFF_LIMIT), end="")
    for name, what in drift.entries():
        print(f"{out}/{name}: {what}" if name else f"{out}: {what}")


def _print_warnings(warnings: Sequence[str]) -> None:
    """What the SDK cannot represent; generation still succeeds."""
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


def _validate(args: argparse.Namespace) -> int:
    if args.spec is not None:
        if args.config is not None:
            raise _Usage("give either SPEC or --config, not both")
        sdk = load_and_build(args.spec, jobs_file=args.jobs, ref_root=args.ref_root)
        _print_valid(args.spec, args.jobs, sdk)
        return 0
    for flag, value in (("--jobs", args.jobs), ("--ref-root", args.ref_root)):
        if value is not None:
            raise _Usage(f"{flag} applies to `jobgen validate SPEC`; set it in the config instead")
    loaded: list[tuple[Target, ir.Sdk]] = []
    problems: list[Problem] = []  # every SDK's, before any is said to be valid
    for target in _config_targets(args.config):
        try:
            loaded.append((target, load_target(target)))
        except SpecError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    for target, sdk in loaded:
        _print_valid(target.spec, target.jobs, sdk)
    return 0


def _print_valid(spec: Path, jobs: Path | None, sdk: ir.Sdk) -> None:
    _print_warnings(sdk.warnings)
    operations = sum(len(r.operations) for r in sdk.resources)
    count = len(sdk.warnings)
    warned = f", {counted(count, 'warning')}" if count else ""
    print(
        f"{spec}: valid ({counted(len(sdk.schemas), 'schema')}, "
        f"{counted(operations, 'operation')}, {counted(len(sdk.jobs), 'job')}{warned})"
    )
    # Where each job came from, once any was imported from the spec's own dialect.
    if any(job.origin and "imported" in job.origin for job in sdk.jobs):
        for job in sdk.jobs:
            print(f"  job {job.name}: {printable(job.origin or 'declared')}")
    if not sdk.jobs:
        _print_no_jobs(spec, jobs, "validate")


def _serve(args: argparse.Namespace) -> int:
    if any(importlib.util.find_spec(name) is None for name in ("uvicorn", "rstr")):
        raise _Usage(
            "jobgen serve needs the 'serve' extra (uvicorn, rstr), which is not installed: "
            "pip install 'jobgen[serve]'"
        )
    from .server.app import serve
    from .server.store import Limits
    from .spec.loader import default_ref_root

    limits = Limits(job_ttl=args.job_ttl, max_jobs=args.max_jobs, max_log=args.max_log)
    if not (0 < args.time_scale <= 100_000):
        raise _Usage(f"--time-scale must be above 0 and at most 100000, not {args.time_scale:g}")
    from .server.answers import self_check_mode

    try:
        self_check_mode(args.self_check)
    except ValueError as error:
        raise _Usage(f"$JOBGEN_SERVE_SELF_CHECK: {error}") from None
    url = args.webhook_url
    if url is not None and not url.startswith(("http://", "https://")):
        raise _Usage(f"--webhook-url must be an http:// or https:// URL, not {url!r}")
    if args.webhook_secret is not None:
        from .runtime.webhooks.deliveries import signing_key

        try:
            signing_key(args.webhook_secret)
        except ValueError as error:
            raise _Usage(f"--webhook-secret: {error}") from None
    try:
        with default_ref_root(args.ref_root):
            return serve(
                args.spec,
                jobs=args.jobs,
                host=args.host,
                port=args.port,
                limits=limits,
                webhook_url=url,
                webhook_secret=args.webhook_secret,
                strict=not args.lenient,
                time_scale=args.time_scale,
                self_check=args.self_check,
            )
    except NoJobs as exc:
        from .config import no_jobs_hint

        exc.add_note(no_jobs_hint(args.spec, args.jobs, "serve"))
        raise


def _diff(args: argparse.Namespace) -> int:
    from .diff import config_side_files, diff_sdks, load_sdk, render_json, render_text

    old_jobs = args.jobs
    new_jobs = args.new_jobs if args.new_jobs is not None else args.jobs
    if args.jobs is None and args.new_jobs is None:
        found = config_side_files(args.old, args.new)
        if found is not None:
            old_jobs, new_jobs, config = found
            if config.is_relative_to(Path.cwd()):
                config = config.relative_to(Path.cwd())
            print(
                f"side files from {config}: {old_jobs or 'none'} (old), {new_jobs or 'none'} (new)",
                file=sys.stderr,
            )
    try:
        old = load_sdk(args.old, old_jobs, args.ref_root)
    except SpecError as exc:
        if old_jobs is not None:
            exc.add_note(
                f"these problems are in the old spec {args.old} read with the side file "
                f"{old_jobs}; if that side file describes the new spec only, give the old "
                "spec's with --old-jobs OLD_SIDE and the new one's with --new-jobs NEW_SIDE"
            )
        raise
    new = load_sdk(args.new, new_jobs, args.ref_root)
    report = diff_sdks(old, new)
    render = render_json if args.format == "json" else render_text
    print(render(report), end="")
    return EXIT_BREAKING if report.breaking else 0


def _jobs(args: argparse.Namespace) -> int:
    from .draft.command import init

    return init(args.spec, args.output, args.force)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {
        "generate": _generate,
        "validate": _validate,
        "serve": _serve,
        "diff": _diff,
        "jobs": _jobs,
    }
    try:
        code = handlers[args.command](args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except SpecError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        # Only a generation that would have written files says that it wrote none.
        writes = args.command == "generate" and not args.check
        summary = counted(len(exc.problems), "problem")
        print(f"{summary}; nothing was written" if writes else summary, file=sys.stderr)
        for note in getattr(exc, "__notes__", ()):
            print(f"note: {note}", file=sys.stderr)
        return EXIT_INPUT
    except _Usage as exc:
        print(f"jobgen: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        # The reader (``| head``) has gone: no message, and nothing more to flush to it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_PIPE
    except (OSError, FileExistsError) as exc:
        print(f"jobgen: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except ModuleNotFoundError as exc:
        # A dependency jobgen declares is absent: the installation, not the input, is broken.
        print(
            f"jobgen: {exc.name or exc} is not installed, though jobgen needs it: reinstall "
            "jobgen with its dependencies (pip install jobgen, or make in a checkout)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    except Exception as exc:  # noqa: BLE001 - the CLI never shows a bare traceback
        print(f"jobgen: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
