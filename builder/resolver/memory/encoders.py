"""What a multimodal checkpoint loads beside its language model: the vision and audio encoders.

Facts are read from ``vision_config`` and ``audio_config`` under canonical names; the parameter
counts follow the two tower shapes vLLM loads: a ViT (SigLIP, CLIP, Llama 4: learned positions,
biased projections, a GELU MLP, a linear projector into the text width) and the Qwen-VL tower
(3D patch embedding, SiLU-gated MLP when ``hidden_act`` is silu, a patch merger of
``spatial_merge_size``² patches into ``out_hidden_size``). An audio encoder is counted as a
Whisper-style stack (biased projections, two-matrix MLP) plus its projector.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checks import check_int, describe
from .types import ArchitectureError

# canonical fact <- the names configs use for it, in order of preference
VISION_KEYS: dict[str, tuple[str, ...]] = {
    "hidden_size": ("hidden_size", "embed_dim", "width"),
    "num_hidden_layers": ("num_hidden_layers", "depth", "layers"),
    "intermediate_size": ("intermediate_size",),
    "mlp_ratio": ("mlp_ratio",),
    "patch_size": ("patch_size", "spatial_patch_size"),
    "image_size": ("image_size",),
    "num_channels": ("num_channels", "in_chans", "in_channels"),
    "temporal_patch_size": ("temporal_patch_size",),
    "spatial_merge_size": ("spatial_merge_size",),
    "out_hidden_size": ("out_hidden_size",),
}
AUDIO_KEYS: dict[str, tuple[str, ...]] = {
    "hidden_size": ("d_model", "hidden_size"),
    "num_hidden_layers": ("encoder_layers", "num_hidden_layers"),
    "intermediate_size": ("encoder_ffn_dim", "intermediate_size"),
    "num_mel_bins": ("num_mel_bins",),
}
GATED_ACTIVATIONS = frozenset({"silu", "swiglu"})


def _reduced(raw: Any, field: str, keys: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ArchitectureError(field, f"expected a mapping, got {describe(raw)}")
    facts: dict[str, Any] = {}
    for key, aliases in keys.items():
        for alias in aliases:
            value = raw.get(alias)
            if value is not None and not isinstance(value, Mapping | list | float):
                facts[key] = check_int(value, f"{field}.{alias}", 1, 1 << 20)
                break
    act = raw.get("hidden_act")
    if isinstance(act, str) and 0 < len(act) <= 64:
        facts["hidden_act"] = act
    return facts if "hidden_size" in facts and "num_hidden_layers" in facts else {}


def vision_facts(raw: Any) -> dict[str, Any]:
    """``vision_config`` under canonical names (empty when it has no width or depth)."""
    return _reduced(raw, "vision_config", VISION_KEYS)


def audio_facts(raw: Any) -> dict[str, Any]:
    """``audio_config`` under canonical names (empty when it has no width or depth)."""
    return _reduced(raw, "audio_config", AUDIO_KEYS)


def vision_params(vision: Mapping[str, Any], text_hidden: int) -> int:
    """Parameters of a vision tower and its projector into the language model."""
    if not vision:
        return 0
    h, depth = vision["hidden_size"], vision["num_hidden_layers"]
    inter = vision.get("intermediate_size") or h * vision.get("mlp_ratio", 4)
    gated = vision.get("hidden_act") in GATED_ACTIVATIONS
    attention = 4 * h * h + 4 * h  # q, k, v, o with biases
    mlp = (3 * h * inter + 2 * inter + h) if gated else (2 * h * inter + inter + h)
    per_layer = attention + mlp + 4 * h  # two norms (weight and bias)
    patch = vision.get("patch_size", 14)
    channels = vision.get("num_channels", 3)
    embed = channels * vision.get("temporal_patch_size", 1) * patch * patch * h
    merge = vision.get("spatial_merge_size")
    if merge:  # Qwen-VL: no learned positions; a merger of merge² patches into the text width
        merged = h * merge * merge
        projector = (h + merged * merged + merged + merged * vision.get("out_hidden_size", text_hidden)
                     + text_hidden)
    else:
        image = vision.get("image_size")
        embed += h + ((image // patch) ** 2 * h if image else 0)
        projector = 2 * h + h * text_hidden  # post-norm and a projection into the text width
    return int(depth * per_layer + embed + projector)


def audio_params(audio: Mapping[str, Any], text_hidden: int) -> int:
    """Parameters of an audio encoder and its projector into the language model."""
    if not audio:
        return 0
    h, depth = audio["hidden_size"], audio["num_hidden_layers"]
    inter = audio.get("intermediate_size", 4 * h)
    per_layer = 4 * h * h + 3 * h + 2 * h * inter + inter + h + 4 * h
    convolutions = audio.get("num_mel_bins", 128) * h * 3 + h * h * 3 + 2 * h
    return int(depth * per_layer + convolutions + 2 * h + h * text_hidden + text_hidden)

