"""``python -m testbed``: see :mod:`testbed.cli`."""

import sys

from testbed.cli import main

sys.exit(main())
