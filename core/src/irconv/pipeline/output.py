"""All-or-nothing output files: written under temporary names, renamed at the end.

Guarantees (tested in core/tests/test_robustness_core.py and tests/robustness/):

- an input file (``protected``) is never overwritten, whatever path spells it (symlinks and
  hard links included); an output path that is a directory or a special file is refused;
- the previous output stays intact until the new set is complete: files are written as
  ``.<name>.<pid>.tmp`` beside their final path and renamed only when the emitter finished
  (with ``sync``, only once their bytes are on the disk: a power cut then leaves the old
  files or the new ones; without, the kernel writes them back after irconv exits);
  an exception (KeyboardInterrupt, and SIGTERM while the files are open) removes them;
- the first file opened is the one a reader opens first (the IR's ``.xml``): it is renamed
  last, so a reader never finds a new ``.xml`` with an old ``.bin``;
- two conversions committing into one folder at once are serialised by a lock on the
  folder, so the pair left behind comes from one of them;
- a process killed outright leaves only its temporary files; the next run writing the same
  output removes those of processes that no longer exist.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any, Protocol

from irconv.errors import UserError

_TEMP_SUFFIX = ".tmp"
_RETIRED_SUFFIX = ".old"


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while output files were being written; handled like Ctrl-C."""


class AtomicFiles:
    """A set of output files that appear together or not at all.

    Files are written as ``.<name>.<pid>.tmp`` beside their final path; ``commit``
    renames them (the first opened last), ``discard`` (or any exception inside the
    ``with`` block, including KeyboardInterrupt and SIGTERM) removes them.
    """

    def __init__(self, protected: tuple[Path, ...] = (), *, sync: bool = False) -> None:
        self._protected = tuple(protected)
        self._sync = sync
        self._pending: list[tuple[Path, Path, IO[Any]]] = []
        self._previous_handler: Any = None

    def open(self, path: Any, mode: str = "wb") -> IO[Any]:
        final = Path(path)
        check_output_path(final, self._protected)
        if any(final == f for _, f, _ in self._pending):
            raise UserError(f"the emitter opened {final} twice")
        directory = final.parent
        if not directory.is_dir():
            try:
                directory.mkdir(parents=True, exist_ok=True)  # another conversion may create it first
            except OSError as exc:
                raise UserError(f"cannot create output directory {directory}: {exc.strerror}") from None
        remove_stale_temps(final)
        temp = temp_path(final, os.getpid())
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
        """Flush every file (to the disk with ``sync``), then rename them, the first opened last."""
        try:
            for _, _, handle in self._pending:
                handle.flush()
                if self._sync:
                    os.fsync(handle.fileno())
                handle.close()
        except OSError as exc:
            self.discard()
            raise UserError(f"cannot write the output files: {exc.strerror}") from None
        done = [final for _, final, _ in self._pending]
        directories = sorted({final.parent for final in done})
        retired: list[Path] = []
        with _signals_blocked(), _locked(directories):
            for temp, final, _ in reversed(self._pending):
                try:
                    if not self._sync:
                        retired += _move_aside(final)
                    os.replace(temp, final)
                except OSError as exc:
                    self.discard()
                    raise UserError(f"cannot replace {final}: {exc.strerror}") from None
        for path in retired:
            with contextlib.suppress(OSError):
                path.unlink()
        self._pending.clear()
        return done

    def discard(self) -> None:
        for temp, _, handle in self._pending:
            with contextlib.suppress(OSError):
                handle.close()
            temp.unlink(missing_ok=True)
        self._pending.clear()

    def __enter__(self) -> AtomicFiles:
        self._previous_handler = _catch_sigterm()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if exc_type is None:
                self.commit()
            else:
                self.discard()
        finally:
            _restore_sigterm(self._previous_handler)


