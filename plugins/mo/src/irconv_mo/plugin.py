"""Hook implementation of irconv-mo: the ``mo`` command."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from irconv.contract import Command, hookimpl


def _run(argv: list[str], irconv: Callable[[list[str]], int]) -> int:
    from irconv_mo.mo_cmd import run  # its parser is built only when the command runs

    return run(argv, irconv)


@hookimpl
def cli_command() -> Sequence[Command]:
    return [
        Command(
            "mo",
            _run,
            help="convert with the Model Optimizer's command line, flags as MO spelled them (irconv mo --help)",
        )
    ]
