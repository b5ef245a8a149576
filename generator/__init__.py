"""jobgen: typed Python SDKs with job waiters, generated from OpenAPI specs."""

__version__ = "0.1.0"
