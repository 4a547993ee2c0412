"""Inputs the runtime refuses when it reads an IR are refused at inference, naming node, input and rule."""

from __future__ import annotations

import numpy as np
import pytest
from irconv.errors import ConversionError
from irconv.pipeline import infer_graph
from irconv.testing import GraphBuilder
from irconv_opset import (
    Broadcast,
    Gather,
    GatherND,
    ReduceSum,
    Reshape,
    StridedSlice,
    Tile,
    TopK,
    Transpose,
)


def infer(op, *inputs):
    """Build ``op`` over inputs (tuple -> f32 Parameter, (tuple, type) -> typed Parameter, ndarray -> Const)."""
    b = GraphBuilder()
    ports = []
    for i, value in enumerate(inputs):
        if isinstance(value, np.ndarray):
            ports.append(b.const(value))
        elif len(value) == 2 and isinstance(value[1], str):
            ports.append(b.parameter(f"p{i}", value[0], value[1]))
        else:
            ports.append(b.parameter(f"p{i}", value))
    node = b.node(op, *ports, name="n")
    infer_graph(b.graph)
    return node


def f32(*values):
    return np.array(values, np.float32)


def i64(*values):
    return np.array(values, np.int64)


@pytest.mark.parametrize(
    ("op", "inputs", "words"),
    [
        (Broadcast(), [(2,), ((2,), "f32")], "input 1 (target shape) must have an integer element type, got f32"),
        (Tile(), [(2,), f32(2)], "input 1 (repeats) must have an integer element type"),
        (Reshape(), [(2, 3), f32(6)], "input 1 (target shape) must have an integer element type"),
        (Transpose(), [(2, 3), ((2,), "boolean")], "input 1 (order) must have an integer element type, got boolean"),
        (Gather(), [(4,), f32(1), i64(0)], "input 1 (indices) must have an integer element type"),
        (GatherND(), [(4, 2), ((1, 1), "f32")], "input 1 (indices) must have an integer element type"),
        (ReduceSum(), [(4, 2), f32(0)], "input 1 (axes) must have an integer element type"),
        (StridedSlice(), [(4, 2), f32(0), i64(1)], "input 1 (begin) must have an integer element type"),
    ],
)
def test_shape_and_index_inputs_must_be_integers(op, inputs, words):
    with pytest.raises(ConversionError, match=r"node 'n' \(") as info:
        infer(op, *inputs)
    assert words in str(info.value)


def test_transpose_order_needs_one_entry_per_axis():
    with pytest.raises(ConversionError, match="input 1 .order. must have 5 element.s., one per data axis, got 3"):
        infer(Transpose(), (5, 1, 3, 1, 2), i64(2, 1, 0))
    assert infer(Transpose(), (2, 3), np.zeros(0, np.int64)).out_port(0).data.get_shape() == (3, 2)


def test_strided_slice_begin_end_strides_need_one_length():
    with pytest.raises(ConversionError, match="begin, end and strides must have one length"):
        infer(StridedSlice(begin_mask=[0, 0], end_mask=[0, 0]), (4, 4), i64(0, 0), i64(2), i64(1, 1))


def test_broadcast_target_shape_must_be_a_list():
    with pytest.raises(ConversionError, match=r"input 1 \(target shape\) must have rank 1, got shape \[1, 2\]"):
        infer(Broadcast(), (2,), np.array([[1, 2]], np.int64))


def test_unknown_types_and_ranks_pass():
    node = infer(Broadcast(), (2,), ((None,), "dynamic"))
    assert node.out_port(0).data.get_shape() is None
    assert infer(Tile(), (2,), i64(3)).out_port(0).data.get_shape() == (6,)


def test_recurrent_inputs_share_the_data_element_type():
    from irconv_opset import LSTMSequence

    h = 2
    inputs = [((1, 3, 4), "boolean"), ((1, 1, h), "boolean"), ((1, 1, h), "boolean"), i64(3),
              np.zeros((1, 4 * h, 4), np.float32), np.zeros((1, 4 * h, h), np.float32), np.zeros((1, 4 * h), np.float32)]
    with pytest.raises(ConversionError, match=r"input 4 \(states, W, R and B\) must have the element type of input 0 "
                       r"\(boolean\), got f32"):
        infer(LSTMSequence(hidden_size=h), *inputs)


