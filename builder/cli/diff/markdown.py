"""The report as Markdown short enough for a pull-request comment.

It is made of self-contained blocks (a heading and its list, a ``<details>`` with its diff): blocks are
added in order of importance (errors, new warnings, recipes added, removed, renamed, then each
changed recipe, then the other files) until :data:`MAX_LINES`; what doesn't fit is counted in a last
line that points at ``--format json``. Long diffs and lists are cut with "N more".
"""

from __future__ import annotations

from builder.cli.diff.commands import FORM_LABELS
from builder.cli.diff.report import CommandChange, DiffReport, RecipeChange

MAX_LINES = 400  # GitHub comments hold 65,536 characters; a reviewer reads far fewer (``--max-lines``)
MAX_DIFF_LINES = 60
MAX_LIST = 8
Block = list[str]


def _code(text: str) -> str:
    return f"<code>{text}</code>" if "`" in text else f"`{text}`"


def _listed(items: list[str], limit: int = MAX_LIST) -> str:
    shown = ", ".join(_code(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _fenced(text: str, language: str, limit: int = MAX_DIFF_LINES) -> Block:
    lines = text.splitlines()
    fence = "````" if any(line.startswith("```") for line in lines) else "```"
    shown = lines[:limit] + ([f"… {len(lines) - limit} more lines"] if len(lines) > limit else [])
    return [f"{fence}{language}", *shown, fence]


def _details(summary: str, body: Block) -> Block:
    return [f"<details><summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _other_count(report: DiffReport) -> int:
    other = report["other_files"]
    return len(other["added"]) + len(other["removed"]) + len(other["changed"])


def _summary(report: DiffReport) -> str:
    parts = []
    for count, noun in ((len(report["recipes"]), "recipe(s) changed"), (len(report["added"]), "added"),
                        (len(report["removed"]), "removed"), (len(report["renamed"]), "renamed"),
                        (len(report["new_warnings"]), "new warning(s)"), (report["fixed_warnings"], "warning(s) gone"),
                        (_other_count(report), "other published file(s) changed")):
        if count:
            parts.append(f"{count} {noun}")
    return " · ".join(parts)


def _command_block(recipe: str, change: CommandChange) -> Block:
    count = len(change["endpoints"])
    where = "endpoint" if count == 1 else "endpoints"
    head = change["endpoints"][0].replace("<", "&lt;")
    more = f" and {count - 1} more" if count > 1 else ""
    summary = f"{FORM_LABELS[change['form']]} · {count} {where}: <code>{head}</code>{more}"
    body = _fenced(change["diff"], "diff")
    if count > 1:
        body = [f"Same change in {_listed(change['endpoints'][1:])}.", "", *body]
    return _details(summary, body)


def _recipe_blocks(change: RecipeChange) -> list[Block]:
    title = f"### {_code(change['recipe'])} · {_code(change['file'])}"
    lines: Block = [title, ""]
    if change["renamed_from"]:
        lines.append(f"- Renamed from {_code(change['renamed_from'])}")
    if change["endpoints_added"]:
        lines.append(f"- Endpoints added: {_listed(change['endpoints_added'])}")
    if change["endpoints_removed"]:
        lines.append(f"- Endpoints removed: {_listed(change['endpoints_removed'])}")
    first_form = change["commands"][0]["form"] if change["commands"] else ""
    for group in (g for g in change["commands"] if g["form"] == first_form and g["flags"]):
        count = len(group["endpoints"])
        lines.append(f"- Flags ({count} endpoint{'s' if count > 1 else ''}): {'; '.join(group['flags'][:MAX_LIST])}")
    for memory in change["memory"][:MAX_LIST]:
        lines.append(f"- Memory ({_listed(memory['endpoints'], 2)}): {memory['before']} → **{memory['after']}**")
    if len(change["memory"]) > MAX_LIST:
        lines.append(f"- Memory: {len(change['memory']) - MAX_LIST} more changes")
    if change["fields"]:
        lines.append(f"- Document fields changed: {_listed(change['fields'])}")
    if change["files"]:
        lines.append(f"- Page and preview files changed: {len(change['files'])}")
    return [[*lines, ""], *(_command_block(change["recipe"], g) for g in change["commands"])]


def blocks(report: DiffReport) -> list[Block]:
    """Every block of the report, most important first."""
    out: list[Block] = [["## vLLM recipes: what this change publishes", "",
                         f"{_code(report['base'])} → {_code(report['head'])}", ""]]
    if report["errors"]:
        for side, problems in report["errors"].items():
            out.append([f"### {side.upper()} does not build: {len(problems)} error(s)", "",
                        *_fenced("\n".join(problems), "text", MAX_LIST * 2), ""])
        return out
    if not report["changed"]:
        out.append(["Nothing published changes.", ""])
    else:
        out.append([f"**{_summary(report)}**", ""])
    if report["new_warnings"]:
        shown = [f"- {_code(w)}" for w in report["new_warnings"][:MAX_LIST * 2]]
        hidden = len(report["new_warnings"]) - len(shown)
        out.append(["### New warnings", "", *shown, *([f"- … {hidden} more"] if hidden > 0 else []), ""])
    for added in report["added"]:
        memory = f" Default configuration: {added['memory']}." if added["memory"] else ""
        block = [f"### Added {_code(added['recipe'])} · {_code(added['file'])}", "",
                 f"{added['endpoints']} endpoints.{memory}", ""]
        if added["command"]:
            block += _details("Default command", _fenced(added["command"], "sh"))
        out.append(block)
    if report["removed"]:
        out.append(["### Removed", "", *(f"- {_code(r['recipe'])} · {_code(r['file'])}, {r['endpoints']} endpoints"
                                        for r in report["removed"]), ""])
    if report["renamed"]:
        out.append(["### Renamed", "", *(f"- {_code(r['before'])} → {_code(r['after'])} "
                                        f"({round(100 * r['similarity'])}% alike)" for r in report["renamed"]), ""])
    for change in report["recipes"]:
        out.extend(_recipe_blocks(change))
    other = report["other_files"]
    if _other_count(report):
        listed = [f"- {kind}: {_listed(paths)}" for kind, paths in (("added", other["added"]),
                  ("removed", other["removed"]), ("changed", other["changed"])) if paths]
        out.append(_details(f"Other published files: {_other_count(report)} (listings, catalogues, search, feeds, "
                            "pages showing what every page shares)", listed))
    return out


def render(report: DiffReport, max_lines: int = MAX_LINES) -> str:
    """The Markdown, at most about ``max_lines`` lines (whole blocks; the rest counted at the end)."""
    lines: list[str] = []
    pending = blocks(report)
    for index, block in enumerate(pending):
        if lines and len(lines) + len(block) > max_lines:
            rest = pending[index:]
            lines.append(f"_… {len(rest)} more section(s) ({sum(len(b) for b in rest)} lines) not shown: "
                         "`vllm-recipes diff --format json` lists everything._")
            break
        lines.extend(block)
    return "\n".join(lines).rstrip("\n") + "\n"
