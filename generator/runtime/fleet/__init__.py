"""Fleet-scale waits on Celery and Redis, and a fleet-wide cap on status reads.

Built on `waiting` and the parts below it.
"""

__all__: list[str] = []
