"""``irconv show`` end to end: the HTML page of a converted model rendered by a real headless
browser (skipped when no Chromium is installed), the diff view, and SVG through Graphviz."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from irconv.cli.main import main
from make_zoo import conv_net, residual_net

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def headless(
    browser: str, page: Path, profile: Path, *extra: str, fragment: str = ""
) -> subprocess.CompletedProcess[str]:
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1200,800",
        *extra,
        page.resolve().as_uri() + fragment,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def png_pixels(path: Path) -> tuple[int, int, int, bytes]:
    """(width, height, channels, raw rows) of an 8-bit non-interlaced PNG, filters undone."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0 and color in (2, 6)
    channels = 4 if color == 6 else 3
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    out = bytearray()
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            up_left = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        out += line
        previous = line
    return width, height, channels, bytes(out)


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    pytest.importorskip("irconv_onnx")
    path = tmp_path_factory.mktemp("show") / "blocks.onnx"
    conv_net(path, seed=1, blocks=4)
    return path


def test_show_writes_a_self_contained_page(model, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["show", str(model), "-o", str(out)]) == 0
    html = out.read_text()
    assert "<script" in html and "http://" not in html.replace("http://www.w3.org", "")  # nothing fetched
    data = json.loads(re.search(r'<script id="graph-data" type="application/json">(.*?)</script>', html, re.S)[1])
    types = {n["type"] for n in data["graphs"][0]["nodes"]}
    assert {"Convolution", "ReLU", "Parameter", "Result"} <= types
    assert "BatchNormalization" not in types  # converted: batch norms are fused away


