"""Plugins add subcommands to ``irconv`` through the ``cli_command`` hook (``irconv mo``)."""

from __future__ import annotations

import pytest
from irconv.cli.main import builtin_commands, main
from irconv.contract import Command, hookimpl
from irconv.errors import ExitCode, PluginClash, PluginError, UsageError
from irconv.plugins import PluginHost
from toy_cli import use_toy_host


class Greeter:
    """A plugin adding ``irconv hello``; it records what each run received."""

    def __init__(self, name: str = "hello") -> None:
        self.name = name
        self.calls: list[list[str]] = []
        self.asked = 0

    @hookimpl
    def cli_command(self):
        self.asked += 1
        return [Command(self.name, self.run, help="greet")]

    def run(self, argv, irconv):
        self.calls.append(argv)
        if argv[:1] == ["--fail"]:
            raise UsageError("--fail: failing as asked")
        if argv[:1] == ["--irconv"]:
            return irconv(argv[1:])
        return 7


def test_a_plugin_command_gets_its_arguments_and_its_exit_code_is_irconvs(monkeypatch):
    greeter = Greeter()
    use_toy_host(monkeypatch, (greeter, "greeter"))
    assert main(["hello", "a", "--b"]) == 7
    assert greeter.calls == [["a", "--b"]]


def test_a_plugin_command_runs_irconv_command_lines_in_process(monkeypatch, capsys):
    greeter = Greeter()
    use_toy_host(monkeypatch, (greeter, "greeter"))
    assert main(["hello", "--irconv", "--version"]) == 0
    assert capsys.readouterr().out.startswith("irconv ")


def test_an_error_a_plugin_command_raises_is_one_line_naming_the_command(monkeypatch, capsys):
    use_toy_host(monkeypatch, (Greeter(), "greeter"))
    assert main(["hello", "--fail"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err == "irconv hello: error: --fail: failing as asked\n"


def test_built_in_commands_never_ask_plugins_for_commands(monkeypatch, capsys):
    greeter = Greeter()
    use_toy_host(monkeypatch, (greeter, "greeter"))
    assert main(["--version"]) == 0
    assert main(["transforms"]) == 0
    assert greeter.asked == 0


def test_a_plugin_command_cannot_replace_a_built_in_one(monkeypatch, capsys):
    impostor = Greeter("transforms")
    use_toy_host(monkeypatch, (impostor, "impostor"))
    assert "transforms" in builtin_commands() and "hello" not in builtin_commands()
    assert main(["transforms"]) == 0
    assert impostor.calls == []


def test_an_unknown_command_is_still_a_usage_error_after_asking_the_plugins(monkeypatch, capsys):
    greeter = Greeter()
    use_toy_host(monkeypatch, (greeter, "greeter"))
    with pytest.raises(SystemExit) as exit_:
        main(["helo"])
    assert exit_.value.code == ExitCode.USAGE and greeter.asked == 1


def test_two_plugins_adding_one_command_clash():
    host = PluginHost(autoload=False)
    host.register(Greeter(), "one", distribution="irconv-one", version="1")
    host.register(Greeter(), "two", distribution="irconv-two", version="1")
    registry = host.registry()
    with pytest.raises(PluginClash, match="command 'hello'"):
        assert registry.commands is None  # building the table raises


def test_a_command_name_is_a_lowercase_word():
    with pytest.raises(PluginError, match="lowercase name"):
        Command("Hello World", lambda argv, irconv: 0)
