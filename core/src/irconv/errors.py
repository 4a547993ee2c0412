"""Typed errors. Each ``UserError`` is printed by the CLI as one clear message."""

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

    exit_code = 2


class ConversionError(UserError):
    """A node cannot be converted (bad attribute value, failed inference, ...)."""


class PluginError(IrconvError):
    """A plugin is broken or two plugins conflict."""


class GraphError(IrconvError):
    """An edit would leave the graph inconsistent; a bug in a transform, not user input."""
