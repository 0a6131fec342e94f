"""Builder install tabs of the view."""

from __future__ import annotations

from typing import Any

from ..docker import _image_sources, docker_image
from ..hardware import _is_nvidia, _variant
from ..install import _platform, copy_all_installs, interactive_install
from ..presets import _preset_image
from ..values import _dict, _get, _truthy
from .facts import _B


def _install_view(b: _B, s: dict[str, Any], kv: str | None, preset: dict[str, Any] | None) -> dict[str, Any]:
    hw, p = s["hardware"], b.profile(s["hardware"])
    info = interactive_install(b.recipe, b.vocab, hw, s["variant"], s["cuda"], kv)
    platform = _platform(p)
    suffix = {"ROCm": " (ROCm)", "CPU": " (CPU)"}.get(platform, "")
    image = docker_image(b.recipe, _variant(b.recipe, s["variant"]), p, hw, s["cuda"])
    if preset is not None and _preset_image(preset):
        image = _preset_image(preset)
        if info["docker"] is not None:
            info["docker"] = {**info["docker"], "command": f"docker pull {image}"}
    install_cfg = _dict(_dict(b.recipe.get("model")).get("install"))
    docker_override = _truthy(_get(install_cfg.get("docker"), "command"))
    if image is None and not docker_override:
        info["docker"] = None
    tabs = []
    if info["pip"] is not None:
        tabs.append({"id": "pip", "label": f"pip / uv{suffix}", **info["pip"]})
    if info["docker"] is not None:
        dsuffix = {"ROCm": " (ROCm)", "TPU": " (TPU)", "XPU": " (XPU)", "CPU": " (CPU)"}.get(platform, "")
        tabs.append({"id": "docker", "label": f"Docker{dsuffix}", **info["docker"]})
    ids = [t["id"] for t in tabs]
    active = s["install"] if s["install"] in ids else info["initial_tab"] if info["initial_tab"] in ids else (
        ids[0] if ids else "pip")
    _, cuda_map = _image_sources(b.recipe, _variant(b.recipe, s["variant"]), p, hw)
    single = isinstance(cuda_map, dict) and len(cuda_map) == 1
    pip_override = _truthy(_get(install_cfg.get("pip"), "command"))
    toggle = (_is_nvidia(p) and not single and not docker_override and preset is None
              and (active == "docker" or (active == "pip" and info["nightly"] and not pip_override)))
    entries = [e for e in info["extras"] if active in e["tabs"]]
    extras = {"entries": [{k: e[k] for k in ("command", "note", "optional")} for e in entries],
              "required": sum(1 for e in entries if not e["optional"]),
              "optional": sum(1 for e in entries if e["optional"]),
              "copy_all": copy_all_installs(entries, active)}
    return {"header": info["header"], "min_version": info["min_version"], "nightly": info["nightly"],
            "tabs": tabs, "active": active, "summary": " / ".join(t["label"].split(" (")[0] for t in tabs),
            "cuda_toggle": toggle, "cuda": s["cuda"], "image": image, "extras": extras}
