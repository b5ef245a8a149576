"""JSON and the wire: typed decoding and encoding, parameter styles, request bodies.

Built on `shared` only.
"""

__all__: list[str] = []
