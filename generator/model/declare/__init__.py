"""Job declarations: where a spec's jobs come from, read into one kind of object.

Every source of declarations yields the same :class:`~jobgen.model.ir.Job` objects,
read by one reader per source over the helpers in :mod:`.common`:

- :mod:`.sidefile`: the ``x-jobgen`` extension, or a side file holding the same mapping
  (with :mod:`.carry`, :mod:`.opurl` and :mod:`.webhooks` for its larger keys);
- :mod:`.azure`: Azure's ``x-ms-long-running-operation`` operations, imported as the
  mapping a side file would hold for each, then read by the side-file reader.

No module here imports another's private names, and none imports the package itself.
"""

from __future__ import annotations

from .sidefile import build_jobs

__all__ = ["build_jobs"]
