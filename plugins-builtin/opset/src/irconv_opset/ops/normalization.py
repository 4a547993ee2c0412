"""normalization ops."""

OPS: tuple[type, ...] = ()
