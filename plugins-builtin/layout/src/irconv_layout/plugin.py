"""Hook implementations of irconv-layout."""
