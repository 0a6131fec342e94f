"""Deployment documents (``resolve --format k8s|compose``): every document validates, reads back
through PyYAML to the data it was made from, and runs exactly the record's argv."""

from __future__ import annotations

import functools
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder import resolver
from builder.cli.main import main
from builder.content.loader import load_content
from builder.resolver.deploy import deployment_files, pd_ranks
from builder.resolver.deploy.names import dns_label, label_value
from builder.resolver.deploy.placeholders import compose_token
from builder.resolver.deploy.yaml_text import dump, dump_all
from tests.support.deploy_schemas import KUBERNETES_VERSION, validate_compose, validate_kubernetes
from tests.support.paths import UPSTREAM
from tests.support.samples import random_selection

RANK_FLAGS = {"--node-rank": "$(LWS_WORKER_INDEX)", "--data-parallel-start-rank": "$(LWS_WORKER_INDEX)",
              "--nnodes": "$(LWS_GROUP_SIZE)"}


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["resolve", "MiniMaxAI/MiniMax-M3", *args]) == 0
    return capsys.readouterr().out


def k8s_documents(text: str) -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all(text) if d is not None]
    for doc in docs:
        validate_kubernetes(doc)
    return docs


def containers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if doc["kind"] == "LeaderWorkerSet":
        template = doc["spec"]["leaderWorkerTemplate"]
        return [*template["leaderTemplate"]["spec"]["containers"],
                *template["workerTemplate"]["spec"]["containers"]]
    return doc["spec"]["template"]["spec"]["containers"] if doc["kind"] == "Deployment" else []


def test_single_node_deployment_requests_eight_gpus_and_a_service(capsys: pytest.CaptureFixture[str]) -> None:
    docs = k8s_documents(cli(capsys, "--hardware", "h200", "--format", "k8s"))
    assert [d["kind"] for d in docs] == ["PersistentVolumeClaim", "Deployment", "Service"]
    vllm = containers(docs[1])[0]
    assert vllm["resources"] == {"limits": {"nvidia.com/gpu": 8}}
    record = resolver.resolve(*minimax(), {"hardware": "h200"})
    assert vllm["command"] + vllm["args"] == record["argv"]
    assert vllm["image"] == record["docker_image"]
    assert vllm["startupProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    assert vllm["startupProbe"]["failureThreshold"] * vllm["startupProbe"]["periodSeconds"] >= 3600
    assert {"name": "HF_TOKEN", "valueFrom": {
        "secretKeyRef": {"name": "hf-token", "key": "token", "optional": True}}} in vllm["env"]
    volumes = docs[1]["spec"]["template"]["spec"]["volumes"]
    assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in volumes
    assert docs[2]["spec"]["ports"] == [{"name": "http", "port": 8000, "targetPort": "http"}]


def test_multi_node_is_a_leader_worker_set(capsys: pytest.CaptureFixture[str]) -> None:
    docs = k8s_documents(
        cli(capsys, "--hardware", "h100", "--strategy", "multi_node_tp", "--nodes", "2", "--format", "k8s"))
    assert [d["kind"] for d in docs] == ["LeaderWorkerSet", "Service"]
    template = docs[0]["spec"]["leaderWorkerTemplate"]
    assert (template["size"], template["restartPolicy"]) == (2, "RecreateGroupOnPodRestart")
    leader = template["leaderTemplate"]["spec"]["containers"][0]
    worker = template["workerTemplate"]["spec"]["containers"][0]
    assert "--headless" in worker["args"] and "--headless" not in leader["args"]
    assert worker["args"][worker["args"].index("--node-rank") + 1] == "$(LWS_WORKER_INDEX)"
    assert worker["args"][worker["args"].index("--nnodes") + 1] == "$(LWS_GROUP_SIZE)"
    assert leader["args"][leader["args"].index("--master-addr") + 1] == "$(LWS_LEADER_ADDRESS)"
    assert "readinessProbe" in leader and "readinessProbe" not in worker
    assert docs[1]["spec"]["selector"]["leaderworkerset.sigs.k8s.io/worker-index"] == "0"
    assert leader["env"][0] == {"name": "IFACE_NAME", "value": "eth0"}


def test_pd_cluster_has_the_pools_and_the_router(capsys: pytest.CaptureFixture[str]) -> None:
    docs = k8s_documents(cli(capsys, "--hardware", "b200", "--strategy", "pd_cluster", "--format", "k8s"))
    workloads = [(d["kind"], d["metadata"]["name"]) for d in docs
                 if d["kind"] in ("Deployment", "LeaderWorkerSet")]
    assert workloads == [("Deployment", "minimax-m3-prefill"), ("Deployment", "minimax-m3-decode"),
                         ("Deployment", "minimax-m3-router")]
    services = {d["metadata"]["name"]: d["spec"]["ports"][0]["port"] for d in docs if d["kind"] == "Service"}
    assert services == {"minimax-m3-prefill": 8001, "minimax-m3-decode": 8002, "minimax-m3-router": 30000}
    router = containers(docs[-2])[0]
    env = {e["name"]: e.get("value") for e in router["env"]}
    assert ((env["PREFILL_NODE_1"], env["DECODE_NODE_1"], env["ROUTER_PORT"])
            == ("minimax-m3-prefill", "minimax-m3-decode", "30000"))
    assert (router["command"][:2] == ["/bin/sh", "-c"]
            and "--prefill http://$$PREFILL_NODE_1:8001" in router["command"][2])
    prefill = containers(docs[1])[0]
    assert (prefill["env"][0]
            == {"name": "PREFILL_NODE_1", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}})


