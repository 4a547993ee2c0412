"""reduction ops."""

OPS: tuple[type, ...] = ()
