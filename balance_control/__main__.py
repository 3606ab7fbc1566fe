"""``python -m balance_control``: the same as the ``balance-control`` command."""

import sys

from .cli import main

sys.exit(main())
