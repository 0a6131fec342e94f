"""Builder command tabs, curl and bench text of the view."""

from __future__ import annotations

import json
import re
from collections.abc import Hashable
from typing import Any

from ..hardware import gpu_count_of
from ..memory.memo import content_key
from ..shell import quote_value
from ..tabs import POOL_TAB_ROLES, builder_tabs
from ..topologies.mooncake import mooncake_parts
from ..values import as_dict, get_key, js_str, truthy
from .facts import BuilderFacts

PLACEHOLDER = re.compile(r"\$([A-Z_][A-Z0-9_]*)")


def substitute_endpoints(text: Any, values: dict[str, Any]) -> Any:
    """POP-07: replace ``$NAME`` (whole identifiers only) by saved non-empty values, in commands only:
    ``#`` comment lines are prose about the placeholder and keep its name."""
    if not isinstance(text, str) or not values:
        return text

    def line_of(line: str) -> str:
        if line.lstrip().startswith("#"):
            return line
        return PLACEHOLDER.sub(lambda m: js_str(values[m.group(1)]) if truthy(values.get(m.group(1)))
                               else m.group(0), line)
    return "\n".join(line_of(line) for line in text.split("\n"))


def curl_command(host: str, port: Any, model: str) -> str:
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 32},
                      ensure_ascii=False)
    return (f"curl -X POST http://{host}:{js_str(port)}/v1/chat/completions \\\n"
            f"  -H \"Content-Type: application/json\" \\\n  -d {quote_value(body)}")


def bench_command(host: str, port: Any, model: str) -> str:
    return " \\\n  ".join(
        [f"vllm bench serve --model {quote_value(model)}", f"--host {host} --port {js_str(port)}",
        "--dataset-name random --random-input-len 1024 --random-output-len 1024",
        "--num-prompts 100 --max-concurrency 32"])


def _pool_comment(role: dict[str, Any], g: int) -> str:
    n = max(1, role.get("nodes") or 1)
    mode = js_str(role.get("parallelism")).upper()
    text = f"# {n} node{'s' if n > 1 else ''} × {g} GPU = {n * g} GPU · {mode}"
    if role.get("parallelism") == "dep":
        text += f" (DP size {js_str(role.get('dpSize'))}, {js_str(role.get('dpLocal'))} local ranks per node)"
    if n > 1:
        cur = role.get("currentNode") or 0
        rank = (f"start rank {js_str(role.get('startRank'))}" if role.get("parallelism") == "dep"
                else f"node rank {cur}")
        text += (f"\n# Node {cur + 1} of {n}: {rank}, "
                 + ("head (serves HTTP)" if cur == 0 else "headless follower"))
    return text


MULTI_NODE_FOOTER = ("# Set $HEAD_IP to the rank-0 node's IP before launch, then run each tab on "
                     "its own node —\n# they differ only by --node-rank (TP/TEP) or "
                     "--data-parallel-start-rank (DEP).")

_CONFIG_NOTE = {
    True: "# Run once on every node (instances + store node) before the steps to the right — they read these "
          "files via $MOONCAKE_CONFIG_PATH / $MOONCAKE_STORE_CONFIG_PATH.",
    False: "# Run once on every instance node before the steps to the right — it reads this file via "
           "$MOONCAKE_CONFIG_PATH.",
}


def _requires(note: str, install: Any) -> str:
    """A comment line naming what a tab's process needs installed (the Mooncake transfer engine)."""
    return f"{note} Requires: {js_str(install)}" if truthy(install) else note


Tabs = tuple[list[dict[str, Any]], bool]


def command_tabs(facts: BuilderFacts, state: dict[str, Any], record: dict[str, Any], kv: str | None,
                 docker: bool, endpoints: dict[str, Any], selected: Hashable = None) -> Tabs:
    """CMD-11..15: the tab strip with displayed text and exact copy text, and whether its tabs are
    numbered steps (companions or Mooncake helpers first: a new strip opens on its first tab).
    ``selected``: the content (``content_key``) of the selection ``record`` resolves, by which the tabs
    are recalled with the other arguments (None: not recalled)."""
    values = content_key(endpoints)
    if selected is not None and values is not None and (kv is None or type(kv) is str):
        return facts.recall(("command_tabs", selected, kv, docker, values),
                            lambda: _command_tabs(facts, state, record, kv, docker, endpoints), _copy_tabs)
    return _command_tabs(facts, state, record, kv, docker, endpoints)


