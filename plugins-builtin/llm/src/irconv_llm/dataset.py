"""--dataset: the text samples of data-aware compression, as token ids.

One sample per non-blank line of a UTF-8 text file, tokenized with the Hugging Face
``tokenizers`` library from a ``tokenizer.json``: the one ``--tokenizer`` names (the file,
or a folder holding it), else the one in the model's folder.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from irconv.errors import UserError

#: Tokens kept of one sample (a longer line is cut): bounds the activations held per run.
MAX_TOKENS = 512
TOKENIZER_FILE = "tokenizer.json"


def read_samples(path: Path, count: int) -> list[str]:
    """The first ``count`` non-blank lines of ``path``; a missing, empty or non-text file is
    the user's error."""
    lines = _lines(path)
    if isinstance(lines, str):
        raise UserError(f"--dataset {path}: {lines}")
    return lines[:count]


def dataset_problem(path: Path) -> str | None:
    """What is wrong with ``path`` as a --dataset file, or None (checked as the option is read,
    before the model is)."""
    lines = _lines(path)
    return f"{path}: {lines}" if isinstance(lines, str) else None


def _lines(path: Path) -> list[str] | str:
    """The non-blank lines of ``path``, or what is wrong with it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read it ({exc.strerror}); give a UTF-8 text file, one sample per line"
    try:
        if b"\0" in data:
            raise UnicodeDecodeError("utf-8", data, data.index(b"\0"), data.index(b"\0") + 1, "NUL byte")
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte {exc.start}); give a text file, one sample per line"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines or "no text in it; give a UTF-8 text file, one sample per line"


def find_tokenizer(named: Path | None, model: Path | None) -> Path:
    """The tokenizer.json to use: ``named`` (a file, or a folder holding one), else the one
    in the model's folder (``model`` a folder or a file in it)."""
    if named is not None:
        found = named / TOKENIZER_FILE if named.is_dir() else named
        if not found.is_file():
            raise UserError(f"--tokenizer {named}: no such file; name a tokenizer.json or the folder holding it")
        return found
    folder = None if model is None else (model if model.is_dir() else model.parent)
    if folder is None or not (folder / TOKENIZER_FILE).is_file():
        where = f"in {folder}" if folder is not None else "for a model given in memory"
        raise UserError(f"--dataset: no {TOKENIZER_FILE} {where}; name the model's tokenizer with --tokenizer PATH")
    return folder / TOKENIZER_FILE


def token_ids(samples: list[str], tokenizer: Path) -> list[np.ndarray]:
    """Each sample's token ids (int64, at most ``MAX_TOKENS``), as the tokenizer adds special tokens."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise UserError("--dataset needs the 'tokenizers' package: pip install tokenizers") from None
    try:
        loaded = Tokenizer.from_file(str(tokenizer))
    except Exception as exc:  # the library's own parse errors
        raise UserError(f"--tokenizer {tokenizer}: the tokenizers library cannot read it: {exc}") from None
    encoded = [np.asarray(item.ids[:MAX_TOKENS], np.int64) for item in loaded.encode_batch(samples)]
    kept = [ids for ids in encoded if ids.size]
    if not kept:
        raise UserError(f"--dataset: {tokenizer} turns every sample into no tokens")
    return kept
