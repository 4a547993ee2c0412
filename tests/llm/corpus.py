"""Text to calibrate and evaluate on, and a tokenizer trained on it: nothing downloaded.

The text is the docstrings of Python's standard library (English prose, the same on any
machine running the same Python), one paragraph per line; the tokenizer is a byte-level
BPE trained on it with the ``tokenizers`` library and saved as ``tokenizer.json``.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

MODULES = (
    "argparse", "asyncio", "collections", "concurrent.futures", "contextlib", "csv", "dataclasses", "datetime",
    "decimal", "email", "enum", "fractions", "functools", "gzip", "heapq", "http.client", "inspect", "io",
    "ipaddress", "itertools", "json", "logging", "mailbox", "multiprocessing", "os", "pathlib", "pickle",
    "random", "re", "shutil", "socket", "sqlite3", "statistics", "string", "subprocess", "tarfile", "tempfile",
    "textwrap", "threading", "typing", "unittest", "urllib.parse", "uuid", "xml.etree.ElementTree", "zipfile",
)  # fmt: skip


def paragraphs(minimum: int = 60) -> list[str]:
    """The standard library's docstring paragraphs of at least ``minimum`` characters, one
    line each, in a fixed order, without repeats."""
    seen: set[str] = set()
    found: list[str] = []
    for name in MODULES:
        module = importlib.import_module(name)
        objects = [module] + [value for _, value in sorted(vars(module).items()) if inspect.isclass(value) or inspect.isfunction(value)]
        for value in objects:
            for paragraph in (inspect.getdoc(value) or "").split("\n\n"):
                line = " ".join(paragraph.split())
                if len(line) >= minimum and line not in seen and line.isascii():
                    seen.add(line)
                    found.append(line)
    return found


def train_tokenizer(lines: list[str], vocab: int, folder: Path) -> Path:
    """A byte-level BPE of ``vocab`` tokens trained on ``lines``, saved as ``folder/tokenizer.json``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, special_tokens=["<pad>", "<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(lines, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tokenizer.json"
    tokenizer.save(str(path))
    return path
