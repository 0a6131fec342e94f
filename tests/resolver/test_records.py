"""records.iter_commands: the one walker of the record shapes (roles, worker numbers, argv paths)."""

from __future__ import annotations

from tests.resolver.test_module import R


def _walk(record: object, aliases: bool = False) -> list[tuple[str, int, str, object]]:
    return [(c["role"], c["number"], c["path"], c["command"]) for c in R.iter_commands(record, aliases)]


def test_every_shape_in_run_order() -> None:
    multi = {"head_command": "h", "head_argv": [], "worker_command": "w1", "worker_argv": [],
             "worker_commands": ["w1", "w2"], "worker_argvs": [[], []]}
    assert _walk(multi) == [("head", 0, "head_argv", "h"), ("worker", 1, "worker_argvs[0]", "w1"),
                            ("worker", 2, "worker_argvs[1]", "w2")]
    assert _walk(multi, aliases=True)[1] == ("worker", 1, "worker_argv", "w1")
    kv = {"vllm_command": "v", "vllm_argv": [], "vllm_worker_commands": ["k1"], "vllm_worker_argvs": [[]],
          "router": {"command": "r"}}
    assert _walk(kv) == [("vllm", 0, "vllm_argv", "v"), ("vllm_worker", 1, "vllm_worker_argvs[0]", "k1"),
                         ("router", 0, "router.command", "r")]
    pd = {"prefill": {"command": "p", "env": {"A": "1"}}, "decode": {"argv": ["vllm", "serve"]}, "router": {}}
    assert _walk(pd) == [("prefill", 0, "prefill.argv", "p"), ("decode", 0, "decode.argv", None)]
    assert [c["port"] for c in R.iter_commands(pd)] == [8001, 8002]
    single = {"command": "s", "argv": [], "env": {"X": 1},
              "companions": [{"label": "L", "command": "c"}, "junk"]}
    walked = list(R.iter_commands(single))
    assert ([(c["role"], c["label"], c["env"]) for c in walked]
            == [("serve", "", {"X": 1}), ("companion", "L", None)])


def test_a_lone_worker_command_and_junk() -> None:
    assert _walk({"head_command": "h", "worker_command": "w"}) == [("head", 0, "head_argv", "h"),
                                                                   ("worker", 1, "worker_argv", "w")]
    assert _walk(["not", "a", "record"]) == [] and _walk({"env": "x", "router": "x", "prefill": 3}) == []
