"""Point the CLI at a plugin host holding only the toy plugin and a test's own extras."""

from __future__ import annotations

from typing import Any

import pytest
from core_toy_plugin import ToyPlugin
from irconv.cli import convert_cmd, listing, main, show_cmd
from irconv.plugins import PluginHost


def use_toy_host(monkeypatch: pytest.MonkeyPatch, *extras: tuple[Any, str]) -> None:
    """Every CLI command builds this host: the toy plugin (``irconv-toy`` 9.9) plus each
    ``(plugin, name)`` in ``extras`` (distribution ``irconv-<name>`` 1); nothing installed."""

    class HostWithToy(PluginHost):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(autoload=False, **kwargs)
            self.register(ToyPlugin(), "toy", distribution="irconv-toy", version="9.9")
            for plugin, name in extras:
                self.register(plugin, name, distribution=f"irconv-{name}", version="1")

    for module in (convert_cmd, listing, main, show_cmd):
        monkeypatch.setattr(module, "PluginHost", HostWithToy)
