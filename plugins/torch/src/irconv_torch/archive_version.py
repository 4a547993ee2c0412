"""Which torch wrote a ``.pt2`` program, and whether the installed torch can read it.

The program's JSON records its export schema version (``schema_version``: torch reads only
its own major version) and, since torch 2.5, the ``torch_version`` that wrote it. A file
without that field was written by a release older than the field: torch's own schema gives
the field's default for such files (``"<=2.4"``), which is read here rather than restated."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irconv.errors import ModelFileError


@dataclass(frozen=True, slots=True)
class WriterVersion:
    """The schema version of a serialised program and the torch release that wrote it."""

    major: int
    minor: int
    torch: str  # a release ("2.13.0+cpu") or the schema's default for older files ("<=2.4")

    @classmethod
    def of(cls, document: Any) -> WriterVersion:
        """From the program's JSON (``models/<name>.json`` of the archive)."""
        schema = document.get("schema_version") if isinstance(document, dict) else None
        major = _int(schema.get("major")) if isinstance(schema, dict) else 0
        minor = _int(schema.get("minor")) if isinstance(schema, dict) else 0
        written = document.get("torch_version") if isinstance(document, dict) else None
        return cls(major, minor, written if isinstance(written, str) and written else _unrecorded_torch())

    def check_readable(self, path: Path) -> None:
        """One clear error when the installed torch does not read this schema's major
        version (the check ``torch.export.load`` makes, with the releases named)."""
        installed_major, installed_minor = _installed_schema()
        if self.major == installed_major or (self.major, self.minor) == (0, 0):
            return  # torch reads every minor version of its major one; 0.0 is unversioned
        installed = _installed_torch()
        if self.major > installed_major:
            remedy = (f"convert it where torch {_release(self.torch)} or newer is installed, "
                      f"or export and save the model again with torch {installed}")
        else:
            remedy = f"export and save the model again with torch {installed} (torch.export.save)"
        raise ModelFileError(
            f"{path} was written by {self.describe()} (export schema {self.major}.{self.minor}); the installed "
            f"torch {installed} reads schema {installed_major}.x (it writes {installed_major}.{installed_minor}): "
            f"{remedy}")

    def hint(self) -> str:
        """``"; written by torch X, installed torch Y"`` when they differ (a clue to an
        error in reading the program), else ``""``."""
        installed = _installed_torch()
        if _release(self.torch) == _release(installed):
            return ""
        return f"; written by {self.describe()}, installed torch {installed}"

    def describe(self) -> str:
        if self.torch.startswith("<="):
            return f"torch {self.torch[2:]} or older"
        return f"torch {_release(self.torch)}"


def _release(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``: the local build tag names no release."""
    return version.split("+", 1)[0]


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _installed_schema() -> tuple[int, int]:
    from torch._export.serde.schema import SCHEMA_VERSION

    return SCHEMA_VERSION[0], SCHEMA_VERSION[1]


def _installed_torch() -> str:
    import torch

    return _release(torch.__version__)


def _unrecorded_torch() -> str:
    """What torch's schema assumes for a program that does not record its torch version."""
    import dataclasses

    from torch._export.serde import schema

    field = next(f for f in dataclasses.fields(schema.ExportedProgram) if f.name == "torch_version")
    return str(field.default)
