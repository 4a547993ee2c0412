"""All-or-nothing output files: written under temporary names, renamed at the end."""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from irconv.errors import UserError


class AtomicFiles:
    """A set of output files that appear together or not at all.

    Files are written as ``.<name>.<pid>.tmp`` beside their final path; ``commit``
    renames them, ``discard`` (or any exception inside the ``with`` block, including
    KeyboardInterrupt) removes them.
    """

    def __init__(self, protected: tuple[Path, ...] = ()) -> None:
        self._protected = {p.resolve() for p in protected}
        self._pending: list[tuple[Path, Path, IO[Any]]] = []

    def open(self, path: Any, mode: str = "wb") -> IO[Any]:
        final = Path(path)
        if final.resolve() in self._protected:
            raise UserError(f"refusing to overwrite the input file {final}; choose another output with -o")
        directory = final.parent
        if not directory.exists():
            try:
                directory.mkdir(parents=True)
            except OSError as exc:
                raise UserError(f"cannot create output directory {directory}: {exc.strerror}") from None
        temp = directory / f".{final.name}.{os.getpid()}.tmp"
        try:
            handle = open(temp, mode)  # noqa: SIM115 - closed in commit/discard
        except OSError as exc:
            raise UserError(f"cannot write {final}: {exc.strerror}") from None
        self._pending.append((temp, final, handle))
        return handle

    def pending_paths(self) -> list[Path]:
        """Final paths of the files opened so far."""
        return [final for _, final, _ in self._pending]

    def commit(self) -> list[Path]:
        for _, _, handle in self._pending:
            handle.close()
        done = []
        for temp, final, _ in self._pending:
            os.replace(temp, final)
            done.append(final)
        self._pending.clear()
        return done

    def discard(self) -> None:
        for temp, _, handle in self._pending:
            handle.close()
            temp.unlink(missing_ok=True)
        self._pending.clear()

    def __enter__(self) -> AtomicFiles:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()
