"""The HTTP layer: credentials, requests and their retries, responses, pages, events.

Built on `wire` and `shared`.
"""

__all__: list[str] = []
