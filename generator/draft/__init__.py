"""Side-file drafts: the jobs of a spec that declares none, found from its shapes.

``find.py`` decides what is a job from the SDK model built without jobs (``shapes.py``
reads its types, responses, records and names), ``states.py`` classifies states by
name, ``emit.py`` writes the side file, ``command.py`` is ``jobgen jobs init``.
"""
