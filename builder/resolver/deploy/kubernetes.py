"""Kubernetes documents of a plan: Deployments, LeaderWorkerSets, Services, the cache PVC, ConfigMaps."""

from __future__ import annotations

import json
import re
from typing import Any

from ..values import HF_CACHE_MOUNT
from .devices import GROUP_IDS, DeviceSettings, device_settings, kubernetes_quantity
from .names import label_value
from .placeholders import (
    DEFAULTS,
    LWS_LEADER,
    MOONCAKE_DIR,
    instance_of,
    kubernetes_shell,
    kubernetes_token,
    names_in,
    node_of,
    placeholder_name,
)
from .plan import Plan, Workload
from .ranks import head_template, worker_template
from .types import Container, EnvVar, K8sDocument, PodSpec, PodTemplate

LWS_API = "leaderworkerset.x-k8s.io/v1"
CACHE_PATH = HF_CACHE_MOUNT.split(":", 1)[1]
CACHE_SIZE = "500Gi"
HF_SECRET = "hf-token"
# Generous for large checkpoints: up to 2 hours of download and load before the first /health.
STARTUP_PROBE = {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10, "failureThreshold": 720}
READINESS_PROBE = {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10, "failureThreshold": 3}
LIVENESS_PROBE = {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 30, "failureThreshold": 5}
_CONFIG_VAR = re.compile(r"\$\{?([A-Z_][A-Z0-9_]*)\}?")


class Wiring:
    """Values of the placeholders: other workloads' Service names, defaults, or unresolved (noted)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.by_role = {w["role"]: w for w in plan["workloads"]}
        self.unresolved: list[str] = []

    def value(self, name: str) -> str:
        """What ``$NAME`` stands for when it names something outside the pod."""
        node = node_of(name)
        if node is not None and node[0] in self.by_role:
            target = self.by_role[node[0]]["name"]
            return target if node[1] == 1 else f"{target}-0-{node[1] - 1}.{target}"
        instance = instance_of(name)
        if instance is not None and f"instance-{instance}" in self.by_role:
            return self.by_role[f"instance-{instance}"]["name"]
        if name == "MOONCAKE_MASTER_IP" and "mooncake-master" in self.by_role:
            return self.by_role["mooncake-master"]["name"]
        if name == "ROUTER_PORT" and "router" in self.by_role:
            return str(self.by_role["router"]["port"])
        if name in DEFAULTS:
            return DEFAULTS[name]
        if name not in self.unresolved:
            self.unresolved.append(name)
        return ""


def _labels(plan: Plan, workload: Workload) -> dict[str, str]:
    return {"app.kubernetes.io/name": "vllm", "app.kubernetes.io/instance": label_value(plan["base"]),
            "app.kubernetes.io/component": label_value(workload["role"])}


def _meta(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"name": name, "labels": labels}


def _env_list(workload: Workload, names: list[str], wiring: Wiring, in_group: bool) -> list[EnvVar]:
    """Placeholder definitions first (Kubernetes expands only earlier variables), then the record's env."""
    env: list[EnvVar] = []
    for name in names:
        if name in workload["env"]:
            continue
        if in_group and _group_sub(workload, name, True) is not None:
            continue
        if workload["pool_role"] and node_of(name) == (workload["pool_role"], 1):
            env.append({"name": name, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}})
        else:
            env.append({"name": name, "value": wiring.value(name)})
    return env


def _group_sub(workload: Workload, name: str, group: bool) -> str | None:
    """The LeaderWorkerSet variable a placeholder maps to inside its own group."""
    if not group:
        return None
    if name == "HEAD_IP" or instance_of(name) is not None:
        return LWS_LEADER
    if workload["pool_role"] and node_of(name) == (workload["pool_role"], 1):
        return LWS_LEADER
    return None


def _subs(workload: Workload, names: list[str], group: bool) -> dict[str, str]:
    return {n: sub for n in names if (sub := _group_sub(workload, n, group)) is not None}