def test_prelu_slope_has_one_value_or_one_per_channel():
    from irconv_opset import PReLU

    with pytest.raises(ConversionError, match=r"input 1 \(slope\) of shape \[8\] is neither one value per channel"):
        infer(PReLU(), (1, 16, 5, 5), np.ones(8, np.float32))
    with pytest.raises(ConversionError, match="nor broadcasts to the data shape"):
        infer(PReLU(), (1, 4, 5, 5), np.ones((4, 3, 1), np.float32))
    for slope in (np.ones(1, np.float32), np.ones(16, np.float32), np.ones((16, 1, 1), np.float32)):
        assert infer(PReLU(), (1, 16, 5, 5), slope).out_port(0).data.get_shape() == (1, 16, 5, 5)
    # NumPy broadcasting along the last axis, as ONNX PRelu allows (the runtime computes it)
    assert infer(PReLU(), (3, 4, 5), np.ones(5, np.float32)).out_port(0).data.get_shape() == (3, 4, 5)


def test_an_op_given_fewer_inputs_than_it_reads_is_named():
    from irconv_opset import Range, ScatterNDUpdate

    with pytest.raises(ConversionError, match=r"needs 3 inputs, but input 1 is not connected \(it has 1\)"):
        infer(Range(), i64(0))
    with pytest.raises(ConversionError, match=r"needs 3 inputs, but input 2 is not connected"):
        infer(ScatterNDUpdate(), (4,), i64([0]))


def test_if_condition_is_a_scalar_or_one_element():
    from irconv.graph import Graph
    from irconv_opset import If

    with pytest.raises(ConversionError, match=r"input 0 \(condition\) must have rank 0 or 1, got shape \[2, 3\]"):
        infer(If(then_body=Graph("t"), else_body=Graph("e")), ((2, 3), "boolean"))


def test_matmul_operands_share_one_element_type():
    from irconv_opset import MatMul

    with pytest.raises(ConversionError, match=r"input 1 \(second operand\) must have the element type of input 0"):
        infer(MatMul(), (1, 64), np.ones((64, 5), np.int32))


@pytest.mark.parametrize(("a", "b"), [((), (5, 4)), ((2, 4), ())])
def test_matmul_refuses_a_scalar_operand(a, b):
    """OpenVINO: "Scalars are not supported as MatMul inputs" (a .pt2 whose linear reads a float)."""
    from irconv_opset import MatMul

    with pytest.raises(ConversionError, match=r"MatMul: operand [ab] is a scalar"):
        infer(MatMul(transpose_b=True), a, b)


@pytest.mark.parametrize(
    ("shape", "pool", "words"),
    [
        ((1, 1, 3, 3), {"kernel": (5, 5)}, "larger than the padded input"),
        ((1, 3, 8, 8), {"kernel": (2, 2, 2)}, "kernel [2, 2, 2] does not match the input's 2 spatial dimensions"),
        ((1, 3, 8, 8), {"kernel": (2, 2), "pads_begin": (0,)}, "pads_begin [0] does not match"),
    ],
)
def test_pooling_windows_the_runtime_refuses(shape, pool, words):
    from irconv_opset import MaxPool

    op = MaxPool(**{"strides": (1,) * len(pool["kernel"]), **pool})
    with pytest.raises(Exception) as info:
        infer(op, shape)
    assert words in str(info.value)


def test_an_op_given_more_inputs_than_it_has_is_named():
    from irconv_opset import Add, ReLU

    with pytest.raises(ConversionError, match=r"takes at most 1 input\(s\), but the model gives it 3"):
        infer(ReLU(), (2,), (2,), (2,))
    with pytest.raises(ConversionError, match=r"takes at most 2 input\(s\), but the model gives it 3"):
        infer(Add(), (2,), (2,), (2,))


def test_recurrent_inputs_have_the_ranks_of_the_spec():
    from irconv_opset import LSTMSequence

    h = 2
    inputs = [(1, 3, 4), (1, 1, h), (1, 1, h), i64(3),
              np.zeros((1, 4 * h, 4), np.float32), np.zeros((1, 4 * h, h), np.float32),
              np.zeros((1, 4 * h, 1), np.float32)]  # fmt: skip
    with pytest.raises(ConversionError, match=r"input 6 \(B\) must have rank 2, got shape \[1, 8, 1\]"):
        infer(LSTMSequence(hidden_size=h), *inputs)


