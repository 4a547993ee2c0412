"""Hook implementations of irconv-transforms: framework-neutral fusing, common-subexpression
merging and weight compression, and their switches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irconv import Option
from irconv.plugins import Transform, hookimpl


@hookimpl
def declare_options() -> Sequence[Option[Any]]:
    from irconv_transforms.options import OPTIONS
    from irconv_transforms.weight_compression.options import OPTIONS as COMPRESSION

    return (*OPTIONS, *COMPRESSION)


@hookimpl
def middle_transform() -> list[Transform]:
    from irconv_transforms.attention_mask_as_bias import AttentionMaskAsBias
    from irconv_transforms.decompose_batch_norm import DecomposeBatchNorm
    from irconv_transforms.fold_decided_if import FoldDecidedIf
    from irconv_transforms.fold_symbolic_shapes import FoldSymbolicShapes
    from irconv_transforms.fuse_clamp import FuseClamp
    from irconv_transforms.fuse_flatten_reshape import FuseFlattenReshape
    from irconv_transforms.fuse_gelu_erf import FuseGeluErf
    from irconv_transforms.fuse_gelu_tanh import FuseGeluTanh
    from irconv_transforms.fuse_grouped_convolution import FuseGroupedConvolution
    from irconv_transforms.fuse_hsigmoid import FuseHSigmoid
    from irconv_transforms.fuse_hswish import FuseHSwish
    from irconv_transforms.fuse_leaky_relu import FuseLeakyRelu
    from irconv_transforms.fuse_linear_backward import FuseLinearBackward
    from irconv_transforms.fuse_linear_forward import FuseLinearForward
    from irconv_transforms.fuse_mish import FuseMish
    from irconv_transforms.fuse_mvn import FuseMvn
    from irconv_transforms.fuse_negative_into_subtract import FuseNegativeIntoSubtract
    from irconv_transforms.fuse_normalize_l2 import FuseNormalizeL2
    from irconv_transforms.fuse_pad import FusePad
    from irconv_transforms.fuse_reshape_chain import FuseReshapeChain
    from irconv_transforms.fuse_scaled_dot_product_attention import FuseScaledDotProductAttention
    from irconv_transforms.fuse_softplus import FuseSoftPlus
    from irconv_transforms.fuse_swish import FuseSwish
    from irconv_transforms.fuse_transpose_into_matmul import FuseTransposeIntoMatMul
    from irconv_transforms.fuse_transpose_through_reshapes import FuseTransposeThroughReshapes
    from irconv_transforms.merge_common_subexpressions import MergeCommonSubexpressions
    from irconv_transforms.merge_linear_chains import MergeLinearChains
    from irconv_transforms.optimize_resnet_strides import OptimizeResnetStrides
    from irconv_transforms.transpose_matmul_weights import TransposeMatMulWeights

    return [
        FoldDecidedIf(),
        FuseClamp(),
        FuseSoftPlus(),
        FuseMish(),
        FuseHSigmoid(),
        FuseHSwish(),
        FuseSwish(),
        FuseGeluErf(),
        FuseGeluTanh(),
        FuseLeakyRelu(),
        FuseNormalizeL2(),
        FuseNegativeIntoSubtract(),
        FuseMvn(),
        FuseScaledDotProductAttention(),
        DecomposeBatchNorm(),
        MergeLinearChains(),
        FuseLinearBackward(),
        FuseLinearForward(),
        FusePad(),
        FuseGroupedConvolution(),
        OptimizeResnetStrides(),
        TransposeMatMulWeights(),
        FuseFlattenReshape(),
        FuseReshapeChain(),
        FuseTransposeThroughReshapes(),
        FoldSymbolicShapes(),
        FuseTransposeIntoMatMul(),
        AttentionMaskAsBias(),
        MergeCommonSubexpressions(),
    ]


@hookimpl
def back_transform() -> list[Transform]:
    from irconv_transforms.weight_compression.compress_weights import CompressWeights

    return [CompressWeights()]
