"""Issue 11: numbers (finite, bounded, a rendering budget per recipe) and URLs from content.

Every hostile case builds a copy of ``recipes/`` into an ``--out`` that already holds a
previous site, and asserts the exact problems, exit 1 and that nothing under the test's
folder changed (the previous site byte-identical, no stray temporary files).
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from builder.cli.main import main
from builder.content import schemas
from builder.content.urls import is_absolute_http, is_safe_link
from builder.content.validate import MAX_RENDERED_TOKENS, MAX_RENDERINGS
from tests.support.paths import RECIPES
from tests.support.trees import linked_copy, snapshot, with_linked_site

M3 = "models/MiniMaxAI/MiniMax-M3.yaml"
TAXONOMY = "taxonomy.yaml"
STRESS = "models/stresslab/bounds.yaml"
H100 = 'display_name: "H100"\n'


@pytest.fixture()
def previous_site(recipes_json_site: Path) -> Path:
    """A ``--json-only`` build of ``recipes/``: the site a hostile build must leave alone."""
    return recipes_json_site


class Hostile:
    """A copy of ``recipes/`` to corrupt, and an ``--out`` holding the previous site."""

    def __init__(self, tmp_path: Path, previous: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = tmp_path
        self.content = tmp_path / "content"
        self.out = tmp_path / "site"
        self.capsys = capsys
        self.previous = previous
        shutil.copytree(RECIPES, self.content)
        linked_copy(previous, self.out)

    def edit(self, rel: str, old: str, new: str, after: str = "") -> int:
        """Replace the first ``old`` after ``after``; the line where ``old`` started."""
        path = self.content / rel
        text = path.read_text()
        start = text.index(after) if after else 0
        at = text.index(old, start)
        path.write_text(text[:at] + new + text[at + len(old):])
        return text[:at].count("\n") + 1

    def insert_top_level(self, yaml_text: str) -> int:
        """Add top-level keys to MiniMax-M3 before ``compatible_strategies``; their first line."""
        return self.edit(M3, "\ncompatible_strategies:\n", f"\n{yaml_text}compatible_strategies:\n") + 1

    def write(self, rel: str, text: str) -> None:
        (self.content / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.content / rel).write_text(text)

    def errors(self) -> list[str]:
        """Build; assert exit 1 and nothing changed; the error lines (without the summary)."""
        self.capsys.readouterr()
        before = with_linked_site(self.root, self.out, self.previous)
        status = main(["build", "--content", str(self.content), "--out", str(self.out), "--json-only"])
        err = self.capsys.readouterr().err.splitlines()
        assert status == 1
        assert snapshot(self.root) == before
        assert err[-1].startswith("build failed: ")
        return [line for line in err[:-1] if "warning:" not in line]


@pytest.fixture()
def hostile(tmp_path: Path, previous_site: Path, capsys: pytest.CaptureFixture[str]) -> Hostile:
    return Hostile(tmp_path, previous_site, capsys)


def stress_recipe(variants: int = 1, presets: int = 0, points: int = 1, args: int = 0,
                  **extra: object) -> str:
    """A recipe (JSON is YAML) with many variants and preset points on every hardware."""
    taxonomy = (RECIPES / TAXONOMY).read_text()
    hardware = [line.strip()[:-1] for line in taxonomy.split("hardware_profiles:\n", 1)[1].splitlines()
                if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":")]
    recipe = {
        "meta": {"title": "Bounds", "provider": "stresslab", "tasks": ["text"],
                 "hardware": {hw: "supported" for hw in hardware}},
        "model": {"model_id": "stresslab/bounds", "base_args": [f"--flag-{i}" for i in range(args)]},
        "compatible_strategies": ["single_node_tp", "multi_node_tp", "multi_node_dep", "pd_cluster"],
        "variants": {("default" if i == 0 else f"v{i}"): {"precision": "bf16", "vram_minimum_gb": 8 + i,
                                                         "supported_hardware": hardware}
                     for i in range(variants)},
        "presets": {f"p{i}": {"label": f"P{i}", "hardware": "h100", "strategy": "single_node_tp",
                              "points": {f"c{j}": {"label": str(j + 1), "concurrency": j + 1}
                                         for j in range(points)}}
                    for i in range(presets)},
        **extra,
    }
    return json.dumps(recipe, indent=1) + "\n"


# ── finite numbers ──


def test_inf_in_a_schema_field(hostile: Hostile) -> None:
    line = hostile.edit(M3, "    vram_minimum_gb: 1025\n", "    vram_minimum_gb: .inf\n")
    assert (hostile.errors()
            == [f"{M3}:{line}: variants.default.vram_minimum_gb: must be a finite number, got .inf"])


def test_nan_in_a_schema_field(hostile: Hostile) -> None:
    line = hostile.edit(TAXONOMY, "    vram_gb: 640\n", "    vram_gb: .nan\n", after=H100)
    assert (hostile.errors()
            == [f"{TAXONOMY}:{line}: hardware_profiles.h100.vram_gb: must be a finite number, got .nan"])


def test_overflowing_float_is_inf(hostile: Hostile) -> None:
    line = hostile.edit(M3, "  context_length: 1048576\n", "  context_length: 1e400\n")
    assert hostile.errors() == [f"{M3}:{line}: model.context_length: must be a finite number, got .inf"]


def test_inf_in_an_args_list(hostile: Hostile) -> None:
    line = hostile.edit(M3, '    - "128"\n  base_env: {}\n', '    - .inf\n  base_env: {}\n')
    assert hostile.errors() == [f"{M3}:{line}: model.base_args[1]: must be a finite number, got .inf"]


def test_negative_inf_as_an_env_value(hostile: Hostile) -> None:
    line = hostile.edit(M3, "  base_env: {}\n", "  base_env:\n    SEED: -.inf\n") + 1
    assert hostile.errors() == [f"{M3}:{line}: model.base_env.SEED: must be a finite number, got -.inf"]


def test_nan_deep_in_free_form_json_args(hostile: Hostile) -> None:
    line = hostile.edit(M3, "cpu_bytes_to_use: 1073000000000\n", "cpu_bytes_to_use: .nan\n")
    field = ("presets.b200_agentx.points.c30.json_args.--kv-transfer-config.kv_connector_extra_config.cpu_byt"
             "es_to_use")
    assert hostile.errors() == [f"{M3}:{line}: {field}: must be a finite number, got .nan"]


def test_nan_in_a_strategy_parallelism_mapping(hostile: Hostile) -> None:
    line = hostile.edit("strategies/multi_node_tp_pp.yaml", "parallelism: tp_pp\n",
                        "parallelism:\n  pp: .nan\n") + 1
    assert hostile.errors() == [
        f"strategies/multi_node_tp_pp.yaml:{line}: parallelism.pp: must be a finite number, got .nan"
    ]


def test_integer_beyond_what_javascript_reads_exactly(hostile: Hostile) -> None:
    line = hostile.edit(M3, "cpu_bytes_to_use: 1073000000000\n", "cpu_bytes_to_use: 9007199254740993\n")
    field = ("presets.b200_agentx.points.c30.json_args.--kv-transfer-config.kv_connector_extra_config.cpu_byt"
             "es_to_use")
    assert hostile.errors() == [
        f"{M3}:{line}: {field}: must be between -9007199254740991 and 9007199254740991, got number "
        "9007199254740993"
    ]


# ── maxima and minima ──

NUMBER_CASES = [
    # (file, old, new, anchor, line offset, field, message)
    (TAXONOMY, "    gpu_count: 8\n", "    gpu_count: 2e9\n", H100, 0,
     "hardware_profiles.h100.gpu_count", "must be <= 64, got number 2000000000"),
    (TAXONOMY, "    vram_gb: 640\n", "    vram_gb: 9000\n", H100, 0,
     "hardware_profiles.h100.vram_gb", "must be <= 8192, got number 9000"),
    (M3, "    vram_minimum_gb: 1025\n", "    vram_minimum_gb: 70000\n", "", 0,
     "variants.default.vram_minimum_gb", "must be <= 65536, got number 70000"),
    (M3, "    tp: 8\n", "    tp: 0\n", "  mxfp4:\n", 0, "variants.mxfp4.tp", "must be >= 1, got number 0"),
    (M3, "    tp: 8\n", "    tp: -4\n", "  mxfp4:\n", 0, "variants.mxfp4.tp", "must be >= 1, got number -4"),
    (M3, "    tp: 8\n", "    tp: 2048\n", "  mxfp4:\n", 0, "variants.mxfp4.tp",
     "must be <= 1024, got number 2048"),
    (M3, "    tp: 8\n", "    tp:\n      mi355x: 0\n", "  mxfp4:\n", 1,
     "variants.mxfp4.tp.mi355x", "must be >= 1, got number 0"),
    (M3, "    tp: 4\n    select:\n", "    tp: 0\n    select:\n", "  b200_agentx:\n", 0,
     "presets.b200_agentx.tp", "must be >= 1, got number 0"),
    (M3, "    select:\n", "    select:\n      nodes: 100000\n", "  b200_agentx:\n", 1,
     "presets.b200_agentx.select.nodes", "must be <= 16, got number 100000"),
    (M3, "        concurrency: 15\n", "        concurrency: 0\n", "", 0,
     "presets.b200_agentx.points.c15.concurrency", "must be >= 1, got number 0"),
    ("kv_store/kv_store_centralized_mooncake.yaml", "default_instances: 2\n", "default_instances: 1000\n", "",
     0, "default_instances", "must be <= 64, got number 1000"),
]


@pytest.mark.parametrize(("rel", "old", "new", "after", "offset", "field", "message"), NUMBER_CASES)
def test_number_bounds(hostile: Hostile, rel: str, old: str, new: str, after: str, offset: int, field: str,
                       message: str) -> None:
    line = hostile.edit(rel, old, new, after) + offset
    assert hostile.errors() == [f"{rel}:{line}: {field}: {message}"]


def test_strategy_min_gpus_1e9(hostile: Hostile) -> None:
    line = hostile.insert_top_level("strategy_min_gpus: 1e9\n")
    assert hostile.errors() == [f"{M3}:{line}: strategy_min_gpus: must be <= 1024, got number 1000000000"]


def test_strategy_min_gpus_per_hardware(hostile: Hostile) -> None:
    line = hostile.insert_top_level("strategy_min_gpus:\n  h100:\n    multi_node_tp: 5000\n") + 2
    assert hostile.errors() == [
        f"{M3}:{line}: strategy_min_gpus.h100.multi_node_tp: must be <= 1024, got number 5000"
    ]


def test_pd_pool_nodes(hostile: Hostile) -> None:
    line = hostile.edit(M3, "strategy_overrides:\n  pd_cluster:\n",
                        "strategy_overrides:\n  pd_cluster:\n    prefill:\n      nodes: 100000\n") + 3
    assert hostile.errors() == [
        f"{M3}:{line}: strategy_overrides.pd_cluster.prefill.nodes: must be <= 16, got number 100000"
    ]


def test_too_many_args_in_one_list(hostile: Hostile) -> None:
    items = "".join(f'    - "--flag-{i}"\n' for i in range(schemas.MAX_ARGS + 1))
    line = hostile.edit(M3, '  base_args:\n    - "--block-size"\n    - "128"\n', f"  base_args:\n{items}")
    assert hostile.errors() == [f"{M3}:{line}: model.base_args: must have at most 256 items, got 257"]


def test_too_many_env_entries(hostile: Hostile) -> None:
    entries = "".join(f'    E{i}: "1"\n' for i in range(schemas.MAX_ARGS + 1))
    line = hostile.edit(M3, "  base_env: {}\n", f"  base_env:\n{entries}")
    assert hostile.errors() == [f"{M3}:{line}: model.base_env: must have at most 256 entries, got 257"]


def test_description_too_long(hostile: Hostile) -> None:
    text = (hostile.content / M3).read_text()
    old = text[text.index('  description: "') : text.index("\n", text.index('  description: "')) + 1]
    line = hostile.edit(M3, old, f'  description: "{"x" * 10_001}"\n')
    assert hostile.errors() == [f"{M3}:{line}: meta.description: must be at most 10000 characters, got 10001"]


def test_guide_too_long(hostile: Hostile) -> None:
    text = (hostile.content / M3).read_text()
    head = text[: text.index("\nguide: |\n") + 1]
    (hostile.content / M3).write_text(head + f'guide: "{"g" * 200_001}"\n')
    line = head.count("\n") + 1
    assert hostile.errors() == [f"{M3}:{line}: guide: must be at most 200000 characters, got 200001"]


def test_too_many_variants(hostile: Hostile) -> None:
    hostile.write(STRESS, stress_recipe(variants=schemas.MAX_VARIANTS + 1))
    text = (hostile.content / STRESS).read_text()
    line = text[: text.index('"variants"')].count("\n") + 1
    assert hostile.errors() == [f"{STRESS}:{line}: variants: must have at most 64 entries, got 65"]


def test_too_many_presets(hostile: Hostile) -> None:
    hostile.write(STRESS, stress_recipe(presets=schemas.MAX_PRESETS + 1))
    text = (hostile.content / STRESS).read_text()
    line = text[: text.index('"presets"')].count("\n") + 1
    assert hostile.errors() == [f"{STRESS}:{line}: presets: must have at most 64 entries, got 65"]


def test_too_many_points(hostile: Hostile) -> None:
    hostile.write(STRESS, stress_recipe(presets=1, points=schemas.MAX_POINTS + 1))
    text = (hostile.content / STRESS).read_text()
    line = text[: text.index('"points"')].count("\n") + 1
    assert hostile.errors() == [f"{STRESS}:{line}: presets.p0.points: must have at most 64 entries, got 65"]


def test_too_many_hardware_profiles(hostile: Hostile) -> None:
    extra = "".join(f"  hw{i}: {{brand: NVIDIA, display_name: HW{i}, gpu_count: 8, vram_gb: 640}}\n"
                    for i in range(schemas.MAX_ENTRIES))
    line = hostile.edit(TAXONOMY, "hardware_profiles:\n", f"hardware_profiles:\n{extra}")
    count = (hostile.content / TAXONOMY).read_text().count("gpu_count:")
    assert (hostile.errors()
            == [f"{TAXONOMY}:{line}: hardware_profiles: must have at most 256 entries, got {count}"])


# ── the rendering budget ──


def test_too_many_renderings(hostile: Hostile) -> None:
    """40 presets × 64 single-node points, each rendered twice (validated, then published)."""
    hostile.write(STRESS, stress_recipe(variants=0, presets=40, points=64))
    assert 40 * 64 * 2 > MAX_RENDERINGS
    assert hostile.errors() == [f"{STRESS}:1: too many renderings (5120 > {MAX_RENDERINGS})"]


def test_too_many_renderings_for_the_argument_lists(hostile: Hostile) -> None:
    hostile.write(STRESS, stress_recipe(variants=0, presets=20, points=64, args=200))
    tokens = 32 + 200
    assert 2560 * tokens > MAX_RENDERED_TOKENS
    assert hostile.errors() == [
        f"{STRESS}:1: too many renderings for its argument lists (2560 renderings × {tokens} argument tokens "
        f"= {2560 * tokens} > {MAX_RENDERED_TOKENS})"
    ]


def test_a_recipe_at_the_bounds_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """64 variants on every hardware, a 64-GPU node with a 1024-GPU floor (16 nodes), two presets
    of 64 points, a full argument list and a 200,000-character guide: it builds, HTML included."""
    content = tmp_path / "content"
    shutil.copytree(RECIPES, content)
    taxonomy = content / TAXONOMY
    taxonomy.write_text(taxonomy.read_text().replace(
        "hardware_profiles:\n",
        "hardware_profiles:\n  big64:\n    brand: NVIDIA\n    display_name: Big\n    gpu_count: 64\n"
        "    vram_gb: 8192\n    multi_node: true\n", 1))
    recipe = json.loads(stress_recipe(variants=schemas.MAX_VARIANTS, presets=2, points=schemas.MAX_POINTS,
                                      args=schemas.MAX_ARGS - 2,
                                      strategy_min_gpus={"big64": {"multi_node_tp": schemas.MAX_MIN_GPUS}},
                                      guide="## Guide\n\n" + "word " * 39_998))
    recipe["meta"]["hardware"]["big64"] = "supported"
    for variant in recipe["variants"].values():
        variant["supported_hardware"].append("big64")
    assert len(recipe["guide"]) <= schemas.MAX_MARKDOWN
    (content / STRESS).parent.mkdir(parents=True)
    (content / STRESS).write_text(json.dumps(recipe))
    out = tmp_path / "site"
    status = main(["build", "--content", str(content), "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    assert "built 12 recipes, 21 documents" in capsys.readouterr().out
    hw_files = sorted(p.stem for p in (out / "stresslab" / "bounds" / "hw").glob("*.json"))
    assert "big64" in hw_files and len(hw_files) > 20
    big = json.loads((out / "stresslab" / "bounds" / "hw" / "big64.json").read_text())
    multi = json.loads((out / "stresslab" / "bounds" / "hw" / "big64" / "strategies" / "multi_node_tp.json")
                       .read_text()) if big["strategy"] != "multi_node_tp" else big
    assert multi["node_count"] == 16
    for key in ("p0", "p1"):
        preset = json.loads((out / "stresslab" / "bounds" / "presets" / f"{key}.json").read_text())
        assert len(preset["points"]) == schemas.MAX_POINTS
    assert (out / "stresslab" / "bounds" / "index.html").is_file()


# ── URLs ──

UNSAFE = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "\u00a0javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "//evil.example/x",
    "/\\evil.example/x",
    "https:evil.example",
    "mailto:a@example.com",
]
SAFE = ["https://example.com/x?y=1#z", "HTTP://example.com", "/x", "x/y", "#a", "?q=1", "docs/page.html"]


@pytest.mark.parametrize("url", UNSAFE)
def test_unsafe_links_are_rejected_by_the_rule(url: str) -> None:
    assert not is_safe_link(url)
    assert not is_absolute_http(url)


@pytest.mark.parametrize("url", SAFE)
def test_safe_links_pass_the_rule(url: str) -> None:
    assert is_safe_link(url)
    assert is_absolute_http(url) == url.lower().startswith(("http://", "https://"))


def _quoted(url: str) -> str:
    """A YAML double-quoted scalar for ``url``."""
    return json.dumps(url)


def _unsafe(url: str) -> str:
    return f"must be an http(s) URL or a site-relative path, got string {url!r}"


@pytest.mark.parametrize("url", UNSAFE)
def test_site_repo_url(hostile: Hostile, url: str) -> None:
    hostile.write("site.yaml", f"repo_url: {_quoted(url)}\n")
    assert hostile.errors() == [f"site.yaml:1: repo_url: {_unsafe(url)}"]


@pytest.mark.parametrize("key", ["docs_url", "repo_url"])
def test_site_links_that_are_fine(tmp_path: Path, key: str, capsys: pytest.CaptureFixture[str]) -> None:
    content = tmp_path / "content"
    shutil.copytree(RECIPES, content)
    (content / "site.yaml").write_text(
        f"{key}: https://example.com/vllm\nbase_url: https://recipes.example.com\n")
    assert main(["check", "--content", str(content), "--strict"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("key", ["docs_url", "base_url", "site_url"])
def test_other_site_urls(hostile: Hostile, key: str) -> None:
    hostile.write("site.yaml", f"# settings\n{key}: 'javascript:alert(1)//'\n")
    rule = ("must be an http(s) URL or a site-relative path" if key == "docs_url"
            else "must be an absolute http(s) URL")
    assert hostile.errors() == [f"site.yaml:2: {key}: {rule}, got string 'javascript:alert(1)//'"]


@pytest.mark.parametrize("url", ["/relative", "example.com", "ftp://example.com"])
def test_base_url_must_be_absolute_http(hostile: Hostile, url: str) -> None:
    hostile.write("site.yaml", f"base_url: {url}\n")
    assert hostile.errors() == [f"site.yaml:1: base_url: must be an absolute http(s) URL, got string {url!r}"]


@pytest.mark.parametrize(("url", "reason"), [
    ("https://example.org/docs/../recipes", "path may hold only letters, digits and ._~- segments, got "
                                            "'/docs/../recipes'"),
    ("https://example.org/a%20b", "path may hold only letters, digits and ._~- segments, got '/a%20b'"),
    ("https://example.org/recipes?lang=en", "must be http(s)://host[/path], got "
                                            "'https://example.org/recipes?lang=en'"),
])
@pytest.mark.parametrize("key", ["base_url", "site_url"])
def test_a_base_url_the_site_cannot_be_served_under_is_located(hostile: Hostile, key: str, url: str,
                                                               reason: str) -> None:
    """Not a silent fallback to the host's root: the build would publish links that miss the site."""
    hostile.write("site.yaml", f"repo_url: https://github.com/org/recipes\n{key}: {url}\n")
    assert hostile.errors() == [f"site.yaml:2: {key}: {reason}"]


