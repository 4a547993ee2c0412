"""--stateful: the KV cache's inputs and outputs become ReadValue/Assign state."""

from __future__ import annotations

import numpy as np
from irconv import Graph, OutPort, Rewriter, Transform, TransformContext
from irconv.ops import Parameter
from irconv.types import ElementType, Shape
from irconv_opset import Assign, ReadValue

from irconv_llm.kv_cache import CacheTensor, batch_input, find_cache
from irconv_llm.options import MAKE_STATEFUL, STATEFUL

BEAM_IDX = "beam_idx"


class MakeStateful(Transform):
    """past_key_values.N.* input -> ReadValue -> Gather(beam_idx) -> users;
    present.N.* output -> Assign to the same variable.

    Each variable starts, after a reset, as an empty cache (sequence length 0) whose batch
    is ``input_ids``'s; ``beam_idx`` (i32, one index per batch row) picks the cache row each
    sequence continues from (``arange(batch)`` for greedy decoding; beam search reorders).
    The other inputs (input_ids, attention_mask, position_ids) stay model inputs.
    """

    id = "llm.make_stateful"

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        asked: bool | None = graph.meta.get(MAKE_STATEFUL)  # set by the Hugging Face loader
        return bool(ctx.options.get(STATEFUL) or asked)

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        cache = find_cache(graph)
        batch_source = batch_input(graph).out_port(0)
        rw = Rewriter(graph)
        with rw.batch():
            beam_idx = rw.op(Parameter(shape=(None,), element_type=ElementType.i32), name=BEAM_IDX)
            beam_idx.data.add_name(BEAM_IDX)
            empty: dict[tuple[Shape, ElementType, int, int], OutPort] = {}
            for tensor in cache:
                element_type = tensor.past.out_port(0).data.element_type
                key = (tensor.shape, element_type, tensor.batch_axis, tensor.sequence_axis)
                if key not in empty:
                    empty[key] = _empty_cache(rw, tensor, element_type, batch_source)
                _to_variable(rw, tensor, element_type, empty[key], beam_idx)
        ctx.note(f"made {len(cache)} KV cache tensor(s) model state (ReadValue/Assign), added input {BEAM_IDX!r}")
        return True


def _empty_cache(rw: Rewriter, tensor: CacheTensor, element_type: ElementType, batch_source: OutPort) -> OutPort:
    """zeros(shape) with the batch of ``batch_source`` and a sequence length of 0."""
    from irconv_opset import Broadcast, Concat, Gather, ShapeOf

    like = tensor.past
    i64 = np.int64
    batch = rw.op(
        Gather(),
        rw.op(ShapeOf(output_type=ElementType.i64), batch_source, like=like),
        rw.const(np.array([0], i64), like=like),
        rw.const(np.array(0, i64), like=like),
        like=like,
    )
    dims = [
        batch
        if axis == tensor.batch_axis
        else rw.const(np.array([0 if axis == tensor.sequence_axis else dim], i64), like=like)
        for axis, dim in enumerate(tensor.shape)
    ]
    shape = rw.op(Concat(axis=0), *dims, like=like)
    zero = rw.const(np.zeros((), element_type.numpy), like=like)
    return rw.op(Broadcast(mode="numpy"), zero, shape, like=like)


def _to_variable(
    rw: Rewriter, tensor: CacheTensor, element_type: ElementType, initial: OutPort, beam_idx: OutPort
) -> None:
    from irconv_opset import Gather

    variable = rw.op(
        ReadValue(variable_id=tensor.name, variable_type=element_type, variable_shape=tensor.shape),
        initial,
        name=f"{tensor.name}/ReadValue",
    )
    reordered = rw.op(
        Gather(),
        variable,
        beam_idx,
        rw.const(np.array(tensor.batch_axis, np.int64), like=tensor.past),
        name=f"{tensor.name}/reorder",
    )
    rw.replace(tensor.past, reordered)
    present = tensor.present.in_port(0).get_source()
    assert present is not None
    rw.insert(Assign(variable_id=tensor.name), [present], name=f"{tensor.name}/Assign")
    rw.erase(tensor.present)
