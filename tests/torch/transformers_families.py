"""More ``transformers`` architecture families for the torch sweep: encoder variants, full
encoder-decoders fed ``decoder_input_ids``, decoders with mixture-of-experts or state-space
layers, vision, speech and time-series models. Small configs, random seeded weights, nothing
downloaded; each builder returns ``(module in eval mode, example inputs as a tuple)``.

``families.py`` joins these to its own list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from family_kit import SMALL_DECODER, SMALL_TEXT, Built, Family, FirstOutput, text, vision

SEQ2SEQ = dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
               encoder_ffn_dim=128, decoder_ffn_dim=128, vocab_size=512, max_position_embeddings=64)
SMALL_SPEECH = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                    conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                    num_conv_pos_embedding_groups=4)


def seq2seq(model_class: str, config_class: str, **config: Any) -> Callable[[], Built]:
    """An encoder-decoder called with input ids, attention mask and decoder input ids."""
    def build() -> Built:
        import transformers

        cfg = getattr(transformers, config_class)(**config)
        model = getattr(transformers, model_class)(cfg).eval()
        vocab = int(cfg.vocab_size)
        ids, decoder_ids = torch.randint(1, vocab, (2, 12)), torch.randint(1, vocab, (2, 7))
        mask = torch.ones(2, 12, dtype=torch.int64)
        mask[1, 9:] = 0
        names = ("input_ids", "attention_mask", "decoder_input_ids")
        return FirstOutput(model, names, use_cache=False).eval(), (ids, mask, decoder_ids)
    return build


def speech(model_class: str, config_class: str, **config: Any) -> Callable[[], Built]:
    """A raw-waveform encoder (wav2vec2 feature extractor and its descendants)."""
    def build() -> Built:
        import transformers

        model = getattr(transformers, model_class)(getattr(transformers, config_class)(**config)).eval()
        return FirstOutput(model, ("input_values",)).eval(), (torch.randn(1, 1600),)
    return build


def _whisper() -> Built:
    import transformers

    cfg = transformers.WhisperConfig(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                     decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                                     num_mel_bins=16, max_source_positions=32, max_target_positions=32,
                                     vocab_size=512, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                                     decoder_start_token_id=1)
    model = transformers.WhisperModel(cfg).eval()
    names = ("input_features", "decoder_input_ids")
    return FirstOutput(model, names, use_cache=False).eval(), (torch.randn(1, 16, 64), torch.randint(1, 512, (1, 5)))


def _speech2text_encoder() -> Built:
    import transformers

    cfg = transformers.Speech2TextConfig(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                         decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                                         input_feat_per_channel=16, num_conv_layers=2, conv_channels=32,
                                         max_source_positions=64, vocab_size=512)
    model = transformers.Speech2TextModel(cfg).eval().get_encoder()
    return FirstOutput(model, ("input_features",)).eval(), (torch.randn(1, 40, 16),)


def _sam_vision() -> Built:
    import transformers

    cfg = transformers.SamVisionConfig(hidden_size=64, output_channels=32, num_hidden_layers=2, num_attention_heads=4,
                                       image_size=64, patch_size=8, mlp_dim=128, window_size=4,
                                       global_attn_indexes=[1])
    model = transformers.SamVisionModel(cfg).eval()
    return FirstOutput(model, ("pixel_values",)).eval(), (torch.randn(1, 3, 64, 64),)


def _patchtst() -> Built:
    import transformers

    cfg = transformers.PatchTSTConfig(num_input_channels=3, context_length=32, patch_length=8, patch_stride=8,
                                      d_model=32, num_attention_heads=4, num_hidden_layers=2, ffn_dim=64)
    model = transformers.PatchTSTModel(cfg).eval()
    return FirstOutput(model, ("past_values",)).eval(), (torch.randn(2, 32, 3),)


def _time_series_transformer() -> Built:
    import transformers

    cfg = transformers.TimeSeriesTransformerConfig(prediction_length=4, context_length=8, lags_sequence=[1, 2],
                                                   num_time_features=1, d_model=32, encoder_layers=2,
                                                   decoder_layers=2, encoder_attention_heads=4,
                                                   decoder_attention_heads=4, encoder_ffn_dim=64,
                                                   decoder_ffn_dim=64)
    model = transformers.TimeSeriesTransformerModel(cfg).eval()
    past = 8 + 2
    inputs = (torch.randn(2, past), torch.randn(2, past, 1), torch.ones(2, past), torch.randn(2, 4, 1),
              torch.randn(2, 4))
    names = ("past_values", "past_time_features", "past_observed_mask", "future_time_features", "future_values")
    return FirstOutput(model, names, use_cache=False).eval(), inputs


def _perceiver() -> Built:
    import transformers

    cfg = transformers.PerceiverConfig(num_latents=16, d_latents=64, d_model=32, num_blocks=1,
                                       num_self_attends_per_block=2, num_self_attention_heads=4,
                                       num_cross_attention_heads=4, vocab_size=512, max_position_embeddings=16)
    model = transformers.PerceiverModel(cfg).eval()
    return FirstOutput(model, ("inputs",)).eval(), (torch.randn(2, 16, 32),)


def _layoutlm() -> Built:
    import transformers

    model = transformers.LayoutLMModel(transformers.LayoutLMConfig(**SMALL_TEXT)).eval()
    ids = torch.randint(1, 512, (2, 16))
    corners = torch.randint(0, 500, (2, 16, 2, 2))
    boxes = torch.cat([corners.min(2).values, corners.max(2).values], -1)
    return FirstOutput(model, ("input_ids", "bbox")).eval(), (ids, boxes)


def _mixtral() -> Callable[[], Built]:
    return text("MixtralModel", "MixtralConfig", decoder=True, num_local_experts=4, num_experts_per_tok=2,
                **SMALL_DECODER)


SMALL_MAMBA = dict(hidden_size=64, num_hidden_layers=2, vocab_size=512, state_size=8, expand=2, conv_kernel=4)

MORE_TRANSFORMERS: tuple[Family, ...] = (
    # encoders
    Family("xlm_roberta", "transformers", text("XLMRobertaModel", "XLMRobertaConfig",
                                               **{**SMALL_TEXT, "max_position_embeddings": 80})),
    Family("funnel", "transformers", text("FunnelBaseModel", "FunnelConfig", d_model=64, n_head=4, d_head=16,
                                          d_inner=128, block_sizes=[1, 1], vocab_size=512)),
    Family("convbert", "transformers", text("ConvBertModel", "ConvBertConfig", embedding_size=64, **SMALL_TEXT)),
    Family("squeezebert", "transformers", text("SqueezeBertModel", "SqueezeBertConfig", embedding_size=64, q_groups=2,
                                               k_groups=2, v_groups=2, post_attention_groups=2,
                                               intermediate_groups=4, output_groups=4, **SMALL_TEXT)),
    Family("longformer", "transformers", text("LongformerModel", "LongformerConfig", attention_window=4,
                                              pad_token_id=0, **{**SMALL_TEXT, "max_position_embeddings": 80})),
    Family("big_bird", "transformers", text("BigBirdModel", "BigBirdConfig", attention_type="original_full",
                                            **SMALL_TEXT)),
    Family("layoutlm", "transformers", _layoutlm),
    Family("roformer", "transformers", text("RoFormerModel", "RoFormerConfig", embedding_size=64, **SMALL_TEXT)),
    Family("mobilebert", "transformers", text("MobileBertModel", "MobileBertConfig", embedding_size=32,
                                              intra_bottleneck_size=32, true_hidden_size=32, num_feedforward_networks=2,
                                              **SMALL_TEXT)),
    Family("modernbert", "transformers", text("ModernBertModel", "ModernBertConfig", global_attn_every_n_layers=2,
                                              local_attention=8, pad_token_id=0, bos_token_id=1,
                                              eos_token_id=2, cls_token_id=1, sep_token_id=2, **SMALL_TEXT)),
    # encoder-decoders
    Family("t5", "transformers", seq2seq("T5Model", "T5Config", d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                         num_heads=4, vocab_size=512)),
    Family("bart", "transformers", seq2seq("BartModel", "BartConfig", **SEQ2SEQ)),
    Family("marian", "transformers", seq2seq("MarianModel", "MarianConfig", decoder_start_token_id=1, pad_token_id=0,
                                             **SEQ2SEQ)),
    Family("pegasus", "transformers", seq2seq("PegasusModel", "PegasusConfig", **SEQ2SEQ)),
    Family("m2m100", "transformers", seq2seq("M2M100Model", "M2M100Config", **SEQ2SEQ)),
    Family("whisper", "transformers", _whisper),
    # decoders
    Family("gptj", "transformers", text("GPTJModel", "GPTJConfig", decoder=True, n_embd=64, n_layer=2, n_head=4,
                                        rotary_dim=8, vocab_size=512, n_positions=64)),
    Family("codegen", "transformers", text("CodeGenModel", "CodeGenConfig", decoder=True, n_embd=64, n_layer=2, n_head=4,
                                           rotary_dim=8, vocab_size=512, n_positions=64, n_ctx=64)),
    Family("stablelm", "transformers", text("StableLmModel", "StableLmConfig", decoder=True, **SMALL_DECODER)),
    Family("mixtral", "transformers", _mixtral()),
    Family("qwen2_moe", "transformers", text("Qwen2MoeModel", "Qwen2MoeConfig", decoder=True, num_experts=4,
                                             num_experts_per_tok=2, moe_intermediate_size=32,
                                             shared_expert_intermediate_size=64, **SMALL_DECODER)),
    Family("olmo", "transformers", text("OlmoModel", "OlmoConfig", decoder=True, **SMALL_DECODER)),
    Family("olmo2", "transformers", text("Olmo2Model", "Olmo2Config", decoder=True, **SMALL_DECODER)),
    Family("cohere", "transformers", text("CohereModel", "CohereConfig", decoder=True, **SMALL_DECODER)),
    Family("gemma2", "transformers", text("Gemma2Model", "Gemma2Config", decoder=True, head_dim=16, sliding_window=8,
                                          **SMALL_DECODER)),
    Family("gemma3_text", "transformers", text("Gemma3TextModel", "Gemma3TextConfig", decoder=True, head_dim=16,
                                               sliding_window=8, **SMALL_DECODER)),
    Family("starcoder2", "transformers", text("Starcoder2Model", "Starcoder2Config", decoder=True, **SMALL_DECODER)),
    Family("granite", "transformers", text("GraniteModel", "GraniteConfig", decoder=True, **SMALL_DECODER)),
    Family("mamba", "transformers", text("MambaModel", "MambaConfig", mask=False, decoder=True, **SMALL_MAMBA)),
    Family("mamba2", "transformers", text("Mamba2Model", "Mamba2Config", mask=False, decoder=True, hidden_size=64,
                                          num_hidden_layers=2, vocab_size=512, state_size=8, expand=2, num_heads=8,
                                          head_dim=16, n_groups=1, chunk_size=8, conv_kernel=4)),
    Family("rwkv", "transformers", text("RwkvModel", "RwkvConfig", mask=False, decoder=True, hidden_size=64,
                                        num_hidden_layers=2, attention_hidden_size=64, intermediate_size=128,
                                        vocab_size=512, context_length=64)),
    Family("jamba", "transformers", text("JambaModel", "JambaConfig", decoder=True, num_experts=2,
                                         num_experts_per_tok=1, expert_layer_period=2, expert_layer_offset=1,
                                         attn_layer_period=2, attn_layer_offset=1, mamba_d_state=8, mamba_d_conv=4,
                                         mamba_expand=2, mamba_dt_rank=8, use_mamba_kernels=False,
                                         **SMALL_DECODER)),
    # vision
    Family("sam_vision", "transformers", _sam_vision),
    Family("blip_vision", "transformers", vision("BlipVisionModel", "BlipVisionConfig", image_size=32, patch_size=8,
                                                 hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                                 intermediate_size=128)),
    Family("siglip_vision", "transformers", vision("SiglipVisionModel", "SiglipVisionConfig", image_size=32,
                                                   patch_size=8, hidden_size=64, num_hidden_layers=2,
                                                   num_attention_heads=4, intermediate_size=128)),
    Family("siglip_text", "transformers", text("SiglipTextModel", "SiglipTextConfig", mask=False, hidden_size=64,
                                               num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                                               vocab_size=512, max_position_embeddings=16)),
    Family("dpt", "transformers", vision("DPTModel", "DPTConfig", image_size=32, patch_size=8, **SMALL_TEXT,
                                         neck_hidden_sizes=[16, 32, 48, 64], backbone_out_indices=[0, 1, 1, 1])),
    Family("glpn", "transformers", vision("GLPNModel", "GLPNConfig", size=64, hidden_sizes=[16, 32, 48, 64],
                                          num_attention_heads=[1, 2, 2, 4], depths=[1, 1, 1, 1], decoder_hidden_size=16)),
    # depth[i] > i: CvtStage i reads drop_path_rates[i]
    Family("cvt", "transformers", vision("CvtModel", "CvtConfig", size=64, embed_dim=[16, 32, 48], num_heads=[1, 2, 4],
                                         depth=[1, 2, 3])),
    Family("pvt", "transformers", vision("PvtModel", "PvtConfig", size=64, image_size=64, hidden_sizes=[16, 32, 48, 64],
                                         num_attention_heads=[1, 2, 2, 4], depths=[1, 1, 1, 1])),
    Family("pvt_v2", "transformers", vision("PvtV2Model", "PvtV2Config", size=64, image_size=64,
                                            hidden_sizes=[16, 32, 48, 64], num_attention_heads=[1, 2, 2, 4],
                                            depths=[1, 1, 1, 1])),
    Family("swinv2", "transformers", vision("Swinv2Model", "Swinv2Config", size=64, image_size=64, patch_size=4,
                                            embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=4)),
    Family("focalnet", "transformers", vision("FocalNetModel", "FocalNetConfig", size=64, image_size=64, embed_dim=16,
                                              depths=[1, 1, 1, 1])),
    Family("yolos", "transformers", vision("YolosModel", "YolosConfig", image_size=[32, 32], patch_size=8,
                                           num_detection_tokens=5, **SMALL_TEXT)),
    Family("hiera", "transformers", vision("HieraModel", "HieraConfig", size=64, image_size=[64, 64], embed_dim=16,
                                           depths=[1, 1, 1, 1], num_heads=[1, 2, 2, 4])),
    # speech and time series
    Family("hubert", "transformers", speech("HubertModel", "HubertConfig", **SMALL_SPEECH)),
    Family("data2vec_audio", "transformers", speech("Data2VecAudioModel", "Data2VecAudioConfig", **SMALL_SPEECH)),
    Family("sew", "transformers", speech("SEWModel", "SEWConfig", squeeze_factor=2, **SMALL_SPEECH)),
    Family("wavlm", "transformers", speech("WavLMModel", "WavLMConfig", **SMALL_SPEECH)),
    Family("speech2text_encoder", "transformers", _speech2text_encoder),
    Family("perceiver", "transformers", _perceiver),
    Family("patchtst", "transformers", _patchtst),
    Family("time_series_transformer", "transformers", _time_series_transformer),
)
