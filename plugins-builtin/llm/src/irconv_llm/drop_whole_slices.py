"""Slices that keep every element of their input are dropped."""

from __future__ import annotations

from irconv import Match, PatternRewrite, Rewriter, op
from irconv_opset import Slice

#: A stop at least this large runs to the end of any dimension (exporters write INT64_MAX).
OPEN_END = 1 << 62


def _whole(item: object, length: int | None) -> bool:
    """Whether the Python slice ``item`` of one axis of ``length`` (None: unknown) takes it all."""
    if item == slice(None):
        return True  # an axis the Slice does not list
    if not isinstance(item, slice) or item.step != 1:
        return False
    start, stop = int(item.start), int(item.stop)
    if length is None:
        return start == 0 and stop >= OPEN_END
    return (start == 0 or start <= -length) and stop >= length


class DropWholeSlices(PatternRewrite):
    """``Slice(x, start, stop, step 1, axes) -> x`` where, on every sliced axis, the range
    starts at the first element and stops at or past the last: the same tensor.

    ``torch.export`` writes ``x[:, :, None]`` as such slices (``aten.slice`` from 0 to
    INT64_MAX) around the Unsqueeze; transformers' ``repeat_kv`` (grouped KV heads) has them
    between the KV cache's Concat and the Unsqueeze/Broadcast/Reshape that repeats its heads.
    OpenVINO's SDPA-to-PagedAttention rewrite (GenAI's default backend) reads that chain with
    nothing in between, so without this the model keeps GenAI's stateful backend."""

    id = "llm.drop_whole_slices"
    run_before = ("fuse.merge_common_subexpressions", "fold.symbolic_shapes")
    pattern = op(Slice, bind="slice")

    def rewrite(self, match: Match, rw: Rewriter) -> bool:
        node = match["slice"]
        data = node.in_port(0).get_source()
        shape = data.data.shape if data is not None else None
        if data is None or shape is None:
            return False
        bounds = [node.in_port(i).constant(shape_derived=False) for i in range(1, node.num_inputs())]
        if any(value is None for value in bounds) or len(bounds) < 3:
            return False
        start, stop, step = bounds[:3]
        axes = bounds[3] if len(bounds) > 3 else None
        try:
            items = Slice.index(len(shape), start, stop, step, axes)
        except (ValueError, IndexError):
            return False
        if not all(_whole(item, length) for item, length in zip(items, shape, strict=True)):
            return False
        rw.replace(node, data)
        return True
