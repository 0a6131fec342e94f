"""The resolver fixture cases of ``tests/resolver/fixtures/*.yaml``: loading and checking, shared by the
CPython test (tests/resolver/test_fixture_cases.py) and the Pyodide one (tests/browser/test_parity.py).

One file is one case::

    spec: resolver-single-node.md §5          # the section the case proves
    proves: a recipe-level tp beats the fit   # one line saying what
    recipe: ByteDance-Seed/Seed-OSS-36B-Instruct   # a recipe of ../shared/upstream (vocabulary: upstream) ...
    fragment: {model: {model_id: acme/m}}     # ... or a recipe fragment (vocabulary: vocab/synthetic.yaml),
                                              #     merged onto {variants: {default: {}},
                                              #     compatible_strategies: [single_node_tp]}
    content: recipes                          # optional: the recipe (and vocabulary) of the project's
                                              # recipes/
    selection: {hardware: h200, strategy: single_node_tp}   # what resolver.resolve takes, or
                                              # {preset: KEY, point: KEY}: that point of
                                              # resolver.resolve_preset
    expect:                                   # every key is checked against the resolved record
      command: ...          # the exact command text
      command_ends: ...     # ... or how it ends
      contains: [...]       # substrings of the command (not_contains: ... must not occur)
      args: [...]           # argv after ``vllm serve MODEL``, exactly
      args_end: [...]       # ... or its last items
      flag: {--x: "8"}      # the flag occurs once, followed by this value
      fields: {env: {...}, argv.2: acme/m, companions.0.label: L}   # record fields by dotted path
      tab_labels: [...]     # the builder's command tab labels
      tab_docker_contains: {Prefill: [...]}      # substrings of a tab's docker form (by tab label)
      tab_docker_not_contains: {Prefill: [...]}  # ... that must not occur in it
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, TypedDict

import yaml

FIXTURES = Path(__file__).resolve().parent / "fixtures"
UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream"
BASE_FRAGMENT: dict[str, Any] = {"model": {"model_id": "acme/m"}, "variants": {"default": {}},
                                 "compatible_strategies": ["single_node_tp"]}


class Case(TypedDict, total=False):
    """One fixture file."""

    name: str
    spec: str
    proves: str
    recipe: str
    content: str
    fragment: dict[str, Any]
    selection: dict[str, Any]
    expect: dict[str, Any]


def load_cases() -> list[Case]:
    """Every fixture case, by file name."""
    cases = []
    for path in sorted(FIXTURES.glob("*.yaml")):
        case: Case = yaml.safe_load(path.read_text(encoding="utf-8"))
        case["name"] = path.stem
        cases.append(case)
    return cases


def synthetic_vocab() -> dict[str, Any]:
    return yaml.safe_load((FIXTURES / "vocab" / "synthetic.yaml").read_text(encoding="utf-8"))


def fragment_recipe(case: Case) -> dict[str, Any]:
    """The synthetic recipe of a fragment case: the base fragment with the case's top-level keys."""
    doc = copy.deepcopy(BASE_FRAGMENT)
    doc.update(copy.deepcopy(case.get("fragment") or {}))
    return doc


def case_inputs(case: Case) -> tuple[dict[str, Any], dict[str, Any]]:
    """The recipe and the vocabulary a case resolves with (corpus ones through the real loader)."""
    from tests.resolver.test_module import project_recipe, project_vocab, recipe, vocab

    if "fragment" in case:
        return fragment_recipe(case), synthetic_vocab()
    if case.get("content") == "recipes":
        return project_recipe(case["recipe"]), project_vocab()
    return recipe(case["recipe"]), vocab()


def resolve_with(resolver: Any, recipe: dict[str, Any], vocab: dict[str, Any],
                 selection: dict[str, Any]) -> Any:
    """The record ``resolver`` (the package, or its Pyodide copy) gives for a case's selection."""
    if "preset" in selection:
        out = resolver.resolve_preset(recipe, vocab, selection["preset"])
        return {"warnings": out["warnings"], **out["points"][selection["point"]]}
    return resolver.resolve(recipe, vocab, selection)


def _field(record: Any, path: str) -> Any:
    for part in path.split("."):
        record = record[int(part)] if isinstance(record, list) else record[part]
    return record


def mismatches(case: Case, record: dict[str, Any]) -> list[str]:
    """What of ``expect`` the resolved ``record`` does not satisfy (empty = the case holds)."""
    found: list[str] = []
    expect = case["expect"]
    command, args = record.get("command", ""), record.get("argv", [])[3:]

    def check(ok: bool, what: str) -> None:
        if not ok:
            found.append(what)

    if "command" in expect:
        check(command == expect["command"], f"command is {command!r}")
    if "command_ends" in expect:
        check(command.endswith(expect["command_ends"]), f"command ends {command[-120:]!r}")
    for text in expect.get("contains", []):
        check(text in command, f"{text!r} not in {command!r}")
    for text in expect.get("not_contains", []):
        check(text not in command, f"{text!r} in {command!r}")
    if "args" in expect:
        check(args == expect["args"], f"args are {args!r}")
    if "args_end" in expect:
        check(args[-len(expect["args_end"]):] == expect["args_end"], f"args are {args!r}")
    for flag, value in (expect.get("flag") or {}).items():
        check(args.count(flag) == 1 and args[args.index(flag) + 1] == value, f"{flag} in {args!r}")
    for path, value in (expect.get("fields") or {}).items():
        try:
            got = _field(record, path)
        except (KeyError, IndexError, TypeError):
            found.append(f"no field {path}")
            continue
        check(got == value, f"{path} is {got!r}")
    if "tab_labels" in expect:
        labels = [tab["label"] for tab in record.get("tabs", [])]
        check(labels == expect["tab_labels"], f"tab labels are {labels!r}")
    dockers = {tab["label"]: tab.get("docker") or "" for tab in record.get("tabs", [])}
    for label, texts in (expect.get("tab_docker_contains") or {}).items():
        for text in texts:
            check(text in dockers.get(label, ""),
                  f"{text!r} not in the {label} tab's docker form {dockers.get(label)!r}")
    for label, texts in (expect.get("tab_docker_not_contains") or {}).items():
        for text in texts:
            check(text not in dockers.get(label, ""),
                  f"{text!r} in the {label} tab's docker form {dockers.get(label)!r}")
    return found
