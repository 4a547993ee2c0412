"""linear ops."""

OPS: tuple[type, ...] = ()
