"""Flax networks (a CNN, a convolutional autoencoder with ConvTranspose, an MLP, an MLP-Mixer block, a transformer encoder block) converted
as bound modules and as jax.export artifacts, run in OpenVINO against jax on CPU, with a
static and a dynamic batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export
from jax_support import check_function

RNG = np.random.default_rng(0)


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x: Any) -> Any:
        x = nn.relu(nn.Conv(8, (3, 3))(x))
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = nn.relu(nn.Conv(16, (3, 3), strides=(2, 2), padding="VALID")(x))
        x = nn.max_pool(x, (2, 2), strides=(1, 1), padding="SAME")
        x = nn.BatchNorm(use_running_average=True)(x)
        x = x.mean(axis=(1, 2))
        return jax.nn.softmax(nn.Dense(10)(x))


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x: Any) -> Any:
        x = nn.gelu(nn.Dense(32)(x))
        x = nn.LayerNorm()(x)
        x = jnp.tanh(nn.Dense(16)(x))
        return nn.Dense(4)(x)


class MixerBlock(nn.Module):
    @nn.compact
    def __call__(self, x: Any) -> Any:  # [batch, patches, channels]
        y = nn.LayerNorm()(x).swapaxes(1, 2)
        y = nn.Dense(x.shape[1])(nn.gelu(nn.Dense(16)(y))).swapaxes(1, 2)
        x = x + y
        return x + nn.Dense(x.shape[2])(nn.gelu(nn.Dense(32)(nn.LayerNorm()(x))))


class EncoderBlock(nn.Module):
    @nn.compact
    def __call__(self, x: Any) -> Any:  # [batch, tokens, features]
        y = nn.LayerNorm()(x)
        y = nn.MultiHeadDotProductAttention(num_heads=4, qkv_features=32)(y, y)
        x = x + y
        y = nn.Dense(64)(nn.LayerNorm()(x))
        return x + nn.Dense(x.shape[-1])(nn.gelu(y))


class AutoEncoder(nn.Module):
    @nn.compact
    def __call__(self, x: Any) -> Any:
        x = nn.relu(nn.Conv(8, (3, 3), strides=(2, 2))(x))
        x = nn.relu(nn.ConvTranspose(6, (3, 3), strides=(2, 2))(x))
        return nn.sigmoid(nn.ConvTranspose(3, (4, 4), strides=(1, 1), padding="VALID")(x))


NETWORKS: dict[str, tuple[nn.Module, tuple[int, ...]]] = {
    "cnn": (CNN(), (2, 16, 16, 3)),
    "mlp": (MLP(), (3, 20)),
    "autoencoder": (AutoEncoder(), (2, 8, 8, 3)),
    "mixer_block": (MixerBlock(), (2, 9, 12)),
    "encoder_block": (EncoderBlock(), (2, 7, 32)),
}


def _bound(name: str) -> tuple[Any, np.ndarray]:
    module, shape = NETWORKS[name]
    x = RNG.standard_normal(shape).astype(np.float32)
    variables = module.init(jax.random.PRNGKey(0), x)
    return module.bind(variables), x


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_a_bound_flax_module_matches_jax(name: str, tmp_path: Path) -> None:
    bound, x = _bound(name)
    check_function(bound, x, tmp_path, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_a_symbolic_batch_stays_dynamic(name: str, tmp_path: Path) -> None:
    bound, x = _bound(name)
    spec = jax.ShapeDtypeStruct(export.symbolic_shape(", ".join(["b", *map(str, x.shape[1:])])), jnp.float32)
    runs = [RNG.standard_normal((batch, *x.shape[1:])).astype(np.float32) for batch in (1, 3)]
    check_function(bound, spec, tmp_path, runs=runs, rtol=1e-4, atol=1e-4)


class TextClassifier(nn.Module):
    """Token ids -> embeddings with learned positions -> a causal encoder block -> logits."""

    @nn.compact
    def __call__(self, ids: Any) -> Any:
        x = nn.Embed(50, 32)(ids) + nn.Embed(16, 32)(jnp.arange(ids.shape[1]))[None]
        mask = nn.make_causal_mask(ids)
        y = nn.MultiHeadDotProductAttention(num_heads=4)(nn.LayerNorm()(x), mask=mask)
        x = x + y
        return nn.Dense(3)(jnp.max(x + nn.Dense(32)(nn.gelu(nn.LayerNorm()(x))), axis=1))


def test_token_ids_with_a_symbolic_batch_and_length(tmp_path: Path) -> None:
    module = TextClassifier()
    ids = RNG.integers(0, 50, (2, 7)).astype(np.int32)
    bound = module.bind(module.init(jax.random.PRNGKey(0), ids))
    spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, n"), jnp.int32)
    runs = [RNG.integers(0, 50, shape).astype(np.int32) for shape in ((1, 3), (4, 16), (2, 9))]
    check_function(bound, spec, tmp_path, runs=runs, rtol=1e-4, atol=1e-4)


def test_a_jitted_function_with_closed_over_parameters(tmp_path: Path) -> None:
    bound, x = _bound("mlp")
    variables = bound.variables
    module = NETWORKS["mlp"][0]
    check_function(jax.jit(lambda v: module.apply(variables, v)), x, tmp_path, rtol=1e-4, atol=1e-4)


class SequenceTagger(nn.Module):
    """An LSTM over the time axis (flax's nn.RNN: a lax.scan) and a GRU run backwards, then a
    per-step classifier: [batch, time, features] -> [batch, time, classes]."""

    @nn.compact
    def __call__(self, x: Any) -> Any:
        forward = nn.RNN(nn.LSTMCell(16))(x)
        backward = nn.RNN(nn.GRUCell(8), reverse=True, keep_order=True)(x)
        return nn.Dense(5)(jnp.concatenate([forward, backward], axis=-1))


@pytest.mark.parametrize("symbolic", ["", "b", "b, t"], ids=["static", "batch", "batch_and_time"])
def test_a_recurrent_network_over_a_sequence(symbolic: str, tmp_path: Path) -> None:
    module = SequenceTagger()
    x = RNG.standard_normal((2, 6, 12)).astype(np.float32)
    bound = module.bind(module.init(jax.random.PRNGKey(0), x))
    if not symbolic:
        check_function(bound, x, tmp_path, rtol=1e-4, atol=1e-4)
        return
    dims = symbolic.split(", ") + ["6", "12"][len(symbolic.split(", ")) - 1:]
    spec = jax.ShapeDtypeStruct(export.symbolic_shape(", ".join(dims)), jnp.float32)
    shapes = [(1, 6, 12), (3, 6, 12)] if len(dims) == 3 and dims[1] == "6" else [(1, 3, 12), (3, 9, 12)]
    runs = [RNG.standard_normal(shape).astype(np.float32) for shape in shapes]
    check_function(bound, spec, tmp_path, runs=runs, rtol=1e-4, atol=1e-4)