def test_compose_single_node_file(capsys: pytest.CaptureFixture[str]) -> None:
    text = cli(capsys, "--hardware", "h200", "--format", "compose")
    compose = yaml.safe_load(text)
    validate_compose(compose)
    service = compose["services"]["vllm"]
    assert (service["entrypoint"] + service["command"]
            == resolver.resolve(*minimax(), {"hardware": "h200"})["argv"])
    assert service["ipc"] == "host" and service["ports"] == ["8000:8000"]
    assert service["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"] == ["gpu"]


def test_compose_multi_node_is_one_file_per_node(capsys: pytest.CaptureFixture[str]) -> None:
    record = resolver.resolve(*minimax(), {"hardware": "h100", "strategy": "multi_node_tp", "nodes": 2})
    files = deployment_files(record, minimax()[1], "compose")
    assert ([f["filename"] for f in files]
            == ["compose.minimax-m3-node-0.yaml", "compose.minimax-m3-node-1.yaml"])
    for file in files:
        validate_compose(yaml.safe_load(file["text"]))
        assert "#   HEAD_IP=" in file["text"]
    worker = yaml.safe_load(files[1]["text"])["services"]["vllm"]
    assert worker["command"][worker["command"].index("--master-addr") + 1] == "${HEAD_IP}"


@functools.cache
def minimax() -> tuple[dict[str, Any], dict[str, Any]]:
    from pathlib import Path
    content, _ = load_content(Path(__file__).resolve().parents[2] / "recipes")
    recipe = next(r.data for r in content.recipes if r.hf_id == "MiniMaxAI/MiniMax-M3")
    return recipe, content.vocab.resolver_vocab()


HOSTILE = ["a: b", "- x", "#c", "&a", "*b", "!!python/object:os.system", "---", "...", "null", "yes", "On",
           "~", "1e3",
           "0x1F", "12:30", "'q'", '"q"', "a\nb: c\n", "\u2028x", "\x85", "\ufeff", "tab\there", " lead",
           "trail ",
           "é😀", "\x00\x1b[31m", "{a: 1}", "[1]", "%YAML 1.1", "@x", "`x`", "a #b", "\\",
           "multi\n  indented\nlines"]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_strings_read_back_as_themselves(value: str) -> None:
    doc = {"key": value, value: [value, {value: value}], "list": [[value]]}
    assert yaml.safe_load(dump(doc)) == doc
    assert list(yaml.safe_load_all(dump_all([doc, {"b": value}], [value]))) == [doc, {"b": value}]


@pytest.mark.parametrize("value", [4.0, -0.5, 0.9, 1e-05, 2.5e-12, 1e+20, -3e+300, 123456789.125,
                                   float("inf"), float("-inf")])
def test_floats_read_back_as_themselves(value: float) -> None:
    """A float inside a JSON-valued flag (``--speculative-config '{"x": 4.0}'``) reads back as that float
    under YAML 1.1 (PyYAML, as vLLM's ``--config`` reads it) and 1.2."""
    doc = {"speculative-config": {"x": value}, "list": [value]}
    assert yaml.safe_load(dump(doc)) == doc
    assert type(yaml.safe_load(dump(doc))["list"][0]) is float


def test_nan_reads_back_as_nan() -> None:
    assert dump({"x": float("nan")}) == "x: .nan\n"
    read = yaml.safe_load(dump({"x": float("nan")}))["x"]
    assert read != read


def test_hostile_record_values_stay_inside_their_strings() -> None:
    recipe, vocab = minimax()
    record = resolver.resolve(recipe, vocab, {"hardware": "h200"})
    payload = "x\nkind: Secret\n$(HF_TOKEN) ${HOME} $HOME"
    record["argv"] = [*record["argv"], "--chat-template", payload]
    record["env"] = {"EVIL": "a: b\n---\nkind: Pod"}
    k8s = deployment_files(record, vocab, "k8s")[0]
    docs = k8s_documents(k8s["text"])
    assert [d["kind"] for d in docs] == ["PersistentVolumeClaim", "Deployment", "Service"]
    vllm = containers(docs[1])[0]
    assert vllm["args"][-1] == payload.replace("$", "$$")  # Kubernetes reads $$ as $: no variable expands
    assert {"name": "EVIL", "value": "a: b\n---\nkind: Pod"} in vllm["env"]
    compose = yaml.safe_load(deployment_files(record, vocab, "compose")[0]["text"])
    validate_compose(compose)
    assert compose["services"]["vllm"]["command"][-1] == payload.replace("$", "$$")


