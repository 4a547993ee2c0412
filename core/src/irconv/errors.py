"""Typed errors, and the exit codes of the command line.

Each ``UserError`` is printed by the CLI as one clear message and ends the command with its
class's ``exit_code``. ``EXIT_CODES`` is the one list of the codes and what each means:
docs/cli.md's table is checked against it by a test.
"""

from __future__ import annotations

import enum
import re
import sys
import traceback


class ExitCode(enum.IntEnum):
    """Every exit code of the ``irconv`` command (and ``irconv mo``, ``mo``)."""

    OK = 0
    USER_ERROR = 1
    USAGE = 2
    INTERNAL = 3
    VERIFY_MISMATCH = 4
    UNSUPPORTED_OPS = 5
    PLUGIN_FAULT = 6
    INTERRUPTED = 130
    BROKEN_PIPE = 141  # as a command killed by SIGPIPE
    TERMINATED = 143  # as a command killed by SIGTERM


#: What each exit code means, as docs/cli.md's "Exit codes" table says it (a test compares them).
EXIT_CODES: dict[ExitCode, str] = {
    ExitCode.OK: "converted (and, with `--verify`, the IR agrees with the framework)",
    ExitCode.USER_ERROR: (
        "the model or a file is wrong, a plugin it needs is not installed, or an option does not fit the model "
        "(an input it does not have, the wrong number of values for its channels): one line on stderr says what, "
        "where, and what to do"
    ),
    ExitCode.USAGE: (
        "the command line is wrong whatever the model: an unknown command or flag (with the nearest one), "
        "a missing value, an option value irconv cannot take (not one of the choices, not a number, a "
        "malformed `--input`, a framework no known plugin reads, a format no installed plugin writes), options "
        "that do not go together; one line"
    ),
    ExitCode.INTERNAL: "an internal error of irconv (a bug: please report it with `--debug`'s traceback)",
    ExitCode.VERIFY_MISMATCH: (
        "`--verify`: the IR's outputs differ from the framework's beyond the tolerance, "
        "or OpenVINO could not compile or run the IR (its reason is in the message)"
    ),
    ExitCode.UNSUPPORTED_OPS: "operations without an extractor (the list of all of them)",
    ExitCode.PLUGIN_FAULT: "an installed plugin failed while converting (its name and the hook are in the message)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C); no output was written",
    ExitCode.BROKEN_PIPE: "standard output was closed early (`irconv ops \\| head -1`)",
    ExitCode.TERMINATED: "terminated (SIGTERM); no output was written",
}


#: The most characters of a name (a node's, a tensor's, an op type) a message shows whole.
NAME_LIMIT = 200
#: The most characters of text a message quotes from the input (a line of a text file, a
#: library's message about it).
QUOTE_LIMIT = 300
#: The longest line the command line prints for an error.
LINE_LIMIT = 2000


def _cut(text: str, limit: int) -> str:
    """The start and end of ``text`` around an ellipsis, ``limit`` characters in all. The end
    stays because names that differ often differ there (``…/layer_11/MatMul``)."""
    tail = limit // 4
    return f"{text[:limit - tail - 1]}…{text[-tail:]}"


