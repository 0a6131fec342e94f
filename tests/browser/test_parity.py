"""Parity: random (recipe, selection) cases resolve identically in CPython and in Pyodide (Chromium)."""

from __future__ import annotations

import inspect
import json
import random
from typing import Any

from builder import resolver
from builder.resolver.ui.deploy import INSTALL_CHOICES
from tests.browser.helpers import BOOT_PYODIDE, open_builder

CASES = 320
PAGE = "/Qwen/Qwen3-8B"


def _load(files: dict[str, bytes], hf_id: str) -> dict:
    return json.loads(files[f"builder-data/{hf_id}.json"])["recipe"]


def _random_query(rng: random.Random, recipe: dict, vocab: dict) -> dict:
    tax = vocab["taxonomy"]
    q: dict[str, str] = {}
    if rng.random() < 0.6:
        q["hardware"] = rng.choice([*tax["hardware_profiles"], "nope"])
    if rng.random() < 0.4:
        q["variant"] = rng.choice([*(recipe.get("variants") or {"default": 0}), "bogus"])
    if rng.random() < 0.4:
        q["strategy"] = rng.choice([*(recipe.get("compatible_strategies") or []), "pd_cluster",
                                    "kv_store_distributed_mooncake", "x"])
    if rng.random() < 0.4:
        q["nodes"] = rng.choice(["1", "2", "3", "9", "abc"])
    feats = list(recipe.get("features") or {})
    if feats and rng.random() < 0.4:
        q["features"] = ",".join(rng.sample(feats, rng.randint(0, len(feats)))) or "none"
    if rng.random() < 0.3:
        q["kv_offload"] = rng.choice([*tax.get("kv_offload", {}), "kv_store_distributed_mooncake",
                                      "kv_store_centralized_mooncake", "off"])
        q["kv_instances"] = rng.choice(["1", "2", "3", "40"])
    if rng.random() < 0.2:
        q["advanced"] = ",".join(
            rng.sample(["max_batched_8k", "gpu_mem_095", "ep_weight_filter", "dcp_8"], 2))
    if rng.random() < 0.2:
        q["install"] = rng.choice(INSTALL_CHOICES)
        q["cuda"] = rng.choice(["default", "cu129"])
    if rng.random() < 0.15:
        q.update(prefill_nodes=rng.choice(["1", "2", "20"]), decode_mode=rng.choice(["tp", "dep", "zz"]))
    omni = (recipe.get("omni") or {}).get("tasks") or []
    if omni and rng.random() < 0.5:
        t = rng.choice(omni)
        q["task"] = t.get("key") or t.get("id") if isinstance(t, dict) else t
    return q


def _random_event(rng: random.Random, view: dict) -> dict:
    rows = [r for r in view["rows"] if r["pills"] or r["kind"] in ("number", "pool")]
    row = rng.choice(rows)
    kinds = {"features": "feature", "kv_offload": "kv_offload", "kv_member": "kv_member",
             "topology": "topology",
             "advanced": "advanced", "hardware": "hardware", "variant": "variant", "strategy": "strategy",
             "nodes": "nodes", "task": "task"}
    if row["kind"] == "number":
        return {"type": "kv_instances", "value": rng.choice([1, 2, 5, "x"])}
    if row["kind"] == "pool":
        return {"type": rng.choice(["pool_nodes", "pool_rank"]), "role": row["role"],
                "value": rng.randint(1, 4)}
    value = rng.choice(row["pills"])["value"]
    if row["id"].startswith("mode_"):
        return {"type": "mode", "feature": row["feature"], "value": value}
    if row["id"].startswith("axis_"):
        return {"type": "axis", "axis": row["axis"], "value": value}
    return {"type": kinds.get(row["id"], "refresh"), "value": value}


def _cases(files: dict[str, bytes], vocab: dict, hf_ids: list[str]) -> list[dict]:
    rng = random.Random(20261201)
    out = []
    while len(out) < CASES:
        hf_id = rng.choice(hf_ids)
        recipe = _load(files, hf_id)
        query = _random_query(rng, recipe, vocab)
        if rng.random() < 0.5:
            out.append({"hfId": hf_id, "state": query, "event": None})
            continue
        first = resolver.builder_state(recipe, vocab, query)
        state = {**first["state"], "_endpoints": {"HEAD_IP": "10.0.0.1"} if rng.random() < 0.2 else {}}
        out.append({"hfId": hf_id, "state": state, "event": _random_event(rng, first)})
        if rng.random() < 0.2 and first.get("presets"):
            p = rng.choice(first["presets"])
            out.append(
                {"hfId": hf_id, "state": first["state"], "event": {"type": "preset", "value": p["key"]}})
    return out


