"""`python -m adwiser_controller ...`: see cli.py."""

import sys

from .cli import main

sys.exit(main())
