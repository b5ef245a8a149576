"""Job method names over the Azure corpus (``../shared/specs-real/azure``): the names a
job sharing its resource with others got before (``create_{name}_and_wait``,
``start_{name}``, ``wait_for_{name}s``) against those it gets now
(``generator/render/views/jobs.py``). Prints the figures of ``docs/name-quality.md``.

    .venv/bin/python bench/job_names.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jobgen.model.build import load_and_build
from jobgen.model.names import is_action, plural, snake
from jobgen.model.segment import count
from jobgen.problems import SpecError
from tests.generator.test_azure_import import AZURE, _roots

_SAME = re.compile(r"^([a-z]+)_\1_")


def before(name: str) -> list[str]:
    return [f"create_{name}_and_wait", f"start_{name}", f"wait_for_{name}s"]


def now(name: str) -> list[str]:
    bare = name.rstrip("_") or name
    action = is_action(bare)
    return [
        f"{bare}_and_wait" if action else f"create_{bare}_and_wait",
        f"begin_{bare}" if action else f"start_{bare}",
        f"wait_for_{plural(bare)}",
    ]


def kind(method: str) -> str | None:
    """What is wrong with a method name, if anything."""
    if _SAME.match(method):
        return "the same verb twice"
    head, _, rest = method.partition("_")
    if head in ("create", "start") and is_action(rest.removesuffix("_and_wait")):
        return "create_/start_ before a verb"
    if "__" in method:
        return "a doubled underscore"
    if method.startswith("wait_for_") and not method.endswith("_jobs"):
        last = method.rsplit("_", 1)[-1]
        if count(last) * 100 < count(last[:-1]) or last.endswith(("xs", "chs", "shs", "ss")):
            return "a plural that is no word"
    return None


def main() -> None:
    specs = jobs = 0
    found: dict[str, dict[str, list[str]]] = {"before": {}, "now": {}}
    for root in _roots():
        try:
            sdk = load_and_build(AZURE / root, ref_root=AZURE)
        except SpecError:  # a published defect (see docs/real-specs.md): not counted
            continue
        specs += 1
        for resource in sdk.resources:
            if len(resource.jobs) < 2:
                continue  # the only job of its resource takes the plain names
            for job in resource.jobs:
                jobs += 1
                name = snake(job.name, "job")
                for label, names in (("before", before(name)), ("now", now(name))):
                    for method in names:
                        wrong = kind(method)
                        if wrong:
                            found[label].setdefault(wrong, []).append(method)
    print(f"{specs} specs, {jobs} jobs sharing a resource, {3 * jobs} method names each way")
    for label, kinds in found.items():
        total = sum(len(v) for v in kinds.values())
        parts = ", ".join(f"{len(v)} {k} (`{v[0]}`)" for k, v in sorted(kinds.items()))
        print(f"{label}: {total} wrong" + (f": {parts}" if parts else ""))


if __name__ == "__main__":
    main()
