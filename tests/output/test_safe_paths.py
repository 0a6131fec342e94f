"""Ids that become paths, recipe discovery and output collisions (issue 11).

Each hostile content root is a copy of ``recipes/`` with one edit. Every refused build must
print exactly the expected problems, exit 1, change nothing in the folder around ``--out``
(content, siblings and parents) and leave the previous site in ``--out`` byte-identical.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from builder.cli.build import BuildOptions
from builder.cli.main import main
from builder.cli.serve import SiteState, on_changes
from builder.content.identifiers import output_path_problem, segment_problem
from builder.output.discard import wait_for_discards
from builder.output.writer import Staging, UnsafePath, update_tree
from tests.support.paths import RECIPES, need_runtime
from tests.support.trees import linked_copy, snapshot, with_linked_site

QWEN = "models/Qwen/Qwen3-14B.yaml"
BAD_SEGMENT = ("cannot be used in a path: use letters, digits, '.', '_' and '-', starting with a "
               "letter or a digit")
CASE_CLASH = "(their files would overwrite each other on a case-insensitive disk)"


@pytest.fixture()
def previous_site(recipes_json_site: Path) -> Path:
    """The JSON API of the untouched ``recipes/``: what ``--out`` holds before each hostile build."""
    return recipes_json_site


@dataclass
class Case:
    """A hostile content root and an ``--out`` holding the previous site, both below ``top``."""

    top: Path
    content: Path
    out: Path
    site: Path  # the session's site ``out`` is a linked copy of

    def edit(self, rel: str, old: str, new: str) -> int:
        """Replace the one occurrence of ``old`` in a content file; the line where it starts."""
        path = self.content / rel
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new), encoding="utf-8")
        return text[: text.index(old)].count("\n") + 1

    def copy(self, rel: str, new_rel: str) -> None:
        target = self.content / new_rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.content / rel, target)

    def refused(
        self, capsys: pytest.CaptureFixture[str], problems: list[str], html: bool = False, also_at: str = ""
    ) -> None:
        """Build; assert exactly ``problems`` then the failure line, exit 1, and nothing changed.

        ``also_at``: one more error, from a check outside this issue (the shell-safety of model
        ids), is expected at that ``path:line: field:`` location."""
        before = with_linked_site(self.top, self.out, self.site)
        argv = (["build", "--content", str(self.content), "--out", str(self.out)]
                + ([] if html else ["--json-only"]))
        capsys.readouterr()
        status = main(argv)
        captured = capsys.readouterr()
        errors = [line for line in captured.err.splitlines() if ": warning:" not in line
                  and not line.startswith("warning:")]
        if also_at:
            others = [line for line in errors[:-1] if line not in problems]
            assert len(others) == 1 and others[0].startswith(also_at), errors
            assert sorted(errors[:-1]) == sorted(problems + others)
            problems = errors[:-1]
        assert errors == problems + [f"build failed: {len(problems)} error(s); {self.out} left unchanged"]
        assert status == 1
        assert captured.out == ""
        assert snapshot(self.top) == before


@pytest.fixture
def case(tmp_path: Path, previous_site: Path) -> Case:
    """``top/work/content`` (a copy of recipes/) and ``top/work/out`` (the previous site)."""
    content = tmp_path / "work" / "content"
    out = tmp_path / "work" / "out"
    shutil.copytree(RECIPES, content)
    linked_copy(previous_site, out)
    return Case(tmp_path, content, out, previous_site)


# ── ids used as path segments ─────────────────────────────────────────────


def test_model_id_that_climbs_out(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    line = case.edit(QWEN, 'model_id: "Qwen/Qwen3-14B-FP8"', 'model_id: "Qwen/../../../x"')
    mine = (f"{QWEN}:{line}: variants.fp8.model_id: a model_id with '/' becomes the path /<org>/<repo>: "
            "expected one '/', got 'Qwen/../../../x'")
    case.refused(capsys, [mine], also_at=f"{QWEN}:{line}: variants.fp8.model_id: ")


def test_absolute_model_id(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    target = f"{case.top}/escape"
    line = case.edit(QWEN, 'model_id: "Qwen/Qwen3-14B-FP8"', f'model_id: "{target}"')
    case.refused(capsys, [
        f"{QWEN}:{line}: variants.fp8.model_id: a model_id with '/' becomes the path /<org>/<repo>: "
        f"expected one '/', got {target!r}"
    ])


def test_model_id_with_a_dot_dot_repo(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    line = case.edit(QWEN, 'model_id: "Qwen/Qwen3-14B-AWQ"', 'model_id: "Qwen/.."')
    case.refused(capsys, [
        f"{QWEN}:{line}: variants.awq.model_id: a model_id with '/' becomes the path /<org>/<repo>: "
        f"'..' {BAD_SEGMENT}"
    ])


def test_hardware_id_with_dot_dot(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    line = case.edit("taxonomy.yaml", "\n  h200:\n", '\n  "../escape":\n') + 1
    case.refused(capsys, [f"taxonomy.yaml:{line}: hardware_profiles.../escape: '../escape' {BAD_SEGMENT}"])


def test_hardware_ids_equal_case_folded(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    line = case.edit("taxonomy.yaml", "\n  h200:\n", "\n  H100:\n") + 1
    case.refused(capsys, [f"taxonomy.yaml:{line}: hardware_profiles.H100: 'H100' differs only in case from "
                          f"'h100' {CASE_CLASH}"])


def test_strategy_name_with_dot_dot(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    line = case.edit("strategies/single_node_tp.yaml", "name: single_node_tp", "name: ../../escape")
    case.refused(capsys, [f"strategies/single_node_tp.yaml:{line}: name: '../../escape' {BAD_SEGMENT}"])


def test_two_strategies_with_one_name(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    line = case.edit("strategies/single_node_tep.yaml", "name: single_node_tep", "name: single_node_tp")
    case.refused(capsys, [
        f"strategies/single_node_tp.yaml:{line}: name: 'single_node_tp' is also the name of "
        "strategies/single_node_tep.yaml"
    ])


def test_kv_store_name_with_dot_dot(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    rel = "kv_store/kv_store_centralized_mooncake.yaml"
    line = case.edit(rel, "name: kv_store_centralized_mooncake", "name: ../escape")
    case.refused(capsys, [f"{rel}:{line}: name: '../escape' {BAD_SEGMENT}"])


def test_preset_key_with_dot_dot(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    rel = "models/MiniMaxAI/MiniMax-M3.yaml"
    line = case.edit(rel, "\n  h200_agentx:\n", '\n  "../../../escape":\n') + 1
    case.refused(capsys, [f"{rel}:{line}: presets.../../../escape: '../../../escape' {BAD_SEGMENT}"])


def test_quickstart_id_with_dot_dot(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    (case.content / "quickstart").mkdir()
    (case.content / "quickstart" / "evil.yaml").write_text("title: evil\nhardware_profile: ../../escape\n")
    case.refused(capsys, [f"quickstart/evil.yaml:2: hardware_profile: '../../escape' {BAD_SEGMENT}"])


def test_two_quickstarts_for_one_hardware(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    (case.content / "quickstart").mkdir()
    (case.content / "quickstart" / "a.yaml").write_text("hardware_profile: h200\n")
    (case.content / "quickstart" / "b.yaml").write_text("title: again\nhardware_profile: h200\n")
    case.refused(capsys, ["quickstart/b.yaml:2: hardware_profile: 'h200' is also the hardware_profile of "
                          "quickstart/a.yaml"])


def test_long_segments_are_refused() -> None:
    assert segment_problem("x" * 100) is None
    assert (segment_problem("x" * 101)
            == f"{'x' * 20!r}... is 101 characters long; an id used in paths has at most 100")


# ── recipe discovery ──────────────────────────────────────────────────────


def test_recipe_file_named_dot_dot(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    case.copy(QWEN, "models/Qwen/...yaml")
    case.refused(capsys, ["models/Qwen/...yaml: recipe id 'Qwen/..' comes from the file path, and "
                          f"'..' {BAD_SEGMENT}"])


def test_recipe_file_name_failing_the_pattern(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    case.copy(QWEN, "models/Qwen/Qwen3 14B.yaml")
    case.copy(QWEN, "models/.hidden/Qwen3-14B.yaml")
    case.refused(capsys, [
        "models/.hidden/Qwen3-14B.yaml: recipe id '.hidden/Qwen3-14B' comes from the file path, and "
        f"'.hidden' {BAD_SEGMENT}",
        "models/Qwen/Qwen3 14B.yaml: recipe id 'Qwen/Qwen3 14B' comes from the file path, and 'Qwen3 "
        f"14B' {BAD_SEGMENT}",
    ])


def test_yaml_beside_yml(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    case.copy(QWEN, "models/Qwen/Qwen3-14B.yml")
    case.refused(capsys,
                 ["models/Qwen/Qwen3-14B.yml: recipe id 'Qwen/Qwen3-14B' is also the recipe id of " + QWEN])


def test_recipe_ids_equal_case_folded(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    case.copy(QWEN, "models/qwen/qwen3-14b.yaml")
    case.refused(capsys, [
        "models/qwen/qwen3-14b.yaml: recipe id 'qwen/qwen3-14b' differs only in case from 'Qwen/Qwen3-14B', "
        f"the recipe id of {QWEN} {CASE_CLASH}"
    ])


def test_recipe_in_a_subfolder(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    case.copy(QWEN, "models/Qwen/sub/Qwen3-14B.yaml")
    case.copy(QWEN, "models/Qwen/sub/deeper/Other.yml")
    message = "a recipe file must be directly inside its organisation folder: models/<org>/<repo>.yaml"
    case.refused(capsys, [f"models/Qwen/sub/Qwen3-14B.yaml: {message}",
                          f"models/Qwen/sub/deeper/Other.yml: {message}"])


def test_folder_links_are_not_followed(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    (case.content / "models" / "Qwen" / "loop").symlink_to("..")  # a loop: models/Qwen/loop/Qwen/loop/...
    (case.content / "models" / "Alias").symlink_to("Qwen")  # the same recipes under a second org
    message = "a symbolic link to a folder is not followed: recipes must be real files under models/"
    case.refused(capsys, [f"models/Alias: {message}", f"models/Qwen/loop: {message}"])


# ── outputs that collide ──────────────────────────────────────────────────


def test_recipe_replacing_the_builder_vocabulary(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    case.copy(QWEN, "models/builder-data/vocab.yaml")
    case.refused(capsys, [
        "models/builder-data/vocab.yaml: output builder-data/vocab.json is written by both "
        "recipe models/builder-data/vocab.yaml and the command builder's data"
    ], html=True)


def test_recipe_named_like_the_pyodide_runtime_folder(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    """The runtime lives in a content-hashed folder: a recipe of that name writes beside its files, never over
    them."""
    from builder.site.browser.bundle import browser_files, runtime_dir

    need_runtime()
    folder = runtime_dir()
    case.copy(QWEN, f"models/pyodide/{folder}.yaml")
    assert main(["build", "--content", str(case.content), "--out", str(case.out)]) == 0
    capsys.readouterr()
    for rel, data in browser_files().items():
        assert (case.out / rel).read_bytes() == data, rel
    assert (case.out / "pyodide" / folder / "index.html").is_file()  # the recipe's page, beside the runtime


def test_promoted_variant_replacing_a_strategy_file(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    case.edit(QWEN, 'model_id: "Qwen/Qwen3-14B-FP8"', 'model_id: "strategies/single_node_tp"')
    case.refused(capsys, [
        f"{QWEN}: output strategies/single_node_tp.json is written by both the strategies folder "
        f"and recipe {QWEN}"
    ])


def test_promoted_variant_in_another_casing_of_another_recipe(
    case: Case, capsys: pytest.CaptureFixture[str], previous_site: Path
) -> None:
    """The promoted subtree is the one the awq variant renders today, under a new name."""
    case.edit(QWEN, 'model_id: "Qwen/Qwen3-14B-AWQ"', 'model_id: "minimaxai/minimax-m3"')
    theirs = {p.casefold() for p in snapshot(previous_site) if p == "MiniMaxAI/MiniMax-M3.json"
              or p.startswith("MiniMaxAI/MiniMax-M3/") and "/presets/" not in p}
    ours = {("minimaxai/minimax-m3" + p[len("Qwen/Qwen3-14B-AWQ"):]).casefold()
            for p, data in snapshot(previous_site).items() if isinstance(data, bytes)
            and re.match(r"Qwen/Qwen3-14B-AWQ(\.json|/)", p)}
    assert len(theirs & ours) > 1
    case.refused(capsys, [
        f"{QWEN}: outputs MiniMaxAI/MiniMax-M3.json (recipe models/MiniMaxAI/MiniMax-M3.yaml) and "
        f"minimaxai/minimax-m3.json (recipe {QWEN}) (and {len(theirs & ours) - 1} more) differ only in case: "
        "one would overwrite the other on a case-insensitive disk"
    ])


def test_output_file_where_another_needs_a_folder(
    case: Case, capsys: pytest.CaptureFixture[str], previous_site: Path
) -> None:
    """Recipe ``Qwen/Qwen3-14B.json`` renders into the folder ``Qwen/Qwen3-14B.json/``."""
    case.copy(QWEN, "models/Qwen/Qwen3-14B.json.yaml")
    first_inside = min(p for p, data in snapshot(previous_site).items()
                       if isinstance(data, bytes) and p.startswith("Qwen/Qwen3-14B/"))
    inner = "Qwen/Qwen3-14B.json/" + first_inside.removeprefix("Qwen/Qwen3-14B/")
    case.refused(capsys, [
        f"models/Qwen/Qwen3-14B.json.yaml: output Qwen/Qwen3-14B.json (recipe {QWEN}) is a file, "
        f"but {inner} (recipe models/Qwen/Qwen3-14B.json.yaml) needs a folder there"
    ])


# ── redirect stubs and the 404 page ───────────────────────────────────────


def test_no_output_differs_from_another_only_in_case(recipes_site: Path) -> None:
    """The site can be copied to a case-insensitive disk: no lower-case stubs of real pages."""
    paths = [p for p, data in snapshot(recipes_site).items() if data != "folder"]
    folded: dict[str, list[str]] = {}
    for path in paths:
        folded.setdefault(path.casefold(), []).append(path)
    assert [group for group in folded.values() if len(group) > 1] == []
    assert "MiniMaxAI/MiniMax-M3/index.html" in paths and "minimaxai/minimax-m3/index.html" not in paths
    assert "MiniMaxAI/index.html" in paths and "minimaxai/index.html" not in paths
    stub = (recipes_site / "nvidia" / "MiniMax-M3-NVFP4" / "index.html").read_text()  # a variant alias stays
    assert 'http-equiv="refresh"' in stub and "/MiniMaxAI/MiniMax-M3?variant=nvfp4" in stub




# ── the writer's last guard ───────────────────────────────────────────────


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("../escape.json", "the path has an empty, '.' or '..' segment"),
        ("a/../../escape.json", "the path has an empty, '.' or '..' segment"),
        ("a/./b.json", "the path has an empty, '.' or '..' segment"),
        ("a//b.json", "the path has an empty, '.' or '..' segment"),
        ("/abs.json", "the path is absolute"),
        ("a\\..\\b.json", "the path holds a backslash"),
        ("a\x00b.json", "the path holds a NUL or another control character"),
        ("a\nb.json", "the path holds a NUL or another control character"),
        ("", "the path is empty"),
    ],
)
def test_unsafe_output_paths(rel: str, reason: str) -> None:
    assert output_path_problem(rel) == reason


def test_plain_output_paths_pass() -> None:
    for rel in ("index.html", "a..b/c.json", ".vllm-recipes-site", "Qwen/Qwen3-14B/hw/h200.json"):
        assert output_path_problem(rel) is None


@pytest.mark.parametrize("rel", ["../escape.json", "sub/../../escape.json", "a\\b.json", "a\x00b.json"])
def test_writer_refuses_paths_outside_the_site(tmp_path: Path, previous_site: Path, rel: str) -> None:
    out = tmp_path / "work" / "out"
    linked_copy(previous_site, out)
    before = with_linked_site(tmp_path, out, previous_site)
    with Staging(out) as staging, pytest.raises(UnsafePath, match=re.escape(repr(rel))):
        staging.write({"ok.json": b"{}", rel: b"x"})
    assert snapshot(tmp_path) == before
    with pytest.raises(UnsafePath, match=re.escape(repr(rel))):
        update_tree({"ok.json": b"{}", rel: b"x"}, set(), out)
    with pytest.raises(UnsafePath, match=re.escape(repr(rel))):
        update_tree({}, {rel}, out)
    assert snapshot(tmp_path) == before


# ── serve's incremental rebuild ───────────────────────────────────────────


def serve_edit(case: Case, capsys: pytest.CaptureFixture[str], old: str, new: str,
               problems: list[str]) -> None:
    """Start serve's state on the copy, edit the Qwen recipe, apply the change: refused, nothing written."""
    state = SiteState(BuildOptions(content=case.content, out=case.out, html=False))
    state.full()
    wait_for_discards()  # the site state.full() replaced is deleted by a detached process
    case.edit(QWEN, old, new)
    before = snapshot(case.top)
    capsys.readouterr()
    on_changes(state, {(2, str(case.content / QWEN))})
    assert capsys.readouterr().err.splitlines() == problems + ["rebuild failed; the site is unchanged"]
    assert snapshot(case.top) == before


def test_serve_refuses_a_model_id_outside_out(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    line = case.content.joinpath(QWEN).read_text().split("\n").index('    model_id: "Qwen/Qwen3-14B-FP8"') + 1
    target = f"{case.top}/escape"
    serve_edit(case, capsys, 'model_id: "Qwen/Qwen3-14B-FP8"', f'model_id: "{target}"', [
        f"{QWEN}:{line}: variants.fp8.model_id: a model_id with '/' becomes the path /<org>/<repo>: "
        f"expected one '/', got {target!r}"
    ])


def test_serve_refuses_a_colliding_output(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    serve_edit(case, capsys, 'model_id: "Qwen/Qwen3-14B-FP8"', 'model_id: "strategies/single_node_tp"', [
        f"{QWEN}: output strategies/single_node_tp.json is written by both the strategies folder "
        f"and recipe {QWEN}"
    ])
