"""The pull-request report stays inert whatever the recipes hold: every value from the content, rendered
the way GitHub renders a comment (CommonMark with raw HTML), is text in code, never a heading, image,
link, mention, issue link or HTML element; and the report fits in a comment."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import pytest

from builder.cli.diff import MARKDOWN_CHARS
from builder.cli.diff.markdown import code, fenced, render
from builder.cli.diff.report import DiffReport, RecipeChange
from builder.cli.main import main
from builder.content.log_text import controls_escaped
from tests.support.inert import headings, live_markup, markdown_tokens
from tests.support.paths import RECIPES, need_runtime

HOSTILE = [
    "x` ![pixel](https://evil.example/p.png) `y",
    "```\n## Approved by @maintainers\n```",
    "</code></summary></details>\n\n# Approved <img src=https://evil.example/x.png>",
    "@maintainers fixes #123, see https://evil.example and www.evil.example",
    "\x1b[31mred\x1b[0m\r\n::error::pwned",
    "`", "``", " ` ", "",
    "~~~\n<script>alert(1)</script>\n~~~",
    "a\r\n\r\n<details open><summary>x</summary>\u202e",
    "[link](javascript:alert(1)) <https://evil.example> <!-- x",
    "\\`<b>bold</b>\\`",
]


def hostile_report(value: str) -> DiffReport:
    """A report with ``value`` in every field that comes from the content."""
    change: RecipeChange = {
        "recipe": value, "file": value, "renamed_from": value, "endpoints_added": [value],
        "endpoints_removed": [value],
        "commands": [{"form": "shell", "endpoints": [value, value], "flags": [value],
                      "diff": f"--- a\n+++ b\n+{value}"},
                     {"form": "docker", "endpoints": [value], "flags": [], "diff": value}],
        "memory": [{"endpoints": [value], "before": value, "after": value}],
        "results": [{"change": "changed", "point": value, "source": value, "figures": [value]}],
        "fields": [value], "files": [value]}
    return {"base": value, "head": value, "changed": True, "errors": {},
            "added": [{"recipe": value, "file": value, "endpoints": 3, "command": value, "memory": value}],
            "removed": [{"recipe": value, "file": value, "endpoints": 2, "command": "", "memory": ""}],
            "renamed": [{"before": value, "after": value, "similarity": 0.9}],
            "recipes": [change], "new_warnings": [value], "fixed_warnings": 0,
            "other_files": {"added": [value], "removed": [value], "changed": [value]}}


def test_every_value_stays_inert_text() -> None:
    for value in HOSTILE:
        markdown = render(hostile_report(value))
        assert live_markup(markdown) == [], value
        shown = controls_escaped(value) or "␣"
        assert headings(markdown) == ["vLLM recipes: what this change publishes", "New warnings",
                                      f"Added {shown} · {shown}",
                                      "Removed", "Renamed", f"{shown} · {shown}"], value
        tokens = markdown_tokens(markdown)
        spans = [t.content for t in tokens if t.type == "code_inline"]
        expected = 27 if value else 25  # an empty memory verdict and renamed_from are left out
        assert spans.count(shown) == expected, (value, spans)  # every value shown whole, as one line of code
        summaries = [t.content for t in tokens if t.type == "html_block" and "<code>" in t.content]
        assert (len(summaries) == 2
                and all(f"<code>{html.escape(shown)}</code>" in s for s in summaries)), value
        fences = [t for t in tokens if t.type == "fence"]
        commands = 1 if value else 0  # an added recipe without a default command has no block for it
        assert [f.info for f in fences] == ["sh"] * commands + ["diff", "diff"], value
        # a command's lines stay lines
        lines = "".join(f"{controls_escaped(line)}\n" for line in value.split("\n"))
        assert fences[-1].content == lines and (not commands or fences[0].content == lines), value
        blocks = [t.content[:18] for t in tokens if t.type == "html_block"]
        assert blocks == ["<details><summary>", "</details>\n"] * (3 + commands), value


def test_errors_are_fenced_so_they_cant_close_the_fence() -> None:
    for value in HOSTILE:
        report = hostile_report(value) | {"errors": {"head": [f"models/a/b.yaml:3: x: {value}", value]}}
        markdown = render(report)
        assert live_markup(markdown) == [], value
        assert headings(markdown)[1:] == ["HEAD does not build: 2 error(s)"], value
        fence = next(t for t in markdown_tokens(markdown) if t.type == "fence")
        shown = controls_escaped(value)
        assert fence.content == f"models/a/b.yaml:3: x: {shown}\n{shown}\n", value


def test_code_spans_and_fences_follow_commonmark() -> None:
    assert code("plain") == "`plain`"
    assert code("a`b") == "``a`b``"
    assert code("`") == "`` ` ``"
    assert code("```x") == "```` ```x ````"
    assert code(" padded ") == "`  padded  `"
    assert code("") == "`␣`"
    assert code("a\nb\x1b") == "`a\\nb\\x1b`"
    assert code("y" * 400) == f"`{'y' * 300}… (100 more characters)`"
    assert fenced(["a", "````", "b"], "sh") == ["`````sh", "a", "````", "b", "`````"]
    assert fenced(["~~~", "a\nb"], "text") == ["```text", "~~~", "a\\nb", "```"]


def test_a_long_report_is_cut_under_githubs_comment_limit() -> None:
    change = hostile_report("x")["recipes"][0]
    big: list[RecipeChange] = []
    for number in range(400):
        diff = "\n".join(f"+  --flag-{line} {'v' * 300}" for line in range(60))
        big.append(change | {"recipe": f"Org/model-{number}",
                             "commands": [
                                 {"form": "shell", "endpoints": ["/e.json"], "flags": [], "diff": diff}]})
    report = hostile_report("x") | {"recipes": big}
    markdown = render(report, max_lines=100_000)
    assert len(markdown) <= MARKDOWN_CHARS < 65_536
    assert markdown.splitlines()[-1].startswith("_… ") and markdown.rstrip().endswith(
        "not shown: `vllm-recipes diff --format json` lists everything._")
    assert markdown.count("<details>") == markdown.count("</details>")  # cut between blocks
    assert live_markup(markdown) == []
    last = [t for t in markdown_tokens(markdown) if t.type == "paragraph_open"][-1]
    assert last.level == 0  # the note is outside any fence or block


def test_hostile_flag_values_from_a_recipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Flag values are quoted in commands, so the shell rules let them hold any visible text: through
    ``vllm-recipes diff`` they reach the report only as code."""
    need_runtime()
    values = ["x` ![pixel](https://evil.example/p.png) `y",
              "</code></summary></details><img src=x> @maintainers", "```", "#123 <https://evil.example>"]
    head = tmp_path / "head"
    shutil.copytree(RECIPES, head)
    recipe = head / "models" / "Qwen" / "Qwen3-8B.yaml"
    flags = ["--served-model-name", "--chat-template", "--tokenizer", "--download-dir"]
    args = ", ".join(json.dumps(item) for pair in zip(flags, values, strict=True) for item in pair)
    recipe.write_text(recipe.read_text().replace("  base_args: []", f"  base_args: [{args}]", 1))
    assert main(["diff", str(RECIPES), str(head)]) == 1
    markdown = capsys.readouterr().out
    assert live_markup(markdown) == []
    assert (headings(markdown)
            == ["vLLM recipes: what this change publishes", "Qwen/Qwen3-8B · models/Qwen/Qwen3-8B.yaml"])
    spans = [t.content for t in markdown_tokens(markdown) if t.type == "code_inline"]
    assert sorted(f"added {flag} {value}" for flag, value in zip(flags, values, strict=True)) == [
        span for span in spans if span.startswith("added ")]
