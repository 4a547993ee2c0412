"""The order of a legacy operator's input and output slots: the PIR operator's operand and
result order, so one extractor reads both forms by position. An op not listed keeps its
slots in name order (how Paddle writes them)."""

from __future__ import annotations

_X = (("X",), ("Out",))
_XY = (("X", "Y"), ("Out",))

#: op type -> (input slots, output slots)
SLOTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "conv2d": (("Input", "Filter"), ("Output",)),
    "depthwise_conv2d": (("Input", "Filter"), ("Output",)),
    "conv3d": (("Input", "Filter"), ("Output",)),
    "conv2d_transpose": (("Input", "Filter", "OutputSize"), ("Output",)),
    "depthwise_conv2d_transpose": (("Input", "Filter", "OutputSize"), ("Output",)),
    "batch_norm": (("X", "Mean", "Variance", "Scale", "Bias"), ("Y", "MeanOut", "VarianceOut", "SavedMean",
                                                                "SavedVariance", "ReserveSpace")),
    "sync_batch_norm": (("X", "Mean", "Variance", "Scale", "Bias"), ("Y",)),
    "layer_norm": (("X", "Scale", "Bias"), ("Y", "Mean", "Variance")),
    "instance_norm": (("X", "Scale", "Bias"), ("Y", "SavedMean", "SavedVariance")),
    "group_norm": (("X", "Scale", "Bias"), ("Y", "Mean", "Variance")),
    "pool2d": (("X",), ("Out",)),
    "max_pool2d_with_index": (("X",), ("Out", "Mask")),
    "max_pool3d_with_index": (("X",), ("Out", "Mask")),
    "pow": (("X", "FactorTensor"), ("Out",)),
    "index_select": (("X", "Index"), ("Out",)),
    "take_along_axis": (("Input", "Index"), ("Result",)),
    "argsort": (("X",), ("Out", "Indices")),
    "scatter": (("X", "Ids", "Updates"), ("Out",)),
    "scatter_nd_add": (("X", "Index", "Updates"), ("Out",)),
    "grid_sampler": (("X", "Grid"), ("Output",)),
    "linspace": (("Start", "Stop", "Num"), ("Out",)),
    "meshgrid": (("X",), ("Out",)),
    "roll": (("X", "ShiftsTensor"), ("Out",)),
    "unique": (("X",), ("Out", "Indices", "Index", "Counts")),
    "matmul_v2": _XY,
    "matmul": _XY,
    "mul": _XY,
    "reshape2": (("X", "Shape", "ShapeTensor"), ("Out", "XShape")),
    "squeeze2": (("X", "AxesTensor"), ("Out", "XShape")),
    "unsqueeze2": (("X", "AxesTensor", "AxesTensorList"), ("Out", "XShape")),
    "flatten_contiguous_range": (("X",), ("Out", "XShape")),
    "flatten2": (("X",), ("Out", "XShape")),
    "transpose2": (("X",), ("Out", "XShape")),
    "concat": (("X", "AxisTensor"), ("Out",)),
    "split": (("X", "AxisTensor", "SectionsTensorList"), ("Out",)),
    "slice": (("Input", "StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"), ("Out",)),
    "strided_slice": (("Input", "StartsTensor", "EndsTensor", "StridesTensor"), ("Out",)),
    "scale": (("X", "ScaleTensor"), ("Out",)),
    "fill_constant": (("ValueTensor", "ShapeTensor", "ShapeTensorList"), ("Out",)),
    "fill_any_like": _X,
    "expand_v2": (("X", "Shape", "expand_shapes_tensor"), ("Out",)),
    "expand_as_v2": (("X", "Y"), ("Out",)),
    "tile": (("X", "RepeatTimes", "repeat_times_tensor"), ("Out",)),
    "gather": (("X", "Index", "Axis"), ("Out",)),
    "gather_nd": (("X", "Index"), ("Out",)),
    "where": (("Condition", "X", "Y"), ("Out",)),
    "top_k_v2": (("X", "K"), ("Out", "Indices")),
    "arg_max": _X,
    "arg_min": _X,
    "clip": (("X", "Min", "Max"), ("Out",)),
    "pad3d": (("X", "Paddings"), ("Out",)),
    "pad": _X,
    "range": (("Start", "End", "Step"), ("Out",)),
    "prelu": (("X", "Alpha"), ("Out",)),
    "lookup_table_v2": (("Ids", "W"), ("Out",)),
    "bilinear_interp_v2": (("X", "OutSize", "SizeTensor", "Scale"), ("Out",)),
    "nearest_interp_v2": (("X", "OutSize", "SizeTensor", "Scale"), ("Out",)),
    "bicubic_interp_v2": (("X", "OutSize", "SizeTensor", "Scale"), ("Out",)),
    "linear_interp_v2": (("X", "OutSize", "SizeTensor", "Scale"), ("Out",)),
    "trilinear_interp_v2": (("X", "OutSize", "SizeTensor", "Scale"), ("Out",)),
    "stack": (("X",), ("Y",)),
    "unstack": (("X",), ("Y",)),
    "cumsum": _X,
    "one_hot_v2": (("X", "depth_tensor"), ("Out",)),
    "p_norm": _X,
    "dropout": (("X", "Seed"), ("Out", "Mask")),
    "yolo_box": (("X", "ImgSize"), ("Boxes", "Scores")),
    "prior_box": (("Input", "Image"), ("Boxes", "Variances")),
    "matrix_nms": (("BBoxes", "Scores"), ("Out", "Index", "RoisNum")),
    "roi_align": (("X", "ROIs", "RoisNum"), ("Out",)),
    "box_coder": (("PriorBox", "PriorBoxVar", "TargetBox"), ("OutputBox",)),
    "multiclass_nms3": (("BBoxes", "Scores", "RoisNum"), ("Out", "Index", "NmsRoisNum")),
    "set_value": (("Input", "ValueTensor", "StartsTensorList", "EndsTensorList", "StepsTensorList"), ("Out",)),
}


def slot_order(op_type: str, given: list[str], outputs: bool) -> list[str]:
    """The slots of ``op_type`` in argument order; slots the table does not list follow in name order."""
    listed = list(SLOTS.get(op_type, ((), ()))[1 if outputs else 0])
    return listed + sorted(name for name in given if name not in listed)
