"""Progress reporting: the pipeline's stages through ConversionReport.progress, the terminal
display, --quiet and --verbose."""

import io

import pytest
from core_toy_plugin import ToyPlugin
from irconv.cli.main import main
from irconv.cli.progress import PlainProgress, make_progress, transform_table
from irconv.contract.progress import NoProgress
from irconv.pipeline import ConversionOptions, convert, save
from irconv.pipeline.phases import TransformRun
from irconv.pipeline.run import ConversionReport
from irconv.plugins import Transform, hookimpl
from toy_cli import use_toy_host


class Recorder:
    def __init__(self):
        self.events = []

    def stage(self, name, total=None, unit=""):
        self.events.append(("stage", name, total, unit))

    def advance(self, amount=1, item=""):
        self.events.append(("advance", amount, item))

    def finish(self):
        self.events.append(("finish",))

    def stages(self):
        return [e[1] for e in self.events if e[0] == "stage"]


class NoOpTransform(Transform):
    """Looks at the graph and changes nothing."""

    id = "toy.look"

    def apply(self, graph, ctx):
        return False


class DisabledTransform(Transform):
    id = "toy.off"
    enabled = False

    def apply(self, graph, ctx):
        raise AssertionError("disabled transforms do not run")


class ToyTransforms:
    @hookimpl
    def middle_transform(self):
        return [NoOpTransform(), DisabledTransform()]


@pytest.fixture
def host(plugin_host, register_plugin):
    register_plugin(ToyPlugin(), "toy", "irconv-toy")
    register_plugin(ToyTransforms(), "toyt", "irconv-toyt")
    return plugin_host


@pytest.fixture
def toy_cli(monkeypatch):
    """The CLI's plugin host: the toy plugin and this file's own."""
    use_toy_host(monkeypatch, (ToyTransforms(), "toyt"))


def toy_model(tmp_path):
    path = tmp_path / "m.toy"
    path.write_text("input x 1,4\nop r MyRelu x\nop d Double r\noutput y d\n")
    return path


def test_the_pipeline_reports_every_stage(tmp_path, host):
    model = toy_model(tmp_path)
    recorder = Recorder()
    report = ConversionReport(progress=recorder)
    graph = convert(model, ConversionOptions(), host, report)
    save(graph, tmp_path / "out.xml", ConversionOptions(), host, report=report)
    assert recorder.stages() == [
        "load",
        "extract",
        "front transforms",
        "infer",
        "middle transforms",
        "back transforms",
        "emit",
    ]
    events = recorder.events
    assert ("stage", "load", model.stat().st_size, "B") in events
    assert ("advance", model.stat().st_size, "") in events
    assert ("stage", "extract", 2, "nodes") in events
    assert ("advance", 1, "MyRelu") in events and ("advance", 1, "Double") in events  # node by node
    # transforms by plan position: the enabled one counts, the disabled one is not planned
    assert ("stage", "middle transforms", 1, "transforms") in events
    middle = events[events.index(("stage", "middle transforms", 1, "transforms")) :]
    assert ("advance", 0, "toy.look") in middle and ("advance", 1, "") in middle
    assert events[-1] == ("finish",)


def test_no_progress_object_is_the_default(tmp_path, host):
    graph = convert(toy_model(tmp_path), ConversionOptions(), host)
    assert len(graph) == 4


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_shown_only_on_a_terminal_and_not_when_quiet():
    assert isinstance(make_progress(io.StringIO(), quiet=False), NoProgress)
    assert isinstance(make_progress(FakeTerminal(), quiet=True), NoProgress)
    assert not isinstance(make_progress(FakeTerminal(), quiet=False), NoProgress)


def test_plain_progress_draws_one_line_in_place():
    stream = FakeTerminal()
    progress = PlainProgress(stream)
    progress.stage("middle transforms", 40, "transforms")
    progress.advance(0, "fuse.swish")
    progress.MIN_INTERVAL = 0
    progress.advance(12)
    progress.stage("emit", 3 * 1024 * 1024, "B")
    progress.advance(1024 * 1024)
    progress.finish()
    text = stream.getvalue()
    assert "\r[1] middle transforms  0/40 transforms" in text
    assert "12/40 transforms  fuse.swish" in text
    assert "[2] emit  1.0 MB/3.0 MB" in text
    assert "\n" not in text and text.endswith("\r")


def test_verbose_table_shows_time_and_node_delta():
    table = transform_table([TransformRun("fuse.a", True, 0.0123, 10, 7), TransformRun("fuse.b", False, 0.0, 7, 7)])
    lines = table.splitlines()
    assert lines[0].split() == ["transform", "changed", "ms", "nodes", "delta"]
    assert lines[2].split() == ["fuse.a", "yes", "12.3", "10", "->", "7", "-3"]
    assert lines[3].split() == ["fuse.b", "no", "0.0", "7", "->", "7", "0"]


def test_cli_verbose_prints_stages_and_transforms(tmp_path, toy_cli, capsys):
    assert main(["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "stages: load" in out and "emit" in out
    assert "toy.look" in out and "toy.off" not in out


def test_cli_quiet_prints_nothing(tmp_path, toy_cli, capsys):
    assert main(["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml"), "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert (tmp_path / "o.xml").is_file()


def test_cli_without_a_terminal_shows_no_progress(tmp_path, toy_cli, capsys):
    assert main(["convert", str(toy_model(tmp_path)), "-o", str(tmp_path / "o.xml")]) == 0
    assert capsys.readouterr().err == ""


def test_quiet_and_verbose_exclude_each_other(tmp_path, toy_cli, capsys):
    with pytest.raises(SystemExit):
        main(["convert", str(toy_model(tmp_path)), "-q", "-v"])
