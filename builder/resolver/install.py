"""Install blocks: the JSON ``model.install`` (§13.1) and the builder's install view (§13.2-§13.3)."""

from __future__ import annotations

from typing import Any

from .docker import docker_image, image_sources, is_cuda_map, pick_cuda
from .families import DEVICE_FAMILIES, family_of, image_keys
from .hardware import profile_of, variant_of
from .strategies import deploy_type_of, strategy_catalogue
from .topologies.mooncake import kv_install
from .types import Vocab
from .values import as_dict, as_list, get_key, is_omni, js_str, truthy, version_key

PIP_RELEASE = "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"


PIP_NIGHTLY = (
    "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
    "  --extra-index-url https://wheels.vllm.ai/nightly/{tag} \\\n"
    "  --extra-index-url https://download.pytorch.org/whl/{tag} \\\n"
    "  --index-strategy unsafe-best-match"
)


def _nightly_note(version: Any) -> str:
    return f"vLLM {'' if version is None else js_str(version)} isn't released yet — nightly required."


def _install_image(model: dict[str, Any]) -> str:
    """§13.1: the NVIDIA image from ``model.docker_image`` alone."""
    src = model.get("docker_image")
    if isinstance(src, str) and src:
        return src
    if isinstance(src, dict):
        entry = src.get("nvidia") if any(k in src for k in image_keys()) else src
        if isinstance(entry, str) and entry:
            return entry
        if is_cuda_map(entry) and pick_cuda(entry):
            tagged: str = pick_cuda(entry)
            return tagged
    return DEVICE_FAMILIES["nvidia"]["latest_image"] or ""


def install_block(recipe: dict[str, Any]) -> dict[str, Any] | None:
    """§13.1: the synthesised ``model.install`` (None when it would be empty)."""
    model = as_dict(recipe.get("model"))
    install = as_dict(model.get("install"))
    nightly = model.get("nightly_required") is True
    out: dict[str, Any] = {}
    pip = install.get("pip")
    if pip is not False:
        pip = as_dict(pip)
        entry = {"command": pip.get("command") if truthy(pip.get("command")) else (
            PIP_NIGHTLY.format(tag="cu130") if nightly else PIP_RELEASE)}
        note = pip.get("note") if truthy(pip.get("note")) else (
            _nightly_note(model.get("min_vllm_version")) if nightly else None)
        if note is not None:
            entry["note"] = note
        out["pip"] = entry
    dock = install.get("docker")
    if dock is not False:
        dock = as_dict(dock)
        entry = {"command": dock.get("command") if truthy(dock.get("command"))
                 else f"docker pull {_install_image(model)}"}
        if truthy(dock.get("note")):
            entry["note"] = dock["note"]
        out["docker"] = entry
    deps = recipe.get("dependencies")
    if isinstance(deps, list) and deps:
        out["extras"] = deps
    return out or None


def install_platform(profile: dict[str, Any]) -> str:
    """The install platform of the profile's device family (CUDA, ROCm, TPU, XPU, CPU)."""
    return family_of(profile)["platform"]


_CUDA_LABEL = {"cu130": "CUDA 13 (cu130)", "cu129": "CUDA 12.9 (cu129)"}


PIP_AMD = ("uv venv --python 3.12\nsource .venv/bin/activate\nuv pip install vllm --extra-index-url "
           "https://wheels.vllm.ai/rocm")


PIP_CPU_NIGHTLY = (
    "uv venv --python 3.12 --seed --managed-python\nsource .venv/bin/activate\nuv pip install vllm \\\n"
    "  --extra-index-url https://wheels.vllm.ai/nightly/cpu \\\n  --index-strategy first-index \\\n"
    "  --torch-backend cpu"
)


PIP_CPU_RELEASE = (
    "uv venv --python 3.12 --seed --managed-python\nsource .venv/bin/activate\n"
    "export VLLM_VERSION=$(curl -s https://api.github.com/repos/vllm-project/vllm/releases/latest"
    " | jq -r .tag_name | sed 's/^v//')\n"
    "uv pip install https://github.com/vllm-project/vllm/releases/download/v$VLLM_VERSION/"
    "vllm-$VLLM_VERSION+cpu-cp38-abi3-manylinux_2_34_x86_64.whl \\\n  --torch-backend cpu"
)


