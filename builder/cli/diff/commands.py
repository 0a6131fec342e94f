"""What a reviewer reads of one changed rendering record: its commands as published (shell, docker,
Kubernetes, Compose) as unified diffs, the flags that changed, and the memory verdict.

The shell and docker texts are what ``vllm-recipes resolve`` prints (every node and role, with the
environment exports); Kubernetes and Compose are the files of
:func:`~builder.resolver.deploy.deployment_output` for the record (a prefill/decode pool's follower ranks are
not rendered: they follow the pool's first node). Deployment files are built from the record's argv, env and
docker form, so they are compared only when the shell or docker text changed.
"""

from __future__ import annotations

import difflib
from typing import Any, cast

from builder.cli.resolve import command_text
from builder.resolver.deploy import DEPLOY_FORMATS, deployment_output
from builder.resolver.records import iter_commands
from builder.resolver.types import ResolveError, Vocab

DEPLOY_FORMS = {f.name: f.id for f in DEPLOY_FORMATS}
FORMS = ("shell", "docker", *DEPLOY_FORMS)
FORM_LABELS = {"shell": "Shell command", "docker": "Docker command",
               **{f.name: f.report_label for f in DEPLOY_FORMATS}}
VERDICTS = {"fits": "fits", "tight": "tight", "wont_start": "won't start"}


def command_forms(record: Any, vocab: Vocab, deploy: bool) -> dict[str, str]:
    """The record's commands in each published form (``deploy``: with every deployment form's files)."""
    forms: dict[str, str] = {}
    if not isinstance(record, dict):
        return forms
    for form, docker in (("shell", False), ("docker", True)):
        try:
            forms[form] = command_text(record, cast(dict[str, Any], vocab), docker)
        except (ResolveError, KeyError, TypeError, ValueError) as exc:
            forms[form] = f"(not rendered: {exc})"
    if deploy:
        for form, fmt in DEPLOY_FORMS.items():
            try:
                out = deployment_output(record, vocab, fmt)
            except (ResolveError, KeyError, TypeError, ValueError) as exc:
                forms[form] = f"(not rendered: {exc})"
                continue
            forms[form] = out["text"] if out["reason"] is None else f"(none: {out['reason']})"
    return forms


def unified(before: str, after: str, name: str, context: int = 2) -> str:
    """A unified diff of two texts (``name`` in both headers), without trailing newlines."""
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), f"a{name}", f"b{name}", n=context,
                                 lineterm="")
    return "\n".join(lines)


def changed_lines(diff: str) -> tuple[str, ...]:
    """The distinct removed and added lines of a unified diff: what makes two endpoints' changes the same
    change (a flag changed on every node of a multi-node record is the single node's change)."""
    return tuple(sorted({line for line in diff.splitlines()[2:] if line[:1] in "+-"}))


def flag_values(argv: Any) -> dict[str, list[str]]:
    """``--flag`` → its values in order (``""`` for a switch), read as argparse would pair them."""
    tokens = [str(t) for t in argv] if isinstance(argv, list) else []
    out: dict[str, list[str]] = {}
    for index, token in enumerate(tokens):
        if not token.startswith("--"):
            continue
        name, equals, value = token.partition("=")
        if not equals:
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            value = following if following and not following.startswith("--") else ""
        out.setdefault(name, []).append(value)
    return out


def _shown(name: str, values: list[str]) -> str:
    return " ".join(f"{name} {v}".strip() for v in values) if values else name


def flag_changes(before: Any, after: Any) -> list[str]:
    """Each flag a record's ``vllm`` argvs add, drop or set differently (``--max-model-len 32768 → 65536``,
    ``added --max-num-seqs 64``), per role when the record has several nodes or roles; plain text."""
    old = {(c["role"], c["number"]): flag_values(c["argv"]) for c in iter_commands(before)}
    new = {(c["role"], c["number"]): flag_values(c["argv"]) for c in iter_commands(after)}
    many = len(old.keys() | new.keys()) > 1
    changes: list[str] = []
    for key in sorted(old.keys() | new.keys()):
        was, now = old.get(key, {}), new.get(key, {})
        where = f"{key[0]}{key[1] or ''}: " if many else ""
        for name in sorted(was.keys() | now.keys()):
            if name not in now:
                changes.append(f"{where}removed {_shown(name, was[name])}")
            elif name not in was:
                changes.append(f"{where}added {_shown(name, now[name])}")
            elif was[name] != now[name]:
                changes.append(f"{where}{name} {' '.join(was[name]) or '(switch)'} → "
                               f"{' '.join(now[name]) or '(switch)'}")
    return changes


def memory_line(record: Any) -> str:
    """The record's memory verdict in a few words ("fits, 1,234,567 KV tokens"), or "no estimate"."""
    memory = record.get("memory") if isinstance(record, dict) else None
    if not isinstance(memory, dict):
        return "no estimate"
    if memory.get("error"):
        return f"no estimate ({memory['error']})"
    verdict = VERDICTS.get(str(memory.get("verdict")), str(memory.get("verdict")))
    tokens = memory.get("kv_tokens")
    shown = f"{verdict}, {tokens:,} KV tokens" if isinstance(tokens, int) else verdict
    reason = memory.get("reason")
    return f"{shown} ({reason})" if reason and memory.get("verdict") != "fits" else shown


def memory_changed(before: Any, after: Any) -> bool:
    """Whether the verdict or the KV tokens differ (or one side has no estimate)."""
    def key(record: Any) -> tuple[Any, Any]:
        memory = record.get("memory") if isinstance(record, dict) else None
        return (memory.get("verdict"), memory.get("kv_tokens")) if isinstance(memory, dict) else (None, None)

    return key(before) != key(after)
