"""``/<base>/vllm-config.json``: vLLM's config-file form of every per-hardware record of a base, the same
text ``resolve --format vllm-config`` prints, linked from the recipe page and llms.txt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from builder import resolver
from builder.api.deploy_forms import API_FORMS, form_entry
from builder.api.form_schema import FORM_SCHEMA_PATH, form_schema
from builder.cli.resolve import Choice, resolve_command
from builder.content.loader import load_content
from builder.content.model import Content
from builder.resolver.deploy import deployment_output, deployment_text
from tests.support.described import undescribed_properties
from tests.support.paths import RECIPES, UPSTREAM, need_shared

FORM = "vllm-config"


def expected_forms(site: Path) -> dict[str, dict[str, str]]:
    """``<base>/vllm-config.json`` -> its ``by_hardware`` links, for every document of ``/models.json`` with a
    ``recommended_command``."""
    out: dict[str, dict[str, str]] = {}
    for entry in json.loads((site / "models.json").read_bytes()):
        doc = json.loads((site / f"{entry['hf_id']}.json").read_bytes())
        if "recommended_command" in doc:
            out[f"{entry['hf_id']}/{FORM}.json"] = doc["recommended_command"]["by_hardware"]
    return out


def published(site: Path) -> dict[str, Any]:
    return {p.relative_to(site).as_posix(): json.loads(p.read_bytes()) for p in site.rglob(f"{FORM}.json")}


def check_documents(site: Path) -> dict[str, Any]:
    """Every base with records has its document, no other exists, and each names the base's records in the
    order of ``by_hardware``, each with files; the documents."""
    expected, docs = expected_forms(site), published(site)
    assert sorted(docs) == sorted(expected)
    schema = json.loads((site / FORM_SCHEMA_PATH).read_bytes())
    assert schema == form_schema()
    validator = Draft202012Validator(schema)
    for path, doc in docs.items():
        assert list(validator.iter_errors(doc)) == []
        assert list(doc) == ["hf_id", "format", "by_hardware"]
        assert (doc["hf_id"], doc["format"]) == (path.removesuffix(f"/{FORM}.json"), FORM)
        assert {hw: e["record"] for hw, e in doc["by_hardware"].items()} == expected[path]
        assert list(doc["by_hardware"]) == list(expected[path])
        for entry in doc["by_hardware"].values():
            assert list(entry) == ["record", "files", "reason"]
            assert entry["reason"] is None
            assert entry["files"][0]["filename"].endswith(".yaml")
            assert f" --config {entry['files'][0]['filename']}" in entry["files"][0]["apply"]
    return docs


def cli_text(content: Content, site: Path, base: str, hw: str, link: str) -> str:
    """``resolve <base> --hardware <hw> --variant V --strategy S --nodes N --format vllm-config`` for the
    record at ``link``."""
    record = json.loads((site / link.lstrip("/")).read_bytes())
    return resolve_command(content, Choice(recipe=base, hardware=hw, variant=record["variant"],
                                           strategy=record["strategy"], nodes=record["node_count"],
                                           output=FORM))


def test_api_forms_are_registered_forms() -> None:
    assert API_FORMS == (FORM,)
    assert set(API_FORMS) <= set(resolver.deploy.FORMATS)


def test_our_recipes_publish_the_form_as_resolve_prints_it(recipes_json_site: Path) -> None:
    docs = check_documents(recipes_json_site)
    assert "MiniMaxAI/MiniMax-M3/vllm-config.json" in docs
    assert "MiniMaxAI/MiniMax-M3-MXFP8/vllm-config.json" in docs  # a promoted variant's own
    content, _ = load_content(RECIPES)
    compared = 0
    for doc in docs.values():
        for hw, entry in doc["by_hardware"].items():
            text = cli_text(content, recipes_json_site, doc["hf_id"], hw, entry["record"])
            assert deployment_text(entry["files"]).rstrip("\n") == text, (doc["hf_id"], hw)
            for file in entry["files"]:
                if file["filename"].endswith(".yaml"):
                    assert isinstance(yaml.safe_load(file["text"]), dict)
            compared += 1
    assert compared == sum(len(links) for links in expected_forms(recipes_json_site).values())
    h200 = docs["MiniMaxAI/MiniMax-M3/vllm-config.json"]["by_hardware"]["h200"]
    assert [f["filename"] for f in h200["files"]] == ["minimax-m3.yaml"]


def test_upstream_publishes_the_form_as_resolve_prints_it(built_site: dict[str, Any]) -> None:
    """Every upstream base; the CLI text compared for one record of each hardware × deploy type × node count
    (the form depends on nothing else), single- and multi-node both."""
    site = built_site["dir"]
    docs = check_documents(site)
    seen: set[tuple[str, str, int]] = set()
    for doc in docs.values():
        for hw, entry in doc["by_hardware"].items():
            record = json.loads((site / entry["record"].lstrip("/")).read_bytes())
            kind = (hw, record["deploy_type"], record["node_count"])
            if kind in seen:
                continue
            seen.add(kind)
            text = cli_text(built_site["content"], site, doc["hf_id"], hw, entry["record"])
            assert deployment_text(entry["files"]).rstrip("\n") == text, (doc["hf_id"], hw)
    assert {deploy for _, deploy, _ in seen} == {"single_node", "multi_node"}


def test_a_prefill_decode_record_gets_its_follower_ranks() -> None:
    """A prefill/decode record of multi-node pools (the matrix's recommendation when a model needs them):
    each pool's follower files, rendered as the builder renders them."""
    need_shared()
    content, _ = load_content(UPSTREAM)
    recipe = next(r.data for r in content.recipes if r.hf_id == "deepseek-ai/DeepSeek-V3.2")
    vocab = content.vocab.resolver_vocab()
    selection: Any = {"hardware": "h200", "strategy": "pd_cluster", "pd_nodes": {"prefill": 2, "decode": 2}}
    record = resolver.resolve(recipe, vocab, selection)
    assert deployment_output(record, vocab, FORM)["reason"] == (
        "prefill: a 2-node pool needs its follower ranks rendered")
    entry = form_entry(recipe, vocab, FORM, record, "/x/hw/h200.json")
    ranks = resolver.deploy.pd_ranks(recipe, vocab, selection, record)
    files = deployment_output(record, vocab, FORM, ranks)["files"]
    assert entry == {"record": "/x/hw/h200.json", "files": files, "reason": None}
    assert [f["filename"] for f in entry["files"] if f["filename"].endswith(".yaml")] == [
        "deepseek-v3-2-prefill-node-0.yaml", "deepseek-v3-2-prefill-node-1.yaml",
        "deepseek-v3-2-decode-node-0.yaml", "deepseek-v3-2-decode-node-1.yaml"]


def test_page_and_llms_txt_link_the_documents(built_site: dict[str, Any]) -> None:
    """The recipe page's JSON API section links the document of the recipe and of each promoted variant."""
    pages, site, hf_id = built_site["pages"], built_site["dir"], "MiniMaxAI/MiniMax-M3"
    page = pages[f"{hf_id}/index.html"].decode()
    api = page[page.index('<section id="api"'):]
    api = api[:api.index("</section>")]
    doc = json.loads((site / f"{hf_id}.json").read_bytes())
    bases = [hf_id, *(v["json"][1:].removesuffix(".json") for v in doc["variants"].values() if "json" in v)]
    assert len(bases) > 1
    for base in bases:
        assert (site / base / f"{FORM}.json").is_file()
        assert f'<a href="/{base}/{FORM}.json">' in api
    assert api.count(f"/{FORM}.json\">") == len(bases)
    llms = pages["llms.txt"].decode()
    assert ("vLLM config files per hardware (each file's text and the command that applies it; every recipe "
            "and promoted variant): http://127.0.0.1:8000/<org>/<repo>/vllm-config.json; "
            "schema: http://127.0.0.1:8000/schema/deploy-form.json\n") in llms


def test_the_schema_describes_every_property_and_refuses_what_the_build_never_writes() -> None:
    schema = form_schema()
    assert undescribed_properties(schema) == []
    assert (schema["$id"], schema["properties"]["format"]["const"]) == ("/schema/deploy-form.json", FORM)
    validator = Draft202012Validator(schema)
    entry = {"record": "/a/b/hw/h200.json", "files": [{"filename": "b.yaml", "text": "x: 1\n",
                                                       "apply": "vllm serve a/b --config b.yaml"}],
             "reason": None}
    doc: dict[str, Any] = {"hf_id": "a/b", "format": FORM, "by_hardware": {"h200": entry}}
    assert list(validator.iter_errors(doc)) == []
    errors = {(tuple(e.absolute_path), e.validator) for e in validator.iter_errors(
        {**doc, "format": "compose", "extra": 1,
         "by_hardware": {"h200": {**entry, "record": "/a/b.json", "files": [{"filename": "b.yaml"}]}}})}
    assert errors == {((), "additionalProperties"), (("format",), "const"),
                      (("by_hardware", "h200", "record"), "pattern"),
                      (("by_hardware", "h200", "files", 0), "required")}
