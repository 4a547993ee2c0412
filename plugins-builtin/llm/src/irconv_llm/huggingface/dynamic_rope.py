"""Dynamic NTK rotary frequencies as graph operations while ``torch.export`` traces.

transformers' ``dynamic_rope_update`` recomputes a "dynamic" rotary module's ``inv_freq`` when
``max(position_ids) + 1`` passes ``max_position_embeddings``: a Python branch on a tensor value,
which a trace records for the example input only (the short branch). Meanwhile each such module's
forward computes both frequency sets with transformers' own ``rope_init_fn`` (which takes the
sequence length as a tensor) and selects one with ``torch.where``, as transformers' longrope
update already does; the undecorated forward then rotates with it.
"""

from __future__ import annotations

import contextlib
import inspect
import types
from collections.abc import Iterator
from typing import Any


def _is_dynamic(module: Any) -> bool:
    """A rotary module whose forward is wrapped by ``dynamic_rope_update`` and whose rope
    type (or one of its per-layer-type rope types) is a dynamic one."""
    rope_type = getattr(module, "rope_type", None)
    rope_types = rope_type.values() if isinstance(rope_type, dict) else [rope_type]
    wrapped = hasattr(type(module).forward, "__wrapped__")
    return wrapped and any(isinstance(t, str) and "dynamic" in t for t in rope_types)


def _traceable_forward(module: Any) -> Any:
    """``module``'s forward with the dynamic frequency update written as tensor operations."""
    import torch
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    undecorated = inspect.unwrap(type(module).forward)  # without dynamic_rope_update (nor a no_grad around it)

    def forward(self: Any, x: Any, position_ids: Any, layer_type: Any = None) -> Any:
        rope_type = self.rope_type if layer_type is None else self.rope_type[layer_type]
        keywords = {} if layer_type is None else {"layer_type": layer_type}
        if "dynamic" in rope_type:
            prefix = "" if layer_type is None else f"{layer_type}_"
            seq_len = torch.max(position_ids) + 1
            scaled, _ = ROPE_INIT_FUNCTIONS[rope_type](self.config, x.device, seq_len=seq_len, **keywords)
            original = getattr(self, f"{prefix}original_inv_freq").to(x.device)
            inv_freq = torch.where(seq_len > self.original_max_seq_len, scaled.to(original.dtype), original)
            getattr(self, f"{prefix}inv_freq").copy_(inv_freq)  # in place, as transformers' longrope update
        return undecorated(self, x, position_ids, **keywords)

    return types.MethodType(forward, module)


@contextlib.contextmanager
def traceable_dynamic_rope(model: Any) -> Iterator[None]:
    """Every dynamic rotary module of ``model`` computes its frequencies as graph operations."""
    patched = [module for module in model.modules() if _is_dynamic(module)]
    for module in patched:
        module.forward = _traceable_forward(module)
    try:
        yield
    finally:
        for module in patched:
            del module.forward
