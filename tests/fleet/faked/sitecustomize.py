"""Started first in a worker whose wall clock a fleet test or bench/fleet.py skews with
libfaketime (Debian's `faketime`, its monotonic clock left alone): libfaketime 0.9.10
then fails the clock_nanosleep that `time.sleep` calls (EINVAL), so `time.sleep` waits on
a condition instead, before any module takes a reference to it (`WaitConfig.sleep`)."""

from __future__ import annotations

import threading
import time


def _sleep(seconds: float) -> None:
    threading.Event().wait(seconds)


time.sleep = _sleep
