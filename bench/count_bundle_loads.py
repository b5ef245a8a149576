"""A pytest plugin that counts the CA bundles loaded into TLS contexts during a test run.

    PYTHONPATH=bench .venv/bin/python -m pytest tests/sdk -n 0 -p count_bundle_loads

At the end of the session it prints how many times `ssl.SSLContext.load_verify_locations`
ran and the CPU time spent in it, and the places (outside the standard library and
site-packages) that caused the most loads: an httpx client created without `verify=`
loads a bundle; one given a context does not.
"""

from __future__ import annotations

import collections
import ssl
import time
import traceback
from typing import Any

_places: collections.Counter[str] = collections.Counter()
_cpu = [0.0]
_load = ssl.SSLContext.load_verify_locations


def _counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
    frames = traceback.extract_stack()[:-1]
    ours = [
        f for f in frames if "site-packages" not in f.filename and "/lib/python3" not in f.filename
    ]
    place = (ours or frames)[-1]
    _places[f"{place.filename}:{place.lineno} {place.name}"] += 1
    start = time.process_time()
    try:
        _load(self, *args, **kwargs)
    finally:
        _cpu[0] += time.process_time() - start


ssl.SSLContext.load_verify_locations = _counted  # type: ignore[method-assign]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    total = sum(_places.values())
    terminalreporter.write_line(f"CA bundle loads: {total}, {_cpu[0]:.2f} s of CPU in them")
    for place, count in _places.most_common(10):
        terminalreporter.write_line(f"  {count:5d}  {place}")
