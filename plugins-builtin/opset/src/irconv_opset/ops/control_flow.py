"""control_flow ops."""

OPS: tuple[type, ...] = ()
