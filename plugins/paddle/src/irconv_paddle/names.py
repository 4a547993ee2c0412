"""Op names of the two program forms: a legacy op type (``relu``) and the PIR op name
(``pd_op.relu``) that computes the same."""

from __future__ import annotations

from irconv import ExtractContext

PIR_DIALECT = "pd_op."


def both(name: str) -> list[str]:
    """``name`` as the legacy program and the PIR program spell it."""
    return [name, PIR_DIALECT + name]


def plain_type(ctx: ExtractContext) -> str:
    """The node's op type without the PIR dialect."""
    return ctx.source_op.op_type.removeprefix(PIR_DIALECT)