def _sequence_inputs(x, h=2, features=4):
    return [x, (1, 1, h), (1, 1, h), i64(3), np.zeros((1, 4 * h, features), np.float32),
            np.zeros((1, 4 * h, h), np.float32), np.zeros((1, 4 * h), np.float32)]  # fmt: skip


@pytest.mark.parametrize("x", [(0, 3, 4), (1, 0, 4), (1, 3, 0)])
def test_recurrent_ops_refuse_an_empty_x(x):
    """The CPU plugin cannot compile a recurrent op on an empty X (a reorder it cannot make, or
    a division by zero for an empty batch): the model's zero-size dimension is refused."""
    from irconv_opset import LSTMSequence

    with pytest.raises(ConversionError, match=r"'n' \(LSTMSequence-5\): input 0 \(X\) has shape .*, a zero-size dim"):
        infer(LSTMSequence(hidden_size=2), *_sequence_inputs(x))


def test_recurrent_x_features_match_w_columns():
    from irconv_opset import GRUCell, LSTMSequence

    with pytest.raises(ConversionError, match=r"input 0 \(X\) has 2 features \(last axis\), but input 4 \(W\) has 4"):
        infer(LSTMSequence(hidden_size=2), *_sequence_inputs((1, 3, 2)))
    cell = [(1, 5), (1, 2), np.zeros((6, 3), np.float32), np.zeros((6, 2), np.float32), np.zeros(6, np.float32)]
    with pytest.raises(ConversionError, match=r"GRUCell-3\): input 0 \(X\) has 5 features"):
        infer(GRUCell(hidden_size=2), *cell)
    assert infer(LSTMSequence(hidden_size=2), *_sequence_inputs((1, 3, 4))).out_port(0).data.get_shape() == (1, 1, 3, 2)


@pytest.mark.parametrize("auto_pad", ["explicit", "same_upper"])
def test_windows_refuse_a_zero_stride_or_dilation(auto_pad):
    """OpenVINO refuses them when it reads the IR; the window arithmetic divided by the stride
    (mutation run keras seed 42 case 20040: a Conv2D's strides (0, 1), a ZeroDivisionError)."""
    from irconv_opset import Convolution, MaxPool

    pads = {"pads_begin": (0, 0), "pads_end": (0, 0), "auto_pad": auto_pad}
    conv = Convolution(strides=(0, 1), dilations=(1, 1), **pads)
    with pytest.raises(ConversionError, match="strides and dilations must be at least 1, got stride 0 and dilation 1"):
        infer(conv, (1, 3, 8, 8), np.zeros((4, 3, 3, 3), np.float32))
    pool = MaxPool(strides=(1, 1), dilations=(1, 0), kernel=(2, 2), **pads)
    with pytest.raises(ConversionError, match="got stride 1 and dilation 0"):
        infer(pool, (1, 3, None, 8))


def test_convolutions_take_3d_to_5d_data():
    """Mutation run ir seed 44 case 40024: a MatMul layer retyped Convolution, data [1, 64]."""
    from irconv_opset import Convolution

    conv = Convolution(strides=(), dilations=(), pads_begin=(), pads_end=())
    with pytest.raises(ConversionError, match=r"input 0 \(data\) must have rank 3 or 4 or 5, got shape \[1, 64\]"):
        infer(conv, (1, 64), np.zeros((5, 64), np.float32))


def test_a_pooling_over_an_empty_batch_is_refused_in_the_finished_graph():
    """Mutation run onnx seed 44 case 40016: a model input of batch 0 reaching a MaxPool."""
    from irconv_opset import AvgPool, MaxPool

    for op in (MaxPool(strides=(1, 1), kernel=(2, 2)), AvgPool(strides=(1, 1), kernel=(2, 2), exclude_pad=True)):
        node = infer(op, (0, 4, 8, 8))
        with pytest.raises(ConversionError, match=r"the input's batch is zero \(\[0,4,8,8\]\)"):
            node.op.check(node)
        one = infer(op, (1, 4, 8, 8))
        one.op.check(one)


