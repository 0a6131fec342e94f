"""Docker image and ``docker run`` forms (single-node spec §12)."""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from .families import family_of, image_keys
from .hardware import lookup_exact
from .safety import mount_path_problem
from .values import HF_CACHE_MOUNT, as_dict, get_key, js_str, truthy


def is_cuda_map(v: object) -> TypeGuard[dict[str, Any]]:
    return isinstance(v, dict) and ("cu129" in v or "cu130" in v)


def pick_cuda(cuda_map: dict[str, Any], cuda: str = "default") -> Any:
    """§12.7: the map's entry for the CUDA toggle, else its cu130 then cu129 entry (a tag in valid
    content)."""
    if cuda != "default" and cuda_map.get(cuda) is not None:
        return cuda_map[cuda]
    return cuda_map.get("cu130") or cuda_map.get("cu129")


def _cuda_suffix(image: str) -> str:
    """§12.7 cu129 form of a plain image tag."""
    m = re.fullmatch(r"(vllm/vllm-(?:openai|openai-rocm|tpu)):nightly", image)
    return f"{m.group(1)}:cu129-nightly" if m else f"{image}-cu129"


def image_sources(recipe: dict[str, Any], variant: dict[str, Any], profile: dict[str, Any],
                  hw: str | None) -> tuple[str | None, dict[str, Any] | None]:
    """§12.2: (pinned image, CUDA map) from the variant exact override, variant, then model."""
    brand = family_of(profile)["image_key"]
    exact = get_key(lookup_exact(variant.get("hardware_overrides"), hw), "docker_image")
    pinned: str | None = exact if isinstance(exact, str) else None
    cuda_map: dict[str, Any] | None = None
    for src in (variant.get("docker_image"), as_dict(recipe.get("model")).get("docker_image")):
        if not truthy(src) or pinned is not None or cuda_map is not None:
            continue
        if isinstance(src, str):
            if brand == "nvidia":
                pinned = src
        elif isinstance(src, dict) and any(k in src for k in image_keys()):
            entry = src.get(brand)
            if isinstance(entry, str):
                pinned = entry
            elif brand == "nvidia" and is_cuda_map(entry):
                cuda_map = entry
        elif brand == "nvidia" and is_cuda_map(src):
            cuda_map = src
    return pinned, cuda_map


def docker_image(recipe: dict[str, Any], variant: dict[str, Any], profile: dict[str, Any], hw: str | None,
                 cuda: str = "default") -> str | None:
    """§12.2 image (None only in the §12.6 Intel-CPU nightly edge); ``cuda`` is the §12.7 toggle."""
    pinned, cuda_map = image_sources(recipe, variant, profile, hw)
    if pinned is None and cuda_map is not None:
        tagged: str | None = pick_cuda(cuda_map, cuda)
        return tagged
    if pinned is None:
        row = family_of(profile)
        nightly = as_dict(recipe.get("model")).get("nightly_required") is True
        pinned = row["nightly_image"] if nightly else row["latest_image"]
        if row["nightly_image"] == row["latest_image"]:
            return pinned  # one tag for every build (XPU): no CUDA twin either
    if cuda == "cu129" and isinstance(pinned, str):
        return _cuda_suffix(pinned)
    return pinned


def device_argv(profile: dict[str, Any]) -> list[str]:
    """§12.3 device flags in argv form (what the deployment documents translate)."""
    return list(family_of(profile)["docker_argv"])


def _mounts(model_id: Any, env: dict[str, Any]) -> list[str]:
    out = []
    if isinstance(model_id, str) and model_id.startswith("/"):
        out.append(f"{model_id}:{model_id}:ro")
    for key, value in env.items():
        if key.endswith("_CONFIG_PATH"):
            v = js_str(value)
            out.append(f"{v}:{v}:ro")
    return out


_SERVE_HEAD = re.compile(r"vllm serve (\S+)\s*\\?\n?\s*")


def _run_flags(device: str, port: int, host_network: bool) -> str:
    """The line after the device flags: §12.4's ``--privileged --ipc=host -p P:P``, or, with
    ``host_network``, the container on the host's network (every port a role listens on reachable,
    no ``-p``) without repeating what the device flags already say (TPU: ``--privileged --network host``)."""
    if not host_network:
        return f"--privileged --ipc=host -p {port}:{port}"
    flags = [] if "--privileged" in device.split() else ["--privileged"]
    flags.append("--ipc=host")
    if "--network host" not in device:
        flags.append("--network host")
    return " ".join(flags)


def source_checkout(recipe: dict[str, Any]) -> str | None:
    """``model.docker_source.mount_path``: a source checkout the recipe's image needs bind-mounted read-only
    and prepended to ``PYTHONPATH`` (None when absent or not a safe absolute path)."""
    path = get_key(as_dict(recipe.get("model")).get("docker_source"), "mount_path")
    return path if isinstance(path, str) and mount_path_problem(path) is None else None


def docker_run(command: str, env: dict[str, Any], image: str | None, profile: dict[str, Any],
               port: int = 8000, host_network: bool = False, source: str | None = None) -> str:
    """§12.4 ``docker run`` shell string wrapping a ``vllm serve`` command (``host_network``: see
    :func:`_run_flags`; the published records keep the spec's form; ``source``: a checkout from
    :func:`source_checkout`, mounted read-only and prepended to ``PYTHONPATH``)."""
    m = _SERVE_HEAD.match(command)
    model, body = (m.group(1), command[m.end():]) if m else ("MODEL", command)
    device = family_of(profile)["docker_flags"]
    mounts = _mounts(model, env)
    if source is not None:
        mounts.append(f"{source}:{source}:ro")
        env = {**env,
               "PYTHONPATH": f"{source}:{js_str(env['PYTHONPATH'])}" if env.get("PYTHONPATH") else source}
    lines = [
        f"docker run {device}",
        _run_flags(device, port, host_network),
        f"-v {HF_CACHE_MOUNT}",
        *(f"-v {mount}" for mount in mounts),
        *(f"-e {k}={js_str(v)}" for k, v in env.items()),
        f"{image if image is not None else 'undefined'} {model}",
    ]
    text = " \\\n  ".join(lines)
    if body:
        text += " \\\n  " + body
    if isinstance(model, str) and model.startswith("/"):
        text = f"# {model} must already exist on the host — bind-mounted read-only below.\n" + text
    return text


def docker_argv(argv: list[Any], env: dict[str, Any], image: str | None, profile: dict[str, Any],
                port: int = 8000) -> list[Any]:
    """§12.5 ``docker run`` argv form."""
    rest = argv[2:] if argv[:2] == ["vllm", "serve"] else list(argv)
    out: list[Any] = ["docker", "run", *device_argv(profile), "--privileged", "--ipc=host",
                 "-p", f"{port}:{port}", "-v", HF_CACHE_MOUNT]
    for mount in _mounts(rest[0] if rest else None, env):
        out += ["-v", mount]
    for k, v in env.items():
        out += ["-e", f"{k}={js_str(v)}"]
    return out + [image, *rest]
