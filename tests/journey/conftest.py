"""The newcomer's own project (``project/``) is theirs: its tests run in the journey, against
the SDK the journey generates, never collected by this suite."""

collect_ignore_glob = ["project/*"]
