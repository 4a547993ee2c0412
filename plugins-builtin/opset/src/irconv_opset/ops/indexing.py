"""indexing ops."""

OPS: tuple[type, ...] = ()
