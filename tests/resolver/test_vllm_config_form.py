"""The ``vllm-config`` deployment form (vLLM's ``vllm serve MODEL --config FILE``): what goes in the file and
what stays on the command line, the files of single-node, multi-node and prefill/decode records, and the
registry every output form comes from. ``make test-vllm`` parses every golden argv in this form with vLLM's
own ``--config`` handling (tests/vllm_real/test_real_parser.py)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from builder import resolver
from builder.cli.main import main
from builder.content.loader import load_content
from builder.resolver.deploy import (
    DEPLOY_FORMATS,
    FORMATS,
    deploy_format,
    deployment_files,
    deployment_output,
)
from builder.resolver.deploy.vllm_config import split_argv
from builder.resolver.ui.deploy import INSTALL_CHOICES
from tests.support.paths import RECIPES, UPSTREAM, need_shared


@pytest.mark.parametrize(("tail", "config", "cli"), [
    (["--tensor-parallel-size", "8"], {"tensor-parallel-size": 8}, []),
    (["--enable-expert-parallel"], {"enable-expert-parallel": True}, []),
    (["--no-enable-prefix-caching"], {"no-enable-prefix-caching": True}, []),
    (["--gpu-memory-utilization", "0.90"], {"gpu-memory-utilization": "0.90"}, []),
    (["--max-model-len", "08"], {"max-model-len": "08"}, []),
    (["--served-model-name", "a", "b"], {"served-model-name": ["a", "b"]}, []),
    (["--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1}'],
     {"speculative-config": {"method": "mtp", "num_speculative_tokens": 1}}, []),
    (["--override-generation-config", "[1, 2]"], {"override-generation-config": "[1, 2]"}, []),
    (["--attention-config.backend", "FLASHINFER"], {"attention-config.backend": "FLASHINFER"}, []),
    (["--kernel-config.enable_flashinfer_autotune=False"],
     {"kernel-config.enable_flashinfer_autotune": "False"}, []),
    (["--master-addr", "$HEAD_IP", "--nnodes", "2"], {"nnodes": 2}, ["--master-addr", "$HEAD_IP"]),
    (["-tp", "8"], {}, ["-tp", "8"]),
    (["-O3"], {}, ["-O3"]),
    (["--port", "8000", "--port", "8001"], {}, ["--port", "8000", "--port", "8001"]),
    (["--enforce-eager", "True"], {"enforce-eager": "True"}, []),
])
def test_what_the_file_holds_and_what_stays_on_the_command_line(tail: list[str], config: dict[str, Any],
                                                                 cli: list[str]) -> None:
    assert split_argv(["vllm", "serve", "org/model", *tail]) == (config, cli)


def minimax() -> tuple[dict[str, Any], dict[str, Any]]:
    content, _ = load_content(RECIPES)
    recipe = next(r.data for r in content.recipes if r.hf_id == "MiniMaxAI/MiniMax-M3")
    return recipe, content.vocab.resolver_vocab()


def test_single_node_is_one_file_without_environment(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", "MiniMaxAI/MiniMax-M3", "--hardware", "h200", "--format", "vllm-config"]) == 0
    assert capsys.readouterr().out == (
        "# vllm serve MiniMaxAI/MiniMax-M3 --config minimax-m3.yaml\n"
        "block-size: 128\n"
        "max-model-len: 65536\n"
        "tensor-parallel-size: 8\n"
        "tool-call-parser: minimax_m3\n"
        "enable-auto-tool-choice: true\n"
        "reasoning-parser: minimax_m3\n"
    )


def test_the_file_reads_back_as_the_record_argv() -> None:
    recipe, vocab = minimax()
    record = resolver.resolve(recipe, vocab, {"hardware": "h200"})
    (file,) = deployment_files(record, vocab, "vllm-config")
    loaded = yaml.safe_load(file["text"])
    rebuilt = ["vllm", "serve", "MiniMaxAI/MiniMax-M3"]
    for key, value in loaded.items():
        rebuilt += [f"--{key}"] if value is True else [f"--{key}", str(value)]
    assert rebuilt == record["argv"]
    assert file["apply"] == "vllm serve MiniMaxAI/MiniMax-M3 --config minimax-m3.yaml"


def upstream_record(hf_id: str, selection: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any],
                                                                    dict[str, Any]]:
    need_shared()
    content, _ = load_content(UPSTREAM)
    recipe = next(r.data for r in content.recipes if r.hf_id == hf_id)
    vocab = content.vocab.resolver_vocab()
    return resolver.resolve(recipe, vocab, selection), vocab, recipe


def test_multi_node_has_a_file_and_an_env_file_per_node() -> None:
    record, vocab, _ = upstream_record("Qwen/Qwen3-32B",
                                       {"hardware": "h100", "strategy": "multi_node_tp", "nodes": 2})
    files = deployment_files(record, vocab, "vllm-config")
    assert [f["filename"] for f in files] == ["qwen3-32b-node-0.yaml", "qwen3-32b-node-0.env",
                                              "qwen3-32b-node-1.yaml", "qwen3-32b-node-1.env"]
    assert files[2]["apply"] == ("set -a && . ./qwen3-32b-node-1.env && set +a && "
                                 "vllm serve Qwen/Qwen3-32B --config qwen3-32b-node-1.yaml --master-addr "
                                 "$HEAD_IP")
    assert (yaml.safe_load(files[2]["text"])["node-rank"] == 1
            and yaml.safe_load(files[2]["text"])["headless"] is True)
    assert files[1]["text"] == "GLOO_SOCKET_IFNAME=$IFACE_NAME\nNCCL_SOCKET_IFNAME=$IFACE_NAME\n"
    assert files[1]["apply"] == ""


def test_prefill_decode_names_the_router_it_does_not_start() -> None:
    record, vocab, recipe = upstream_record("deepseek-ai/DeepSeek-V3.2",
                                            {"hardware": "h200", "strategy": "pd_cluster"})
    ranks = resolver.deploy.pd_ranks(recipe, vocab, {"hardware": "h200", "strategy": "pd_cluster"}, record)
    out = deployment_output(record, vocab, "vllm-config", ranks)
    assert out["reason"] is None
    assert [f["filename"] for f in out["files"]] == ["deepseek-v3-2-prefill.yaml",
                                                     "deepseek-v3-2-prefill.env",
                                                     "deepseek-v3-2-decode.yaml", "deepseek-v3-2-decode.env"]
    assert ("# router: not a vllm serve process; start it with the shell form's command\n"
            in out["files"][0]["text"])
    assert yaml.safe_load(out["files"][0]["text"])["kv-transfer-config"]["kv_role"] == "kv_producer"


def test_the_registry_names_every_form_once() -> None:
    assert FORMATS == ("k8s", "compose", "vllm-config")
    assert INSTALL_CHOICES == ("pip", "docker", *FORMATS)
    assert (len({f.name for f in DEPLOY_FORMATS}) == len({f.label for f in DEPLOY_FORMATS})
            == len(DEPLOY_FORMATS))
    with pytest.raises(ValueError) as caught:
        deploy_format("helm")
    assert str(caught.value) == "unknown deployment format 'helm' (one of k8s, compose, vllm-config)"


def test_the_builder_shows_the_form_as_a_tab() -> None:
    recipe, vocab = minimax()
    view = resolver.builder_state({**recipe, "hf_id": "MiniMaxAI/MiniMax-M3"}, vocab,
                                  {"install": "vllm-config"})
    tab = next(t for t in view["install"]["tabs"] if t["id"] == "vllm-config")
    assert tab["label"] == "vLLM config" and view["install"]["active"] == "vllm-config"
    assert tab["command"] == "vllm serve MiniMaxAI/MiniMax-M3 --config minimax-m3.yaml"
    assert tab["note"] == "Download minimax-m3.yaml below, then start it."
    assert (view["deploy"]["format"] == "vllm-config"
            and view["deploy"]["files"][0]["filename"] == "minimax-m3.yaml")
