"""convolution ops."""

OPS: tuple[type, ...] = ()
