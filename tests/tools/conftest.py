"""Shared set-up for the tests of the user-facing tools (verify, show, convert-many, docs):
their helper modules (make_zoo, ir_damage) are importable by name."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