def _security(devices: DeviceSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    """(container securityContext, pod securityContext) from the docker device flags."""
    container: dict[str, Any] = {}
    pod: dict[str, Any] = {}
    if devices["privileged"]:
        container["privileged"] = True
    if "seccomp=unconfined" in devices["security_opt"]:
        container["seccompProfile"] = {"type": "Unconfined"}
    groups = [GROUP_IDS[g] for g in devices["group_add"] if g in GROUP_IDS]
    if groups:
        pod["supplementalGroups"] = groups
    return container, pod


def _serve_container(plan: Plan, workload: Workload, part: str, wiring: Wiring) -> Container:
    """The vllm container of a pod: ``part`` is ``single``, ``leader`` or ``worker`` (one template for all
    ranks)."""
    devices = device_settings(plan["profile"])
    group = part != "single"
    argvs = workload["worker_argvs"] if part == "worker" else [workload["head_argv"]]
    names = [n for t in [*(t for a in argvs for t in a), *workload["env"].values()]
             if (n := placeholder_name(t)) is not None]
    names = list(dict.fromkeys(names))
    subs = _subs(workload, names, group)
    env = _env_list(workload, names, wiring, group)
    for key, value in workload["env"].items():
        if key == "CUDA_VISIBLE_DEVICES" and workload["gpus"] < devices["count"]:
            continue
        own = placeholder_name(value) == key  # MOONCAKE_CONFIG_PATH="$MOONCAKE_CONFIG_PATH": the value itself
        env.append({"name": key,
                    "value": (subs.get(key) or wiring.value(key)) if own else kubernetes_token(value, subs)})
    if "HF_TOKEN" not in workload["env"]:
        env.append({"name": "HF_TOKEN",
                    "valueFrom": {"secretKeyRef": {"name": HF_SECRET, "key": "token", "optional": True}}})
    escaped = [[a[0], *(kubernetes_token(t, subs) for t in a[1:])] for a in argvs]
    size, start_rank_step = 1 + len(workload["worker_argvs"]), 0
    if part == "leader":
        escaped[0] = head_template(escaped[0], size)
    elif part == "worker":
        template = worker_template(escaped, size)
        escaped, start_rank_step = [template["argv"]], template["start_rank_step"]
    argv = escaped[0]
    command, args = [argv[0]], argv[1:]
    if start_rank_step:
        command = ["/bin/sh", "-c", 'exec "$$0" "$$@" --data-parallel-start-rank '
                   f'"$$((LWS_WORKER_INDEX * {start_rank_step}))"', argv[0]]
    container: Container = {"name": "vllm", "image": plan["image"] or "vllm/vllm-openai:latest",
                            "command": command,
                            "args": args, "env": env,
                            "ports": [{"name": "http", "containerPort": workload["port"]}]}
    if devices["resource"] and workload["gpus"]:
        container["resources"] = {"limits": {devices["resource"]: workload["gpus"]}}
    mounts = [{"name": "dshm", "mountPath": "/dev/shm"}, {"name": "hf-cache", "mountPath": CACHE_PATH}]
    mounts += [{"name": f"host-{i}", "mountPath": c} for i, (h, c) in enumerate(devices["mounts"])
               if c != "/dev/shm"]
    if plan["mooncake_config"] is not None:
        mounts.append({"name": "mooncake-config", "mountPath": MOONCAKE_DIR})
    container["volumeMounts"] = mounts
    security = _security(devices)[0]
    if security:
        container["securityContext"] = security
    if part != "worker":
        container["startupProbe"] = STARTUP_PROBE
        container["readinessProbe"] = READINESS_PROBE
        container["livenessProbe"] = LIVENESS_PROBE
    return container


def _sidecars(plan: Plan, workload: Workload) -> list[Container]:
    out: list[Container] = []
    for index, sidecar in enumerate(workload["sidecars"]):
        script = (sidecar["command"] if not sidecar["install"]
                  else f"{sidecar['install']} && {sidecar['command']}")
        out.append({"name": f"companion-{index + 1}", "image": plan["image"] or "vllm/vllm-openai:latest",
                    "command": ["/bin/sh", "-c", kubernetes_shell(script)],
                    "env": [{"name": "UV_SYSTEM_PYTHON", "value": "1"}],
                    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]})
    return out


def _pod_spec(plan: Plan, containers: list[Container], pvc: str | None) -> PodSpec:
    devices = device_settings(plan["profile"])
    shm: dict[str, Any] = {"medium": "Memory"}
    if devices["shm_size"]:
        shm["sizeLimit"] = kubernetes_quantity(devices["shm_size"])
    volumes: list[dict[str, Any]] = [{"name": "dshm", "emptyDir": shm}]
    if pvc is not None:
        volumes.append({"name": "hf-cache", "persistentVolumeClaim": {"claimName": pvc}})
    volumes += [{"name": f"host-{i}", "hostPath": {"path": h}} for i, (h, c) in enumerate(devices["mounts"])
                if c != "/dev/shm"]
    if plan["mooncake_config"] is not None:
        volumes.append({"name": "mooncake-config", "configMap": {"name": f"{plan['base']}-mooncake-config"}})
    spec: PodSpec = {"containers": containers, "volumes": volumes}
    if devices["host_network"]:
        spec["hostNetwork"] = True
        spec["dnsPolicy"] = "ClusterFirstWithHostNet"
    pod_security = _security(devices)[1]
    if pod_security:
        spec["securityContext"] = pod_security
    return spec


def _service(plan: Plan, workload: Workload, selector: dict[str, str]) -> K8sDocument:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": _meta(workload["name"], _labels(plan, workload)),
            "spec": {"selector": selector,
                     "ports": [{"name": "http", "port": workload["port"], "targetPort": "http"}]}}


