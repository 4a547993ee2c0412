"""sequence ops."""

OPS: tuple[type, ...] = ()
