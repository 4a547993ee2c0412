"""The plugin's conversion options (declared through ``declare_options``)."""

from __future__ import annotations

from irconv import Option


def _check_between(values: tuple[str, ...]) -> str | None:
    for value in values:
        start, sep, end = value.partition(":")
        if not sep or not start or not end:
            return f"{value!r} is not START:END (the first and last tensor names of the sub-graph)"
    return None


LOWER: Option[bool] = Option(
    "example.lower_swish",
    bool,
    default=False,
    flag="--example-lower-swish",
    keyword="example_lower_swish",
    help="rewrite ExampleSwish into stock opset ops (Multiply, Sigmoid) so the IR runs without the extension",
)
SCOPES: Option[tuple[str, ...]] = Option(
    "example.swish_scope",
    str,
    default=(),
    multiple=True,
    flag="--example-swish-scope",
    keyword="example_swish_scope",
    metavar="SCOPE",
    help="replace the sub-graph whose nodes are named SCOPE/... (x * sigmoid(beta * x)) by one ExampleSwish",
)
BETWEEN: Option[tuple[str, ...]] = Option(
    "example.swish_between",
    str,
    default=(),
    multiple=True,
    flag="--example-swish-between",
    keyword="example_swish_between",
    metavar="START:END",
    validate=_check_between,
    help="replace the sub-graph from tensor START to tensor END (x * sigmoid(beta * x)) by one ExampleSwish",
)
OPTIONS = (LOWER, SCOPES, BETWEEN)
