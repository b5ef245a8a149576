"""Side-file drafts: the jobs of a spec that declares none, found from its shapes.

``find.py`` reads the SDK model built without jobs, ``states.py`` classifies states by
name, ``emit.py`` writes the side file, ``command.py`` is ``jobgen jobs init``.
"""
