"""Our build of ../shared/upstream reproduces every file of ../shared/golden."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from tests.support.paths import GOLDEN

CATALOGUES = {"taxonomy.json", "platforms.json", "strategies.json", "kv_store.json", "models.json"}


def kind_of(rel: str) -> str:
    """catalogue, recipe document, per-hardware or per-strategy."""
    parts = rel.split("/")
    if rel in CATALOGUES or parts[0] in ("strategies", "kv_store") and len(parts) == 2:
        return "catalogue"
    if "strategies" in parts[2:]:
        return "per-strategy"
    if len(parts) >= 4 and parts[-2] == "hw":
        return "per-hardware"
    return "recipe document"


def mismatch(golden: Any, ours: Any, path: str = "$") -> str | None:
    """The first difference: golden keys present, equal and in the same relative order; lists equal."""
    if isinstance(golden, dict):
        if not isinstance(ours, dict):
            return f"{path}: expected an object"
        for key in golden:
            if key not in ours:
                return f"{path}.{key}: missing"
            found = mismatch(golden[key], ours[key], f"{path}.{key}")
            if found:
                return found
        order = [k for k in ours if k in golden]
        if order != list(golden):
            return f"{path}: key order {order} != {list(golden)}"
        return None
    if isinstance(golden, list):
        if not isinstance(ours, list) or len(ours) != len(golden):
            return f"{path}: list differs"
        for i, (g, o) in enumerate(zip(golden, ours, strict=True)):
            if g != o or type(g) is not type(o):
                return mismatch(g, o, f"{path}[{i}]") or f"{path}[{i}]: differs"
        return None
    if golden != ours or type(golden) is not type(ours):
        return f"{path}: {ours!r} != {golden!r}"
    return None


def test_golden_files_match(upstream_site: Path, run_summary: list[str]) -> None:
    """Every golden file is reproduced; prints ``golden: N/13654 match`` with counts per kind."""
    golden_files = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.json"))
    totals: Counter[str] = Counter()
    matched: Counter[str] = Counter()
    failures: list[str] = []
    for rel in golden_files:
        kind = kind_of(rel)
        totals[kind] += 1
        ours_path = upstream_site / rel
        if not ours_path.is_file():
            failures.append(f"{rel}: not written")
            continue
        golden = orjson.loads((GOLDEN / rel).read_bytes())  # UTF-8 JSON, as json.loads reads it (4x faster)
        ours = orjson.loads(ours_path.read_bytes())
        problem = mismatch(golden, ours)
        if problem:
            failures.append(f"{rel}: {problem}")
        else:
            matched[kind] += 1
    per_kind = ", ".join(f"{k} {matched[k]}/{totals[k]}" for k in sorted(totals))
    run_summary.append(f"golden: {sum(matched.values())}/{len(golden_files)} match ({per_kind})")
    assert not failures, f"{len(failures)} golden files differ, first ones:\n" + "\n".join(failures[:20])


def test_no_extra_api_files(upstream_site: Path) -> None:
    """The build writes no API file that the reference does not have, presets and the vLLM config files aside:
    ``/<base>/vllm-config.json`` of every base with per-hardware records (tests/api/test_deploy_forms.py)."""
    golden = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.json")}
    tops = {rel.split("/")[0] for rel in golden}
    ours = {
        p.relative_to(upstream_site).as_posix()
        for top in tops
        for p in ([upstream_site / top] if top.endswith(".json") else (upstream_site / top).rglob("*.json"))
        if p.is_file()
    }
    extra = sorted(rel for rel in ours - golden if "/presets/" not in rel)
    bases = {rel.rsplit("/hw/", 1)[0] for rel in golden if kind_of(rel) == "per-hardware"}
    assert extra == sorted(f"{base}/vllm-config.json" for base in bases)
