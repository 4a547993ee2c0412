"""Mixture-of-experts layers traced as every expert on every token, weighted by the router.

transformers computes an experts module (``use_experts_implementation``: Mixtral, Qwen2-MoE
and the other MoE families) by an implementation chosen by name. Its default loop visits only
the experts the input routes to, a branch on tensor values that a trace cannot keep; its
``batched_mm`` gathers each chosen expert's matrices once per token and choice, so a prompt of
``T`` tokens makes ``T * top_k`` copies of expert matrices at run time (a 128-token prompt of a
2-layer, 8-expert model of hidden 1024: 17 GiB). Here each expert's matrices multiply every
token (one batched MatMul over the experts' stacked weights, read once), and each token's
results are summed with the router's weights scattered over the experts (zero for the
experts it did not choose): ``E / top_k`` times the arithmetic, no copy of any weight, and the
form OpenVINO's runtime runs for optimum-cli's MoE folders too.

The model is built with ``experts_implementation=IMPLEMENTATION`` (``batched_mm``: releases of
transformers before 5.6 accept no other name than their own), and this forward stands in for
that name in the registry's local mapping only while the model is built and traced
(``registered``): the registry is shared by the process, and is left as it was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

#: The name transformers' experts modules are built with (``experts_implementation=``).
IMPLEMENTATION = "batched_mm"


def dense_experts_forward(self: Any, hidden_states: Any, top_k_index: Any, top_k_weights: Any) -> Any:
    """``hidden_states`` ``[T, H]`` through every expert, summed with ``top_k_weights`` of the
    experts ``top_k_index`` (``[T, k]``) names; transformers' experts module attributes
    (``has_gate``, ``has_bias``, ``is_transposed``, ``has_post_expert_norm``) as its
    ``batched_mm`` reads them."""
    import torch

    # transformers' attributes, with their defaults where a release has not got them yet
    has_gate, has_bias = getattr(self, "has_gate", True), getattr(self, "has_bias", False)
    transposed = getattr(self, "is_transposed", False)
    up_weights = self.gate_up_proj if has_gate else self.up_proj
    experts = up_weights.shape[0]
    routing = torch.zeros(hidden_states.shape[0], experts, dtype=hidden_states.dtype)
    routing = routing.scatter(1, top_k_index, top_k_weights.to(hidden_states.dtype))  # [T, E]

    def linear(inputs: Any, weights: Any, bias: Any) -> Any:  # [E, T, in] x per-expert weights -> [E, T, out]
        out = torch.matmul(inputs, weights if transposed else weights.transpose(1, 2))
        return out if bias is None else out + bias[:, None, :]

    up_bias = (self.gate_up_proj_bias if has_gate else self.up_proj_bias) if has_bias else None
    # every token once per expert, as a tensor of its own: OpenVINO's CPU plugin fails on a
    # MatMul broadcasting a [1, T, H] input against [E, ...] constant weights
    tokens = hidden_states[None].repeat(experts, 1, 1)  # [E, T, H]
    projected = linear(tokens, up_weights, up_bias)  # [E, T, 2I] or [E, T, I]
    gated = self._apply_gate(projected) if has_gate else self.act_fn(projected)
    out = linear(gated, self.down_proj, self.down_proj_bias if has_bias else None)  # [E, T, H]
    if getattr(self, "has_post_expert_norm", False):
        out = self.post_expert_norm(out)
    return (out * routing.transpose(0, 1)[..., None]).sum(0).to(hidden_states.dtype)


@contextlib.contextmanager
def registered() -> Iterator[None]:
    """``IMPLEMENTATION`` computed by ``dense_experts_forward`` meanwhile."""
    from transformers.integrations.moe import ALL_EXPERTS_FUNCTIONS

    local = ALL_EXPERTS_FUNCTIONS._local_mapping  # the instance's overrides of the shared names
    earlier = local.get(IMPLEMENTATION)
    ALL_EXPERTS_FUNCTIONS[IMPLEMENTATION] = dense_experts_forward
    try:
        yield
    finally:
        if earlier is None:
            del ALL_EXPERTS_FUNCTIONS[IMPLEMENTATION]
        else:
            ALL_EXPERTS_FUNCTIONS[IMPLEMENTATION] = earlier


__all__ = ["IMPLEMENTATION", "dense_experts_forward", "registered"]
