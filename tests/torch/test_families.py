"""The architecture families of ``families.py`` (``transformers`` models from small configs,
torchvision-style CNNs in plain torch), each converted by irconv and compared with torch
eager. Slow: each exports a whole model; ``tests/sweeps/torch_families.py`` runs the same list
against OpenVINO's own front end too."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from families import FAMILIES, family
from torch_support import check_module

pytest.importorskip("transformers")


@pytest.mark.slow
@pytest.mark.parametrize("name", [f.name for f in FAMILIES])
def test_family_matches_torch_eager(name: str, tmp_path: Path) -> None:
    torch.manual_seed(0)
    module, example = family(name).build()
    check_module(module, example, tmp_path, rtol=1e-3, atol=1e-3)
