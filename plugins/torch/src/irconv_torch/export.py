"""From a ``torch.nn.Module`` to the program irconv reads: ``torch.export``, then the
decomposition of the ops irconv has no extractor for (the others stay whole)."""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from irconv.errors import UserError

#: In-place ops that leave their operand's values as they are: read like their out-of-place
#: form, no functionalisation needed.
VALUE_KEEPING_IN_PLACE = ("aten.detach_.default",)


def decompose_unsupported(program: Any, supported: Callable[[str], bool]) -> Any:
    """``program`` with every op that has no extractor (``supported(op type)`` False)
    decomposed, toward core ATen; the ops that have one stay whole, so OpenVINO's better
    operations (attention, normalisations, convolutions, interpolation, ...) are kept.

    When each op of the program ``torch.export`` gives has an extractor, and its in-place ops
    can be read as new values (``irconv_torch.program.in_place_as_value``), the program is read
    as it is: ``run_decompositions`` re-traces the whole program, which costs about as much as
    exporting it again."""
    if not needs_decomposition(program, supported):
        return program
    return program.run_decompositions(decompositions_of_unsupported(supported))


def needs_decomposition(program: Any, supported: Callable[[str], bool]) -> bool:
    """Whether a call of ``program`` has no extractor or mutates an input (in-place ops)."""
    from irconv_torch.program import in_place_as_value, live_nodes, op_name

    graph = program.graph_module.graph
    live = live_nodes(graph)
    for fx in graph.nodes:
        if fx.op == "get_attr" and not _is_tensor_attribute(program, fx):
            return True  # a sub-graph of a higher-order op: inlined by decomposition
        if fx.op != "call_function" or fx.target is operator.getitem:
            continue
        name = op_name(fx.target)
        schema = getattr(fx.target, "_schema", None)
        if schema is not None and schema.is_mutable and name not in VALUE_KEEPING_IN_PLACE:
            value_form = in_place_as_value(fx)  # read as a new value of its operand, or functionalised
            if value_form is None or not supported(value_form):
                return True  # a mutation counts even unused: its operand is what changes
            name = value_form
        if fx in live and not supported(name):
            return True
    return False


def decompositions_of_unsupported(supported: Callable[[str], bool]) -> Any:
    """``torch.export.default_decompositions()`` without the ops that have an extractor."""
    import torch

    table = torch.export.default_decompositions()
    for op in [op for op in table if isinstance(op, torch._ops.OpOverload) and supported(str(op))]:
        del table[op]
    return table


def _is_tensor_attribute(program: Any, fx: Any) -> bool:
    import torch

    target = str(fx.target)
    return target in program.constants or isinstance(getattr(program.graph_module, target, None), torch.Tensor)


def export_module(module: Any, example_input: Any, dynamic_shapes: Any = None,
                  note: Callable[[str], None] = lambda message: None, *, static_shapes: bool = False) -> Any:
    """``torch.export.export`` of ``module`` on ``example_input`` (a tensor, a tuple of
    positional inputs, or a dict of keyword inputs).

    Without ``dynamic_shapes``, the inputs' batch and sequence dimensions are dynamic where
    the program allows it (``irconv_torch.dynamic_dims``: torch's ``Dim.AUTO``), unless
    ``static_shapes``; a note names the dimensions torch kept static. When such an export
    fails, the module is exported with the example input's shapes, and a note says why.
    Eager-mode quantized modules are first replaced by float modules computing the same
    values (``irconv_torch.quantized_eager``)."""
    if example_input is None:
        raise UserError("converting a torch.nn.Module needs example_input= (a tensor, a tuple of "
                        "tensors or a dict of keyword tensors) to trace it with torch.export")
    args, kwargs = _arguments(example_input)
    module = _eager_quantized_as_float(module.eval(), args, kwargs, note)
    _refuse_packed_parameters(module)
    if dynamic_shapes is not None or static_shapes:
        return _export(module, args, kwargs, dynamic_shapes, note)
    from irconv_torch.dynamic_dims import automatic_dynamic_shapes, size_oblivious_tracing, static_dimensions_note

    try:
        with size_oblivious_tracing():
            program = _export(module, args, kwargs, automatic_dynamic_shapes(args, kwargs), note)
    except UserError as dynamic_failure:
        program = _export(module, args, kwargs, None, note)
        note(f"{type(module).__name__}: exported with the example input's static shapes, as torch.export "
             f"could not make its dimensions dynamic ({dynamic_failure})")
        return program
    static = static_dimensions_note(program)
    if static:
        note(f"{type(module).__name__}: {static}")
    return program


