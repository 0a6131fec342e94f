"""json-api §11.7 presets and §11.2 notes on the MiniMax-M3 recipe of this project (recipes/models/...)."""

from __future__ import annotations

import copy

import pytest

from tests.resolver.test_module import R, project_recipe, project_vocab

HF_ID = "MiniMaxAI/MiniMax-M3"


def minimax() -> dict:
    return project_recipe(HF_ID)


# The records of six points (argv, env, image, strategy, nodes): tests/resolver/fixtures/pr-*.yaml


def test_point_commands_docker_and_env_agree() -> None:
    """Every point's command is its argv's text, and its docker command runs that image with that env."""
    presets = minimax()["presets"]
    for preset in presets:
        out = R.resolve_preset(minimax(), project_vocab(), preset)
        assert out["warnings"] == [] and list(out["points"]) == list(presets[preset]["points"])
        for rec in out["points"].values():
            single = rec["deploy_type"] == "single_node"
            argv = rec["argv"] if single else rec["head_argv"]
            assert (rec["command"] if single else rec["head_command"]) == R.format_command(argv[2], argv[3:])
            docker = rec["docker_command"] if single else rec["head_docker_command"]
            assert f"\n  {rec['docker_image']} {argv[2]} \\\n" in docker
            assert all(f"\n  -e {k}={v} \\\n" in docker for k, v in rec["env"].items())


def test_point_record_shape() -> None:
    rec = R.resolve_preset(minimax(), project_vocab(), "h200_agentx")["points"]["c1"]
    assert list(rec) == ["label", "concurrency", "hardware", "strategy", "variant", "node_count",
                         "deploy_type", "env",
                         "docker_image", "command", "argv", "docker_command", "docker_argv"]
    assert (rec["label"], rec["concurrency"]) == ("1", 1)
    assert list(R.resolve_preset(minimax(), project_vocab(), "h200_agentx")["points"]) == list(
        minimax()["presets"]["h200_agentx"]["points"])


def test_multi_node_point_post_processes_every_worker() -> None:
    rec = R.resolve_preset(minimax(), project_vocab(), "gb200_agentx_tp8")["points"]["tp8_c1"]
    assert rec["deploy_type"] == "multi_node" and rec["node_count"] == 2
    head, worker = rec["head_argv"], rec["worker_argv"]
    assert worker[worker.index("--node-rank") + 1] == "1" and "--headless" in worker
    assert [t for t in worker if t not in ("--headless",)] == [t if t != "0" else "1" for t in head]
    assert rec["worker_argvs"] == [worker] and rec["worker_commands"] == [rec["worker_command"]]
    assert worker[-2:] == head[-2:]


class TestPostProcessing:
    def test_remove_args_drops_flag_and_value(self) -> None:
        tokens = ["--a", "1", "--b", "--c", "x", "pos"]
        assert R._postprocess_tokens(tokens, ["--a", "--b"], {}) == ["--c", "x", "pos"]

    def test_json_patch_in_place_and_appended(self) -> None:
        tokens = ["--cfg", '{"a": 1, "b": {"c": 2, "d": 3}, "e": "é"}', "--bare", "--z", "1"]
        patches = {"--cfg": {"b": {"c": None, "x": 9}, "a": [1, 2], "n": None},
                   "--bare": {"k": None, "v": True}, "--new": {"q": {"r": None, "s": 1}}}
        assert R._postprocess_tokens(tokens, [], patches) == [
            "--cfg", '{"a":[1,2],"b":{"d":3,"x":9},"e":"é"}', "--z", "1", "--bare", '{"v":true}',
            "--new", '{"q":{"s":1}}']

    def test_unparsable_target_raises(self) -> None:
        with pytest.raises(R.PresetError):
            R._postprocess_tokens(["--cfg", "fast"], [], {"--cfg": {"a": 1}})


class TestValidation:
    def test_project_recipe_is_valid(self) -> None:
        assert R.validate_presets(minimax(), project_vocab()) == []

    def test_problems_are_reported_with_paths(self) -> None:
        doc = copy.deepcopy(minimax())
        doc["presets"] = {
            "bad": {"hardware": "h999", "strategy": "pd_cluster", "variants": ["nope"],
                    "select": {"features": {"ghost": True, "spec_decoding": "mtp"}},
                    "json_args": {"--x": 5}, "points": {}},
            "bad_target": {"hardware": "h200", "strategy": "single_node_tp", "variants": ["default"],
                           "args": ["--cfg", "fast"], "points": {"p": {"json_args": {"--cfg": {"a": 1}}}}},
        }
        problems = R.validate_presets(doc, project_vocab())
        assert [path for path, _ in problems] == [
            "presets.bad.hardware", "presets.bad.strategy", "presets.bad.variants[0]", "presets.bad.points",
            "presets.bad.select.features.ghost", "presets.bad.select.features.spec_decoding",
            "presets.bad.json_args.--x", "presets.bad_target.points.p.json_args"]
        assert "'h999'" in problems[0][1] and "'mtp'" in problems[5][1]

    def test_failing_point_becomes_warning(self) -> None:
        doc = copy.deepcopy(minimax())
        doc["presets"]["h200_agentx"]["points"]["c1"]["json_args"] = {"--block-size": {"a": 1}}
        out = R.resolve_preset(doc, project_vocab(), "h200_agentx")
        assert "c1" not in out["points"] and "c2" in out["points"]
        assert len(out["warnings"]) == 1 and "MiniMaxAI/MiniMax-M3" in out["warnings"][0]
        assert "--block-size" in out["warnings"][0]


class TestNotes:
    def test_hardware_condition(self) -> None:
        doc = minimax()
        assert [n["title"] for n in R.applicable_notes(doc, {"hardware": "gb200"})] == [
            n["title"] for n in doc["notes"] if "gb200" in n["when"]["hardware"]]
        assert R.applicable_notes(doc, {"hardware": "mi300x"}) == [
            n for n in doc["notes"] if "mi300x" in n["when"]["hardware"]]

    def test_all_given_lists_must_match(self) -> None:
        doc = {"notes": [{"title": "a", "when": {"hardware": ["h200"], "variant": ["fp8"]}},
                         {"title": "b", "when": {"strategy": ["single_node_tp"]}},
                         {"title": "c"}]}
        titles = lambda sel: [n["title"] for n in R.applicable_notes(doc, sel)]  # noqa: E731
        assert titles({"hardware": "h200", "variant": "fp8", "strategy": "single_node_tp"}) == ["a", "b", "c"]
        assert titles({"hardware": "h200", "variant": "default", "strategy": "multi_node_tp"}) == ["c"]
        assert titles({"hardware": "h200"}) == ["c"]
