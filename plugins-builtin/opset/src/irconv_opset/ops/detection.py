"""detection ops."""

OPS: tuple[type, ...] = ()
