"""The ``vllm bench serve`` reproducer of a predicted point: exact commands, the prompt count rule,
hostile ids (quoted and reduced to safe file names), and every flag against vLLM 0.33.0's ``bench serve``
catalogue."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from builder.checks.vllm_lint import CATALOGUE_PATH
from builder.resolver.performance.reproducer import num_prompts, reproducer, reproducer_argv
from builder.resolver.performance.workloads import WORKLOADS
from builder.resolver.ui.bench import bench_text, selected_point
from builder.resolver.ui.commands import bench_command
from tests.support.reproducers import argv_of

BENCH_CATALOGUE = CATALOGUE_PATH.with_name("vllm-0.33.0-bench-serve-flags.json")

SINGLE = {"hardware": "h200", "variant": "fp8", "strategy": "single_node_tp",
          "deploy_type": "single_node", "docker_image": "vllm/vllm-openai:latest",
          "argv": ["vllm", "serve", "Qwen/Qwen3-8B-FP8", "--tensor-parallel-size", "1"]}
ALIASED = {"hardware": "b200", "variant": "default", "strategy": "single_node_dep",
           "deploy_type": "single_node", "docker_image": None,
           "argv": ["vllm", "serve", "deepseek-ai/DeepSeek-V3", "--served-model-name", "dsv3", "extra",
                    "--port", "8011", "--tensor-parallel-size", "1", "--data-parallel-size", "8",
                    "--enable-expert-parallel"]}
MULTI = {"hardware": "gb200", "variant": "nvfp4", "strategy": "multi_node_tp", "deploy_type": "multi_node",
         "docker_image": "vllm/vllm-openai:v0.33.0", "argv": ["vllm", "serve", "unused"],
         "head_argv": ["vllm", "serve", "org/Model-NVFP4", "-tp", "4", "-pp", "2", "--port", "9000"]}


def test_a_single_node_point() -> None:
    assert reproducer("Qwen/Qwen3-8B", SINGLE, "1k/1k", 16) == """vllm bench serve \\
  --backend vllm \\
  --model Qwen/Qwen3-8B-FP8 \\
  --host localhost --port 8000 \\
  --dataset-name random --random-input-len 1024 --random-output-len 1024 \\
  --max-concurrency 16 --num-prompts 160 \\
  --ignore-eos \\
  --percentile-metrics ttft,tpot,itl,e2el \\
  --save-result --result-dir . --result-filename Qwen_Qwen3-8B__h200__fp8__single_node_tp__1k-1k__c16.json \\
  --metadata recipe=Qwen/Qwen3-8B gpu=h200 variant=fp8 strategy=single_node_tp tp=1 pp=1 dp=1 ep=1 \
image=vllm/vllm-openai:latest workload=1k/1k isl=1024 osl=1024"""


def test_the_served_name_port_and_expert_parallel_size_of_the_command() -> None:
    assert reproducer("deepseek-ai/DeepSeek-V3", ALIASED, "8k/1k", 1) == """vllm bench serve \\
  --backend vllm \\
  --model deepseek-ai/DeepSeek-V3 \\
  --served-model-name dsv3 \\
  --host localhost --port 8011 \\
  --dataset-name random --random-input-len 8192 --random-output-len 1024 \\
  --max-concurrency 1 --num-prompts 32 \\
  --ignore-eos \\
  --percentile-metrics ttft,tpot,itl,e2el \\
  --save-result --result-dir . --result-filename \
deepseek-ai_DeepSeek-V3__b200__default__single_node_dep__8k-1k__c1.json \\
  --metadata recipe=deepseek-ai/DeepSeek-V3 gpu=b200 variant=default strategy=single_node_dep \
