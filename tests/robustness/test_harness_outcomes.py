"""The mutation harness's outcome classes: what counts as a clean error and what is a finding."""

from __future__ import annotations

from robust_harness import LONGEST_MESSAGE, classify


def test_one_short_error_line_is_a_clean_error() -> None:
    assert classify(("exit", 1), "irconv: error: model.onnx: node 'n' is broken\n").outcome == "clean-error"


def test_an_error_line_over_the_limit_is_a_finding() -> None:
    line = "irconv: error: " + "n" * LONGEST_MESSAGE
    assert classify(("exit", 1), line + "\n").outcome == "long-message"


def test_two_error_lines_or_a_traceback_are_findings() -> None:
    assert classify(("exit", 1), "irconv: error: a\nirconv: error: b\n").outcome == "unclear-error"
    assert classify(("exit", 1), "Traceback (most recent call last):\n  File x\nValueError: y\n").outcome == "traceback"