def test_show_diff_lists_transforms_and_changes(model, tmp_path):
    out = tmp_path / "diff.json"
    assert main(["show", str(model), "--diff", "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    ir, source = doc["graphs"]
    assert source["label"] == "source" and "BatchNormalization" in {n["type"] for n in source["nodes"]}
    assert any(t["changed"] for t in doc["transforms"])  # the batch norms' scales are fused into the convs
    assert {n["name"] for n in ir["nodes"]} >= {"block0/conv", "block0/bn"}
    assert doc["transforms"] and {"id", "changed", "nodes_before", "nodes_after", "phase"} <= set(doc["transforms"][0])


def test_show_an_ir_as_written(model, tmp_path):
    xml = tmp_path / "ir" / "blocks.xml"
    assert main(["convert", str(model), "-o", str(xml), "-q"]) == 0
    out = tmp_path / "ir.json"
    assert main(["show", str(xml), "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["graphs"][0]["framework"] == "ir" and len(doc["graphs"][0]["nodes"]) > 10
    # fp16-compressed weights are shown as the file holds them: an f16 Const and its Convert
    nodes = doc["graphs"][0]["nodes"]
    written = xml.read_text()
    assert sum(n["type"] == "Convert" for n in nodes) == written.count('type="Convert"') > 0
    assert any(n["type"] == "Const" and n["outputs"][0]["type"] == "f16" for n in nodes)


def test_show_names_the_formats_it_can_draw_when_asked_for_another(model, tmp_path, capsys):
    pytest.importorskip("irconv_viz")
    assert main(["show", str(model), "--format", "png", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "no installed renderer draws 'png'" in err and "html" in err and "pip install" not in err


def test_show_svg_through_graphviz(model, tmp_path, capsys):
    out = tmp_path / "graph.svg"
    code = main(["show", str(model), "--format", "svg", "-o", str(out)])
    if shutil.which("dot") is None:
        assert code == 1 and "Graphviz" in capsys.readouterr().err
        return
    assert code == 0
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg
    assert "Convolution" in svg


def test_page_renders_nodes_in_a_headless_browser(model, tmp_path):
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome installed (apt-get install chromium)")
    page = tmp_path / "page.html"
    assert main(["show", str(model), "-o", str(page)]) == 0
    graph = json.loads(re.search(r'type="application/json">(.*?)</script>', page.read_text(), re.S)[1])["graphs"][0]
    nodes = sum(1 for n in graph["nodes"] if n["type"] != "Const")  # constants are hidden until asked for

    dom = headless(browser, page, tmp_path / "profile", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    drawn = re.findall(r'<g class="node[^"]*"[^>]*data-name="([^"]*)"', dom.stdout)
    assert len(drawn) == nodes  # every node drawn by the script
    assert any(name.startswith("block0/") for name in drawn)
    assert f'data-node-count="{nodes}"' in dom.stdout
    assert "repeated \u00d7" in dom.stdout or "repeated &#215;" in dom.stdout or "repeated ×" in dom.stdout

    # the four conv blocks share one op signature: collapsed, each is one box
    collapsed = headless(browser, page, tmp_path / "profile", "--dump-dom", fragment="#collapse=repeated")
    groups = re.findall(r'<g class="node group[^"]*"[^>]*data-name="([^"]*)"', collapsed.stdout)
    assert sorted(groups) == ["block0", "block1", "block2", "block3"]
    assert f'data-node-count="{nodes - 4 * 3 + 4}"' in collapsed.stdout
    searched = headless(browser, page, tmp_path / "profile", "--dump-dom", fragment="#search=relu")
    assert len(re.findall(r'<g class="node[^"]*\bhit\b', searched.stdout)) == 4

    shot = tmp_path / "shot.png"
    result = headless(browser, page, tmp_path / "profile", f"--screenshot={shot}")
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    width, height, channels, pixels = png_pixels(shot)
    # the drawing area (left of the 340 px side panel, below the 42 px header) is not blank:
    # node boxes are filled light blue (#eef3fb), their borders and text darker
    inked = 0
    for y in range(60, height - 10, 2):
        row = pixels[y * width * channels : (y + 1) * width * channels]
        for x in range(10, width - 360, 2):
            r, g, b = row[x * channels : x * channels + 3]
            if (r, g, b) != (255, 255, 255):
                inked += 1
    assert inked > 2000, f"only {inked} non-white pixels in the graph area"


def test_page_finds_repeated_blocks_by_structure_in_a_browser(tmp_path):
    """Flat layer names (no scopes): residual blocks are found between cut points."""
    pytest.importorskip("irconv_onnx")
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome installed (apt-get install chromium)")
    model = tmp_path / "res.onnx"
    residual_net(model, seed=2, blocks=5)
    page = tmp_path / "res.html"
    assert main(["show", str(model), "-o", str(page)]) == 0
    dom = headless(browser, page, tmp_path / "profile", "--dump-dom", fragment="#collapse=repeated")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "blocks between cut points" in dom.stdout
    groups = re.findall(r'<g class="node group[^"]*"[^>]*data-name="([^"]*)"', dom.stdout)
    assert len(groups) >= 4  # the identical residual blocks, each one box
    assert all(name.startswith("add") for name in groups)


def test_diff_page_shows_the_changes_tab_in_a_browser(model, tmp_path):
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome installed (apt-get install chromium)")
    page = tmp_path / "diff.html"
    assert main(["show", str(model), "--diff", "-o", str(page)]) == 0
    changes = headless(browser, page, tmp_path / "profile", "--dump-dom", fragment="#tab=changes")
    assert changes.returncode == 0, changes.stderr[-2000:]
    rows = re.findall(r'<tr( class="changed")?><td>(front|middle|back)</td><td>([a-z0-9_.]+)</td>', changes.stdout)
    assert rows and any(changed for changed, _, _ in rows)
    assert "source nodes gone" in changes.stdout
    assert re.search(r"<main hidden", changes.stdout) and re.search(r'<div id="changes">', changes.stdout)
    source = headless(browser, page, tmp_path / "profile", "--dump-dom", fragment="#tab=source")
    drawn = re.findall(r'<g class="node[^"]*"[^>]*data-name="([^"]*)"', source.stdout)
    assert "block0/bn" in drawn and 'data-name="block0/bn"' in source.stdout