def shortened(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a message shows it: whole up to ``limit`` characters, else cut, with its
    length said (``abc…yz (5,000 characters)``)."""
    return text if len(text) <= limit else f"{_cut(text, limit)} ({len(text):,} characters)"


def quoted(name: str, limit: int = NAME_LIMIT) -> str:
    """A name quoted for a message as ``repr`` quotes it, cut like ``shortened``:
    ``'abc…yz' (5,000 characters)``. Names come from the model file and can be any length."""
    return repr(name) if len(name) <= limit else f"{_cut(name, limit)!r} ({len(name):,} characters)"


def shortened_quotes(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A library's message with every span it quotes (``'…'`` or ``"…"``, no newline in it)
    longer than ``limit`` cut: ``'abc…yz' (5,000 characters)``. For messages of a known shape
    that quote the input, as protobuf's text parser quotes the line it stopped in."""

    def cut(found: re.Match[str]) -> str:
        span = found.group(0)
        inner = span[1:-1]
        return f"{span[0]}{_cut(inner, limit)}{span[0]} ({len(inner):,} characters)"

    longer = limit + 1
    return re.sub(rf"'[^'\n]{{{longer},}}'|\"[^\"\n]{{{longer},}}\"", cut, text)


def clipped_lines(message: str, limit: int = LINE_LIMIT) -> str:
    """``message`` with every line over ``limit`` characters cut, saying how much was cut
    (the note counts in the limit): the command line's last guard, so no error line is ever
    longer."""

    def clipped(line: str) -> str:
        if len(line) <= limit:
            return line
        kept = limit - 40  # room for the note: "… (1,234,567 more characters cut)"
        return f"{line[:kept]}… ({len(line) - kept:,} more characters cut)"

    return "\n".join(clipped(line) for line in message.split("\n"))


class IrconvError(Exception):
    """Base of every error irconv raises on purpose."""

    exit_code: int = ExitCode.USER_ERROR


class UserError(IrconvError):
    """Bad input or options: the message says what is wrong, where, and what to do."""


class UsageError(UserError):
    """The command line is wrong whatever the model: an option value no model makes valid (not
    one of the choices, not a number, a malformed ``--input``, a framework no known plugin reads)
    or options that do not go together. Exits as argparse's own errors do."""

    exit_code = ExitCode.USAGE


class ModelFileError(UserError):
    """The model file is missing, unreadable or not in a format any loader accepts."""


class UnsupportedOpsError(UserError):
    """Operations no installed extractor handles; all of them, reported at once."""

    exit_code = ExitCode.UNSUPPORTED_OPS


class ConversionError(UserError):
    """A node cannot be converted (bad attribute value, failed inference, ...)."""


class LoweringError(ConversionError, ValueError):
    """A shared lowering cannot build what the model asks for (window attributes of different
    lengths, groups that do not divide the channels, a form it does not take). The lowering
    does not know the node; extraction names it in the message the user sees."""


class PluginError(IrconvError):
    """A plugin is broken or two plugins conflict."""


class PluginClash(PluginError):
    """Two plugins provide the same thing (an extractor, a transform id, an op, an option,
    an emitter format): neither may silently win, and the user can disable one."""

    def __init__(self, what: str, first: str, second: str, detail: str = "") -> None:
        self.what, self.first, self.second = what, first, second
        self.distributions = (_distribution(first), _distribution(second))
        detail = f" ({detail})" if detail else ""
        super().__init__(
            f"{what} provided by {first} and {second}{detail}; uninstall one, or leave one out with "
            f"--disable-plugin {self.distributions[0]} or --disable-plugin {self.distributions[1]}"
        )


def _distribution(label: str) -> str:
    """``irconv-foo 1.2`` -> ``irconv-foo``."""
    return label.split(" ", 1)[0]


class PluginFault(IrconvError):
    """A plugin's code raised an exception it did not mean to: a bug in that plugin, not a
    problem with the model. Errors a plugin raises on purpose (``UserError``,
    ``ConversionError``) stay user errors."""

    exit_code = ExitCode.PLUGIN_FAULT

    def __init__(self, doing: str, cause: BaseException, plugin: str = "", op: type | None = None) -> None:
        self.doing, self.cause, self.plugin, self.op = doing, cause, plugin, op
        self.raised_at = _raised_at(cause)
        super().__init__(self._text())

    def blame(self, plugin: str) -> PluginFault:
        """The same fault, now naming the plugin (distribution and version)."""
        self.plugin = plugin
        self.args = (self._text(),)
        return self

    def _text(self) -> str:
        who = self.plugin or "a plugin"
        at = f" (raised in {self.raised_at})" if self.raised_at else ""
        return (
            f"{who} failed {self.doing}: {type(self.cause).__name__}: {shortened(str(self.cause))}{at}. This is a "
            f"bug in {who}, not in your model: please report it to its authors (rerun with --debug for the traceback)"
        )


#: Top-level packages whose frames do not say where a plugin went wrong (a plugin's call into
#: them raised): the fault's place is the innermost frame outside them.
_LIBRARY_PACKAGES = frozenset({"numpy", "importlib", "builtins"})


def _raised_at(cause: BaseException) -> str:
    """``module, line N`` of the innermost frame of ``cause``'s traceback outside the standard
    library and numpy: the plugin's line that failed, for a report without ``--debug``."""
    place = ""
    for frame, line in traceback.walk_tb(cause.__traceback__):
        module = str(frame.f_globals.get("__name__", ""))
        top = module.partition(".")[0]
        if module and top not in _LIBRARY_PACKAGES and top not in sys.stdlib_module_names:
            place = f"{module}, line {line}"
    return place


class GraphError(IrconvError):
    """An edit would leave the graph inconsistent; a bug in a transform, not user input."""