def check_output_path(final: Path, protected: tuple[Path, ...] = ()) -> None:
    """Refuse an output path that is an input, a directory or not a regular file.

    Cheap: the CLI can call it before converting, so a bad ``-o`` fails at once.
    """
    if final.name in ("", ".", ".."):
        raise UserError(f"output path {final} names no file; give a file name such as {final / 'model.xml'}")
    for path in protected:
        if _same_file(final, path):
            raise UserError(f"refusing to overwrite the input file {path} with {final}; choose another output with -o")
    try:
        info = final.stat()
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        raise UserError(f"cannot write {final}: {exc.strerror}") from None
    else:
        if stat.S_ISDIR(info.st_mode):
            raise UserError(f"output path {final} is a directory; give a file name such as {final / 'model.xml'}")
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"output path {final} exists and is not a regular file; choose another output with -o")
    parent = final.parent
    for ancestor in (parent, *parent.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise UserError(f"cannot create output directory {parent}: {ancestor} is a file, not a folder")
            if not os.access(ancestor, os.W_OK | os.X_OK) and ancestor == parent:
                raise UserError(f"cannot write {final}: the folder {parent} is not writable")
            break


def temp_path(final: Path, pid: int) -> Path:
    return final.parent / f".{final.name}.{pid}{_TEMP_SUFFIX}"


def _move_aside(final: Path) -> list[Path]:
    """Rename an existing ``final`` out of the way (to be removed after the commit).

    Renaming a new file over an existing one makes ext4 (``auto_da_alloc``) write the new
    file's data out on the spot, about half a second per GB: that is the durability
    ``--sync`` asks for, and without it the old file is moved aside first. The path is
    missing only between two renames; a crash there leaves the old file under a hidden
    name, which the next run writing this output removes."""
    if not final.is_file() or final.is_symlink():
        return []
    aside = final.parent / f".{final.name}.{os.getpid()}{_RETIRED_SUFFIX}"
    os.rename(final, aside)
    return [aside]


def remove_stale_temps(final: Path) -> list[Path]:
    """Remove temporary and moved-aside files for ``final`` left by processes that no
    longer run."""
    prefix = f".{final.name}."
    removed: list[Path] = []
    try:
        entries = list(os.scandir(final.parent))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        suffix = next((end for end in (_TEMP_SUFFIX, _RETIRED_SUFFIX) if name.endswith(end)), None)
        if not name.startswith(prefix) or suffix is None:
            continue
        pid_text = name[len(prefix) : -len(suffix)]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


@contextlib.contextmanager
def _locked(directories: list[Path]) -> Iterator[None]:
    """Hold an exclusive lock on each folder (in a fixed order) while renaming into it."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): renames stay atomic one by one
        yield
        return
    fds: list[int] = []
    try:
        for directory in directories:
            try:
                fd = os.open(directory, os.O_RDONLY)
            except OSError:
                continue
            fds.append(fd)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    """Defer SIGINT/SIGTERM while the renames run, so a pair is never half replaced."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Terminated("terminated (SIGTERM)")


def _catch_sigterm() -> Any:
    """Turn SIGTERM into an exception while files are open, if nobody else handles it."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        current = signal.getsignal(signal.SIGTERM)
    except (AttributeError, ValueError):
        return None
    if current not in (signal.SIG_DFL, None):
        return None
    signal.signal(signal.SIGTERM, _on_sigterm)
    return current


def _restore_sigterm(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


class OutputFiles(Protocol):
    """Where an emitter opens its output files: ``AtomicFiles`` or ``MemoryFiles``."""

    def open(self, path: Any, mode: str = "wb") -> IO[Any]: ...


class MemoryFiles:
    """The output-file protocol of ``AtomicFiles`` (``open``), kept in memory: an emitter
    writes to it as to files, and nothing touches the disk (``irconv.to_openvino``)."""

    def __init__(self) -> None:
        self._files: dict[Path, _KeptBytes] = {}

    def open(self, path: Any, mode: str = "wb") -> IO[Any]:
        if "b" not in mode:
            raise UserError(f"in-memory output opens files in binary mode only (asked {mode!r} for {path})")
        handle = _KeptBytes()
        self._files[Path(path)] = handle
        return handle

    def pending_paths(self) -> list[Path]:
        return list(self._files)

    def contents(self) -> dict[Path, bytes]:
        """Every file written, by path."""
        return {path: handle.getvalue() for path, handle in self._files.items()}


class _KeptBytes(io.BytesIO):
    """A BytesIO whose content outlives ``close`` (the emitter closes what it wrote)."""

    def close(self) -> None:
        self._kept = super().getvalue()
        super().close()

    def getvalue(self) -> bytes:
        return self._kept if self.closed else super().getvalue()
