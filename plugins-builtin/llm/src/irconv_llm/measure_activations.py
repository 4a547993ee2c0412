"""--dataset: a decoder run on text samples, the statistics weight compression reads."""

from __future__ import annotations

from irconv import SOURCE_PATH, Graph, Transform, TransformContext
from irconv.errors import UserError
from irconv_transforms.weight_compression.options import WEIGHT_FORMAT
from irconv_transforms.weight_compression.statistics import ACTIVATION_STATISTICS
from irconv_transforms.weight_compression.weight_sites import data_input, weight_sites

from irconv_llm.options import DATASET, SUBSET_SIZE, TOKENIZER


class MeasureActivations(Transform):
    """With ``--dataset``: the model runs on the samples (tokenized with the checkpoint's
    tokenizer) in OpenVINO, and the statistics of every tensor feeding a MatMul with
    constant weights go into ``ACTIVATION_STATISTICS`` for ``compress.weights``
    (``activation_stats``)."""

    id = "llm.activation_statistics"
    run_after = ("llm.make_stateful",)
    run_before = ("compress.weights",)

    def condition(self, graph: Graph, ctx: TransformContext) -> bool:
        if ctx.options.get(DATASET) is None:
            return False
        if ctx.options.get(WEIGHT_FORMAT) is None:
            raise UserError("--dataset weights the compression of --weight-format: give one (int4-sym, int4-asym, int8, ...)")
        return True

    def apply(self, graph: Graph, ctx: TransformContext) -> bool:
        dataset = ctx.options.get(DATASET)
        assert dataset is not None  # condition()
        sites = [site for site in weight_sites(graph) if not site.embedding]
        if not sites:
            graph.meta[ACTIVATION_STATISTICS] = {}
            return False
        from irconv_llm.activation_stats import collect
        from irconv_llm.dataset import find_tokenizer, read_samples, token_ids

        samples = read_samples(dataset, ctx.options.get(SUBSET_SIZE))
        tokenizer = find_tokenizer(ctx.options.get(TOKENIZER), graph.meta.get(SOURCE_PATH))
        by_port = collect(graph, sites, token_ids(samples, tokenizer), ctx.options)
        ctx.note(f"--dataset: activation statistics from {len(samples)} sample(s) of {dataset}")
        graph.meta[ACTIVATION_STATISTICS] = {data_input(site): by_port[data_input(site)] for site in sites}
        return False  # the graph is unchanged: only its meta gained the statistics


__all__ = ["MeasureActivations"]
