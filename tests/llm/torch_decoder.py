"""A hand-written Llama-style decoder taking its KV cache as explicit tensors, for torch.export.

RMSNorm, rotary position embeddings, grouped-query attention (4 heads, 2 KV heads) with a
causal and padding mask, a SiLU-gated MLP; random weights. ``forward(input_ids,
attention_mask, position_ids, past_key_values)`` returns the logits and the present cache,
each ``[batch, kv_heads, past + sequence, head_dim]``, keys and values of each layer in turn.
"""

from __future__ import annotations

from typing import Any

VOCAB, HIDDEN, HEADS, KV_HEADS, LAYERS, MLP = 128, 32, 4, 2, 2, 64
HEAD_DIM = HIDDEN // HEADS


def decoder(seed: int = 0) -> Any:
    import torch
    from torch import nn

    def rms_norm(x: Any, weight: Any) -> Any:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * weight

    def rotate(x: Any, cos: Any, sin: Any) -> Any:
        first, second = x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2 :]
        return x * cos + torch.cat((-second, first), dim=-1) * sin

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm1, self.norm2 = nn.Parameter(1 + 0.1 * torch.randn(HIDDEN)), nn.Parameter(torch.ones(HIDDEN))
            self.q = nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
            self.k = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
            self.v = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
            self.o = nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
            self.gate = nn.Linear(HIDDEN, MLP, bias=False)
            self.up = nn.Linear(HIDDEN, MLP, bias=False)
            self.down = nn.Linear(MLP, HIDDEN, bias=False)

        def forward(self, x: Any, mask: Any, cos: Any, sin: Any, past_k: Any, past_v: Any) -> tuple[Any, Any, Any]:
            batch, length, _ = x.shape
            h = rms_norm(x, self.norm1)
            q = self.q(h).view(batch, length, HEADS, HEAD_DIM).transpose(1, 2)
            k = self.k(h).view(batch, length, KV_HEADS, HEAD_DIM).transpose(1, 2)
            v = self.v(h).view(batch, length, KV_HEADS, HEAD_DIM).transpose(1, 2)
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
            k, v = torch.cat((past_k, k), dim=2), torch.cat((past_v, v), dim=2)
            repeat = HEADS // KV_HEADS
            attended = nn.functional.scaled_dot_product_attention(
                q, k.repeat_interleave(repeat, dim=1), v.repeat_interleave(repeat, dim=1), attn_mask=mask
            )
            x = x + self.o(attended.transpose(1, 2).reshape(batch, length, HIDDEN))
            h = rms_norm(x, self.norm2)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h)), k, v

    class Decoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, HIDDEN)
            self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
            self.norm = nn.Parameter(torch.ones(HIDDEN))
            self.head = nn.Linear(HIDDEN, VOCAB, bias=False)
            self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))

        def forward(self, input_ids: Any, attention_mask: Any, position_ids: Any, past_key_values: Any) -> Any:
            length, past = input_ids.shape[1], past_key_values[0].shape[2]
            angles = position_ids[..., None].float() * self.inv_freq
            angles = torch.cat((angles, angles), dim=-1)[:, None]
            cos, sin = angles.cos(), angles.sin()
            query_at = torch.arange(length)[:, None] + past
            causal = torch.arange(past + length)[None, :] <= query_at
            mask = causal[None, None] & attention_mask[:, None, None, :].bool()
            x = self.embed(input_ids)
            present = []
            for i, layer in enumerate(self.layers):
                x, k, v = layer(x, mask, cos, sin, past_key_values[2 * i], past_key_values[2 * i + 1])
                present += [k, v]
            return (self.head(rms_norm(x, self.norm)), *present)

    torch.manual_seed(seed)
    model = Decoder().eval()
    for parameter in model.parameters():  # peaked logits, far from ties
        parameter.data *= 3 if parameter.dim() == 2 else 1
    return model


def empty_cache(batch: int) -> list[Any]:
    import torch

    return [torch.zeros(batch, KV_HEADS, 0, HEAD_DIM) for _ in range(2 * LAYERS)]


def export(model: Any) -> Any:
    """``model`` through ``torch.export`` with dynamic batch, sequence and past lengths."""
    import torch
    from torch.export import Dim

    batch, length, past = 2, 3, 4
    inputs = (
        torch.randint(0, VOCAB, (batch, length)),
        torch.ones(batch, past + length, dtype=torch.long),
        torch.arange(past, past + length)[None].expand(batch, length),
        tuple(torch.randn(batch, KV_HEADS, past, HEAD_DIM) for _ in range(2 * LAYERS)),
    )
    b, s, t, p = Dim("batch"), Dim("sequence"), Dim("total"), Dim("past")
    shapes = (
        {0: b, 1: s},
        {0: b, 1: t},
        {0: b, 1: s},
        tuple({0: b, 2: p} for _ in range(2 * LAYERS)),
    )
    return torch.export.export(model, inputs, dynamic_shapes=shapes)