URL_FIELDS: list[tuple[str, str, str, str, int, str]] = [
    # (file, old, new with {url}, anchor, line offset, field)
    ("platforms.yaml", "    url: https://modal.com/docs/examples/vllm_inference\n", "    url: {url}\n", "", 0,
     "platforms[0].url"),
    ("platforms.yaml", "    url: https://modal.com/docs/examples/vllm_inference\n",
     "    url: https://modal.com/x\n    script: {url}\n", "", 1, "platforms[0].script"),
    (TAXONOMY, '    docs_url: "https://docs.lmcache.ai/"\n', "    docs_url: {url}\n", "", 0,
     "kv_offload.lmcache.docs_url"),
    (TAXONOMY, '    docs_url: "https://docs.vllm.ai/en/stable/features/kv_offloading_usage"\n',
     "    docs_url: {url}\n", "", 0, "kv_offload_groups.offloading.docs_url"),
    (M3, '      href: "https://github.com/SemiAnalysisAI/InferenceX/pull/4429"\n', "      href: {url}\n", "",
     0, "presets.h200_agentx.source.href"),
]


@pytest.mark.parametrize(("rel", "old", "new", "after", "offset", "field"), URL_FIELDS)
@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x"])
def test_url_fields(hostile: Hostile, rel: str, old: str, new: str, after: str, offset: int, field: str,
                    url: str) -> None:
    line = hostile.edit(rel, old, new.format(url=_quoted(url)), after) + offset
    assert hostile.errors() == [f"{rel}:{line}: {field}: {_unsafe(url)}"]


