"""image ops."""

OPS: tuple[type, ...] = ()
