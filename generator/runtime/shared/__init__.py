"""What every part of the runtime shares: errors, how URLs are shown, delays, clocks.

Nothing here imports another part of the runtime.
"""

__all__: list[str] = []
