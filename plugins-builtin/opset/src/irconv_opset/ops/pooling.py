"""pooling ops."""

OPS: tuple[type, ...] = ()
