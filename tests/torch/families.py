"""Architecture families for the torch front end's sweep: ``transformers`` models from small
configs with random weights (nothing downloaded), and CNN families written in plain torch
after their torchvision counterparts (torchvision itself does not install beside the CPU
torch here). Each builder returns ``(module in eval mode, example inputs as a tuple)``;
the same seed gives the same weights and inputs.

Used by ``tests/sweeps/torch_families.py`` (irconv against ``openvino.convert_model``) and by
``test_families.py`` (irconv against torch eager).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from family_kit import SMALL_DECODER, SMALL_TEXT, Built, Family, FirstOutput, randomise_statistics, text, vision
from torch import nn
from torch.nn import functional as F
from transformers_families import MORE_TRANSFORMERS


# ---------------------------------------------------------------------------- transformers
def _distilbert() -> Built:
    return text("DistilBertModel", "DistilBertConfig", dim=64, n_layers=2, n_heads=4, hidden_dim=128,
                 vocab_size=512, max_position_embeddings=64)()


def _gpt2() -> Built:
    return text("GPT2Model", "GPT2Config", decoder=True, n_embd=64, n_layer=2, n_head=4, vocab_size=512,
                 n_positions=64)()


def _gpt_neo() -> Built:
    return text("GPTNeoModel", "GPTNeoConfig", decoder=True, hidden_size=64, num_layers=2, num_heads=4,
                 attention_types=[[["global", "local"], 1]], window_size=8, vocab_size=512,
                 max_position_embeddings=64)()


def _opt() -> Built:
    return text("OPTModel", "OPTConfig", decoder=True, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 ffn_dim=128, word_embed_proj_dim=64, vocab_size=512, max_position_embeddings=64)()


def _bloom() -> Built:
    return text("BloomModel", "BloomConfig", decoder=True, hidden_size=64, n_layer=2, n_head=4, vocab_size=512)()


def _falcon() -> Built:
    return text("FalconModel", "FalconConfig", decoder=True, hidden_size=64, num_hidden_layers=2,
                 num_attention_heads=4, vocab_size=512, new_decoder_architecture=True, num_kv_heads=2)()


def _t5_encoder() -> Built:
    return text("T5EncoderModel", "T5Config", d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                 vocab_size=512)()


def _bart_encoder() -> Built:
    def build() -> Built:
        import transformers

        cfg = transformers.BartConfig(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                      decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                                      vocab_size=512, max_position_embeddings=64)
        model = transformers.BartModel(cfg).eval().get_encoder()
        ids = torch.randint(1, 512, (2, 16))
        mask = torch.ones(2, 16, dtype=torch.int64)
        mask[1, 12:] = 0
        return FirstOutput(model, ("input_ids", "attention_mask")).eval(), (ids, mask)
    return build()


def _whisper_encoder() -> Built:
    import transformers
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    cfg = transformers.WhisperConfig(d_model=64, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=128,
                                     num_mel_bins=16, max_source_positions=32, vocab_size=512)
    model = WhisperEncoder(cfg).eval()
    return FirstOutput(model, ("input_features",)).eval(), (torch.randn(1, 16, 64),)


def _wav2vec2() -> Built:
    import transformers

    cfg = transformers.Wav2Vec2Config(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=128, conv_dim=(32, 32, 32), conv_stride=(5, 2, 2),
                                      conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                                      num_conv_pos_embedding_groups=4)
    model = transformers.Wav2Vec2Model(cfg).eval()
    return FirstOutput(model, ("input_values",)).eval(), (torch.randn(1, 1600),)


def _clip_text() -> Built:
    return text("CLIPTextModel", "CLIPTextConfig", hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, vocab_size=512, max_position_embeddings=64)()


def _detr() -> Built:
    import transformers

    backbone = transformers.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                                         out_features=["stage4"])
    cfg = transformers.DetrConfig(use_timm_backbone=False, backbone_config=backbone, use_pretrained_backbone=False,
                                  d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                                  decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                                  num_queries=10)
    model = randomise_statistics(transformers.DetrForObjectDetection(cfg))
    return FirstOutput(model, ("pixel_values",)).eval(), (torch.randn(1, 3, 64, 64),)


TRANSFORMERS: tuple[Family, ...] = (
    Family("bert", "transformers", text("BertModel", "BertConfig", **SMALL_TEXT)),
    Family("roberta", "transformers", text("RobertaModel", "RobertaConfig", **{**SMALL_TEXT, "max_position_embeddings": 80})),
    Family("distilbert", "transformers", _distilbert),
    Family("albert", "transformers", text("AlbertModel", "AlbertConfig", embedding_size=32, **SMALL_TEXT)),
    Family("electra", "transformers", text("ElectraModel", "ElectraConfig", embedding_size=32, **SMALL_TEXT)),
    Family("deberta_v2", "transformers", text("DebertaV2Model", "DebertaV2Config", **SMALL_TEXT)),
    Family("gpt2", "transformers", _gpt2),
    Family("gpt_neo", "transformers", _gpt_neo),
    Family("opt", "transformers", _opt),
    Family("bloom", "transformers", _bloom),
    Family("llama", "transformers", text("LlamaModel", "LlamaConfig", decoder=True, **SMALL_DECODER)),
    Family("mistral", "transformers", text("MistralModel", "MistralConfig", decoder=True, **SMALL_DECODER)),
    Family("qwen2", "transformers", text("Qwen2Model", "Qwen2Config", decoder=True, **SMALL_DECODER)),
    Family("phi", "transformers", text("PhiModel", "PhiConfig", decoder=True, **SMALL_DECODER)),
    Family("gemma", "transformers", text("GemmaModel", "GemmaConfig", decoder=True, head_dim=16, **SMALL_DECODER)),
    Family("falcon", "transformers", _falcon),
    Family("t5_encoder", "transformers", _t5_encoder),
    Family("bart_encoder", "transformers", _bart_encoder),
    Family("vit", "transformers", vision("ViTModel", "ViTConfig", image_size=32, patch_size=8, **SMALL_TEXT)),
    Family("deit", "transformers", vision("DeiTModel", "DeiTConfig", image_size=32, patch_size=8, **SMALL_TEXT)),
    Family("beit", "transformers", vision("BeitModel", "BeitConfig", image_size=32, patch_size=8,
                                           use_relative_position_bias=True, **SMALL_TEXT)),
    Family("swin", "transformers", vision("SwinModel", "SwinConfig", size=64, image_size=64, patch_size=4,
                                           embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=4)),
    Family("convnext", "transformers", vision("ConvNextModel", "ConvNextConfig", size=64, hidden_sizes=[16, 32, 64, 128],
                                               depths=[1, 1, 1, 1])),
    Family("resnet", "transformers", vision("ResNetModel", "ResNetConfig", size=64, embedding_size=16,
                                             hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1])),
    Family("regnet", "transformers", vision("RegNetModel", "RegNetConfig", size=64, embedding_size=16,
                                             hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1], groups_width=8)),
    Family("mobilenet_v2", "transformers", vision("MobileNetV2Model", "MobileNetV2Config", size=64,
                                                   depth_multiplier=0.35)),
    Family("mobilevit", "transformers", vision("MobileViTModel", "MobileViTConfig", size=64, image_size=64,
                                                hidden_sizes=[32, 48, 64], neck_hidden_sizes=[8, 16, 24, 32, 48, 64, 80])),
    Family("efficientnet", "transformers", vision("EfficientNetModel", "EfficientNetConfig", size=64, image_size=64,
                                                   width_coefficient=0.25, depth_coefficient=0.25,
                                                   hidden_dim=320)),
    Family("segformer", "transformers", vision("SegformerModel", "SegformerConfig", size=64, hidden_sizes=[16, 32, 48, 64],
                                                num_attention_heads=[1, 2, 2, 4], depths=[1, 1, 1, 1])),
    Family("detr", "transformers", _detr),
    Family("whisper_encoder", "transformers", _whisper_encoder),
    Family("wav2vec2", "transformers", _wav2vec2),
    Family("clip_vision", "transformers", vision("CLIPVisionModel", "CLIPVisionConfig", image_size=32, patch_size=8,
                                                  hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                                  intermediate_size=128)),
    Family("clip_text", "transformers", _clip_text),
    Family("dinov2", "transformers", vision("Dinov2Model", "Dinov2Config", image_size=32, patch_size=8,
                                             hidden_size=64, num_hidden_layers=2, num_attention_heads=4)),
    Family("convnext_v2", "transformers", vision("ConvNextV2Model", "ConvNextV2Config", size=64,
                                                  hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1])),
    Family("levit", "transformers", vision("LevitModel", "LevitConfig", size=64, image_size=64,
                                            hidden_sizes=[32, 48, 64], num_attention_heads=[1, 2, 2],
                                            depths=[1, 1, 1], key_dim=[8, 8, 8])),
    Family("poolformer", "transformers", vision("PoolFormerModel", "PoolFormerConfig", size=64,
                                                 hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1])),
    Family("mpnet", "transformers", text("MPNetModel", "MPNetConfig", **SMALL_TEXT)),
    Family("gpt_neox", "transformers", text("GPTNeoXModel", "GPTNeoXConfig", decoder=True, hidden_size=64,
                                             num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                                             vocab_size=512, max_position_embeddings=64)),
    Family("qwen3", "transformers", text("Qwen3Model", "Qwen3Config", decoder=True, head_dim=16, **SMALL_DECODER)),
    Family("phi3", "transformers", text("Phi3Model", "Phi3Config", decoder=True, pad_token_id=0, **SMALL_DECODER)),
)


# ---------------------------------------------------------------------------- plain torch CNNs
def conv_bn(cin: int, cout: int, kernel: int = 3, stride: int = 1, groups: int = 1,
            act: type[nn.Module] | None = nn.ReLU) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
                               nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


class Bottleneck(nn.Module):
    """torchvision's ResNet-50 bottleneck: 1x1, 3x3 (stride), 1x1 with a projection."""

    def __init__(self, cin: int, width: int, stride: int) -> None:
        super().__init__()
        self.body = nn.Sequential(conv_bn(cin, width, 1), conv_bn(width, width, 3, stride),
                                  conv_bn(width, width * 4, 1, act=None))
        self.down = None if stride == 1 and cin == width * 4 else conv_bn(cin, width * 4, 1, stride, act=None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.body(x) + (x if self.down is None else self.down(x)))


