"""Hook implementations of irconv-prep: model preparation applied to the graph, so the IR carries it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irconv import Option
from irconv.plugins import Transform, hookimpl


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_prep.options import OPTIONS

    return OPTIONS


@hookimpl
def front_transform() -> Sequence[Transform]:
    from irconv_prep.apply_preprocessing import ApplyPreprocessing
    from irconv_prep.change_layout import ChangeLayout
    from irconv_prep.freeze_inputs import FreezeInputs
    from irconv_prep.set_batch import SetBatch

    return [FreezeInputs(), SetBatch(), ApplyPreprocessing(), ChangeLayout()]
