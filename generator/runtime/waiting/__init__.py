"""Waiting for jobs: the decision core, the sync and async waiters, handles, polls.

Built on `http`, `wire` and `shared`.
"""

__all__: list[str] = []
