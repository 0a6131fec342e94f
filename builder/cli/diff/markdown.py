"""The report as Markdown short enough for a pull-request comment, whatever the recipes hold.

It is made of self-contained blocks (a heading and its list, a ``<details>`` with its diff): blocks are
added in order of importance (errors, new warnings, recipes added, removed, renamed, then each
changed recipe, then the other files) until :data:`MAX_LINES` lines or :data:`MAX_CHARS` characters
(GitHub refuses a comment over 65,536); what doesn't fit is counted in a last line that points at
``--format json``. Long diffs and lists are cut with "N more".

Every value from the content (ids, file names, flags, YAML keys, warnings, commands, revision labels)
is inert text in GitHub's renderer (CommonMark with raw HTML): in a code span or a fence whose backtick
run is longer than any in the value, or HTML-escaped inside ``<code>`` in a ``<summary>``; control
characters shown escaped (a value is one line); long values cut. Inside code GitHub links no
``@mention``, ``#123`` or URL, and no Markdown, image or HTML is live.
"""

from __future__ import annotations

import html
import re

from builder.cli.diff import MARKDOWN_CHARS as MAX_CHARS
from builder.cli.diff import MARKDOWN_LINES as MAX_LINES
from builder.cli.diff.commands import FORM_LABELS
from builder.cli.diff.report import CommandChange, DiffReport, RecipeChange
from builder.content.log_text import controls_escaped

