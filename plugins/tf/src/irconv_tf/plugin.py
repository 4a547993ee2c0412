"""Hook implementations of irconv-tf."""
