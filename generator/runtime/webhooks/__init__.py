"""Webhook deliveries: verified, decoded and routed to the waits they end.

Built on `waiting` and the parts below it.
"""

__all__: list[str] = []
