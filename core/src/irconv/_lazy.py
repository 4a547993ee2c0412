"""Names a package exports but imports only on first access (PEP 562), so that importing the
package stays cheap: ``irconv`` (no NumPy for ``irconv --version``), ``irconv.contract`` (no
pluggy for a record), ``irconv.plugins`` (no plugin host for a contract name)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name of ``exports`` is read from the
    module it maps to when first asked for, then kept in the package's namespace."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name]), name)
        namespace[name] = value
        return value

    return __getattr__
