"""Omni recipes (cluster spec §12)."""

from __future__ import annotations

from typing import Any

from .hardware import lookup_exact, lookup_generation, profile_of, variant_of
from .shell import dedupe_args, format_command
from .values import as_dict, as_list, get_key, js_json, js_str, merge_env, truthy

OMNI_TASKS: dict[str, dict[str, Any]] = {
    "t2i": {"label": "Text → Image", "endpoint": "/v1/images/generations",
            "prompt": "a dragon flying over the Green Mountains at sunset"},
    "i2i": {"label": "Image → Image", "endpoint": "/v1/chat/completions",
            "prompt": "Convert this image to a watercolor painting with soft pastel tones"},
    "t2v": {"label": "Text → Video", "endpoint": "/v1/videos",
            "prompt": "A cinematic view of a futuristic city at sunset, smooth camera pan"},
    "i2v": {"label": "Image → Video", "endpoint": "/v1/videos",
            "prompt": "A bear playing with yarn, smooth motion"},
    "ti2v": {"label": "Text+Image → Video", "endpoint": "/v1/videos",
             "prompt": "A bear playing with yarn, smooth motion"},
    "t2a": {"label": "Text → Audio", "endpoint": "/v1/audio/generate",
            "prompt": "The sound of a cat purring softly"},
}


def omni_tasks(recipe: dict[str, Any]) -> list[dict[str, Any]]:
    """Cluster §12.4: resolved task list of an omni recipe (``curl`` kept when authored)."""
    out = []
    for entry in as_list(as_dict(recipe.get("omni")).get("tasks")):
        entry = {"id": entry} if isinstance(entry, str) else as_dict(entry)
        tid = entry.get("id")
        if tid not in OMNI_TASKS:
            continue
        cat = OMNI_TASKS[tid]
        task = {"id": tid, "key": entry.get("key") or tid, "label": entry.get("label") or cat["label"],
                "endpoint": entry.get("endpoint") or cat["endpoint"], "method": "POST",
                "modelId": entry.get("model_id"), "vramMinimumGb": entry.get("vram_minimum_gb"),
                "description": entry.get("description"), "axes": entry.get("axes") or {},
                "extraArgs": list(as_list(entry.get("extra_args"))),
                "hardwareOverrides": entry.get("hardware_overrides") or {}}
        if entry.get("curl") is not None:
            task["curl"] = entry["curl"]
        out.append(task)
    return out


def omni_task_for_hardware(task: dict[str, Any], hw: str) -> dict[str, Any]:
    """Cluster §12.5: apply ``task.hardwareOverrides[hw]``."""
    over = as_dict(task.get("hardwareOverrides")).get(hw)
    if not isinstance(over, dict):
        return task
    out = dict(task)
    for key, src in (("label", "label"), ("endpoint", "endpoint"), ("modelId", "model_id"),
                     ("description", "description")):
        if truthy(over.get(src)):
            out[key] = over[src]
    if over.get("vram_minimum_gb") is not None:
        out["vramMinimumGb"] = over["vram_minimum_gb"]
    out["extraArgs"] = list(task.get("extraArgs") or []) + as_list(over.get("extra_args"))
    if over.get("curl") is not None:
        out["curl"] = over["curl"]
    return out


def active_omni_task(recipe: dict[str, Any], task_param: str | None, hw: str) -> dict[str, Any] | None:
    """Cluster §12.7: task by ``key``, else by ``id``, else the first; hardware override applied."""
    tasks = omni_tasks(recipe)
    task = next((t for t in tasks if t["key"] == task_param), None) or next(
        (t for t in tasks if t["id"] == task_param), None) or (tasks[0] if tasks else None)
    return omni_task_for_hardware(task, hw) if task else None


