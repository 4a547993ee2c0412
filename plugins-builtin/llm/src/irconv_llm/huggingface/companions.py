"""The files beside the IR in the folder OpenVINO GenAI loads: the tokenizer and
detokenizer as OpenVINO models (made by openvino-tokenizers), and the checkpoint's
configuration and tokenizer files, copied."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from irconv_llm.huggingface.checkpoint import INDEX

if TYPE_CHECKING:
    from irconv import EmitContext

MODEL_FILE = "openvino_model.xml"
#: Files of a checkpoint folder copied as they are: configuration, tokenizer, chat template.
_COPIED_SUFFIXES = (".json", ".txt", ".model", ".jinja", ".tiktoken")


def write_companions(source: Path, folder: Path, ctx: EmitContext, *, detokenizer: bool = True) -> None:
    """Copy the configuration and tokenizer files of ``source`` into ``folder``, and write
    ``openvino_tokenizer.xml``/``.bin`` (and the detokenizer's). A tokenizer
    openvino-tokenizers cannot convert is a note: the model is written all the same."""
    for path in sorted(source.iterdir()):
        if path.is_file() and path.suffix in _COPIED_SUFFIXES and path.name != INDEX:
            _copy(path, folder / path.name, ctx)
    failure = _write_tokenizers(source, folder, ctx, detokenizer)
    if failure:
        ctx.note(f"the tokenizer of {source} was not converted ({failure}): {folder} holds the model without "
                 "openvino_tokenizer.xml; OpenVINO GenAI needs one to take text (pip install openvino-tokenizers)")


def _copy(source: Path, target: Path, ctx: EmitContext) -> None:
    write = ctx.open(target)  # closed when the whole set of files is committed
    with open(source, "rb") as read:
        shutil.copyfileobj(read, write)


def _write_tokenizers(source: Path, folder: Path, ctx: EmitContext, detokenizer: bool) -> str | None:
    """The tokenizer models written into ``folder``; None, or why they were not."""
    try:
        import openvino
        from openvino_tokenizers import convert_tokenizer
        from transformers import AutoTokenizer
    except ImportError as exc:
        return f"{exc.name} is not installed"
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(source), local_files_only=True)
        converted = convert_tokenizer(tokenizer, with_detokenizer=detokenizer)
    except Exception as exc:  # any failure of the tokenizer's own code: the model is still written
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")
    models = converted if isinstance(converted, tuple) else (converted,)
    names = ("openvino_tokenizer", "openvino_detokenizer")
    with tempfile.TemporaryDirectory(prefix="irconv-tokenizer-") as scratch:
        for name, model in zip(names, models, strict=False):
            xml = Path(scratch) / f"{name}.xml"
            openvino.save_model(model, str(xml), compress_to_fp16=False)
            for part in (xml, xml.with_suffix(".bin")):
                if part.exists():
                    _copy(part, folder / part.name, ctx)
    return None
