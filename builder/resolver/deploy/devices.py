"""Vendor device settings for the deployment documents, read from the ``docker run`` device flags.

The docker form (single-node spec §12.3) is the one statement of what each vendor's container
needs; this module parses its argv form instead of restating it. The generic ``--privileged``
and ``--ipc=host`` of every ``docker run`` are not device flags: the documents give GPUs through
the device plugin's resource and shared memory through ``/dev/shm``.
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..docker import device_argv
from ..families import family_id, family_of
from ..hardware import gpu_count_of

# ``--group-add`` names as numeric ids (Kubernetes takes only numbers): Debian/Ubuntu's ``video``.
GROUP_IDS = {"video": 44, "render": 109}


class DeviceSettings(TypedDict):
    """What the docker device flags of one hardware profile ask for."""

    kind: str  # the device family (families.DEVICE_FAMILIES): nvidia, amd, tpu, xpu, cpu
    resource: str | None  # the device plugin resource name (the family's kubernetes_resource)
    count: int  # accelerators per node
    gpus_all: bool  # ``--gpus all``
    devices: list[str]  # ``--device`` paths
    security_opt: list[str]
    group_add: list[str]
    privileged: bool
    host_network: bool
    mounts: list[tuple[str, str]]  # ``-v host:container`` (``/dev/shm`` included)
    shm_size: str | None  # docker's ``--shm-size`` value (``16g``)


def device_settings(profile: dict[str, Any]) -> DeviceSettings:
    """Parse the §12.3 argv device flags of ``profile``."""
    out: DeviceSettings = {"kind": family_id(profile), "resource": family_of(profile)["kubernetes_resource"],
                           "count": gpu_count_of(profile),
                           "gpus_all": False, "devices": [], "security_opt": [], "group_add": [],
                           "privileged": False, "host_network": False, "mounts": [], "shm_size": None}
    flags = device_argv(profile)
    index = 0
    while index < len(flags):
        flag, _, inline = flags[index].partition("=")
        value = inline if inline else (flags[index + 1] if index + 1 < len(flags) else "")
        step = 1 if inline or flag == "--privileged" else 2
        if flag == "--gpus":
            out["gpus_all"] = value == "all"
        elif flag == "--device":
            out["devices"].append(value)
        elif flag == "--security-opt":
            out["security_opt"].append(value)
        elif flag == "--group-add":
            out["group_add"].append(value)
        elif flag == "--privileged":
            out["privileged"] = True
        elif flag == "--network":
            out["host_network"] = value == "host"
        elif flag == "-v":
            host, _, container = value.partition(":")
            out["mounts"].append((host, container or host))
        elif flag == "--shm-size":
            out["shm_size"] = value
        index += step
    return out


def kubernetes_quantity(docker_size: str) -> str:
    """Docker's ``16g`` as a Kubernetes quantity (``16Gi``)."""
    units = {"k": "Ki", "m": "Mi", "g": "Gi", "t": "Ti"}
    number, unit = docker_size[:-1], docker_size[-1:].lower()
    return f"{number}{units[unit]}" if unit in units and number.isdigit() else docker_size
