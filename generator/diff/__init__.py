"""What changed for SDK callers between two versions of a spec (``jobgen diff``)."""

from .compare import KINDS, Change, Report, diff_sdks
from .report import render_json, render_text
from .sources import config_side_files, load_sdk

__all__ = [
    "KINDS",
    "Change",
    "Report",
    "config_side_files",
    "diff_sdks",
    "load_sdk",
    "render_json",
    "render_text",
]
