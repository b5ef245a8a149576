"""Rendering: the intermediate model -> jinja2 templates -> formatted files on disk."""
