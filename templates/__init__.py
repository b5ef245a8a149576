"""The jinja2 templates of a generated SDK, shipped in the wheel as ``jobgen.templates``."""
