"""torch.export's constraint violations (a ``Dim`` the program does not allow) as one line.

torch reports them as a multi-line log: "Constraints violated (batch)!", one bullet per guard
the dimension fails, written over sources such as ``L['x'].size()[0]``, then "Suggested
fixes". The line made here names the dimension, its input and axis, the first constraint it
breaks (with ``x.shape[0]`` for the sources), how many more there are, and torch's fix."""

from __future__ import annotations

import re
from typing import Any

_VIOLATED = re.compile(r"Constraints violated \(([^)]*)\)")
_SOURCE = re.compile(r"L\['(\w+)'\]((?:\[\d+\])*)\.size\(\)\[(\d+)\]")
_SPECIALISED = re.compile(r"You marked (\w+) as dynamic but your code specialized it to be a constant \((\d+)\)")
_GUARD = re.compile(r"Not all values of (\w+) = (\S+) in the specified range(?: .*?)? "
                    r"satisfy the generated guard (.*)\.$")


def is_constraint_violation(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is torch's report of a ``Dim``
    the program does not allow."""
    from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConstraintViolationError) or _VIOLATED.search(str(cause)):
            return True
        cause = cause.__cause__
    return False


def constraint_violation_line(exc: BaseException, places: dict[str, str] | None = None) -> str:
    """One line for torch's constraint violation ``exc``; ``places`` maps a ``Dim``'s name
    to where the user put it (``"x.shape[1]"``, from ``dim_places``)."""
    text = str(exc)
    places = places or {}
    bullets = [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("- ")]
    fixes = _suggested_fixes(text)
    if not bullets:
        return _sources(text.strip().splitlines()[0] if text.strip() else type(exc).__name__)
    first = _bullet(bullets[0], places)
    more = f" (and {len(bullets) - 1} more)" if len(bullets) > 1 else ""
    fix = f"; torch suggests {'; '.join(fixes)}" if fixes else ""
    return f"{first}{more}{fix}"


def _bullet(bullet: str, places: dict[str, str]) -> str:
    specialised = _SPECIALISED.search(bullet)
    if specialised:
        name = specialised.group(1)
        where = f" ({places[name]})" if name in places else ""
        return f"dimension {name}{where} was marked dynamic but the program needs it to be {specialised.group(2)}"
    guard = _GUARD.search(bullet)
    if guard:
        return (f"dimension {guard.group(1)} ({_sources(guard.group(2))}) cannot take every value of its "
                f"range: the program needs {_sources(guard.group(3))}")
    return _sources(bullet.split(" If you're using", 1)[0])


def _suggested_fixes(text: str) -> list[str]:
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Suggested fixes:") + 1
    except StopIteration:
        return []
    fixes = []
    for line in lines[start:]:
        if not line.startswith(" ") or not line.strip():
            break
        fixes.append(line.strip())
    return fixes


def _sources(text: str) -> str:
    """``L['x'].size()[0]`` -> ``x.shape[0]``."""
    return _SOURCE.sub(lambda m: f"{m.group(1)}{m.group(2)}.shape[{m.group(3)}]", text)


def dim_places(dynamic_shapes: Any, names: list[str]) -> dict[str, str]:
    """Each named ``Dim`` of ``dynamic_shapes`` -> ``"input.shape[axis]"``, the input named
    by ``names`` (the forward's parameters) for positional specs."""
    found: dict[str, str] = {}

    def visit(spec: Any, label: str) -> None:
        if isinstance(spec, dict) and all(isinstance(key, int) for key in spec):
            axes: list[tuple[Any, Any]] = list(spec.items())
        elif isinstance(spec, (tuple, list)) and spec and all(_is_dim(item) or item is None for item in spec):
            axes = list(enumerate(spec))
        elif isinstance(spec, dict):
            for key, item in spec.items():
                visit(item, str(key))
            return
        elif isinstance(spec, (tuple, list)):
            for index, item in enumerate(spec):
                visit(item, names[index] if label == "" and index < len(names) else f"{label}[{index}]")
            return
        else:
            return
        for axis, dim in axes:
            if _is_dim(dim):
                found.setdefault(dim.__name__, f"{label}.shape[{axis}]")

    visit(dynamic_shapes, "")
    return found


def _is_dim(item: Any) -> bool:
    """A named ``torch.export.Dim`` (not a hint such as ``Dim.AUTO``, which has no name)."""
    return hasattr(item, "__name__") and hasattr(item, "min")
