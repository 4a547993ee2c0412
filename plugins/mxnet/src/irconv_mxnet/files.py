"""Finding the two files of an MXNet model: ``<prefix>-symbol.json`` and ``<prefix>-NNNN.params``."""

from __future__ import annotations

import re
from pathlib import Path

from irconv.errors import ModelFileError

SYMBOL_SUFFIX = "-symbol.json"
_PARAMS = re.compile(r"^(?P<prefix>.*)-(?P<epoch>\d+)\.params$")


def prefix_of_symbol(path: Path) -> str:
    name = path.name
    return name[: -len(SYMBOL_SUFFIX)] if name.endswith(SYMBOL_SUFFIX) else path.stem


def params_candidates(symbol: Path) -> dict[int, Path]:
    """``<prefix>-NNNN.params`` files next to the symbol, by epoch."""
    prefix = prefix_of_symbol(symbol)
    found: dict[int, Path] = {}
    for candidate in symbol.parent.glob(f"{glob_escape(prefix)}-*.params"):
        match = _PARAMS.match(candidate.name)
        if match and match["prefix"] == prefix:
            found[int(match["epoch"])] = candidate
    return found


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def resolve_files(path: Path, weights: Path | None, epoch: int | None) -> tuple[Path, Path | None]:
    """``(symbol, params or None)`` for the model path and the ``--weights``/epoch options.

    A ``.params`` path finds its symbol by prefix; a symbol finds ``--weights`` or the
    params of ``epoch`` (default: the newest epoch) beside it. None means no params file
    exists (acceptable for a symbol whose variables are all inputs).
    """
    if path.suffix.lower() == ".params":
        match = _PARAMS.match(path.name)
        prefix = match["prefix"] if match else path.stem
        symbol = path.with_name(prefix + SYMBOL_SUFFIX)
        if not symbol.is_file():
            raise ModelFileError(f"{path} holds MXNet parameters only and {symbol.name} is not beside it")
        return symbol, path
    if weights is not None:
        if not weights.is_file():
            raise ModelFileError(f"the MXNet parameters file {weights} does not exist")
        return path, weights
    candidates = params_candidates(path)
    if epoch is not None:
        if epoch not in candidates:
            have = ", ".join(str(e) for e in sorted(candidates)) or "none"
            raise ModelFileError(
                f"no {prefix_of_symbol(path)}-{epoch:04d}.params beside {path.name} (epochs found: {have})"
            )
        return path, candidates[epoch]
    if not candidates:
        return path, None
    return path, candidates[max(candidates)]