def _copy_tabs(tabs: Tabs) -> Tabs:
    """A copy of the tabs their caller may change (it adds each tab's ``inputs``)."""
    return [dict(tab) for tab in tabs[0]], tabs[1]


def _command_tabs(facts: BuilderFacts, state: dict[str, Any], record: dict[str, Any], kv: str | None,
                  docker: bool, endpoints: dict[str, Any]) -> Tabs:
    raw = builder_tabs(record, facts.vocab, kv if kv in facts.kv_ids else None, "docker" if docker else "pip")
    deploy = record["deploy_type"]
    g = gpu_count_of(facts.profile(state["hardware"]))
    helpers = {"Mooncake Config", "Mooncake Master", "Mooncake Store"}
    companions = {c["label"]: c for c in record.get("companions") or []}
    serve = [t for t in raw if t["label"] not in companions]
    ordered = [t for t in raw if t["label"] in companions] + serve if companions else raw
    numbered = bool(companions) or any(t["label"] in helpers for t in raw)
    routed = any(t["label"] == "Router" for t in raw)
    out = []
    for i, t in enumerate(ordered):
        label = t["label"]
        kind = ("companion" if label in companions else "helper" if label in helpers
                else "router" if label == "Router" else "serve")
        notes: list[str] = []
        if kind == "companion" and companions[label].get("description"):
            notes.append(f"# {companions[label]['description']}")
        if label == "Mooncake Config":
            notes.append(_CONFIG_NOTE["$MOONCAKE_STORE_CONFIG_PATH" in t["command"]])
        if kind == "helper":
            parts = mooncake_parts(as_dict(get_key(facts.strategies, kv)))
            if label == "Mooncake Master" and parts["master"]["description"]:
                notes += [f"# {x}" for x in parts["master"]["description"].rstrip().split("\n")]
            if label == "Mooncake Store" and parts["store"] and parts["store"]["description"]:
                notes += [f"# {x}" for x in parts["store"]["description"].rstrip().split("\n")]
        if kind == "router" and deploy == "pd_cluster":
            notes.append(f"# Install: {record['router']['install']}")
        if kind == "router" and deploy == "kv_store_lb" and record.get("router"):
            notes.append(f"# LB across {record['instances']} vLLM instances. Install: "
                         f"{record['router'].get('install')}")
        if kind == "serve" and deploy == "kv_store_lb":
            notes.append(_requires("# One per instance node.", record.get("vllm_install")))
        if deploy == "pd_cluster" and label in POOL_TAB_ROLES:
            notes.append(_pool_comment(record[POOL_TAB_ROLES[label]], g))
            if get_key(record.get("mooncake"), "install"):  # the pools' MultiConnector loads Mooncake's store
                notes.append(_requires("# Mooncake store connector.", record["mooncake"]["install"]))
        if deploy == "kv_store_lb" and kind == "serve" and (record.get("instances") or 1) > 1:
            cur = (record.get("current_instance") or 0) + 1
            notes.append(f"# Instance {cur} of {record['instances']}: runs on $VLLM_INSTANCE_{cur}")
        use_docker = docker and "docker" in t
        prelude = ("" if use_docker or t["env"] is None or kind != "serve"
                   else t["pip"][: -len(t["command"])].rstrip("\n"))
        body = t["docker"] if use_docker else t["command"]
        if deploy == "multi_node" or (deploy == "kv_store_lb" and record.get("vllm_worker_commands")):
            if kind == "serve":
                body += "\n" + MULTI_NODE_FOOTER
        # a tab's comment lines come first, above its export lines when it has some
        if prelude:
            prelude, command = "\n".join([*notes, prelude]), body
        else:
            command = "\n".join([*notes, body])
        prelude, command = substitute_endpoints(prelude, endpoints), substitute_endpoints(command, endpoints)
        client = (kind == "router") if routed else (kind == "serve" and label in ("vLLM Serve", "Head"))
        out.append({"id": f"tab-{i}", "label": f"{i + 1}· {label}" if numbered else label, "name": label,
                    "kind": kind, "prelude": prelude, "command": command,
                    "copy": f"{prelude}\n\n{command}" if prelude else command, "client": client})
    return out, numbered
