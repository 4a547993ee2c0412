"""Importing a front end's extractor modules loads the contract, not the plugin host.

An extractor module programs against ``irconv``, ``irconv.frontend``, ``irconv.graph``,
``irconv.ops`` and ``irconv.contract``; the host (``irconv.plugins``' manager, registry,
compatibility checks, summary cache), pluggy's plugin manager, ``packaging`` and the pipeline
are above it. Each front end is imported in a fresh interpreter, so nothing another test
imported counts.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

#: The extractor modules (a module, or a package whose every module is imported) per plugin.
EXTRACTORS = (
    "irconv_onnx.extractors",
    "irconv_tf.extractors",
    "irconv_caffe.extractors",
    "irconv_mxnet.extractors",
    "irconv_tflite.extractors",
    "irconv_torch.extractors",
    "irconv_jax.extractors",
    "irconv_ir.extractors",
    "irconv_example_swish.extractors",
)

#: Modules above the contract. ``irconv.plugins`` itself may load (``from irconv.plugins
#: import Extractor``, the 0.2 spelling, reads the name from irconv.contract lazily), none of
#: its modules may.
ABOVE_THE_CONTRACT = ("irconv.plugins.", "irconv.pipeline", "irconv.cli", "irconv.api", "pluggy", "packaging")

_PROBE = """
import importlib, json, pkgutil, sys
top = importlib.import_module(sys.argv[1])
names = [top.__name__]
if hasattr(top, "__path__"):
    names += [info.name for info in pkgutil.walk_packages(top.__path__, top.__name__ + ".")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"imported": names, "loaded": sorted(sys.modules)}))
"""


def _loaded_after_importing(module: str) -> tuple[list[str], list[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, module], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["imported"], found["loaded"]


@pytest.mark.parametrize("module", EXTRACTORS)
def test_importing_extractor_modules_loads_no_plugin_host(module):
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{module.split('.')[0]} is not installed")
    imported, loaded = _loaded_after_importing(module)
    assert imported and "irconv.contract" in loaded
    above = [name for name in loaded if name.startswith(ABOVE_THE_CONTRACT)]
    assert above == [], f"importing {module} loaded {above}"


def test_the_probe_sees_the_host_when_a_module_imports_it():
    _, loaded = _loaded_after_importing("irconv.plugins.manager")
    assert {"irconv.plugins.registry", "pluggy", "packaging"} <= set(loaded)
