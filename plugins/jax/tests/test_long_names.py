"""A 5,000-character name of a JAX model (a function's ``__name__``, which names the module
read): the error shows it cut, with its length and its end, on one short line."""

from __future__ import annotations

import pytest
from irconv.errors import ModelFileError
from irconv_jax.program import read_module

#: A name from the model: 5,000 characters whose end differs from its start.
LONG = "n" * 4990 + "_tail_name"

#: A StableHLO module whose one function is not ``main``.
WITHOUT_MAIN = """
func.func public @other(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
"""


def test_a_5000_character_module_name_is_cut() -> None:
    with pytest.raises(ModelFileError) as error:
        read_module(WITHOUT_MAIN, LONG, lambda op: False)
    message = str(error.value)
    assert len(message) < 1000 and "\n" not in message, message
    assert message.startswith("nnn") and "_tail_name (5,000 characters): the StableHLO module has no 'main'" in message


def test_a_short_module_name_reads_whole() -> None:
    with pytest.raises(ModelFileError, match=r"^network: the StableHLO module has no 'main' function$"):
        read_module(WITHOUT_MAIN, "network", lambda op: False)