def test_recipe_platform_override_url(hostile: Hostile) -> None:
    line = (hostile.edit(M3, "meta:\n", "meta:\n  platforms:\n    - id: modal\n      script: 'vbscript:x'\n")
            + 3)
    assert hostile.errors() == [f"{M3}:{line}: meta.platforms[0].script: {_unsafe('vbscript:x')}"]


def test_hardware_note_links(hostile: Hostile) -> None:
    start = hostile.insert_top_level(
        "hardware_notes:\n  h200:\n    title: T\n    body: B\n    link: 'javascript:alert(1)'\n"
        "  b200:\n    body: B\n    link:\n      label: Guide\n      href: ' javascript:alert(2)'\n")
    assert hostile.errors() == [
        f"{M3}:{start + 4}: hardware_notes.h200.link: {_unsafe('javascript:alert(1)')}",
        f"{M3}:{start + 9}: hardware_notes.b200.link.href: {_unsafe(' javascript:alert(2)')}",
    ]


def test_markdown_drops_unsafe_links(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Guides are sanitised when rendered, not rejected: no unsafe href reaches the page."""
    content = tmp_path / "content"
    shutil.copytree(RECIPES, content)
    path = content / M3
    links = ("[a](JaVaScRiPt:alert(1)) [b](java&#x09;script:alert(2)) <javascript:alert(3)> "
             "[c](//evil.example/x) [d](data:text/html,x) [e](vbscript:x) [f](/\\evil.example) "
             "[ok](https://example.com/safe)")
    path.write_text(path.read_text().replace("guide: |\n", f"guide: |\n  {links}\n\n", 1))
    out = tmp_path / "site"
    assert main(["build", "--content", str(content), "--out", str(out)]) == 0, capsys.readouterr().err
    page = (out / "MiniMaxAI" / "MiniMax-M3" / "index.html").read_text()
    hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]*)"', page)]
    assert "https://example.com/safe" in hrefs
    assert [h for h in hrefs if not h.startswith("mailto:") and not is_safe_link(h)] == []
    assert "evil.example" not in " ".join(hrefs)