tp=1 pp=1 dp=8 ep=8 workload=8k/1k isl=8192 osl=1024"""


def test_a_multi_node_point_measures_the_head_and_the_builder_names_the_host() -> None:
    text = reproducer("org/Model", MULTI, "1k/8k", 256, host="10.0.0.5", port="9100")
    assert text.splitlines()[2:4] == ["  --model org/Model-NVFP4 \\", "  --host 10.0.0.5 --port 9100 \\"]
    assert text.splitlines()[-1] == (
        "  --metadata recipe=org/Model gpu=gb200 variant=nvfp4 strategy=multi_node_tp "
        "tp=4 pp=2 dp=1 ep=1 image=vllm/vllm-openai:v0.33.0 workload=1k/8k isl=1024 osl=8192")
    assert "--port 9000" in reproducer("org/Model", MULTI, "1k/8k", 256)  # the head's own port by default
    assert "--num-prompts 2560" in text


@pytest.mark.parametrize(("concurrency", "prompts"), [
    (1, 32), (3, 32), (4, 40), (100, 1000), (1638, 16380), (1639, 16384), (4096, 16384)])
def test_the_prompt_count_is_ten_per_slot_at_least_32_at_most_16384(concurrency: int, prompts: int) -> None:
    assert num_prompts(concurrency) == prompts


def test_an_unknown_workload_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        reproducer("Qwen/Qwen3-8B", SINGLE, "2k/2k", 1)


HOSTILE = {"hardware": "h200; rm -rf /", "variant": "../../etc/passwd", "strategy": "-x\n$(id)",
           "deploy_type": "single_node", "docker_image": "img'; echo pwned #",
           "argv": ["vllm", "serve", "m;touch /tmp/x", "--served-model-name", "a b'c", "--port", "80 80"]}


def test_hostile_ids_are_quoted_and_the_file_name_is_safe() -> None:
    text = reproducer("evil/$(reboot)", HOSTILE, "1k/1k", 2)
    argv = reproducer_argv("evil/$(reboot)", HOSTILE, "1k/1k", 2)
    assert argv_of(text) == argv  # the shell reads exactly the argv: every token quoted
    name = argv[argv.index("--result-filename") + 1]
    assert name == "evil_-reboot-__h200-rm--rf-__etc-passwd__x-id-__1k-1k__c2.json"
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name)
    metadata = argv[argv.index("--metadata") + 1:]
    assert metadata[:4] == ["recipe=evil/-reboot-", "gpu=h200-rm--rf-/", "variant=../../etc/passwd",
                            "strategy=-x-id-"]
    assert "image=img-echo-pwned-" in metadata
    assert argv[argv.index("--model") + 1] == "m;touch /tmp/x"  # the command's own model: quoted, as it is
    assert "--model 'm;touch /tmp/x'" in text and "--served-model-name 'a b'\\''c'" in text
    assert "--port '80 80'" not in text and "--port 8000" in text  # not a port: the default


def _catalogue() -> dict[str, dict[str, Any]]:
    options = json.loads(BENCH_CATALOGUE.read_text(encoding="utf-8"))["options"]
    return {string: option for option in options for string in option["strings"]}


@pytest.mark.parametrize("record", [SINGLE, ALIASED, MULTI, HOSTILE],
                         ids=["single", "aliased", "multi", "hostile"])
def test_every_flag_is_a_bench_serve_flag_with_a_value_of_its_type(record: dict[str, Any]) -> None:
    """The catalogue tools/vllm_flags.py reads from vLLM 0.33.0 (the real parser: tests/vllm_real)."""
    flags = _catalogue()
    for workload in WORKLOADS:
        argv = reproducer_argv("org/repo", record, workload, 64)
        assert argv[:3] == ["vllm", "bench", "serve"]
        index, seen = 3, []
        while index < len(argv):
            option = flags[argv[index]]
            values = []
            index += 1
            while index < len(argv) and not argv[index].startswith("--"):
                values.append(argv[index])
                index += 1
            seen.append(option["dest"])
            if not option["value"]:
                assert values == [], option
                continue
            many = option["nargs"] in ("*", "+")
            assert len(values) >= 1 if many else len(values) == option["nargs"], option
            for value in values:
                if option["type"] == "int":
                    int(value)
                assert value in option.get("choices", [value]), option
        assert len(seen) == len(set(seen))  # no flag given twice
        assert {"max_concurrency", "num_prompts", "random_input_len", "random_output_len", "save_result",
                "result_filename", "metadata", "ignore_eos", "percentile_metrics"} <= set(seen)


BLOCK = {"predictor": {}, "workloads": {
    "1k/1k": [{"concurrency": 1}, {"concurrency": 4}],
    "8k/1k": [{"concurrency": 2}],
    "1k/8k": []}}
VLLM_TARGET = {"host_var": "VLLM_HOST", "port_var": "VLLM_PORT", "port": 8000}
ROUTER_TARGET = {"host_var": "ROUTER_HOST", "port_var": "ROUTER_PORT", "port": 30080}


@pytest.mark.parametrize(("state", "expected"), [
    ({}, ("1k/1k", 4)),  # the panel's default: the largest point up to 16
    ({"perf_workload": "1k/1k", "perf_concurrency": 4}, ("1k/1k", 4)),
    ({"perf_workload": "8k/1k", "perf_concurrency": 4}, ("8k/1k", 2)),  # not in the sweep: the first point
    ({"perf_workload": "1k/8k"}, None),  # no point
    ({"perf_workload": "<img>"}, None),
])
def test_the_bench_tab_measures_the_selected_point(state: dict[str, Any], expected: Any) -> None:
    chosen = selected_point(BLOCK, state)
    assert (chosen and (chosen[0], chosen[1]["concurrency"])) == expected
    text = bench_text("Qwen/Qwen3-8B", SINGLE, BLOCK, state, VLLM_TARGET, {}, "Qwen/Qwen3-8B-FP8")
    if expected is None:
        assert text == bench_command("localhost", 8000, "Qwen/Qwen3-8B-FP8")
    else:
        assert text == reproducer("Qwen/Qwen3-8B", SINGLE, expected[0], expected[1])


def test_the_bench_tab_without_a_prediction_is_the_bare_command() -> None:
    saved = {"VLLM_HOST": "gpu-1"}
    text = bench_text("Qwen/Qwen3-8B", SINGLE, None, {}, VLLM_TARGET, saved, "Qwen/Qwen3-8B-FP8")
    assert text == bench_command("gpu-1", 8000, "Qwen/Qwen3-8B-FP8")
    assert text.startswith("vllm bench serve --model Qwen/Qwen3-8B-FP8 \\\n  --host gpu-1 --port 8000")


def test_the_bench_tab_uses_the_env_panels_server_but_not_a_router() -> None:
    saved = {"VLLM_HOST": "10.1.2.3", "VLLM_PORT": "8123", "ROUTER_HOST": "lb", "ROUTER_PORT": "30000"}
    text = bench_text("org/Model", ALIASED, BLOCK, {}, VLLM_TARGET, saved, "deepseek-ai/DeepSeek-V3")
    assert text == reproducer("org/Model", ALIASED, "1k/1k", 4, host="10.1.2.3", port="8123")
    assert "--host 10.1.2.3 --port 8123" in text
    routed = bench_text("org/Model", ALIASED, BLOCK, {}, ROUTER_TARGET, saved, "deepseek-ai/DeepSeek-V3")
    assert "--host localhost --port 8011" in routed  # one instance, as predicted
