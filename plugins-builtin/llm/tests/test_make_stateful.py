"""llm.make_stateful on one attention layer built in memory, run in OpenVINO request after request
against numpy attention over the cache fed back by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from irconv import Graph
from irconv.testing import GraphBuilder, run_transform
from irconv.testing.runtime import emit_ir
from irconv.types import ElementType
from irconv_llm.make_stateful import MakeStateful
from irconv_opset import Add, Concat, Convert, ReduceSum, ScaledDotProductAttention, Unsqueeze

pytest.importorskip("openvino")

HEADS, HEAD_SIZE = 2, 4


def one_layer_cache() -> Graph:
    """A decoder layer's attention: present.0.key/value = Concat(past_key_values.0.key/value,
    new key/value) along the sequence, logits = ScaledDotProductAttention(query, present key,
    present value) summed per row, plus the sum of input_ids (the batch input is read)."""
    b = GraphBuilder("decoder")
    ids = b.parameter("input_ids", (None, None), ElementType.i64)
    query = b.parameter("query", (None, HEADS, None, HEAD_SIZE))
    present = []
    for name in ("key", "value"):
        new = b.parameter(f"new_{name}", (None, HEADS, None, HEAD_SIZE))
        past = b.parameter(f"past_key_values.0.{name}", (None, HEADS, None, HEAD_SIZE))
        present.append(b.op(Concat(axis=2), past, new))
        b.result(present[-1], f"present.0.{name}")
    attention = b.op(ScaledDotProductAttention(), query, *present)
    summed = b.op(ReduceSum(), attention, b.const(np.array([1, 2, 3], np.int64)))
    token = b.op(Convert(destination_type=ElementType.f32), b.op(ReduceSum(), ids, b.const(np.array([1], np.int64))))
    b.result(b.op(Add(), summed, token), "logits")
    return b.graph


def attention(query: np.ndarray, key: np.ndarray, value: np.ndarray) -> np.ndarray:
    scores = query @ key.swapaxes(-1, -2) / np.sqrt(query.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)) @ value


def test_the_cache_becomes_state_with_a_beam_idx_input(tmp_path: Path) -> None:
    from irconv.runtime import compile_for_comparison

    graph = one_layer_cache()
    assert run_transform(graph, MakeStateful(), **{"llm.stateful": True}) is True
    types = [node.type for node in graph.nodes()]
    assert types.count("ReadValue") == 2 and types.count("Assign") == 2 and "Result" in types
    compiled = compile_for_comparison(emit_ir(graph, tmp_path / "stateful.xml"))
    assert sorted(name for port in compiled.inputs for name in port.get_names()) == [
        "beam_idx", "input_ids", "new_key", "new_value", "query"]
    assert [port.any_name for port in compiled.outputs] == ["logits"]
    request = compiled.create_infer_request()
    assert sorted(state.name for state in request.query_state()) == ["past_key_values.0.key", "past_key_values.0.value"]

    rng = np.random.default_rng(0)
    batch = 2
    cache = {name: np.zeros((batch, HEADS, 0, HEAD_SIZE), np.float32) for name in ("key", "value")}
    for length, beams in ((3, [0, 1]), (1, [1, 1]), (2, [1, 0])):
        ids = rng.integers(0, 100, (batch, length))
        feeds = {f"new_{name}": rng.standard_normal((batch, HEADS, length, HEAD_SIZE)).astype(np.float32)
                 for name in ("key", "value", "query")}
        query = feeds.pop("new_query")
        beam_idx = np.array(beams, np.int32)
        got = request.infer({"input_ids": ids, "query": query, "beam_idx": beam_idx, **feeds})[compiled.output("logits")]
        for name in cache:  # the reference: the cache fed back by hand, rows picked by beam_idx
            cache[name] = np.concatenate([cache[name][beam_idx], feeds[f"new_{name}"]], axis=2)
        expected = attention(query, cache["key"], cache["value"]).sum((1, 2, 3)) + ids.sum(1)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_without_the_option_nothing_changes() -> None:
    assert run_transform(one_layer_cache(), MakeStateful()) is False


def test_a_graph_without_a_cache_is_refused_under_stateful() -> None:
    """A graph whose inputs and outputs name no cache is refused when --stateful asks."""
    from irconv import UserError

    b = GraphBuilder()
    x = b.parameter("input_ids", (None, None), ElementType.i64)
    b.result(b.op(Unsqueeze(), x, b.const(np.array([0], np.int64))), "logits")
    with pytest.raises(UserError, match="past"):
        run_transform(b.graph, MakeStateful(), **{"llm.stateful": True})
