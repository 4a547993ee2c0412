"""Command-line parsing errors as one line, with the flag the user probably meant.

argparse prints the whole usage before its message; a mistyped flag then costs a screen of
text. Here a usage error is one line, exit code ``ExitCode.USAGE``, and an unknown flag gets a
suggestion: the irconv spelling of a Model Optimizer flag (``--mean_values`` ->
``--mean-values``), or the closest known flag; a mistyped command or choice (``irconv conver``)
gets the closest one.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable
from typing import NoReturn

from irconv.errors import ExitCode, clipped_lines

_UNRECOGNIZED = re.compile(r"unrecognized arguments: (?P<args>.*)$")
_INVALID_CHOICE = re.compile(r"invalid choice: (?P<value>'[^']*'|\S+) \(choose from (?P<choices>.*)\)$")


class OneLineErrorParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line with a suggestion."""

    def error(self, message: str) -> NoReturn:
        hint = suggestion(message, known_flags(self))
        self.exit(ExitCode.USAGE, clipped_lines(f"irconv: error: {message}{hint} (see '{self.prog} --help')") + "\n")


def known_flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of ``parser`` and of its sub-commands."""
    flags: set[str] = set()
    for action in parser._actions:
        flags.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= known_flags(sub)
    return flags


def suggestion(message: str, flags: Iterable[str]) -> str:
    """``; did you mean --mean-values?`` for the unknown flags named in ``message``, or
    ``; did you mean 'convert'?`` for an invalid choice (a sub-command is one)."""
    choice = _INVALID_CHOICE.search(message)
    if choice:
        return _closest_choice(choice["value"].strip("'"), [c.strip().strip("'") for c in choice["choices"].split(",")])
    found = _UNRECOGNIZED.search(message)
    if not found:
        return ""
    known = sorted(set(flags))
    hints = []
    for token in found["args"].split():
        if not token.startswith("--"):
            continue
        flag = token.split("=", 1)[0]
        dashed = flag.replace("_", "-")
        if dashed != flag and dashed in known:
            hints.append(f"did you mean {dashed}? (`irconv mo` takes Model Optimizer flags as MO spelled them)")
            continue
        close = difflib.get_close_matches(dashed, known, n=1, cutoff=0.75)
        if close:
            hints.append(f"did you mean {close[0]} for {flag}?")
    return "; " + "; ".join(hints) if hints else ""


def _closest_choice(value: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
    if not close:  # a case slip (``Convert``) is as likely as a typo
        close = [c for c in choices if c.lower() == value.lower()][:1]
    return f"; did you mean {close[0]!r}?" if close else ""


def non_negative_float(text: str) -> float:
    """An argparse ``type``: a number, 0 or more (a tolerance, a size); a usage error otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of 0 or more")
    return value
