"""Hook implementations of irconv-ir."""