def test_pad_takes_1d_pads_with_one_entry_per_axis():
    """A 2-D pads_begin (an ONNX Pad reading a [1, 4] tensor) was an IndexError in Pad's inference."""
    from irconv_opset import Pad

    with pytest.raises(ConversionError, match=r"input 1 \(pads begin\) must have rank 1, got shape \[1, 4\]"):
        infer(Pad(), (2, 3, 4), np.zeros((1, 4), np.int64), i64(0, 0, 0))
    with pytest.raises(ConversionError, match=r"need one entry per data axis \(3\)"):
        infer(Pad(), (2, 3, 4), i64(0, 0), i64(0, 0, 0))
    assert infer(Pad(), (2, 3, 4), i64(1, 0, 0), i64(0, 0, 2)).out_port(0).data.get_shape() == (3, 3, 6)


def test_matmul_convolution_and_shape_ops_refuse_extra_inputs():
    from irconv_opset import MatMul, Reshape

    with pytest.raises(ConversionError, match=r"MatMul-1\) takes at most 2 input"):
        infer(MatMul(), (2, 2), (2, 2), (2,))
    with pytest.raises(ConversionError, match=r"Reshape-1\) takes at most 2 input"):
        infer(Reshape(), (2, 2), i64(4), i64(4))


def test_a_stable_top_k_needs_a_sort_order():
    with pytest.raises(ConversionError, match="a stable TopK needs sort 'value' or 'index'"):
        infer(TopK(sort="none", stable=True), (4, 5), i64(2))
    assert infer(TopK(sort="index", stable=True), (4, 5), i64(2)).out_port(0).data.get_shape() == (4, 2)


def test_batched_gathers_of_an_empty_batch_evaluate_to_their_shape():
    """An empty batch has no item to gather from; the result is empty with the op's output shape."""
    data = np.zeros((0, 4, 3), np.float32)
    (gathered,) = Gather(batch_dims=1).evaluate([data, np.zeros((0, 2), np.int64), np.array(1)])
    assert gathered.shape == (0, 2, 3) and gathered.dtype == np.float32
    (picked,) = GatherND(batch_dims=1).evaluate([data, np.zeros((0, 5, 1), np.int64)])
    assert picked.shape == (0, 5, 3) and picked.dtype == np.float32


def test_gather_of_an_index_out_of_range_is_zero_as_in_openvino():
    """OpenVINO's Gather writes zeros for indices outside [-size, size) (a mutated IR's
    constant index folded into an IndexError)."""
    data = np.arange(6, dtype=np.float32).reshape(3, 2)
    (out,) = Gather().evaluate([data, np.array([2, 1 << 40, -3, -4], np.int64), np.array(0)])
    np.testing.assert_array_equal(out, [[4, 5], [0, 0], [0, 1], [0, 0]])


@pytest.mark.parametrize("strides, dilations", [((0, 1), (1, 1)), ((1, 1), (1, 0)), ((-1, 1), (1, 1))])
def test_convolution_and_pooling_refuse_strides_and_dilations_below_one(strides, dilations):
    """A Caffe mutant's stride 0 divided by zero inside inference (a plugin fault); the runtime
    refuses such a window when it reads the IR."""
    from irconv_opset import Convolution, MaxPool

    conv = Convolution(strides=strides, dilations=dilations, pads_begin=(0, 0), pads_end=(0, 0))
    with pytest.raises(ConversionError, match="strides and dilations must be at least 1"):
        infer(conv, (1, 2, 6, 6), np.ones((3, 2, 1, 1), np.float32))
    pool = MaxPool(kernel=(1, 1), strides=strides, dilations=dilations)
    with pytest.raises(ConversionError, match="strides and dilations must be at least 1"):
        infer(pool, (1, 2, 6, 6))


