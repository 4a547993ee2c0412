"""Building an irconv graph from a Paddle inference program and its parameters.

``<prefix>.pdmodel`` (legacy) or ``<prefix>.json`` (PIR), or a folder holding one of them
(PaddleOCR's and PaddleDetection's ``inference.*``); the parameters are
``<prefix>.pdiparams`` beside it unless ``--weights`` names them. Parameters become
Consts, feeds Parameters, fetched values Results; every other operator becomes a
``SourceOp`` whose source is its :class:`PaddleOp` (the extractors read arguments by
position through it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from irconv import LoadContext
from irconv.errors import ModelFileError, quoted, shortened
from irconv.graph import Graph, OutPort
from irconv.ops import Const, MappingAttributes, Parameter, Result, SourceOp
from irconv.types import ElementType

from irconv_paddle.params import read_params
from irconv_paddle.program import Feed, Program

FRAMEWORK = "paddle"
PROGRAM_SUFFIXES = (".pdmodel", ".json")


def load_paddle(path: Path, ctx: LoadContext) -> Graph:
    """The ``Loader.load`` of the paddle plugin."""
    program_path = resolve_program(path)
    program = read_program(program_path)
    params_path = Path(ctx.options.weights) if ctx.options.weights else program_path.with_suffix(".pdiparams")
    values: dict[str, np.ndarray] = {}
    if program.params:
        if not params_path.is_file():
            raise ModelFileError(f"{program_path}: the program has {len(program.params)} parameters but "
                                 f"{params_path} does not exist: put the .pdiparams beside it or name it with --weights")
        values = read_params(params_path, program.params)
        _check_shapes(program, values, params_path)
    return build_graph(program, values, program_path.stem)


def resolve_program(path: Path) -> Path:
    """The program file: ``path`` itself, or the one program in a folder."""
    if not path.is_dir():
        return path
    found = sorted(p for p in path.iterdir() if p.suffix in PROGRAM_SUFFIXES and p.with_suffix(".pdiparams").exists())
    if len(found) != 1:
        names = ", ".join(p.name for p in found) or "none"
        raise ModelFileError(f"{path}: expected one Paddle program (.pdmodel or .json beside its .pdiparams), "
                             f"found {shortened(names)}: name the program file")
    return found[0]


def read_program(path: Path) -> Program:
    """A PIR program when the file is JSON (whatever its name), else a legacy ProgramDesc."""
    with open(path, "rb") as f:
        head = f.read(64).lstrip()
    if path.suffix.lower() == ".json" or head.startswith(b"{"):
        from irconv_paddle.pir import read_pir

        return read_pir(path)
    from irconv_paddle.legacy import read_legacy

    return read_legacy(path)


def _check_shapes(program: Program, values: dict[str, np.ndarray], params_path: Path) -> None:
    for name, value in values.items():
        declared = program.shapes.get(name)
        if declared is not None and tuple(declared[0]) != value.shape and -1 not in declared[0]:
            raise ModelFileError(f"{params_path}: parameter {quoted(name)} has shape {list(value.shape)} but the "
                                 f"program declares {list(declared[0])}: the parameters file belongs to another "
                                 "program")


def build_graph(program: Program, values: dict[str, np.ndarray], name: str) -> Graph:
    graph = Graph(name, FRAMEWORK)
    ports: dict[str, OutPort] = {}
    for feed in program.feeds:
        node = graph.add_node(_parameter(feed), feed.name)
        ports[feed.name] = node.out_port(0)
        ports[feed.name].data.add_name(feed.name)

    def port_of(value: str, user: str) -> OutPort:
        if value not in ports:
            if value not in values:
                raise ModelFileError(f"{program.form} program {quoted(name)}: operator {quoted(user)} reads "
                                     f"{quoted(value)}, which no operator, input or parameter makes")
            const = graph.add_node(Const(values[value]), value)
            ports[value] = const.out_port(0)
            ports[value].data.add_name(value)
        return ports[value]

    for op in program.ops:
        inputs: list[OutPort | None] = []
        for names in op.args:
            inputs.extend(port_of(n, op.name) for n in names)
            if not names:
                inputs.append(None)
        results = [n for names in op.results for n in (names or ("",))]
        bodies = {"body": build_graph(op.body, values, f"{op.name}/body")} if op.body is not None else {}
        source = SourceOp(framework=FRAMEWORK, op_type=op.type, n_outputs=max(1, len(results)), source=op,
                          attributes=MappingAttributes(op.attrs), bodies=bodies)
        node = graph.add_node(source, op.name, inputs)
        for i, result in enumerate(results):
            if result:
                ports[result] = node.out_port(i)
                node.out_port(i).data.add_name(result)
    sinks: set[str] = set()
    for value, fetch_name in program.fetches:
        port = port_of(value, "fetch")
        if fetch_name and fetch_name != value:
            port.data.add_name(fetch_name)
        sink = f"{fetch_name or value}/sink"
        sink = sink if sink not in sinks else f"{sink}{len(sinks)}"  # a loop body gives one value twice
        sinks.add(sink)
        graph.add_node(Result(), sink, [port])
    return graph


def _parameter(feed: Feed) -> Parameter:
    shape = tuple(None if d < 0 else d for d in feed.shape)
    return Parameter(shape=shape, element_type=ElementType.from_numpy(feed.dtype))