def _export(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], dynamic_shapes: Any,
            note: Callable[[str], None]) -> Any:
    """Non-strict first (it traces Python as it runs), strict (TorchDynamo) when that fails.

    Python control flow on a tensor's value (``if mask.any():``) stops both: the branch
    depends on data torch.export does not know. Such a module is exported again with
    ``torch.export.draft_export``, which takes the branch the example input takes, as
    tracing does; ``note`` tells the user the IR holds that branch only. A ``Dim`` the
    program does not allow is one line naming it (``irconv_torch.constraints``)."""
    from irconv_torch.constraints import constraint_violation_line, dim_places, is_constraint_violation

    try:
        return _traced(module, args, kwargs, dynamic_shapes, strict=False)
    except Exception as non_strict:
        if _is_data_dependent(non_strict):
            program = _draft_export(module, args, kwargs, dynamic_shapes)
            if program is not None:
                note(f"{type(module).__name__}: Python branches on tensor values ({_first_line(non_strict)}); "
                     "they were taken as for the example input, and the IR holds those branches only")
                return program
        try:
            return _traced(module, args, kwargs, dynamic_shapes, strict=True)
        except Exception:
            if is_constraint_violation(non_strict):
                places = dim_places(dynamic_shapes, _parameter_names(module))
                raise UserError(f"torch.export: {type(module).__name__}: "
                                f"{constraint_violation_line(non_strict, places)}") from non_strict
            raise UserError(f"torch.export could not trace {type(module).__name__}: "
                            f"{type(non_strict).__name__}: {_first_line(non_strict)}") from non_strict


def _traced(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], dynamic_shapes: Any, *, strict: bool) -> Any:
    import torch

    with without_stack_traces():
        return torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict)


@contextlib.contextmanager
def without_stack_traces() -> Iterator[None]:
    """Tracing that does not record each node's Python stack (``node.meta["stack_trace"]``),
    which irconv never reads: extracting and symbolizing a traceback per node is about a
    fifth of ``torch.export``'s time on a transformers decoder."""
    import torch.fx.config

    recorded = torch.fx.config.do_not_emit_stack_traces
    torch.fx.config.do_not_emit_stack_traces = True
    try:
        yield
    finally:
        torch.fx.config.do_not_emit_stack_traces = recorded


def _eager_quantized_as_float(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                              note: Callable[[str], None]) -> Any:
    """``module`` with its eager-mode quantized modules computing in float
    (``irconv_torch.quantized_eager``), or ``module`` itself when it has none."""
    from irconv_torch.quantized_eager import as_float_model, has_eager_quantized

    if not has_eager_quantized(module):
        return module
    converted, replaced = as_float_model(module, args, kwargs)
    if replaced:
        note(f"{type(module).__name__}: {len(replaced)} eager-mode quantized modules computed as float operations "
             "on their dequantized weights, each output rounded to its scale and zero point")
    return converted.eval()


def _refuse_packed_parameters(module: Any) -> None:
    """Eager-mode quantized modules (``torch.ao.quantization.convert``) keep their weights as
    TorchScript objects (packed parameters), which ``torch.export`` cannot trace: one line
    naming them and what to convert instead, rather than torch's AttributeError."""
    import torch

    packed = [f"{name or 'the module'} (quantized {type(sub).__name__})" for name, sub in module.named_modules()
              if any(isinstance(value, torch.ScriptObject) for value in vars(sub).values())]
    if packed:
        more = f" and {len(packed) - 3} more" if len(packed) > 3 else ""
        raise UserError(f"{type(module).__name__} holds eager-mode quantized modules ({', '.join(packed[:3])}{more}) "
                        "whose packed parameters torch.export cannot trace: convert the float model (before "
                        "torch.ao.quantization.convert), with --weight-format int8 for 8-bit weights")


def _parameter_names(module: Any) -> list[str]:
    import inspect

    try:
        return [name for name in inspect.signature(module.forward).parameters if name != "self"]
    except (TypeError, ValueError):
        return []


def _is_data_dependent(exc: BaseException) -> bool:
    """Whether tracing stopped at a condition on a tensor's value (an unbacked symbol)."""
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, GuardOnDataDependentSymNode):
            return True
        cause = cause.__cause__
    return False


def _draft_export(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], dynamic_shapes: Any) -> Any:
    """``torch.export.draft_export``'s program, or None when it fails too. Its own report
    (a warning log with a banner) is kept quiet: the caller's note says what it means."""
    import logging

    import torch

    logger = logging.getLogger("torch.export._draft_export")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return torch.export.draft_export(module, args, kwargs, dynamic_shapes=dynamic_shapes)
    except Exception:
        return None
    finally:
        logger.setLevel(level)


def _arguments(example_input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if isinstance(example_input, Mapping):
        return (), dict(example_input)
    if isinstance(example_input, (tuple, list)):
        return tuple(example_input), {}
    return (example_input,), {}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
