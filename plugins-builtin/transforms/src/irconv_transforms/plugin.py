"""Hook implementations of irconv-transforms."""