@pytest.mark.parametrize(("text", "expected"), [
    ("MiniMax-M3", "minimax-m3"), ("Qwen3.5_397B", "qwen3-5-397b"), ("7b-model", "m-7b-model-"),
    ("---", "m-"), ("x" * 80, "x" * 31 + "-"),
])
def test_dns_labels(text: str, expected: str) -> None:
    label = dns_label(text)
    assert label.startswith(expected) and len(label) <= 40
    assert (label[0].isalpha() and label[-1].isalnum()
            and set(label) <= set("abcdefghijklmnopqrstuvwxyz0123456789-"))
    assert label_value("a b/c" * 30) == ("a-b-c" * 30)[:63]


@functools.cache
def corpus() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    content, _ = load_content(UPSTREAM)
    return [r.data for r in content.recipes if not resolver.is_omni(r.data)], content.vocab.resolver_vocab()


def _matches(arg: str, original: str, previous: str | None) -> bool:
    """One container arg against the record's token: equal, escaped, or a mapped placeholder/rank."""
    if arg in (original, original.replace("$", "$$")):
        return True
    if original.startswith("$") and arg.startswith("$(") and arg.endswith(")"):
        return True
    return previous in RANK_FLAGS and original.isdigit() and arg == RANK_FLAGS[previous]


def _check_args(container: dict[str, Any], argv: list[str]) -> None:
    args = container["args"]
    if container["command"][0] == "/bin/sh":  # computed --data-parallel-start-rank: appended by the command
        index = argv.index("--data-parallel-start-rank")
        argv = argv[:index] + argv[index + 2:]
        assert "--data-parallel-start-rank" in container["command"][2]
    else:
        assert container["command"] == argv[:1]
    assert len(args) == len(argv) - 1, (args, argv)
    for i, (arg, original) in enumerate(zip(args, argv[1:], strict=True)):
        assert _matches(arg, original, argv[i] if i else None), (arg, original)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.data())
def test_random_upstream_selections_give_valid_documents(rng: Any, data: st.DataObject) -> None:
    recipes, vocab = corpus()
    recipe = data.draw(st.sampled_from(recipes))
    selection = random_selection(recipe, vocab, rng)
    record = resolver.resolve(recipe, vocab, selection, with_views=False)
    if record.get("deploy_type") == "omni":
        return
    ranks = pd_ranks(recipe, vocab, selection, record)  # type: ignore[arg-type]
    files = deployment_files(record, vocab, "k8s", record.get("kv_offload"), ranks)
    docs = k8s_documents(files[0]["text"])
    assert docs == files[0]["documents"]
    heads = {"single_node": record.get("argv"), "multi_node": record.get("head_argv") or record.get("argv"),
             "kv_store_lb": record.get("vllm_argv")}  # a multi-node strategy that fits one node has one argv
    for doc in docs:
        if doc["kind"] == "LeaderWorkerSet":
            template = doc["spec"]["leaderWorkerTemplate"]
            worker = template["workerTemplate"]["spec"]["containers"][0]
            follower = record.get("worker_argvs") or record.get("vllm_worker_argvs")
            if follower:
                for argv in follower:
                    _check_args(worker, [str(t) for t in argv])
                _check_args(template["leaderTemplate"]["spec"]["containers"][0],
                            [str(t) for t in heads[record["deploy_type"]]])
        elif doc["kind"] == "Deployment" and record["deploy_type"] in heads:
            vllm = containers(doc)[0]
            if vllm["name"] == "vllm":
                _check_args(vllm, [resolver_str(t) for t in heads[record["deploy_type"]]])
    for file in deployment_files(record, vocab, "compose", record.get("kv_offload"), ranks):
        compose = yaml.safe_load(file["text"])
        assert compose == file["documents"][0]
        validate_compose(compose)
        for service in compose["services"].values():
            if service["entrypoint"] == ["vllm"]:
                assert all(arg == compose_token(arg) or "${" in arg or "$$" in arg
                           for arg in service["command"])


def resolver_str(token: Any) -> str:
    from builder.resolver.values import js_str
    return js_str(token)


def test_the_kept_validators_judge_as_kubernetes_validate_does(capsys: pytest.CaptureFixture[str]) -> None:
    """The test suite's validators, built once per kind, accept and refuse what
    ``kubernetes_validate.validate(..., strict=True)`` accepts and refuses."""
    import jsonschema
    import kubernetes_validate

    docs = [d for d in yaml.safe_load_all(cli(capsys, "--hardware", "h200", "--format", "k8s"))
            if d is not None]
    plain = [d for d in docs if d["kind"] != "LeaderWorkerSet"]
    assert {d["kind"] for d in plain} >= {"Deployment", "Service", "PersistentVolumeClaim"}
    for doc in plain:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        validate_kubernetes(doc)
        broken = {**doc, "spec": {**doc["spec"], "notAField": 1}}
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)
        with pytest.raises(jsonschema.ValidationError):
            validate_kubernetes(broken)