@pytest.mark.parametrize(
    "op_name, data, filters, role",
    [
        ("Convolution", (2, 2), (2, 2), "data"),  # an ONNX Mul swapped for a Conv over matrices
        ("Convolution", (1, 2, 6, 6), (3, 2, 1), "filters"),
        ("GroupConvolution", (1, 2, 6, 6, 6, 6), (1, 3, 2, 1, 1, 1, 1), "data"),
        ("GroupConvolution", (1, 2, 6, 6), (1, 3, 2, 1), "filters"),
        ("ConvolutionBackpropData", (2, 2), (2, 3), "data"),
        ("GroupConvolutionBackpropData", (1, 2, 6), (1, 2, 3), "filters"),
    ],
)
def test_convolutions_refuse_ranks_the_runtime_does_not_convolve(op_name, data, filters, role):
    """The runtime refuses data of rank other than 3 to 5 and filters not of the data's rank
    (one more when grouped) when it reads the IR."""
    import irconv_opset

    rank = len(data) - 2
    op = getattr(irconv_opset, op_name)(
        strides=(1,) * rank, dilations=(1,) * rank, pads_begin=(0,) * rank, pads_end=(0,) * rank
    )
    index = 0 if role == "data" else 1
    with pytest.raises(ConversionError, match=rf"node 'n' .*input {index} \({role}\) must have rank"):
        infer(op, data, np.ones(filters, np.float32))


@pytest.mark.parametrize(
    "op_name, shapes, index, role",
    [
        ("DeformableConvolution", [(1, 2, 6, 6, 6), (1, 54, 6, 6, 6), (3, 2, 3, 3, 3)], 0, "data"),
        ("DeformableConvolution_v1", [(1, 2, 6), (1, 6, 6), (3, 2, 3)], 0, "data"),
        ("DeformableConvolution_v1", [(1, 2, 6, 6), (1, 18, 6, 6), (3, 2, 3)], 2, "filters"),
        ("DeformableConvolution", [(1, 2, 6, 6), (1, 18, 6), (3, 2, 3, 3)], 1, "offsets"),
        ("DeformableConvolution", [(1, 2, 6, 6), (1, 18, 6, 6), (3, 2, 3, 3), (1, 9, 6)], 3, "mask"),
    ],
)
def test_deformable_convolutions_refuse_ranks_the_runtime_does_not_take(op_name, shapes, index, role):
    """The runtime deforms 2-D images only: it refuses data, offsets, filters or a mask of a rank
    other than 4 when it reads the IR ("Input must be of rank 4")."""
    import irconv_opset

    rank = len(shapes[0]) - 2
    op = getattr(irconv_opset, op_name)(
        strides=(1,) * rank, dilations=(1,) * rank, pads_begin=(0,) * rank, pads_end=(0,) * rank
    )
    data, offsets, filters, *mask = shapes
    with pytest.raises(ConversionError, match=rf"node 'n' .*input {index} \({role}\) must have rank 4, got"):
        infer(op, data, offsets, np.ones(filters, np.float32), *mask)


@pytest.mark.parametrize("data", [(2, 3), (None, 3), (None, "f32")])
def test_reshape_refuses_a_zero_beside_a_minus_one_unless_a_static_input_dim_is_zero(data):
    """The runtime resolves the -1 of a target holding a literal 0 (special_zero false) only from a
    static zero-size input dim; a dynamic batch (a .pt2 mutant's [1..64, 3]) does not count."""
    op = Reshape(special_zero=False)
    with pytest.raises(ConversionError, match=r"node 'n' .*target shape \[3, 0, -1\] has a 0 and a -1"):
        infer(op, data, np.array([3, 0, -1], np.int64))


def test_reshape_of_a_zero_size_input_to_a_zero_beside_a_minus_one_converts():
    assert infer(Reshape(), (0, 3), np.array([3, 0, -1], np.int64)).out_port(0).data.get_shape() == (3, 0, None)
    node = infer(Reshape(special_zero=True), (2, 3), np.array([0, -1], np.int64))
    assert node.out_port(0).data.get_shape() == (2, 3)


@pytest.mark.parametrize("op_name", ["Range", "Range_v1"])
def test_range_reaching_the_ir_takes_scalars_only(op_name):
    """A SavedModel call swapped for a Range read a [?, 4] input as its start: the runtime refuses a
    Range of non-scalar inputs; a one-element list is still fine where the Range folds."""
    import irconv_opset

    op = getattr(irconv_opset, op_name)()
    node = infer(op, ((None, 4), "f32"), f32(3.0), f32(1.0))
    with pytest.raises(ConversionError, match=r"node 'n' .*input 0 \(start\) must have rank 0, got shape \[None, 4\]"):
        op.check(node)
    folded = infer(getattr(irconv_opset, op_name)(), f32(0.0), np.array(3, np.float32), np.array(1, np.float32))
    np.testing.assert_array_equal(folded.out_port(0).data.value, [0, 1, 2])


