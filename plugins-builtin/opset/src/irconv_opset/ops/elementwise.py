"""elementwise ops."""

OPS: tuple[type, ...] = ()
