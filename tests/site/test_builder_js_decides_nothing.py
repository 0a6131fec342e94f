"""Issue #37: static/builder.js only renders the resolver's view and wires it to the worker.  It has
no branch on a row id, a label's text or a tab's name, names no row id or tab name, and sends no event
the view does not name (the Reset button's and the Env panel's aside), checked by reading its source."""

from __future__ import annotations

import re

from builder.resolver.ui.events import EVENT_RULES
from tests.resolver.test_events import PAGE_ACTIONS, control_views
from tests.support.paths import ROOT

BUILDER_JS = ROOT / "static" / "builder.js"
NAMED = r"[\w$.?]*\.(?:id|name|label|role|feature|axis)\b"  # a row's or a tab's name-like property
BRANCHES = {
    "compares a name with a literal": rf"{NAMED}\s*[!=]==?\s*[\"'`]|[\"'`]\s*[!=]==?\s*{NAMED}",
    "looks a name up in a list": rf"\.includes\(\s*{NAMED}\s*\)",
    "tests a name's text":
        rf"\.test\(\s*{NAMED}|{NAMED}\s*\.\s*(?:startsWith|endsWith|includes|match|search|indexOf)\(",
    "switches on a name": rf"switch\s*\(\s*{NAMED}",
}
LITERAL = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\$]|\\.|\$(?!\{))*)(?:`|\$\{)")
EVENT_TYPE = re.compile(r"\btype\s*:\s*[\"'](\w+)[\"']")


def view_names() -> set[str]:
    """The row ids, install tab ids and tab names of views showing every control."""
    names: set[str] = set()
    for v in control_views():
        cuda = v["install"]["cuda_choices"]
        names |= {row["id"] for row in [*v["rows"], *v["preset_rows"], *([cuda] if cuda else [])]}
        names |= {t["name"] for t in v["tabs"]} | {t["id"] for t in v["install"]["tabs"]}
    return names


def decisions(source: str, names: set[str]) -> list[str]:
    """What ``source`` decides that the view should: one line per finding (``line: what: text``)."""
    events = {rule.type for rule in EVENT_RULES} - PAGE_ACTIONS
    found = []
    for number, line in enumerate(source.splitlines(), 1):
        code = re.sub(r"^\s*//.*", "", line)
        found += [f"{number}: {what}: {line.strip()}" for what, pattern in BRANCHES.items()
                  if re.search(pattern, code)]
        literals = {next(g for g in m.groups() if g is not None) for m in LITERAL.finditer(code)}
        found += [f"{number}: names {lit!r}: {line.strip()}" for lit in sorted(literals & names)]
        found += [f"{number}: sends {t!r} itself: {line.strip()}" for t in EVENT_TYPE.findall(code)
                  if t in events]
    return found


def test_builder_js_has_no_branch_on_a_row_id_label_or_tab_name() -> None:
    names = view_names()
    assert {"hardware", "strategy", "nodes", "prefill_pool", "instances", "preset", "cuda", "Prefill",
            "Decode",
            "docker"} <= names
    assert decisions(BUILDER_JS.read_text(encoding="utf-8"), names) == []


def test_the_check_finds_the_decisions_builder_js_used_to_make() -> None:
    """The five decisions as builder.js wrote them before the view carried them: each is found."""
    old = {
        "event per row": 'const type = row.id === "features" ? "feature"\n'
                         '  : ["hardware", "variant", "nodes"].includes(row.id) ? row.id : null;',
        "CUDA choices": 'b.addEventListener("click", () => send({ type: "cuda", value }));',
        "numbered tabs": "const numbered = tabs.some((t) => /^\\d+· /.test(t.label));",
        "prefill/decode role":
            'const pd = v.state && (active.name === "Prefill" || active.name === "Decode");',
        "preset row": 'rows.append(pillRow({ id: "preset", label: "Preset", kind: "radio", pills },\n'
                      '  (p) => send({ type: "preset", value: p.value || null })));',
        "instances input": 'const inst = (v.rows || []).find((r) => r.id === "instances");',
        "tp hint": 'if (row.id === "hardware" && v.tp_hint) panel.append(hint);',
        "a tab by prefix": 'if (t.name.startsWith("Mooncake")) return;',
    }
    names = view_names()
    assert [what for what, source in old.items() if not decisions(source, names)] == []
    assert decisions(old["numbered tabs"], names) == [
        "1: tests a name's text: const numbered = tabs.some((t) => /^\\d+· /.test(t.label));"]
