"""Hook implementations of irconv-example-swish."""