def test_reshape_refuses_a_special_zero_past_the_input_rank():
    """An IR mutant's Reshape (special_zero) of a scalar to [0, 5, 3]: the 0 copies an input dim
    that does not exist (the runtime: "'0' dimension is out of range"); it indexed past the shape."""
    message = r"'n' .*0 at position 0 copies an input dim, but the input has rank 0"
    with pytest.raises(ConversionError, match=message):
        infer(Reshape(special_zero=True), ((), "f32"), np.array([0, 5, 3], np.int64))


def test_recurrent_ops_refuse_inputs_of_different_batch_sizes():
    """An IR mutant rewired an LSTMSequence's X to a [1, 5, 3] tensor beside [5, 1, 4] states: the
    runtime refuses a batch size the inputs do not share; so does a cell."""
    from irconv_opset import GRUCell, LSTMSequence

    h = 4
    seq = [(1, 5, 3), (5, 1, h), (5, 1, h), ((5,), "i32"), np.zeros((1, 4 * h, 3), np.float32),
           np.zeros((1, 4 * h, h), np.float32), np.zeros((1, 4 * h), np.float32)]
    with pytest.raises(ConversionError, match=r"input 1 \(initial state\) has batch size 5, but input 0 \(X\) has 1"):
        infer(LSTMSequence(hidden_size=h), *seq)
    seq[0], seq[3] = (5, 5, 3), ((2,), "i32")
    with pytest.raises(ConversionError, match=r"input 3 \(sequence lengths\) has batch size 2, but input 0"):
        infer(LSTMSequence(hidden_size=h), *seq)
    cell = [(2, 3), (3, h), np.zeros((3 * h, 3), np.float32), np.zeros((3 * h, h), np.float32),
            np.zeros((3 * h,), np.float32)]
    with pytest.raises(ConversionError, match=r"input 1 \(initial state\) has batch size 3, but input 0 \(X\) has 2"):
        infer(GRUCell(hidden_size=h), *cell)


@pytest.mark.parametrize("op_name", ["NonMaxSuppression_v1", "NonMaxSuppression_v4", "NonMaxSuppression"])
@pytest.mark.parametrize(
    "boxes, scores, rule",
    [
        ((8, 1, 0), (8, 1, 1), r"input 0 \(boxes\) has 0 coordinates per box"),  # an MXNet Flatten -> box_nms
        ((8, 1), (8, 1, 1), r"input 0 \(boxes\) must have rank 3"),
        ((2, 5, 4), (3, 1, 5), "disagree on the number of batches"),
        ((2, 5, 4), (2, 1, 6), "disagree on the number of boxes"),
    ],
)
def test_non_max_suppression_refuses_boxes_and_scores_the_runtime_refuses(op_name, boxes, scores, rule):
    import irconv_opset

    with pytest.raises(ConversionError, match=rf"node 'n' .*{rule}"):
        infer(getattr(irconv_opset, op_name)(), boxes, scores)


@pytest.mark.parametrize("axis", [2, -3, 1 << 40])
def test_softmax_axis_must_name_an_input_axis(axis):
    """An ONNX mutant's Softmax axis of 2^40 on a matrix: the runtime refuses the IR (is_axis_valid)."""
    from irconv_opset import LogSoftmax, SoftMax

    for op in (SoftMax(axis=axis), LogSoftmax(axis=axis)):
        with pytest.raises(ConversionError, match="out of range for rank 2"):
            infer(op, (1, 5))


def test_gather_reads_an_axis_given_as_one_element_list():
    """Gather-8's axis may be a 1-D tensor of one element (an IR mutant's axis [1] raised a TypeError)."""
    from irconv_opset import Gather

    node = infer(Gather(), (3, 4), np.array([0, 2], np.int64), np.array([1], np.int64))
    assert node.out_port(0).data.shape == (3, 2)
    with pytest.raises(ConversionError, match="must hold one value"):
        infer(Gather(), (3, 4), np.array([0], np.int64), np.array([0, 1], np.int64))