def interactive_install(recipe: dict[str, Any], vocab: Vocab, hw: str, variant_key: str,
                        cuda: str = "default", kv_offload: Any = None) -> dict[str, Any]:
    """Single-node §13.2/§13.3: the builder's install block for the current selection.

    Returns ``{min_version, nightly, header, pip, docker, initial_tab, extras}`` where
    ``pip``/``docker`` are ``{command, note}`` or None (tab hidden) and ``extras`` lists the
    dependency entries with ``tabs`` (where each is shown) after the brand filter.
    """
    model, variant = as_dict(recipe.get("model")), variant_of(recipe, variant_key)
    profile = profile_of(as_dict(vocab.get("taxonomy")), hw)
    kv_dep = strategy_catalogue(vocab).get(kv_offload) if isinstance(kv_offload, str) else None
    kv_dep = kv_dep if deploy_type_of(kv_dep) == "kv_store_lb" else None
    versions = [v for v in (model.get("min_vllm_version"), variant.get("min_vllm_version"),
                            get_key(kv_dep, "min_vllm_version")) if v is not None]
    minimum = None
    for v in versions:
        if minimum is None or version_key(v) > version_key(minimum):
            minimum = v
    nightly = model.get("nightly_required") is True or variant.get("nightly_required") is True
    row = family_of(profile)
    platform = row["platform"]
    header = f"vLLM {js_str(minimum)}+" if minimum is not None else "vLLM"
    if is_omni(recipe):
        header += " · vLLM-Omni nightly"
    header += f" · {platform}"
    install = as_dict(model.get("install"))
    _, cuda_map = image_sources(recipe, variant, profile, hw)
    single = next(iter(cuda_map)) if isinstance(cuda_map, dict) and len(cuda_map) == 1 else None
    pip_cfg, dock_cfg = install.get("pip"), install.get("docker")
    pip = None
    if pip_cfg is not False and row["pip"] is not None:
        pip_cfg = as_dict(pip_cfg)
        if row["pip"] == "rocm":
            command, note = PIP_AMD, None
        elif row["pip"] == "cpu":
            command = PIP_CPU_NIGHTLY if nightly else PIP_CPU_RELEASE
            note = ("Intel/AMD x86 CPU nightly wheels use the dedicated /nightly/cpu index and PyTorch CPU "
                    "backend."
                    if nightly
                    else "Intel/AMD x86 CPU release wheels are published separately from CUDA wheels;"
                    " the command follows the official vLLM CPU pre-built-wheel flow.")
        elif nightly:
            tag = single or ("cu130" if cuda == "default" else cuda)
            command = PIP_NIGHTLY.format(tag=tag)
            note = _nightly_note(minimum) + (
                f" This recipe publishes {_CUDA_LABEL.get(single, single)} builds only."
                if single else " For CUDA 12.9, switch the toggle to cu129.")
        else:
            command, note = PIP_RELEASE, None
        pip = {"command": pip_cfg["command"] if truthy(pip_cfg.get("command")) else command,
               "note": pip_cfg["note"] if truthy(pip_cfg.get("note")) else note}
    docker = None
    if dock_cfg is not False:
        dock_cfg = as_dict(dock_cfg)
        if platform != "CUDA":
            note = row["docker_note"]
        elif single:
            note = f"This tag is published as a {_CUDA_LABEL.get(single, single)} build only" + (
                " — the host needs an r580+ NVIDIA driver" if single == "cu130" else "") + "."
        elif cuda_map is not None:
            note = ("This recipe ships paired CUDA-tagged images. Pick `cu129` for CUDA 12.9 hosts or "
                    "`cu130` for CUDA 13.")
        elif nightly:
            note = ("Nightly image ships CUDA 13. Switch to cu129 for the `cu129-nightly` variant if your "
                    "host is on CUDA 12.9.")
        else:
            note = ("Default tag ships CUDA 13. Switch to cu129 for the -cu129 variant if your host is on "
                    "CUDA 12.9.")
        image = docker_image(recipe, variant, profile, hw, cuda)
        docker = {"command": dock_cfg["command"] if truthy(dock_cfg.get("command"))
                  else f"docker pull {js_str(image)}",
                  "note": dock_cfg["note"] if truthy(dock_cfg.get("note")) else note}
    return {"min_version": minimum, "nightly": nightly, "header": header, "pip": pip, "docker": docker,
            "initial_tab": initial_install_tab(recipe),
            "extras": extra_installs(recipe, vocab, hw, kv_offload)}


def initial_install_tab(recipe: dict[str, Any]) -> str:
    """CB-INIT-10: the install tab a page opens on (``pip`` unless docker is authored first or pip is off)."""
    install = as_dict(as_dict(recipe.get("model")).get("install"))
    if install.get("docker") is False:
        return "pip"
    if install.get("pip") is False:
        return "docker"
    first = next((k for k in install if k in ("pip", "docker")), None)
    return "docker" if first == "docker" else "pip"


def extra_installs(recipe: dict[str, Any], vocab: Vocab, hw: str,
                   kv_offload: Any = None) -> list[dict[str, Any]]:
    """Single-node §13.3: dependency entries for ``hw`` as ``{command, note, optional, tabs}``.

    ``tabs`` lists the install tabs (``pip``/``docker``) the entry is shown on; the active
    KV option's ``install`` or the Mooncake ``vllm.install`` is appended as a required entry.
    """
    taxonomy = as_dict(vocab.get("taxonomy"))
    profile = profile_of(taxonomy, hw)
    out = []
    for dep in as_list(recipe.get("dependencies")):
        dep = as_dict(dep)
        brands = dep.get("brand")
        if (brands is not None
            and profile.get("brand") not in (brands if isinstance(brands, list) else [brands])):
            continue
        modes = dep.get("install_modes")
        out.append(
            {"command": dep.get("command"), "note": dep.get("note"), "optional": dep.get("optional") is True,
             "tabs": list(modes) if isinstance(modes, list) and modes else ["pip"]})
    extra = None
    if isinstance(kv_offload, str):
        opt = as_dict(taxonomy.get("kv_offload")).get(kv_offload)
        dep = strategy_catalogue(vocab).get(kv_offload)
        if isinstance(opt, dict):
            extra = opt.get("install")
        elif deploy_type_of(dep) == "kv_store_lb":
            extra = kv_install(as_dict(dep), profile)
    if truthy(extra):
        out.append({"command": extra, "note": None, "optional": False, "tabs": ["pip", "docker"]})
    return out


def copy_all_installs(entries: list[dict[str, Any]], tab: str) -> str:
    """Single-node §13.3 "copy all": required commands shown on ``tab``, newline-joined."""
    return "\n".join(js_str(e["command"]) for e in entries if not e["optional"] and tab in e["tabs"])
