"""Op classes declared by plugins through ``declare_ops``: the opset catalog as a table.

Each op type may have several versions (SoftMax-1, SoftMax-8): a version is current from
its own opset until the opset where the next declared version appears. Ops of a custom
opset (``Op.custom_opset``) live in their own namespace, one version each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from irconv.contract.records import NEWEST
from irconv.errors import PluginClash, PluginError

if TYPE_CHECKING:
    from irconv.ops import Op

_STANDARD = ""
_OPSET_PREFIX = "opset"


@dataclass(frozen=True)
class DeclaredOp:
    """One declared op class, the plugin that declared it, and the opsets it is current in."""

    op: type[Op]
    owner: str
    opsets: range

    @property
    def opset_name(self) -> str:
        """``opset8`` for the version's first opset, or the custom opset's name."""
        return self.op.custom_opset or f"{_OPSET_PREFIX}{self.op.version}"

    def opsets_text(self) -> str:
        if self.op.custom_opset:
            return self.op.custom_opset
        last = self.opsets[-1]
        return f"{self.opsets[0]}+" if last >= NEWEST else f"{self.opsets[0]}-{last}"


class OpTable:
    """Declared ops by (opset namespace, IR type); clashes name both plugins."""

    def __init__(self) -> None:
        self._versions: dict[tuple[str, str], list[tuple[type[Op], str]]] = {}
        self._declared: dict[type[Op], DeclaredOp] | None = None

    def add(self, op: type[Op], owner: str) -> None:
        from irconv.ops import Op

        if not (isinstance(op, type) and issubclass(op, Op)):
            raise PluginError(f"{owner}: declare_ops returned {op!r}, expected Op subclasses")
        if not op.type or not (op.version > 0 or op.custom_opset):
            raise PluginError(f"{owner}: op {op.__name__} needs a type and an opset version (or a custom_opset)")
        key = (op.custom_opset or _STANDARD, op.type)
        versions = self._versions.setdefault(key, [])
        for other, other_owner in versions:
            if other is op:
                return  # the same class declared twice (re-exported) is harmless
            if other.version == op.version:
                where = op.custom_opset or f"opset{op.version}"
                raise PluginClash(f"op {op.type} ({where})", other_owner, owner,
                                  f"{other.__name__} and {op.__name__}")
        versions.append((op, owner))
        versions.sort(key=lambda entry: entry[0].version)
        self._declared = None

    def declared(self) -> list[DeclaredOp]:
        """Every declared op version, by namespace, type and version."""
        return sorted(self._table().values(), key=lambda d: (d.op.custom_opset, d.op.type, d.op.version))

    def find(self, op_type: str, opset: str) -> type[Op] | None:
        """The op class that ``opset`` (``opset8`` or a custom name) means by ``op_type``."""
        if opset.startswith(_OPSET_PREFIX) and opset[len(_OPSET_PREFIX) :].isdigit():
            number = int(opset[len(_OPSET_PREFIX) :])
            for op, _ in self._versions.get((_STANDARD, op_type), ()):
                if number in self._table()[op].opsets:
                    return op
            return None
        versions = self._versions.get((opset, op_type), ())
        return versions[-1][0] if versions else None

    def info(self, op: type[Op]) -> DeclaredOp | None:
        return self._table().get(op)

    def custom_opsets(self) -> dict[str, str]:
        """Custom opset name -> the plugin that declares it."""
        return {ns: versions[0][1] for (ns, _), versions in self._versions.items() if ns != _STANDARD}

    def __len__(self) -> int:
        return sum(len(v) for v in self._versions.values())

    def _table(self) -> dict[type[Op], DeclaredOp]:
        if self._declared is None:
            table: dict[type[Op], DeclaredOp] = {}
            for (namespace, _), versions in self._versions.items():
                for i, (op, owner) in enumerate(versions):
                    if namespace != _STANDARD:
                        last = op.version
                    else:
                        last = versions[i + 1][0].version - 1 if i + 1 < len(versions) else NEWEST
                    table[op] = DeclaredOp(op, owner, range(op.version, last + 1))
            self._declared = table
        return self._declared