def _pvc(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"metadata": meta,
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": CACHE_SIZE}}}}


def _deployment(plan: Plan, workload: Workload, spec: PodSpec) -> K8sDocument:
    labels = _labels(plan, workload)
    template: PodTemplate = {"metadata": {"labels": labels}, "spec": spec}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _meta(workload["name"], labels),
            "spec": {"replicas": 1, "strategy": {"type": "Recreate"}, "selector": {"matchLabels": labels},
                     "template": template}}


def _serve_documents(plan: Plan, workload: Workload, wiring: Wiring) -> list[K8sDocument]:
    labels = _labels(plan, workload)
    size = 1 + len(workload["worker_argvs"])
    if size == 1:
        pvc = f"{workload['name']}-hf-cache"
        containers = [_serve_container(plan, workload, "single", wiring),
                      *_sidecars(plan, workload)]
        claim: K8sDocument = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", **_pvc(pvc, labels)}  # type: ignore[typeddict-item]
        return [claim, _deployment(plan, workload, _pod_spec(plan, containers, pvc)),
                _service(plan, workload, labels)]
    leader = _pod_spec(plan, [_serve_container(plan, workload, "leader", wiring)], None)
    follower = _pod_spec(plan, [_serve_container(plan, workload, "worker", wiring)], None)
    lws: K8sDocument = {
        "apiVersion": LWS_API, "kind": "LeaderWorkerSet", "metadata": _meta(workload["name"], labels),
        "spec": {"replicas": 1, "startupPolicy": "LeaderCreated", "leaderWorkerTemplate": {
            "size": size, "restartPolicy": "RecreateGroupOnPodRestart",
            "leaderTemplate": {"metadata": {"labels": labels}, "spec": leader},
            "workerTemplate": {"metadata": {"labels": labels}, "spec": follower},
            "volumeClaimTemplates": [_pvc("hf-cache")]}}}
    selector = {"leaderworkerset.sigs.k8s.io/name": workload["name"],
                "leaderworkerset.sigs.k8s.io/worker-index": "0"}
    return [lws, _service(plan, workload, selector)]


def _helper_documents(plan: Plan, workload: Workload, wiring: Wiring) -> list[K8sDocument]:
    script = workload["shell"] or ""
    if workload["install"]:
        script = f"set -e\n{workload['install']}\n{script}"
    env: list[EnvVar] = [{"name": "UV_SYSTEM_PYTHON", "value": "1"}]
    env += [{"name": n, "value": wiring.value(n)} for n in names_in(script)]
    container: Container = {"name": workload["role"], "image": plan["image"] or "vllm/vllm-openai:latest",
                            "command": ["/bin/sh", "-c", kubernetes_shell(script)], "env": env}
    if workload["port"]:
        container["ports"] = [{"name": "http", "containerPort": workload["port"]}]
    spec: PodSpec = {"containers": [container]}
    if workload["role"] == "mooncake-store" and plan["mooncake_config"] is not None:
        container["volumeMounts"] = [{"name": "mooncake-config", "mountPath": MOONCAKE_DIR, "readOnly": True}]
        spec["volumes"] = [
            {"name": "mooncake-config", "configMap": {"name": f"{plan['base']}-mooncake-config"}}]
    docs = [_deployment(plan, workload, spec)]
    if workload["port"]:
        docs.append(_service(plan, workload, _labels(plan, workload)))
    return docs


def _config_text(config: Any, wiring: Wiring) -> str:
    """A Mooncake config file with its placeholders filled in (unknown ones stay and are noted)."""
    text = json.dumps(config, indent=2, ensure_ascii=False)

    def fill(match: re.Match[str]) -> str:
        value = wiring.value(match.group(1))
        return value if value else match.group(0)
    return _CONFIG_VAR.sub(fill, text)


def kubernetes_documents(plan: Plan) -> tuple[list[K8sDocument], list[str]]:
    """(documents in apply order, notes for the file header)."""
    wiring = Wiring(plan)
    docs: list[K8sDocument] = []
    if plan["mooncake_config"] is not None:
        data = {name: _config_text(config, wiring) for name, config in plan["mooncake_config"].items()}
        docs.append({"apiVersion": "v1", "kind": "ConfigMap",
                     "metadata": {"name": f"{plan['base']}-mooncake-config"}, "data": data})
    for workload in plan["workloads"]:
        docs += _helper_documents(plan, workload, wiring) if workload["shell"] is not None else \
            _serve_documents(plan, workload, wiring)
    notes = [n for w in plan["workloads"] for n in w["notes"] if n] + plan["notes"]
    if any(d["kind"] == "LeaderWorkerSet" for d in docs):
        notes.append("Needs the LeaderWorkerSet controller (leaderworkerset.x-k8s.io/v1) in the cluster.")
    notes.append(f"Gated models read HF_TOKEN from the Secret {HF_SECRET!r} (key 'token'): "
                 f"kubectl create secret generic {HF_SECRET} --from-literal=token=$HF_TOKEN")
    if wiring.unresolved:
        notes.append("Set before applying (empty here): " + ", ".join(wiring.unresolved))
    return docs, notes
