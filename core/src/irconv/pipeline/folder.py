"""A model whose conversion is a folder of files, not only an ``.xml``/``.bin`` pair.

A loader that reads such a model (a Hugging Face checkpoint folder, whose converted form is
what OpenVINO GenAI loads: the IR under a fixed name, a tokenizer, configuration files) sets
``MODEL_FOLDER`` in the graph's meta. The command line then writes ``-o DIR/`` as
``DIR/<model_file>``, and ``save`` calls ``write`` with the folder inside the same
all-or-nothing set of output files, so the IR and its companions appear together.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from irconv.graph import MetaKey

if TYPE_CHECKING:
    from irconv.contract.context import EmitContext


@dataclass(frozen=True)
class ModelFolder:
    """``model_file``: the IR's name in the output folder (``openvino_model.xml``);
    ``write(folder, ctx)`` writes the other files through ``ctx.open`` (and notes through
    ``ctx.note`` what it could not write)."""

    model_file: str
    write: Callable[[Path, EmitContext], None]


MODEL_FOLDER: MetaKey[ModelFolder] = MetaKey(
    "core.model_folder", ModelFolder, doc="the model converts to a folder: the IR's name in it and its other files"
)


def folder_output(given: str | None, folder: ModelFolder, default_dir: Path) -> Path:
    """The IR's path for ``-o given``: an ``.xml`` path is taken as given (the companions go
    beside it); any other path is the folder that holds ``folder.model_file`` (``-o out`` and
    ``-o out/`` alike: GenAI loads a folder); none gives ``default_dir``."""
    if given is None:
        return default_dir / folder.model_file
    if Path(given).suffix.lower() == ".xml" and not given.endswith(("/", "\\")) and not Path(given).is_dir():
        return Path(given)
    return Path(given) / folder.model_file
