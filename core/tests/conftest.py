"""Core tests use toy ops (core_toy_ops.py) so they run with the core alone installed."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
