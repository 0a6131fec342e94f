"""The device-family table: per family of accelerator, everything the commands say about its devices.

A hardware profile names its family with ``family`` (``nvidia``, ``amd``, ``tpu``, ``xpu``,
``cpu``); a profile without one gets the family its ``brand``/``generation`` imply
(:func:`family_id`, single-node spec §12.3). Adding a GPU of a known family is one taxonomy
entry; a new family is one row of :data:`DEVICE_FAMILIES` (the taxonomy schema accepts the ids
of this table and no other).
"""

from __future__ import annotations

from typing import Any, TypedDict

from .hardware import raw_generation


class DeviceFamily(TypedDict):
    """One row: what a family's containers, Kubernetes pods and install steps need."""

    image_key: str
    """Key of the family in brand-keyed maps (``docker_image``, a kv-store ``install``):
    nvidia, amd, tpu, intel (Intel's CPU and XPU share one key)."""
    latest_image: str | None
    """§12.2 image when the recipe pins none."""
    nightly_image: str | None
    """§12.2 image for a nightly recipe (None: none is published, §12.6)."""
    docker_flags: str
    """§12.3 device flags of ``docker run`` as printed (a line break as `` \\`` + newline + two spaces)."""
    docker_argv: tuple[str, ...]
    """The same flags in argv form (§12.5, and what the deployment documents translate)."""
    kubernetes_resource: str | None
    """The extended resource its device plugin advertises (None: no accelerator resource)."""
    platform: str
    """Install platform: the install header's last word and the install tabs' ``(…)`` suffix (none on
    CUDA)."""
    pip: str | None
    """pip channel of the install tab: ``cuda``, ``rocm``, ``cpu``; None hides the pip tab."""
    docker_note: str | None
    """Note of the Docker install tab (None: none, or on CUDA the note the image's CUDA tags imply)."""


DEVICE_FAMILIES: dict[str, DeviceFamily] = {
    "nvidia": {
        "image_key": "nvidia", "latest_image": "vllm/vllm-openai:latest",
        "nightly_image": "vllm/vllm-openai:nightly",
        "docker_flags": "--gpus all", "docker_argv": ("--gpus", "all"),
        "kubernetes_resource": "nvidia.com/gpu", "platform": "CUDA", "pip": "cuda", "docker_note": None,
    },
    "amd": {
        "image_key": "amd", "latest_image": "vllm/vllm-openai-rocm:latest",
        "nightly_image": "vllm/vllm-openai-rocm:nightly",
        "docker_flags": "--device=/dev/kfd --device=/dev/dri \\\n  --security-opt seccomp=unconfined "
                        "--group-add video",
        "docker_argv": ("--device=/dev/kfd", "--device=/dev/dri", "--security-opt", "seccomp=unconfined",
                        "--group-add", "video"),
        "kubernetes_resource": "amd.com/gpu", "platform": "ROCm", "pip": "rocm", "docker_note": None,
    },
    "tpu": {
        "image_key": "tpu", "latest_image": "vllm/vllm-tpu:latest", "nightly_image": "vllm/vllm-tpu:nightly",
        "docker_flags": "--privileged --network host \\\n  -v /dev/shm:/dev/shm",
        "docker_argv": ("--privileged", "--network", "host", "-v", "/dev/shm:/dev/shm"),
        "kubernetes_resource": "google.com/tpu", "platform": "TPU", "pip": None,
        "docker_note": ("TPU builds are published by vllm-project/tpu-inference. See the Trillium and "
                        "Ironwood tpu-recipes for pinned image tags and exact deployment flags."),
    },
    "xpu": {
        "image_key": "intel", "latest_image": "vllm/vllm-openai-xpu:latest",
        "nightly_image": "vllm/vllm-openai-xpu:latest",
        "docker_flags": "--device /dev/dri \\\n  -v /dev/dri/by-path:/dev/dri/by-path --shm-size=16g",
        "docker_argv": ("--device", "/dev/dri", "-v", "/dev/dri/by-path:/dev/dri/by-path", "--shm-size",
                        "16g"),
        "kubernetes_resource": "gpu.intel.com/i915", "platform": "XPU", "pip": None,
        "docker_note": "Intel XPU image. The entrypoint initializes oneAPI automatically.",
    },
    "cpu": {
        "image_key": "intel", "latest_image": "vllm/vllm-openai-cpu:latest-x86_64", "nightly_image": None,
        "docker_flags": "--shm-size=16g", "docker_argv": ("--shm-size", "16g"),
        "kubernetes_resource": None, "platform": "CPU", "pip": "cpu",
        "docker_note": "Intel/AMD x86 CPU image; no CUDA runtime is required.",
    },
}
"""Family id -> row. To add a family, add a row here (its id is then valid as a profile's ``family``)."""


def implied_family(profile: dict[str, Any]) -> str:
    """§12.3: the family ``brand``/``generation`` imply (what a profile without ``family`` gets)."""
    gen = raw_generation(profile)
    if gen == "tpu":
        return "tpu"
    if profile.get("brand") == "AMD":
        return "amd"
    if gen == "xpu":
        return "xpu"
    if gen == "cpu" or profile.get("brand") == "Intel":
        return "cpu"
    return "nvidia"


def family_id(profile: dict[str, Any]) -> str:
    """The profile's device family: its ``family`` when the table has that row, else
    :func:`implied_family`."""
    declared = profile.get("family")
    return declared if isinstance(declared, str) and declared in DEVICE_FAMILIES else implied_family(profile)


def family_of(profile: dict[str, Any]) -> DeviceFamily:
    """The table row of the profile's family."""
    return DEVICE_FAMILIES[family_id(profile)]


def image_keys() -> tuple[str, ...]:
    """The keys of brand-keyed maps (``docker_image``, kv-store ``install``), in table order."""
    return tuple(dict.fromkeys(row["image_key"] for row in DEVICE_FAMILIES.values()))
