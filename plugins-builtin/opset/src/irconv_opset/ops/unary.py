"""unary ops."""

OPS: tuple[type, ...] = ()
