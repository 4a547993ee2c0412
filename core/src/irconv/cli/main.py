"""``irconv`` command line: parse arguments, run a command, turn errors into one line."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from typing import Any, NoReturn

from irconv.cli import convert_cmd, gendocs, listing, many_cmd, scaffold, show_cmd
from irconv.contract.option import OptionTable
from irconv.contract.records import Command
from irconv.errors import ExitCode, IrconvError, clipped_lines
from irconv.plugins.manager import PluginHost


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: output files being written are removed."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


def build_parser(plugin_options: OptionTable | None = None) -> argparse.ArgumentParser:
    return _parser_and_commands(plugin_options)[0]


def builtin_commands() -> set[str]:
    """The names of the command line's own commands (a plugin's command never replaces one)."""
    return set(_parser_and_commands(None)[1].choices)


def _parser_and_commands(plugin_options: OptionTable | None) -> tuple[argparse.ArgumentParser, Any]:
    parser = listing.InstalledHelpParser(
        prog="irconv",
        description="Convert trained models into OpenVINO IR, through the installed plugins.",
        allow_abbrev=False,
        installed=listing.installed_plugins_text,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="store_true", help="print the core's and every plugin's version")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    convert_cmd.add_parser(commands, plugin_options)
    listing.add_parsers(commands)
    show_cmd.add_parser(commands)
    many_cmd.add_parser(commands)
    gendocs.add_parser(commands)
    scaffold.add_parser(commands)
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        command = _plugin_command(argv)
        if command is not None:
            return _run_plugin_command(command, argv[1:])
        host = convert_cmd.plugin_host_for(argv)
        parser = build_parser(host.registry().options if host is not None else None)
    except IrconvError as exc:
        if debug:
            traceback.print_exc()
        _print_error("irconv: error: ", exc)
        return exc.exit_code
    except KeyboardInterrupt:  # while the plugins load (a second or more): nothing is written yet
        print("irconv: interrupted; no output was written", file=sys.stderr)
        return ExitCode.INTERRUPTED
    args = parser.parse_args(argv)
    args.host = host
    if args.version:
        print(listing.version_text())
        return 0
    if args.command is None:
        parser.print_help()
        return ExitCode.USAGE
    previous = _on_sigterm(_raise_terminated)
    try:
        return int(args.run(args))
    except IrconvError as exc:
        if debug:
            traceback.print_exc()
        _print_error("irconv: error: ", exc)
        return exc.exit_code
    except BrokenPipeError:
        # Whoever read the output stopped early (`irconv ops | head -1`): nothing went wrong
        # here. Further writes (the interpreter's final flush) go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.BROKEN_PIPE
    except KeyboardInterrupt as exc:
        print("irconv: interrupted; no output was written", file=sys.stderr)
        return ExitCode.TERMINATED if isinstance(exc, Terminated) else ExitCode.INTERRUPTED
    except OSError as exc:
        if exc.filename is None:
            return _internal_error(exc, debug)
        # A path the user gave cannot be read or written (a folder that does not exist, no
        # permission): the user's to fix, not a bug to report.
        if debug:
            traceback.print_exc()
        what = (exc.strerror or type(exc).__name__).lower()
        print(f"irconv: error: {exc.filename}: {what}; check the path and the permissions of its folder",
              file=sys.stderr)
        return ExitCode.USER_ERROR
    except MemoryError:
        if debug:
            traceback.print_exc()
        print(
            "irconv: error: out of memory converting this model (a tensor it computes is too large "
            "for this machine); no output was written",
            file=sys.stderr,
        )
        return ExitCode.USER_ERROR
    except RecursionError:
        if debug:
            traceback.print_exc()
        print(
            "irconv: error: the model nests sub-graphs (or its file nests messages) more deeply than irconv "
            "can follow; no output was written",
            file=sys.stderr,
        )
        return ExitCode.USER_ERROR
    except Exception as exc:
        return _internal_error(exc, debug)
    finally:
        _on_sigterm(previous)


def _internal_error(exc: Exception, debug: bool) -> int:
    if debug:
        traceback.print_exc()
    print(
        clipped_lines(
            f"irconv: internal error: {type(exc).__name__}: {exc} "
            "(rerun with --debug for the traceback and please report it)"
        ),
        file=sys.stderr,
    )
    return ExitCode.INTERNAL


def _print_error(prefix: str, exc: BaseException) -> None:
    """One error on stderr; no line of it longer than ``LINE_LIMIT`` (a message quoting a
    name or a library's text no helper shortened is cut, saying how much)."""
    print(clipped_lines(f"{prefix}{exc}"), file=sys.stderr)


def _plugin_command(argv: list[str]) -> Command | None:
    """The plugin command ``argv`` starts with (``irconv mo ...``), None for anything else.
    Plugins are loaded only for a first argument that is not an option or a built-in command."""
    if not argv or argv[0].startswith("-") or argv[0] in builtin_commands():
        return None
    provided = PluginHost().registry().commands.get(argv[0])
    return None if provided is None else provided.item


def _run_plugin_command(command: Command, argv: list[str]) -> int:
    """Run a plugin's command; an ``IrconvError`` is one line naming the command."""
    try:
        return int(command.run(argv, main))
    except IrconvError as exc:
        _print_error(f"irconv {command.name}: error: ", exc)
        return exc.exit_code


def mo_entry() -> None:
    """The ``mo`` console script of irconv-mo (0.2 wheels name this function): ``mo ARGS`` is
    ``irconv mo ARGS``, the command that distribution's plugin adds."""
    exit_without_teardown(main(["mo", *sys.argv[1:]]))


def _on_sigterm(handler: Any) -> Any:
    """Install ``handler`` for SIGTERM (main thread only); returns the previous one."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler) if handler is not None else None


def entry() -> None:
    exit_without_teardown(main())


def _observed() -> bool:
    """Whether a profiler or tracer watches this process: one set with ``sys.setprofile`` /
    ``sys.settrace``, or (Python 3.12+) one registered with ``sys.monitoring``."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        return False
    return any(monitoring.get_tool(tool) is not None for tool in range(6))


def exit_without_teardown(code: int) -> NoReturn:
    """End the process as ``sys.exit(code)`` would, minus the interpreter's teardown.

    Tearing down frees every object one by one, the converted graph's cycles included:
    ~40 ms of a 0.75 s ResNet50 conversion. Exit handlers still run and the standard
    streams are flushed first. Every file is written (and the thread pools irconv starts are
    shut down) before ``main`` returns, so a thread still running is a library's own: OpenVINO's
    telemetry sender, started by importing openvino-tokenizers, would hold an ordinary exit up
    to its 3 s network timeout and then tear torch down module by module. Under a profiler or
    tracer (cProfile, coverage), which reports after the program returns, the exit is ordinary.
    """
    if _observed():
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (irconv plugins | head) or stream
            stream.flush()
    os._exit(code)
