"""Typed options that plugins declare; the CLI and ``convert_model`` are built from them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from irconv.errors import PluginClash, PluginError, UsageError

T = TypeVar("T")

_NAME = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+(\.[a-z0-9_]+)*$")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_EXPECTED: dict[Any, str] = {int: "not a whole number", float: "not a number"}


@dataclass(frozen=True, slots=True)
class Option(Generic[T]):
    """One option a plugin understands, e.g. ``Option("tf.signature", str, help=...)``.

    ``name`` is namespaced by the plugin (``<namespace>.<key>``) and is the key of
    ``--option name=value``. ``flag`` is the CLI spelling (default: ``--`` and the name with
    ``.``/``_`` turned into ``-``); ``keyword`` is the ``convert_model`` keyword (default:
    the name with ``.`` turned into ``_``). ``type`` turns a command-line string into the
    value (``str``, ``int``, ``float``, ``bool``, ``Path`` or any callable raising
    ``ValueError``); ``multiple`` makes the option repeatable, its value a tuple.
    ``validate`` returns an error message for a bad value, or None.
    """

    name: str
    type: Callable[[str], Any] = str
    default: Any = None
    help: str = ""
    flag: str | None = None
    keyword: str | None = None
    choices: tuple[Any, ...] | None = None
    multiple: bool = False
    metavar: str | None = None
    validate: Callable[[Any], str | None] | None = None

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise PluginError(f"option name {self.name!r} must be namespaced lower case, e.g. 'tf.signature'")
        if self.flag is not None and not self.flag.startswith("--"):
            raise PluginError(f"option {self.name}: flag {self.flag!r} must start with --")

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace(".", "-").replace("_", "-")

    @property
    def python_keyword(self) -> str:
        return self.keyword or self.name.replace(".", "_")

    @property
    def is_flag(self) -> bool:
        return self.type is bool and not self.multiple

    def convert(self, value: Any) -> Any:
        """A user's value (text from the CLI, or a Python value) as this option's value."""
        if self.multiple:
            items = value if isinstance(value, (list, tuple)) else [value]
            converted: Any = tuple(self._one(v) for v in items)
        else:
            converted = self._one(value)
        if self.validate is not None:
            problem = self.validate(converted)
            if problem:
                raise UsageError(f"option {self.cli_flag} ({self.name}): {problem}")
        return converted

    def _one(self, value: Any) -> Any:
        if self.type is bool:
            value = _to_bool(value, self)
        elif isinstance(value, str) or self.type is Path:
            try:
                value = self.type(value)
            except (TypeError, ValueError) as exc:
                # int('abc')'s own words ("invalid literal for int() with base 10") are Python's, not the user's
                why = _EXPECTED.get(self.type, str(exc))
                raise UsageError(f"option {self.cli_flag} ({self.name}): bad value {value!r}: {why}") from None
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise UsageError(f"option {self.cli_flag} ({self.name}): {value!r} is not one of {allowed}")
        return value


def _to_bool(value: Any, option: Option[Any]) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise UsageError(f"option {option.cli_flag} ({option.name}): {value!r} is not a boolean (true/false)")


class OptionTable:
    """Every declared option, by name, CLI flag and keyword; clashes name both plugins."""

    def __init__(self) -> None:
        self._by_name: dict[str, tuple[Option[Any], str]] = {}
        self._by_flag: dict[str, str] = {}
        self._by_keyword: dict[str, str] = {}

    def add(self, option: Option[Any], owner: str, reserved_flags: Sequence[str] = ()) -> None:
        """Add a plugin's option; a name, flag or keyword already taken is a conflict."""
        if option.cli_flag in reserved_flags:
            raise PluginError(f"flag {option.cli_flag} of option {option.name} ({owner}) is one of the core's own flags")
        taken = (
            ("option", option.name, option.name if option.name in self._by_name else None),
            ("flag", option.cli_flag, self._by_flag.get(option.cli_flag)),
            ("keyword", option.python_keyword, self._by_keyword.get(option.python_keyword)),
        )
        for what, key, other in taken:
            if other is not None:
                other_owner = self._by_name[other][1]
                raise PluginClash(f"{what} {key!r}", other_owner, owner, f"options {other} and {option.name}")
        self._by_name[option.name] = (option, owner)
        self._by_flag[option.cli_flag] = option.name
        self._by_keyword[option.python_keyword] = option.name

    def __iter__(self) -> Iterator[Option[Any]]:
        return iter([option for option, _ in self._by_name.values()])

    def __len__(self) -> int:
        return len(self._by_name)

    def owner(self, option: Option[Any]) -> str:
        return self._by_name[option.name][1]

    def by_name(self, name: str) -> Option[Any] | None:
        entry = self._by_name.get(name)
        return entry[0] if entry else None

    def by_keyword(self, keyword: str) -> Option[Any] | None:
        name = self._by_keyword.get(keyword)
        return self._by_name[name][0] if name else None

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def unknown(self, name: str, how: str) -> UsageError:
        known = ", ".join(self.names()) or "none (no installed plugin declares options)"
        return UsageError(f"unknown {how} {name!r}; options the installed plugins declare: {known}")
