"""The explicit options object passed down the pipeline (no globals)."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from irconv.contract.input_spec import InputSpec as InputSpec  # re-exported: parsed --input
from irconv.contract.option import Option, OptionTable
from irconv.errors import UsageError

if TYPE_CHECKING:
    from irconv.graph import Node

T = TypeVar("T")

@dataclass
class ConversionOptions:
    """Everything that steers one conversion, with no framework-specific fields.

    The core's own settings are fields; each plugin's settings are declared by the plugin
    (``declare_options``) and kept in ``plugin_values`` by option name. Read them with
    ``options.get(OPTION)``, which gives the declared default when the user set nothing.
    ``weights`` is the weights file of formats that keep topology and weights apart.
    """

    framework: str | None = None
    inputs: list[InputSpec] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    static_shape: bool = False
    compress_to_fp16: bool = True
    disabled_transforms: set[str] = field(default_factory=set)
    weights: Path | None = None
    output_format: str = "ir11"
    #: Wait until the output files are on the disk before renaming them into place
    #: (``--sync``); by default they are complete in the page cache when irconv exits.
    sync_output: bool = False
    validate: bool = False
    #: Threads that encode and write weights (``--threads``); None: one per core this
    #: process may run on. The output is the same whatever the number.
    threads: int | None = None
    #: Regular expressions: a node whose name, or whose source-framework node's name, fully
    #: matches one is never touched by an optimisation (``--finegrain-fusing``).
    finegrain_fusing: tuple[str, ...] = ()
    plugin_values: dict[str, Any] = field(default_factory=dict)

    def frozen_predicate(self) -> Callable[[Node], bool] | None:
        """The test for nodes ``finegrain_fusing`` protects, or None when it names none."""
        if not self.finegrain_fusing:
            return None
        patterns = []
        for text in self.finegrain_fusing:
            try:
                patterns.append(re.compile(text))
            except re.error as exc:
                raise UsageError(f"--finegrain-fusing: {text!r} is not a regular expression: {exc}") from None

        def frozen(node: Node) -> bool:
            names = (node.name, node.origin) if node.origin else (node.name,)
            return any(p.fullmatch(name) for p in patterns for name in names)

        return frozen

    def worker_threads(self) -> int:
        """``threads``, or the number of cores this process may run on when it is not set."""
        if self.threads is not None:
            return self.threads
        return available_cores()

    def get(self, option: Option[T]) -> T:
        """The value of a plugin's declared option (its default when not given)."""
        if option.name in self.plugin_values:
            return cast(T, self.plugin_values[option.name])
        return cast(T, option.default)

    def with_values(self, **values: Any) -> ConversionOptions:
        """A copy with some plugin option values set (by option name)."""
        return dataclasses.replace(self, plugin_values={**self.plugin_values, **values})

    @classmethod
    def core_fields(cls) -> set[str]:
        return {f.name for f in dataclasses.fields(cls)} - {"plugin_values"}

    @classmethod
    def from_kwargs(cls, options: OptionTable | None = None, **kwargs: Any) -> ConversionOptions:
        """Build from keyword arguments: core fields, or any declared option's keyword.

        ``inputs`` takes what ``--input`` takes: one string, or a list or tuple of strings
        (or ``InputSpec``). Unknown keywords are an error listing the known ones.
        """
        core = cls.core_fields()
        plugin_values: dict[str, Any] = dict(kwargs.pop("plugin_values", None) or {})
        for key in [k for k in kwargs if k not in core]:
            declared = options.by_keyword(key) if options is not None else None
            if declared is None:
                known = sorted(core | {o.python_keyword for o in options or ()})
                raise UsageError(f"unknown conversion option {key!r}; known: {', '.join(known)}")
            value = kwargs.pop(key)
            if value is not None:  # None asks for the option's default
                plugin_values[declared.name] = value
        inputs = kwargs.pop("inputs", None) or []
        if isinstance(inputs, (str, InputSpec)):
            inputs = [inputs]
        parsed = [spec if isinstance(spec, InputSpec) else InputSpec.parse(spec) for spec in inputs]
        if kwargs.get("weights") is not None:
            kwargs["weights"] = Path(kwargs["weights"])
        if "disabled_transforms" in kwargs:
            kwargs["disabled_transforms"] = set(kwargs["disabled_transforms"])
        if kwargs.get("threads") is not None:
            kwargs["threads"] = thread_count(kwargs["threads"])
        if "finegrain_fusing" in kwargs:
            kwargs["finegrain_fusing"] = split_patterns(kwargs["finegrain_fusing"])
        return cls(inputs=parsed, plugin_values=plugin_values, **kwargs)

    def resolved(self, options: OptionTable) -> ConversionOptions:
        """A copy whose plugin values are converted and validated against the declarations.

        A name no installed plugin declares is an error listing the declared ones; a
        ``finegrain_fusing`` that is not a regular expression is an error too.
        """
        self.frozen_predicate()
        values = {}
        for name, value in self.plugin_values.items():
            declared = options.by_name(name)
            if declared is None:
                raise options.unknown(name, "option")
            values[name] = declared.convert(value)
        return dataclasses.replace(self, plugin_values=values)

    def input_override(self, name: str, index: int, count: int) -> InputSpec | None:
        """The ``--input`` spec for a model input, matched by name (or the only input)."""
        for spec in self.inputs:
            if spec.name == name:
                return spec
        if count == 1 and index == 0:
            for spec in self.inputs:
                if spec.name == "":
                    return spec
        return None


def split_patterns(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"a.*,b"`` (or a list of such) -> ``("a.*", "b")``, empty items dropped."""
    items = [value] if isinstance(value, str) else list(value or ())
    return tuple(part.strip() for item in items for part in item.split(",") if part.strip())


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def thread_count(value: object, what: str = "threads") -> int:
    """A thread count given by the user (``what`` names the option): a whole number, 1 or more."""
    try:
        count = int(str(value))
    except ValueError:
        count = 0
    if count < 1:
        raise UsageError(f"{what}: expected a whole number of 1 or more, got {value!r}")
    return count