class ResNet50Style(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 16, 7, 2), nn.MaxPool2d(3, 2, 1))
        self.layers = nn.Sequential(Bottleneck(16, 8, 1), Bottleneck(32, 16, 2), Bottleneck(64, 16, 1))
        self.fc = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.layers(self.stem(x)), 1), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, gate: Callable[[torch.Tensor], torch.Tensor] = F.hardsigmoid) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(channels, max(channels // 4, 8), 1)
        self.fc2 = nn.Conv2d(max(channels // 4, 8), channels, 1)
        self.gate = gate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.gate(self.fc2(F.relu(self.fc1(x.mean((2, 3), keepdim=True)))))


class InvertedResidual(nn.Module):
    """MobileNetV3 / EfficientNet block: expand, depthwise, squeeze-excite, project."""

    def __init__(self, cin: int, expanded: int, cout: int, stride: int, act: type[nn.Module],
                 gate: Callable[[torch.Tensor], torch.Tensor]) -> None:
        super().__init__()
        self.block = nn.Sequential(conv_bn(cin, expanded, 1, act=act),
                                   conv_bn(expanded, expanded, 3, stride, groups=expanded, act=act),
                                   SqueezeExcite(expanded, gate), conv_bn(expanded, cout, 1, act=None))
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.block(x)
        return x + out if self.residual else out


class MobileNetV3Style(nn.Module):
    def __init__(self, act: type[nn.Module] = nn.Hardswish, gate: Any = F.hardsigmoid) -> None:
        super().__init__()
        self.features = nn.Sequential(conv_bn(3, 16, 3, 2, act=act),
                                      InvertedResidual(16, 32, 16, 1, act, gate),
                                      InvertedResidual(16, 48, 24, 2, act, gate),
                                      InvertedResidual(24, 72, 24, 1, act, gate))
        self.classifier = nn.Sequential(nn.Linear(24, 32), act(), nn.Dropout(0.2), nn.Linear(32, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(self.features(x), 1), 1))


class DenseLayer(nn.Module):
    def __init__(self, cin: int, growth: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, growth, 3, 1, 1, bias=False)

    def forward(self, features: list[torch.Tensor]) -> torch.Tensor:
        return self.conv(F.relu(self.norm(torch.cat(features, 1))))


class DenseNetStyle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn(3, 16, 3, 2)
        self.dense = nn.ModuleList(DenseLayer(16 + 8 * i, 8) for i in range(3))
        self.transition = nn.Sequential(nn.BatchNorm2d(40), nn.ReLU(), nn.Conv2d(40, 20, 1, bias=False),
                                        nn.AvgPool2d(2, 2))
        self.fc = nn.Linear(20, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = [self.stem(x)]
        for layer in self.dense:
            features.append(layer(features))
        x = self.transition(torch.cat(features, 1))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    batch, channels, height, width = x.shape
    x = x.view(batch, groups, channels // groups, height, width).transpose(1, 2).contiguous()
    return x.view(batch, channels, height, width)


class ShuffleUnit(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        half = channels // 2
        self.branch = nn.Sequential(conv_bn(half, half, 1), conv_bn(half, half, 3, groups=half, act=None),
                                    conv_bn(half, half, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        left, right = x.chunk(2, dim=1)
        return channel_shuffle(torch.cat((left, self.branch(right)), 1), 2)


class ShuffleNetStyle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 24, 3, 2), nn.MaxPool2d(3, 2, 1))
        self.units = nn.Sequential(ShuffleUnit(24), ShuffleUnit(24))
        self.fc = nn.Linear(24, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.units(self.stem(x)).mean((2, 3)))


class Fire(nn.Module):
    def __init__(self, cin: int, squeeze: int, expand: int) -> None:
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, 1)
        self.expand1 = nn.Conv2d(squeeze, expand, 1)
        self.expand3 = nn.Conv2d(squeeze, expand, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.squeeze(x))
        return torch.cat((F.relu(self.expand1(x)), F.relu(self.expand3(x))), 1)


class SqueezeNetStyle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 32, 3, 2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
                                      Fire(32, 8, 16), Fire(32, 8, 16), nn.MaxPool2d(3, 2, ceil_mode=True))
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(32, 10, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(self.classifier(self.features(x)), 1)


class InceptionBlock(nn.Module):
    """GoogLeNet/Inception-v3 branches: 1x1; 1x1 -> 3x3; 1x1 -> 1x7 -> 7x1; pool -> 1x1."""

    def __init__(self, cin: int) -> None:
        super().__init__()
        self.b1 = conv_bn(cin, 8, 1)
        self.b2 = nn.Sequential(conv_bn(cin, 8, 1), conv_bn(8, 12, 3))
        self.b3 = nn.Sequential(conv_bn(cin, 8, 1),
                                nn.Conv2d(8, 8, (1, 7), padding=(0, 3)), nn.Conv2d(8, 12, (7, 1), padding=(3, 0)))
        self.b4 = nn.Sequential(nn.AvgPool2d(3, 1, 1, count_include_pad=False), conv_bn(cin, 8, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat((self.b1(x), self.b2(x), self.b3(x), self.b4(x)), 1)


class InceptionStyle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 16, 3, 2), nn.MaxPool2d(3, 2))
        self.blocks = nn.Sequential(InceptionBlock(16), InceptionBlock(40))
        self.fc = nn.Linear(40, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.blocks(self.stem(x)), (1, 1)), 1))


class UNetStyle(nn.Module):
    """Encoder-decoder with skip connections, ConvTranspose2d up-sampling and one bilinear
    interpolation."""

    def __init__(self) -> None:
        super().__init__()
        self.enc1 = nn.Sequential(conv_bn(3, 8), conv_bn(8, 8))
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), conv_bn(8, 16), conv_bn(16, 16))
        self.bottom = nn.Sequential(nn.MaxPool2d(2), conv_bn(16, 32))
        self.up2 = nn.ConvTranspose2d(32, 16, 2, 2)
        self.dec2 = conv_bn(32, 16)
        self.up1 = nn.ConvTranspose2d(16, 8, 2, 2)
        self.dec1 = conv_bn(16, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        d2 = self.dec2(torch.cat((self.up2(self.bottom(e2)), e2), 1))
        d1 = self.dec1(torch.cat((self.up1(d2), e1), 1))
        out = self.head(d1)
        return F.interpolate(out, scale_factor=0.5, mode="bilinear", align_corners=False)


def box_iou(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = (bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


class DetectionStyle(nn.Module):
    """A single-stage detector head: anchors decoded to boxes, the top-k by score, then a
    fixed-size greedy NMS written in torch ops (suppression as a mask; torchvision's
    ``batched_nms`` returns a data-dependent count, this returns the scores with the
    suppressed ones zeroed)."""

    def __init__(self, keep: int = 16) -> None:
        super().__init__()
        self.backbone = nn.Sequential(conv_bn(3, 16, 3, 2), conv_bn(16, 32, 3, 2))
        self.box = nn.Conv2d(32, 4, 1)
        self.score = nn.Conv2d(32, 1, 1)
        self.keep = keep

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.backbone(x)
        height, width = features.shape[-2:]
        ys, xs = torch.meshgrid(torch.arange(height, dtype=x.dtype), torch.arange(width, dtype=x.dtype), indexing="ij")
        centers = torch.stack((xs, ys), -1).reshape(-1, 2) + 0.5
        deltas = self.box(features)[0].flatten(1).t()
        sizes = deltas[:, 2:].exp()
        boxes = torch.cat((centers + deltas[:, :2] - sizes / 2, centers + deltas[:, :2] + sizes / 2), 1)
        scores = self.score(features)[0].flatten().sigmoid()
        top, order = scores.topk(self.keep)
        boxes = boxes[order]
        overlap = box_iou(boxes, boxes).triu(1) > 0.5
        suppressed = overlap.any(0)
        return boxes, torch.where(suppressed, torch.zeros_like(top), top)


def _cnn(cls: Callable[[], nn.Module], size: int = 64) -> Callable[[], Built]:
    def build() -> Built:
        return randomise_statistics(cls()), (torch.randn(1, 3, size, size),)
    return build


TORCH_CNNS: tuple[Family, ...] = (
    Family("tv_resnet50_style", "torch", _cnn(ResNet50Style)),
    Family("tv_mobilenet_v3_style", "torch", _cnn(MobileNetV3Style)),
    Family("tv_efficientnet_style", "torch", _cnn(lambda: MobileNetV3Style(nn.SiLU, torch.sigmoid))),
    Family("tv_densenet_style", "torch", _cnn(DenseNetStyle)),
    Family("tv_shufflenet_style", "torch", _cnn(ShuffleNetStyle)),
    Family("tv_squeezenet_style", "torch", _cnn(SqueezeNetStyle)),
    Family("tv_inception_style", "torch", _cnn(InceptionStyle, 75)),
    Family("tv_unet_style", "torch", _cnn(UNetStyle)),
    Family("tv_detection_nms_style", "torch", _cnn(DetectionStyle)),
)

FAMILIES: tuple[Family, ...] = TRANSFORMERS + MORE_TRANSFORMERS + TORCH_CNNS


def family(name: str) -> Family:
    for found in FAMILIES:
        if found.name == name:
            return found
    raise KeyError(name)
