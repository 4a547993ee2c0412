"""The contract is a layer of its own: what plugins program against loads none of the host.

Each check runs in a fresh interpreter (what an earlier test imported would count otherwise).
``lint-imports`` (pyproject.toml, run by .ci/run) checks the whole layer order statically;
these check what actually loads.
"""

from __future__ import annotations

import json
import subprocess
import sys

#: Above the contract: the plugin host, the pipeline, the command line, pluggy's plugin
#: manager and ``packaging`` (the host's requirement checks).
ABOVE_THE_CONTRACT = ("irconv.plugins", "irconv.pipeline", "irconv.cli", "irconv.api", "pluggy", "packaging")


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_what_an_extractor_module_imports_loads_no_host():
    loaded = _loaded_after(
        "import irconv, irconv.frontend, irconv.graph, irconv.ops\n"
        "from irconv import ExtractContext, Extractor, LoadContext, Option, TransformContext, ConversionOptions\n"
        "from irconv.contract import EmitContext, OpTable, Transform, opsets\n"
        "from irconv.frontend import extractor, i64, collect\n"
    )
    assert "irconv.contract.context" in loaded and "irconv.contract.records" in loaded
    assert [name for name in loaded if name.startswith(ABOVE_THE_CONTRACT)] == []


def test_the_plugins_package_gives_the_contract_names_without_the_host():
    loaded = _loaded_after("from irconv.plugins import Extractor, OpTable, Transform")
    assert "irconv.plugins" in loaded
    assert [name for name in loaded if name.startswith(("irconv.plugins.", "pluggy", "packaging"))] == []


def test_the_host_is_loaded_when_asked_for():
    loaded = _loaded_after("from irconv.plugins import PluginHost")
    assert {"irconv.plugins.manager", "irconv.plugins.registry", "pluggy"} <= set(loaded)
