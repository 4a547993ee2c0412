"""shape ops."""

OPS: tuple[type, ...] = ()