MAX_DIFF_LINES = 60
MAX_LIST = 8
MAX_VALUE = 300  # characters of one value in a code span
MAX_CODE_LINE = 400  # characters of one line in a fence
NOTE_CHARS = 200  # room for the last line, saying what is not shown
Block = list[str]
_BACKTICKS = re.compile("`+")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def _longest_backticks(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def _one_line(text: str) -> str:
    """A value as one line: control characters shown escaped, cut, never empty or blank (it would not
    show)."""
    shown = _cut(controls_escaped(text), MAX_VALUE)
    return shown if shown.strip(" ") else f"{shown}␣"


def code(text: str) -> str:
    """``text`` as one inline code span it can't close (CommonMark: a backtick run longer than any in
    it, padded with a space where it starts or ends with a backtick or a space)."""
    shown = _one_line(text)
    ticks = "`" * (_longest_backticks(shown) + 1)
    pad = " " if shown[0] in "` " or shown[-1] in "` " else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def html_code(text: str) -> str:
    """``text`` as ``<code>`` inside raw HTML (a ``<summary>``): escaped, one line."""
    return f"<code>{html.escape(_one_line(text))}</code>"


def _listed(items: list[str], limit: int = MAX_LIST) -> str:
    shown = ", ".join(code(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def fenced(items: list[str], language: str, limit: int = MAX_DIFF_LINES) -> Block:
    """``items`` as the lines of a fenced code block none of them can close (a backtick fence longer than
    any backtick run in them), at most ``limit`` lines, each cut and its control characters (a line
    break too) shown escaped."""
    lines = [_cut(controls_escaped(line), MAX_CODE_LINE) for line in items]
    shown = lines[:limit] + ([f"… {len(lines) - limit} more lines"] if len(lines) > limit else [])
    fence = "`" * max(3, _longest_backticks("\n".join(shown)) + 1)
    return [f"{fence}{language}", *shown, fence]


def _details(summary: str, body: Block) -> Block:
    """A ``<details>`` block; ``summary`` is HTML (constant text and :func:`html_code`)."""
    return [f"<details><summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _other_count(report: DiffReport) -> int:
    other = report["other_files"]
    return len(other["added"]) + len(other["removed"]) + len(other["changed"])


def _summary(report: DiffReport) -> str:
    parts = []
    for count, noun in ((len(report["recipes"]), "recipe(s) changed"), (len(report["added"]), "added"),
                        (len(report["removed"]), "removed"), (len(report["renamed"]), "renamed"),
                        (len(report["new_warnings"]), "new warning(s)"),
                        (report["fixed_warnings"], "warning(s) gone"),
                        (_other_count(report), "other published file(s) changed")):
        if count:
            parts.append(f"{count} {noun}")
    return " · ".join(parts)


def _command_block(recipe: str, change: CommandChange) -> Block:
    count = len(change["endpoints"])
    where = "endpoint" if count == 1 else "endpoints"
    more = f" and {count - 1} more" if count > 1 else ""
    summary = f"{FORM_LABELS[change['form']]} · {count} {where}: {html_code(change['endpoints'][0])}{more}"
    body = fenced(change["diff"].split("\n"), "diff")
    if count > 1:
        body = [f"Same change in {_listed(change['endpoints'][1:])}.", "", *body]
    return _details(summary, body)


def _result_lines(change: RecipeChange) -> Block:
    """Measured results added, removed, or with a figure changed by more than 10 %."""
    lines = []
    for result in change["results"][:MAX_LIST]:
        figures = f": {_listed(result['figures'])}" if result["figures"] else ""
        lines.append(f"- Measured result {result['change']}: {code(result['point'])} from "
                     f"{code(result['source'])}{figures}")
    if len(change["results"]) > MAX_LIST:
        lines.append(f"- Measured results: {len(change['results']) - MAX_LIST} more changes")
    return lines


def _recipe_blocks(change: RecipeChange) -> list[Block]:
    title = f"### {code(change['recipe'])} · {code(change['file'])}"
    lines: Block = [title, ""]
    if change["renamed_from"]:
        lines.append(f"- Renamed from {code(change['renamed_from'])}")
    if change["endpoints_added"]:
        lines.append(f"- Endpoints added: {_listed(change['endpoints_added'])}")
    if change["endpoints_removed"]:
        lines.append(f"- Endpoints removed: {_listed(change['endpoints_removed'])}")
    first_form = change["commands"][0]["form"] if change["commands"] else ""
    for group in (g for g in change["commands"] if g["form"] == first_form and g["flags"]):
        count = len(group["endpoints"])
        lines.append(f"- Flags ({count} endpoint{'s' if count > 1 else ''}): {_listed(group['flags'])}")
    for memory in change["memory"][:MAX_LIST]:
        lines.append(f"- Memory ({_listed(memory['endpoints'], 2)}): {code(memory['before'])} → "
                     f"**{code(memory['after'])}**")
    if len(change["memory"]) > MAX_LIST:
        lines.append(f"- Memory: {len(change['memory']) - MAX_LIST} more changes")
    lines.extend(_result_lines(change))
    if change["fields"]:
        lines.append(f"- Document fields changed: {_listed(change['fields'])}")
    if change["files"]:
        lines.append(f"- Page and preview files changed: {len(change['files'])}")
    return [[*lines, ""], *(_command_block(change["recipe"], g) for g in change["commands"])]


def blocks(report: DiffReport) -> list[Block]:
    """Every block of the report, most important first."""
    out: list[Block] = [["## vLLM recipes: what this change publishes", "",
                         f"{code(report['base'])} → {code(report['head'])}", ""]]
    if report["errors"]:
        for side, problems in report["errors"].items():
            out.append([f"### {side.upper()} does not build: {len(problems)} error(s)", "",
                        *fenced(problems, "text", MAX_LIST * 2), ""])
        return out
    if not report["changed"]:
        out.append(["Nothing published changes.", ""])
    else:
        out.append([f"**{_summary(report)}**", ""])
    if report["new_warnings"]:
        shown = [f"- {code(w)}" for w in report["new_warnings"][:MAX_LIST * 2]]
        hidden = len(report["new_warnings"]) - len(shown)
        out.append(["### New warnings", "", *shown, *([f"- … {hidden} more"] if hidden > 0 else []), ""])
    for added in report["added"]:
        memory = f" Default configuration: {code(added['memory'])}." if added["memory"] else ""
        block = [f"### Added {code(added['recipe'])} · {code(added['file'])}", "",
                 f"{added['endpoints']} endpoints.{memory}", ""]
        if added["command"]:
            block += _details("Default command", fenced(added["command"].split("\n"), "sh"))
        out.append(block)
    if report["removed"]:
        out.append(
            ["### Removed", "", *(f"- {code(r['recipe'])} · {code(r['file'])}, {r['endpoints']} endpoints"
                                 for r in report["removed"]), ""])
    if report["renamed"]:
        out.append(["### Renamed", "", *(f"- {code(r['before'])} → {code(r['after'])} "
                                        f"({round(100 * r['similarity'])}% alike)"
                                         for r in report["renamed"]), ""])
    for change in report["recipes"]:
        out.extend(_recipe_blocks(change))
    other = report["other_files"]
    if _other_count(report):
        listed = [f"- {kind}: {_listed(paths)}" for kind, paths in (("added", other["added"]),
                  ("removed", other["removed"]), ("changed", other["changed"])) if paths]
        out.append(_details(f"Other published files: {_other_count(report)} (listings, "
                            "catalogues, search, feeds, pages showing what every page shares)", listed))
    return out


def render(report: DiffReport, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS) -> str:
    """The Markdown, at most about ``max_lines`` lines and ``max_chars`` characters (whole blocks; the
    rest counted at the end)."""
    lines: list[str] = []
    size = 0
    pending = blocks(report)
    for index, block in enumerate(pending):
        block_size = sum(len(line) + 1 for line in block)
        if lines and (len(lines) + len(block) > max_lines or size + block_size > max_chars - NOTE_CHARS):
            rest = pending[index:]
            lines.append(f"_… {len(rest)} more section(s) ({sum(len(b) for b in rest)} lines) not shown: "
                         "`vllm-recipes diff --format json` lists everything._")
            break
        lines.extend(block)
        size += block_size
    return "\n".join(lines).rstrip("\n") + "\n"
