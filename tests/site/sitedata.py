"""Builds the site for the browser tests: real build when available, else golden fixtures.

Until the lead's ``builder.build`` lands, the API side comes from /work/shared/golden
(the JSON API of the upstream corpus) and the content from /work/shared/upstream; the
MiniMax-M3 document is replaced by the newer seed document (presets, notes, source).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from builder.content import BuildOutput, Content, RecipeFile, Vocabulary

PROJECT = Path(__file__).resolve().parents[2]
SHARED = Path(__file__).resolve().parents[3] / "shared"
GOLDEN = SHARED / "golden"
UPSTREAM = SHARED / "upstream"
SEED = SHARED / "seed" / "MiniMax-M3.json"


def shared_available() -> bool:
    """True when the shared fixtures the tests read are present."""
    return GOLDEN.is_dir() and UPSTREAM.is_dir()


def _sorted(folder: Path) -> list[str]:
    return sorted(os.listdir(folder), key=lambda n: n.encode())


def _dates(obj: Any) -> Any:
    import datetime as dt

    if isinstance(obj, dict):
        return {str(k): _dates(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_dates(v) for v in obj]
    if isinstance(obj, (dt.date, dt.datetime)):
        return obj.strftime("%Y-%m-%d")
    return obj


def _yaml(path: Path) -> Any:
    return _dates(yaml.safe_load(path.read_text(encoding="utf-8")))


def load_vocab(root: Path = UPSTREAM) -> Vocabulary:
    """The shared vocabulary of a content root, read with yaml.safe_load."""
    strategies = {}
    for name in _sorted(root / "strategies"):
        if name.endswith(".yaml"):
            d = _yaml(root / "strategies" / name)
            strategies[d["name"]] = d
    kv = {}
    for name in _sorted(root / "kv_store"):
        if name.endswith(".yaml"):
            d = _yaml(root / "kv_store" / name)
            kv[d["name"]] = d
    platforms = _yaml(root / "platforms.yaml") if (root / "platforms.yaml").exists() else None
    return Vocabulary(_yaml(root / "taxonomy.yaml"), strategies, kv, platforms)


def load_upstream_content(root: Path = UPSTREAM) -> Content:
    """A Content from a content root, read with yaml.safe_load (no validation)."""
    vocab = load_vocab(root)
    recipes: list[RecipeFile] = []

    def walk(folder: Path, rel: str) -> None:
        for name in _sorted(folder):
            p = folder / name
            r = f"{rel}/{name}"
            if p.is_dir():
                walk(p, r)
            elif name.endswith((".yaml", ".yml")):
                parts = r.split("/")
                org, repo = parts[1], parts[-1].rsplit(".", 1)[0]
                recipes.append(RecipeFile(f"{org}/{repo}", r, _yaml(p)))

    walk(root / "models", "models")
    return Content(str(root), vocab, recipes)


def load_golden_output() -> BuildOutput:
    """The golden JSON API as a BuildOutput, MiniMax-M3 upgraded to the seed document."""
    out = BuildOutput()
    for path in GOLDEN.rglob("*.json"):
        out.files[path.relative_to(GOLDEN).as_posix()] = path.read_bytes()
    for entry in json.loads(out.files["models.json"]):
        doc = json.loads(out.files[entry["json"].lstrip("/")])
        out.documents[entry["hf_id"]] = doc
    if SEED.exists():
        seed = json.loads(SEED.read_text(encoding="utf-8"))
        out.documents[seed["hf_id"]] = seed
        out.files[f"{seed['hf_id']}.json"] = json.dumps(seed, indent=2, ensure_ascii=False).encode()
    return out


def _write(out_dir: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def build_real(root: Path, out_dir: Path) -> dict[str, Any]:
    """Run the project's build (JSON API + pages) on a content root and write it."""
    from builder.build import BuildOptions, render

    result = render(BuildOptions(content=root, out=out_dir))
    pages = {k: v for k, v in result.files.items() if k not in result.output.files}
    _write(out_dir, result.files)
    return {"content": result.content, "output": result.output, "pages": pages, "mode": f"build:{root}"}


def build_golden(out_dir: Path) -> dict[str, Any]:
    """Golden JSON API + upstream content + seed MiniMax-M3 document, rendered by render_site."""
    from builder.render import render_site

    content = load_upstream_content()
    output = load_golden_output()
    pages = render_site(content, output)
    _write(out_dir, {**output.files, **pages})
    return {"content": content, "output": output, "pages": pages, "mode": "golden"}


def build_site(out_dir: Path) -> dict[str, Any]:
    """The upstream corpus through the real build; golden fixtures when the build is unavailable."""
    try:
        import builder.build  # noqa: F401
    except ImportError:
        return build_golden(out_dir)
    return build_real(UPSTREAM, out_dir)


def ours_available() -> bool:
    """True once our own content root carries the converted MiniMax-M3 recipe."""
    return (PROJECT / "recipes" / "models" / "MiniMaxAI" / "MiniMax-M3.yaml").exists()


def build_presets_site(out_dir: Path) -> dict[str, Any]:
    """A site whose MiniMax-M3 has presets, notes and source.

    Our recipes/ through the real build once MiniMax-M3.yaml is there; until then the
    upstream MiniMax-M3 recipe rendered with the newer seed document.
    """
    if ours_available():
        return build_real(PROJECT / "recipes", out_dir)
    from builder.render import render_site

    seed = json.loads(SEED.read_text(encoding="utf-8"))
    rf = RecipeFile(seed["hf_id"], f"models/{seed['hf_id']}.yaml", _yaml(UPSTREAM / "models" / f"{seed['hf_id']}.yaml"))
    content = Content(str(UPSTREAM), load_vocab(), [rf])
    output = BuildOutput(documents={seed["hf_id"]: seed})
    bases = [seed["hf_id"]] + [
        v["json"].lstrip("/").removesuffix(".json") for v in seed["variants"].values() if v.get("json")
    ]
    for base in bases:
        for path in [GOLDEN / f"{base}.json", *(GOLDEN / base).rglob("*.json")]:
            if path.exists():
                output.files[path.relative_to(GOLDEN).as_posix()] = path.read_bytes()
        if base != seed["hf_id"] and (GOLDEN / f"{base}.json").exists():
            output.documents[base] = json.loads((GOLDEN / f"{base}.json").read_text(encoding="utf-8"))
    output.files[f"{seed['hf_id']}.json"] = json.dumps(seed, indent=2, ensure_ascii=False).encode()
    pages = render_site(content, output)
    _write(out_dir, {**output.files, **pages})
    return {"content": content, "output": output, "pages": pages, "mode": "seed"}
