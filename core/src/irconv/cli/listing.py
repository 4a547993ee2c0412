"""``irconv plugins``, ``irconv transforms`` and ``irconv ops``: what is installed."""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from irconv.cli.parsing import OneLineErrorParser
from irconv.cli.table import format_table, print_table
from irconv.contract.records import Phase
from irconv.plugins import compat
from irconv.plugins.manager import ENTRY_POINT_GROUP, PluginHost

if TYPE_CHECKING:
    from irconv.plugins.registry import Registry


def add_parsers(commands: Any) -> None:
    p = commands.add_parser("plugins", help="list discovered plugins and their status")
    _common(p)
    p.set_defaults(run=run_plugins)

    p = commands.add_parser("transforms", help="show the ordered transform plan")
    p.add_argument("--phase", choices=[ph.value for ph in Phase], help="only this phase")
    _common(p)
    p.set_defaults(run=run_transforms)

    p = commands.add_parser(
        "ops",
        help="list supported framework ops (or the opset ops)",
        installed=installed_frameworks_text,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--framework", help="only this framework (the installed ones are listed below)")
    p.add_argument("--opset", action="store_true", help="list the declared ops (OpenVINO opsets, custom ops)")
    _common(p)
    p.set_defaults(run=run_ops)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--disable-plugin", action="append", default=[], metavar="NAME")
    p.add_argument("--strict-plugins", action="store_true")
    p.add_argument("--debug", action="store_true")


def _host(args: argparse.Namespace) -> PluginHost:
    return PluginHost(strict=args.strict_plugins, disabled=args.disable_plugin)


def run_plugins(args: argparse.Namespace) -> int:
    summary = _host(args).summary()
    plugins = summary.plugins
    if args.json:
        print(json.dumps([vars(p) for p in plugins], indent=2))
        return 0
    rows = []
    for p in plugins:
        status = p.status if not p.error else f"{p.status}: {p.error}"
        if p.distribution in summary.clashing:
            status += " (clash, see below)"
        counts = ", ".join(f"{n} {k}" for k, n in p.counts.items() if n) or "-"
        if p.label() in summary.custom_opsets:
            counts += f" (custom opset {', '.join(summary.custom_opsets[p.label()])})"
        rows.append([p.name, p.distribution, p.version, status, ", ".join(p.hooks) or "-", counts])
    print_table(["plugin", "distribution", "version", "status", "hooks", "provides"], rows)
    if summary.missing_front_ends:
        print(f"\nNo model loader is installed: pip install {', '.join(summary.missing_front_ends)}.")
    if summary.clashes:
        print("\nClashes (a conversion that needs one of these stops with this message):")
        for clash in summary.clashes:
            print(f"  {clash}")
    return 0


def run_transforms(args: argparse.Namespace) -> int:
    registry = _host(args).registry()
    phases = [Phase(args.phase)] if args.phase else list(Phase)
    entries: list[dict[str, Any]] = []
    for phase in phases:
        for position, provided in enumerate(registry.plan(phase), 1):
            t = provided.item
            entries.append(
                {
                    "phase": phase.value,
                    "position": position,
                    "id": t.id,
                    "enabled": t.enabled,
                    "run_after": list(t.run_after),
                    "run_before": list(t.run_before),
                    "plugin": provided.plugin.name,
                    "distribution": provided.plugin.distribution,
                    "description": t.summary(),
                }
            )
    if args.json:
        print(json.dumps(entries, indent=2))
        return 0
    rows = [
        [e["phase"], e["position"], f"{e['id']}{'' if e['enabled'] else ' (off)'}", e["plugin"], e["description"]]
        for e in entries
    ]
    print_table(["phase", "#", "transform", "plugin", "what it does"], rows)
    return 0


def run_ops(args: argparse.Namespace) -> int:
    registry = _host(args).registry()
    if args.opset:
        return _print_declared_ops(registry, args.json)
    entries = [
        {
            "framework": p.item.framework,
            "domain": p.item.domain,
            "op": p.item.op,
            "opsets": p.item.opsets_text(),
            "produces": p.item.produces_text(),
            "plugin": p.plugin.name,
        }
        for p in registry.all_extractors(registry.framework_named(args.framework) if args.framework else None)
    ]
    if args.json:
        print(json.dumps(entries, indent=2))
        return 0
    rows = [
        [e["framework"], (e["domain"] + "::" if e["domain"] else "") + e["op"], e["opsets"], e["produces"], e["plugin"]]
        for e in entries
    ]
    print_table(["framework", "op", "opsets", "becomes", "plugin"], rows)
    if not entries:
        print("no extractors registered" + (f" for {args.framework}" if args.framework else ""))
    return 0


def _print_declared_ops(registry: Registry, as_json: bool) -> int:
    """The op table built from every plugin's ``declare_ops``."""
    entries = [
        {
            "op": d.op.type,
            "version": d.opset_name,
            "opsets": d.opsets_text(),
            "traits": sorted(t.value for t in d.op.traits),
            "plugin": d.owner,
        }
        for d in registry.ops.declared()
    ]
    if as_json:
        print(json.dumps(entries, indent=2))
        return 0
    rows = [[e["op"], e["version"], e["opsets"], ", ".join(e["traits"]) or "-", e["plugin"]] for e in entries]
    print_table(["op", "version", "current in", "traits", "plugin"], rows)
    if not entries:
        print("no ops declared: pip install irconv (it brings the OpenVINO opsets)")
    return 0


# ---------------------------------------------------------------- what is installed, for help
class InstalledHelpParser(OneLineErrorParser):
    """A parser whose help ends with a list of what is installed (``installed`` gives the
    text), made only when the help is printed: parsing a command line stays as cheap."""

    def __init__(self, *args: Any, installed: Callable[[], str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._installed = installed

    def format_help(self) -> str:
        if self._installed is not None:
            self.epilog = self._installed()
        return super().format_help()


def installed_plugins() -> list[tuple[str, metadata.Distribution | None]]:
    """Every ``irconv`` entry point (plugin name, its distribution), read from the installed
    metadata without importing a plugin; the first of two with one name wins, as at load."""
    found: dict[str, metadata.Distribution | None] = {}
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
        found.setdefault(ep.name, ep.dist)
    return list(found.items())


def _plugin_rows(with_summary: bool) -> list[list[str]]:
    rows = []
    for name, dist in installed_plugins():
        if dist is None:
            rows.append([name, "(no distribution)"] + [""] * with_summary)
            continue
        row = [name, f"{dist.metadata['Name']} {dist.version}"] + [dist.metadata["Summary"] or ""] * with_summary
        wanted = compat.required_core(dist)
        if wanted is not None and compat.incompatibility(name, dist):
            row.append(f"left out: made for {compat.CORE_DISTRIBUTION}{compat.range_text(wanted)}")
        rows.append(row)
    return rows


def version_text() -> str:
    """``irconv --version``: the core's version, then every installed plugin's."""
    from irconv import __version__

    rows = _plugin_rows(with_summary=False)
    if not rows:
        return f"irconv {__version__}\nno plugins installed"
    return f"irconv {__version__}\n" + _indent(_table(["plugin", "distribution"], rows))


def installed_plugins_text() -> str:
    """The end of ``irconv --help``: the installed plugins (entry points only, no import)."""
    rows = _plugin_rows(with_summary=True)
    if not rows:
        return "No plugin is installed: pip install irconv irconv-onnx (or irconv-tf, irconv-caffe, ...)."
    return "installed plugins (irconv plugins shows what each provides):\n" + _indent(
        _table(["plugin", "distribution", "what it is"], rows)
    )


def installed_frameworks_text() -> str:
    """The end of ``irconv ops --help``: the frameworks the registry has a model loader for."""
    loaders = PluginHost().registry().loaders
    if not loaders:
        return "No front end is installed: irconv plugins says what to install."
    rows = [[p.item.framework, p.item.description, p.plugin.label()] for p in loaders]
    return "installed frameworks (--framework):\n" + _indent(format_table(["framework", "models", "plugin"], rows))


def _table(headers: list[str], rows: list[list[str]]) -> str:
    """``headers`` plus a "note" column when a row has one."""
    if any(len(row) > len(headers) for row in rows):
        headers = [*headers, "note"]
        rows = [row + [""] * (len(headers) - len(row)) for row in rows]
    return format_table(headers, rows)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
