"""Run the command line: ``python -m generator``."""

from .cli import main

raise SystemExit(main())