def test_cpython_and_pyodide_agree(builder_site: dict[str, Any], page: Any) -> None:
    files = builder_site["files"]
    vocab = json.loads(files["builder-data/vocab.json"])
    hf_ids = sorted(rf.hf_id for rf in builder_site["content"].recipes)
    cases = _cases(files, vocab, hf_ids)
    open_builder(page, PAGE)
    recipes = {c["hfId"]: files[f"builder-data/{c['hfId']}.json"].decode() for c in cases}
    got = page.evaluate(
        """async (text) => {
            const {cases, recipes} = JSON.parse(text);
            const sent = new Set();
            const out = [];
            for (const c of cases) {
              const msg = {hfId: "parity:" + c.hfId, state: c.state, event: c.event};
              if (!sent.has(c.hfId)) {
                msg.recipe = JSON.stringify(JSON.parse(recipes[c.hfId]).recipe);
                sent.add(c.hfId);
              }
              out.push((await window.vllmBuilder.request(msg)).view);
            }
            return out;
        }""",
        json.dumps({"cases": cases, "recipes": recipes}),  # one text: Playwright's per-value encoding is slow
    )
    assert len(got) == len(cases) >= 300
    mismatches = []
    for case, text in zip(cases, got, strict=True):
        want = json.loads(json.dumps(resolver.builder_state(_load(files, case["hfId"]), vocab, case["state"],
                                                            case["event"]), ensure_ascii=False))
        if json.loads(text) != want:
            mismatches.append(case)
    assert not mismatches, f"{len(mismatches)} of {len(cases)} cases differ, first: {mismatches[0]}"


def test_fixture_cases_agree_in_pyodide(builder_site: dict[str, Any], page: Any) -> None:
    """Every tests/resolver/fixtures case through the page's own Pyodide resolver (its code zip)."""
    from tests.resolver.resolver_fixtures import case_inputs, load_cases, mismatches, resolve_with

    cases = load_cases()
    inputs = [dict(zip(("recipe", "vocab"), case_inputs(case), strict=True), selection=case["selection"])
              for case in cases]
    open_builder(page, PAGE)
    source, text = page.evaluate(
        """async (casesText) => {
            const { pyodide: base, resolver: code } = document.querySelector("#builder").dataset;
            BOOT_PYODIDE
            const py = await bootPyodide(base, code);
            py.runPython("import json; import resolver");
            py.runPython(PRESET_OR_RESOLVE);
            const run = py.runPython(
                "lambda text: json.dumps([resolve_with(resolver, c['recipe'], c['vocab'], "
                + "c['selection']) for c in json.loads(text)], ensure_ascii=False)");
            return [py.runPython("resolver.__file__"), run(casesText)];
        }""".replace("BOOT_PYODIDE", BOOT_PYODIDE).replace("PRESET_OR_RESOLVE", json.dumps(
            "from typing import Any\n" + inspect.getsource(resolve_with))),  # the very function CPython uses
        json.dumps(inputs),  # the cases' JSON text, handed to Python as it is
    )
    assert source == "/home/pyodide/code.zip/resolver/__init__.pyc"  # the published, byte-compiled code
    records = json.loads(text)
    assert len(records) == len(cases) >= 30
    for case, given, record in zip(cases, inputs, records, strict=True):
        want = json.loads(
            json.dumps(resolve_with(resolver, given["recipe"], given["vocab"], given["selection"]),
                       ensure_ascii=False))
        assert record == want, case["name"]
        assert mismatches(case, record) == [], case["name"]


def test_performance_cases_agree_in_pyodide(builder_site: dict[str, Any], page: Any) -> None:
    """The Performance panel's cases of tests/resolver/test_performance_view.py (the view's performance
    section, the workload, price and point events, Pick for me) with the recipes' stored predictions,
    which the worker loads as it loads them from builder-data/<hf_id>.performance.json."""
    from tests.resolver.test_performance_view import PERF_CASES, predictions

    files = builder_site["files"]
    vocab = json.loads(files["builder-data/vocab.json"])
    cases = []
    for hf_id, query, event in PERF_CASES:
        recipe = _load(files, hf_id)
        state = query if event is None else resolver.builder_state(recipe, vocab, query,
                                                                   predictions=predictions(hf_id))["state"]
        cases.append({"hfId": hf_id, "state": state, "event": event})
    data = {hf: [json.dumps(_load(files, hf)), json.dumps(predictions(hf))]
            for hf in {c["hfId"] for c in cases}}
    open_builder(page, PAGE)
    got = page.evaluate(
        """async (text) => {
            const {cases, data} = JSON.parse(text);
            const sent = new Set();
            const out = [];
            for (const c of cases) {
              const msg = {hfId: "perf:" + c.hfId, state: c.state, event: c.event};
              if (!sent.has(c.hfId)) { [msg.recipe, msg.predictions] = data[c.hfId]; sent.add(c.hfId); }
              out.push((await window.vllmBuilder.request(msg)).view);
            }
            return out;
        }""",
        json.dumps({"cases": cases, "data": data}),
    )
    assert len(got) == len(cases) == len(PERF_CASES)
    for case, text in zip(cases, got, strict=True):
        want = resolver.builder_state(_load(files, case["hfId"]), vocab, case["state"], case["event"],
                                      predictions=predictions(case["hfId"]))
        view = json.loads(text)
        assert view["performance"]["status"] != "loading", case
        assert view == json.loads(json.dumps(want, ensure_ascii=False)), case
