"""Dynamic dimensions of a module's inputs, found by ``torch.export`` itself.

Every dimension of every tensor input is marked ``Dim.AUTO``: torch keeps it dynamic unless the
program fixes it (a convolution's input channels, a size a weight must match), in which case
torch specialises it silently. Sizes 0 and 1 of the example input are traced size-obliviously
(``backed_size_oblivious``), so a batch of one still gives a dynamic batch, as OpenVINO's own
converter does. What stayed static, and where torch fixed it, is reported in one note."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

#: Inputs of this rank or more are images, volumes or videos: only their batch is made dynamic.
#: Their spatial sizes are part of the design (window and patch arithmetic on them can cost
#: torch's symbolic reasoning many minutes) and ``--input`` or ``dynamic_shapes=`` free them.
SPATIAL_RANK = 4


def automatic_dynamic_shapes(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``dynamic_shapes`` for ``torch.export.export`` in the inputs' own structure: ``Dim.AUTO``
    for the batch and sequence dimensions of each tensor (every dimension of a tensor of rank
    below ``SPATIAL_RANK``, the first of one of that rank or more), None for other leaves."""
    import torch
    from torch.utils import _pytree

    def spec(leaf: Any) -> Any:
        if isinstance(leaf, torch.Tensor):
            axes = range(leaf.dim()) if leaf.dim() < SPATIAL_RANK else range(1)
            return {axis: torch.export.Dim.AUTO for axis in axes}
        return None

    if kwargs:
        return {name: _pytree.tree_map(spec, value) for name, value in kwargs.items()}
    return tuple(_pytree.tree_map(spec, value) for value in args)


@contextlib.contextmanager
def size_oblivious_tracing() -> Iterator[None]:
    """Sizes 0 and 1 of the example input traced like any other size (torch specialises
    them otherwise); a no-op on a torch without the setting."""
    from torch.fx.experimental import _config

    if not hasattr(_config, "backed_size_oblivious"):
        yield
        return
    with _config.patch(backed_size_oblivious=True):
        yield


def static_dimensions_note(program: Any) -> str | None:
    """One line naming the input dimensions that torch kept static and why, or None when
    every dimension of every input is dynamic."""
    fixed = _fixed_by_program(program)
    static: list[str] = []
    for name, shape in _user_input_shapes(program):
        marked = len(shape) if len(shape) < SPATIAL_RANK else 1  # as automatic_dynamic_shapes marks them
        for axis, size in enumerate(shape[:marked]):
            if isinstance(size, int):
                reason = fixed.get((name, axis))
                static.append(f"{name}.shape[{axis}]={size}" + (f" (fixed by {reason})" if reason else ""))
    if not static:
        return None
    return ("dimensions torch.export kept static, as the program needs those sizes (the others are "
            f"dynamic; static_shape=True / --static-shape exports every one static): {', '.join(static)}")


def _user_input_shapes(program: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """Each user input's name and shape, a static dimension as an int (torch may hold one as
    a SymInt of constant value), a dynamic one as its SymInt."""
    import torch
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    users = set(program.graph_signature.user_inputs)
    found = []
    for fx in program.graph_module.graph.nodes:
        value = fx.meta.get("val")
        if fx.op == "placeholder" and fx.name in users and isinstance(value, torch.Tensor):
            found.append((fx.name, tuple(int(s) if is_concrete_int(s) else s for s in value.shape)))
    return found


_SOURCE = re.compile(r"L\['(\w+)'\]\.size\(\)\[(\d+)\]")


def _fixed_by_program(program: Any) -> dict[tuple[str, int], str]:
    """``(input, axis)`` -> the torch function that fixed that dimension's size during
    tracing, read from the tracing's shape environment (where torch records it)."""
    env = _shape_env(program)
    if env is None:
        return {}
    found: dict[tuple[str, int], str] = {}
    for symbol, location in getattr(env, "replacements_slocs", {}).items():
        if not getattr(env.replacements.get(symbol), "is_Integer", False):
            continue
        where = _location(location)
        for source in env.var_to_sources.get(symbol, ()):
            match = _SOURCE.fullmatch(source.name)
            if match and where:
                found[(match.group(1), int(match.group(2)))] = where
    return found


def _shape_env(program: Any) -> Any:
    for fx in program.graph_module.graph.nodes:
        mode = getattr(fx.meta.get("val"), "fake_mode", None)
        if mode is not None and mode.shape_env is not None:
            return mode.shape_env
    return None


def _location(location: Any) -> str:
    user = getattr(location, "maybe_user_loc", None)
    if user:
        return str(user)
    frame = getattr(location, "framework_loc", None)
    return getattr(frame, "name", "") if frame is not None and not isinstance(frame, str) else str(frame or "")
