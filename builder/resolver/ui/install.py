"""Builder install tabs of the view."""

from __future__ import annotations

from typing import Any, TypedDict

from ..deploy import FORMATS
from ..docker import docker_image, image_sources
from ..hardware import is_nvidia, variant_of
from ..install import copy_all_installs, install_platform, interactive_install
from ..memory.memo import content_key
from ..presets import preset_image
from ..values import as_dict, get_key, truthy
from .deploy import deploy_tabs, unavailable_note
from .facts import BuilderFacts


def install_view(facts: BuilderFacts, state: dict[str, Any], kv: str | None, preset: dict[str, Any] | None,
                 deploy_type: Any = None) -> dict[str, Any]:
    """The install strip (pip / Docker, then the deployment forms of a record of ``deploy_type``),
    recalled by what it reads (the state's hardware, variant, CUDA and install tab, the arguments)."""
    key = (state["hardware"], state["variant"], state["cuda"], state["install"], kv, deploy_type)
    preset_key = content_key(preset)
    if preset_key is not None and all(k is None or type(k) is str for k in key):
        return facts.recall(("install_view", preset_key, *key),
                            lambda: _install_view(facts, state, kv, preset, deploy_type), copy_install)
    return _install_view(facts, state, kv, preset, deploy_type)


def copy_install(install: dict[str, Any]) -> dict[str, Any]:
    """A copy of an install strip its caller may change (the view adds its controls and the active
    deployment tab's command): the strip, its tabs, its extras and their entries are new dicts."""
    extras = install["extras"]
    return {**install, "tabs": [dict(tab) for tab in install["tabs"]],
            "extras": {**extras, "entries": [dict(entry) for entry in extras["entries"]]}}


class _Basis(TypedDict):
    """What the install strip reads of the hardware, variant, CUDA build and KV offload alone."""

    info: dict[str, Any]  # interactive_install's block
    image: str | None  # the Docker image
    single: bool  # the recipe publishes images of one CUDA build only


def _basis(facts: BuilderFacts, hw: str, variant: str, cuda: str, kv: str | None) -> _Basis:
    p, v = facts.profile(hw), variant_of(facts.recipe, variant)
    _, cuda_map = image_sources(facts.recipe, v, p, hw)
    return {"info": interactive_install(facts.recipe, facts.vocab, hw, variant, cuda, kv),
            "image": docker_image(facts.recipe, v, p, hw, cuda),
            "single": isinstance(cuda_map, dict) and len(cuda_map) == 1}


def _install_view(facts: BuilderFacts, state: dict[str, Any], kv: str | None, preset: dict[str, Any] | None,
                  deploy_type: Any = None) -> dict[str, Any]:
    hw, p = state["hardware"], facts.profile(state["hardware"])
    args = (hw, state["variant"], state["cuda"], kv)
    basis = (facts.kept(("install_basis", *args), lambda: _basis(facts, *args))
             if all(k is None or type(k) is str for k in args) else _basis(facts, *args))
    info = dict(basis["info"])  # (its docker entry is replaced below, never changed)
    platform = install_platform(p)
    suffix = "" if platform == "CUDA" else f" ({platform})"
    image = basis["image"]
    if preset is not None and preset_image(preset):
        image = preset_image(preset)
        if info["docker"] is not None:
            info["docker"] = {**info["docker"], "command": f"docker pull {image}"}
    install_cfg = as_dict(as_dict(facts.recipe.get("model")).get("install"))
    docker_override = truthy(get_key(install_cfg.get("docker"), "command"))
    if image is None and not docker_override:
        info["docker"] = None
    tabs = []
    if info["pip"] is not None:
        tabs.append({"id": "pip", "label": f"pip / uv{suffix}", **info["pip"]})
    if info["docker"] is not None:
        tabs.append({"id": "docker", "label": f"Docker{suffix}", **info["docker"]})
    tabs += deploy_tabs(deploy_type)
    ids = [t["id"] for t in tabs if not t.get("reason")]
    active = state["install"] if state["install"] in ids else info["initial_tab"] if info[
        "initial_tab"] in ids else (
ids[0] if ids else "pip")
    single = basis["single"]
    pip_override = truthy(get_key(install_cfg.get("pip"), "command"))
    toggle = (is_nvidia(p) and not single and not docker_override and preset is None
              and (active in ("docker", *FORMATS)
                   or (active == "pip" and info["nightly"] and not pip_override)))
    entries = [e for e in info["extras"] if active in e["tabs"]]
    extras = {"entries": [{k: e[k] for k in ("command", "note", "optional")} for e in entries],
              "required": sum(1 for e in entries if not e["optional"]),
              "optional": sum(1 for e in entries if e["optional"]),
              "copy_all": copy_all_installs(entries, active)}
    return {"header": info["header"], "min_version": info["min_version"], "nightly": info["nightly"],
            "tabs": tabs, "active": active,
            "summary": " / ".join(t["label"].split(" (")[0] for t in tabs if t["id"] in ids),
            "unavailable": unavailable_note(tabs),
            "cuda_toggle": toggle, "cuda": state["cuda"], "image": image, "extras": extras}
