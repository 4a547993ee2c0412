"""Typed errors. Each ``UserError`` is printed by the CLI as one clear message.

Exit codes of the command line: 0 success; 1 a user error (the model, an input, an option
value); 2 a command line that does not parse; 3 an internal error of irconv; 4 ``--verify``
found different outputs; 5 operations no installed plugin converts; 6 a plugin's bug.
"""

from __future__ import annotations


class IrconvError(Exception):
    """Base of every error irconv raises on purpose."""

    exit_code = 1


class UserError(IrconvError):
    """Bad input or options: the message says what is wrong, where, and what to do."""


class ModelFileError(UserError):
    """The model file is missing, unreadable or not in a format any loader accepts."""


class UnsupportedOpsError(UserError):
    """Operations no installed extractor handles; all of them, reported at once."""

    exit_code = 5


class ConversionError(UserError):
    """A node cannot be converted (bad attribute value, failed inference, ...)."""


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

    exit_code = 6

    def __init__(self, doing: str, cause: BaseException, plugin: str = "", op: type | None = None) -> None:
        self.doing, self.cause, self.plugin, self.op = doing, cause, plugin, op
        super().__init__(self._text())

    def blame(self, plugin: str) -> PluginFault:
        """The same fault, now naming the plugin (distribution and version)."""
        self.plugin = plugin
        self.args = (self._text(),)
        return self

    def _text(self) -> str:
        who = self.plugin or "a plugin"
        return (
            f"{who} failed {self.doing}: {type(self.cause).__name__}: {self.cause}. This is a bug in {who}, "
            "not in your model: please report it to its authors (rerun with --debug for the traceback)"
        )


class GraphError(IrconvError):
    """An edit would leave the graph inconsistent; a bug in a transform, not user input."""