def omni_example(task: dict[str, Any], host: str = "localhost", port: Any = 8000, model_id: str | None = None,
                 prompt: str | None = None) -> str:
    """Cluster §12.3: the task's curl example (authored ``curl`` verbatim, else the catalogue form)."""
    if task.get("curl") is not None:
        authored: str = task["curl"]
        return authored
    tid = task["id"]
    prompt = prompt or OMNI_TASKS[tid]["prompt"]
    base = f"http://{host}:{js_str(port)}"
    if tid in ("t2v", "i2v", "ti2v"):
        fields: list[tuple[str, Any]] = [("prompt", prompt)]
        if tid != "t2v":
            fields.append(("input_reference", "@/path/to/input.png"))
        fields += [("width", 832), ("height", 480), ("num_frames", 81), ("fps", 16),
                   ("num_inference_steps", 40), ("guidance_scale", 4 if tid == "t2v" else 5), ("seed", 42)]
        lines = [f"curl -X POST {base}/v1/videos/sync", *(f'  -F "{k}={js_str(v)}"' for k, v in fields),
                 "  --output output.mp4"]
        return " \\\n".join(lines)
    if tid == "t2i":
        body: dict[str, Any] = {"prompt": prompt, "size": "1024x1024", "seed": 42}
        after = " \\\n  | jq -r '.data[0].b64_json' | base64 -d > output.png"
    elif tid == "i2i":
        body = {"model": model_id, "messages": [{"role": "user", "content": [
            {"type": "text", "text": prompt},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,<BASE64_IMAGE>"}}]}],
            "extra_body": {"height": 1024, "width": 1024, "num_inference_steps": 50, "guidance_scale": 4.5,
                           "seed": 42}}
        after = ""
    else:
        body = {"input": prompt, "audio_length": 10, "negative_prompt": "Low quality", "guidance_scale": 7,
                "num_inference_steps": 100, "seed": 42}
        after = " --output output.wav"
    text = js_json(body).replace("\n", "\n    ")
    return "\n".join([f"curl -X POST {base}{task['endpoint']} \\", '  -H "Content-Type: application/json" \\',
                      f"  -d '{text}'{after}"])


def resolve_omni(recipe: dict[str, Any], taxonomy: dict[str, Any], variant_key: str,
                 task: dict[str, Any] | None, hw: str) -> dict[str, Any]:
    """Cluster §12.6 ``resolveOmniCommand`` -> ``{command, env, model_id}`` (§12.7 fallback without task)."""
    variant = variant_of(recipe, variant_key)
    model = as_dict(recipe.get("model"))
    omni = as_dict(recipe.get("omni"))
    binary = omni.get("serve_binary") or "vllm serve"
    if task is None:
        mid = variant.get("model_id") or model.get("model_id") or "model"
        return {"command": f"{binary} {mid} --omni", "env": {}, "model_id": mid}
    profile = profile_of(taxonomy, hw)
    mid = task.get("modelId") or variant.get("model_id") or model.get("model_id") or "unknown"
    gen_recipe = get_key(lookup_generation(recipe.get("hardware_overrides"), profile), "extra_env"), get_key(
        lookup_generation(recipe.get("hardware_overrides"), profile), "extra_args")
    vgen = lookup_generation(variant.get("hardware_overrides"), profile)
    vexact = lookup_exact(variant.get("hardware_overrides"), hw)
    own = variant_key != "default"
    env: dict[str, Any] = {}
    for layer in (model.get("base_env"), variant.get("extra_env") if own else None, gen_recipe[0],
                  get_key(vgen, "extra_env"), get_key(vexact, "extra_env")):
        merge_env(env, layer)
    raw = list(as_list(model.get("base_args")))
    raw += as_list(variant.get("extra_args")) if own else []
    raw += as_list(task.get("extraArgs")) + as_list(gen_recipe[1])
    raw += as_list(get_key(vgen, "extra_args")) + as_list(get_key(vexact, "extra_args"))
    if truthy(omni.get("port")):
        raw += ["--port", js_str(omni["port"])]
    raw.append("--omni")
    return {"command": format_command(mid, dedupe_args(raw), binary), "env": env, "model_id": mid}
