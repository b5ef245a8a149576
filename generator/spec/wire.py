"""The key a Swagger 2.0 conversion leaves for the model, apart from the converter itself
(which is loaded only for 2.0 documents)."""

from __future__ import annotations

__all__ = ["WIRE_PATH"]

WIRE_PATH = "x-jobgen-wire-path"
"""On a converted path item: the path its operations send (the key is the 2.0 one)."""
