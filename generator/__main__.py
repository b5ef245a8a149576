"""Run the command line: ``python -m jobgen``."""

from .cli import main

raise SystemExit(main())
