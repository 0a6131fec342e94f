"""Issue 11, property: random recipe fields from hostile alphabets never make the build raise,
write outside ``--out``, or publish a command whose bash paste runs anything but the stubs.

Each example puts one drawn value (shell metacharacters, ``..``, NUL, control and bidi
characters, unicode, huge or non-finite numbers) into one field of a small recipe beside
``recipes/``' vocabulary, builds over a previous site, and then either expects the previous
site byte-identical (exit 1) or pastes every published text into bash with only logging
stubs on ``PATH`` (exit 0).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder.cli.main import main
from builder.content.loader import load_content
from builder.output.discard import wait_for_discards
from tests.content.test_shell_safety import (
    HOSTILE,
    HOSTILE_PATH,
    SAFE_FIELDS,
    check_pastes,
    corpus_of,
    hostile_root,
    run_pastes,
)

HOSTILE_CHARS = ";|&$()`'\"\\ \t\n\r\x00\x1b./-_=:{}*?[]!~^<>#%@,+é中\u202e\u200b\ufeff"
SAFE_CHARS = "abcXYZ019"


def hostile_text(min_size: int = 0) -> st.SearchStrategy[str]:
    """Strings mixing safe letters with every character that means something to bash or paths.

    A value that is one bare ``$VAR`` is left unquoted on purpose (§10.4: the reader's shell
    fills it in; nothing runs). The paste harness sets every such variable to its own name,
    except ``HOME`` and ``PATH``, so the drawn variable is one the harness sets."""
    pieces = st.one_of(
        st.text(alphabet=HOSTILE_CHARS + SAFE_CHARS, min_size=1, max_size=12),
        st.sampled_from(["..", "../..", "/", "$(touch PWNED)", "`touch PWNED`", "; touch PWNED", "| sh",
                         "${IFS}", "$IFACE_NAME", "~root", "\x00", "a" * 120]),
    )
    return st.lists(pieces, min_size=max(min_size, 1), max_size=4).map("".join)


def yaml_number(value: float | int) -> str:
    """A number as YAML 1.2 text (``.inf``/``.nan`` for the non-finite ones)."""
    if isinstance(value, float) and math.isnan(value):
        return ".nan"
    if isinstance(value, float) and math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return repr(value)


NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, -1, 2**53 + 1, 10**9, 1e400]),
).map(yaml_number)

flow = json.dumps  # JSON is YAML flow syntax; NUL and controls are escaped as \\uXXXX

FIELD_VALUES = st.one_of(
    st.tuples(st.just("model_id"), hostile_text().map(flow)),
    st.tuples(st.just("model_id"), hostile_text().map(lambda t: flow(f"Hostile/{t}"))),
    st.tuples(st.just("base_args"), st.lists(hostile_text(), min_size=1, max_size=3).map(flow)),
    st.tuples(st.just("extra_args"), hostile_text().map(lambda t: flow(["--served-model-name", t]))),
    st.tuples(st.just("extra_args"), hostile_text().map(lambda t: flow([f"--served-model-name={t}"]))),
    st.tuples(st.just("base_env"),
              st.tuples(hostile_text(), hostile_text()).map(lambda kv: flow({kv[0]: kv[1]}))),
    st.tuples(st.just("base_env"), hostile_text().map(lambda v: flow({"NCCL_DEBUG": v}))),
    st.tuples(st.just("image"), hostile_text().map(flow)),
    st.tuples(st.just("hardware"), hostile_text().map(flow)),
    st.tuples(st.just("vram_minimum_gb"), NUMBERS),
    st.tuples(st.just("context_length"), NUMBERS),
)


def snapshot(folder: Path, skip: tuple[Path, ...]) -> dict[str, bytes | None]:
    """Every path under ``folder`` (outside ``skip``) with its bytes (None for folders)."""
    found: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")):
        if any(path == s or s in path.parents for s in skip):
            continue
        found[str(path.relative_to(folder))] = None if path.is_dir() else path.read_bytes()
    return found


@pytest.fixture(scope="module")
def previous_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site every example builds over: the safe recipe beside the vocabulary, built once."""
    tmp = tmp_path_factory.mktemp("previous")
    out = tmp / "site"
    good = hostile_root(tmp / "good")
    assert main(["build", "--content", str(good), "--out", str(out), "--json-only"]) == 0
    return out


def published(out: Path) -> dict[str, bytes]:
    """The JSON files of a written site, by path under ``out``."""
    return {str(path.relative_to(out)): path.read_bytes() for path in out.rglob("*.json")}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=FIELD_VALUES)
def test_hostile_fields_never_escape(tmp_path_factory, previous_site: Path, drawn: tuple[str, str]) -> None:
    field, value = drawn
    tmp = tmp_path_factory.mktemp("hostile")
    root = hostile_root(tmp)
    recipe = root / HOSTILE_PATH
    text = recipe.read_text()
    if field == "hardware":
        text = text.replace("    h200: verified", f"    {value}: verified")
    elif field in ("vram_minimum_gb", "context_length"):
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(f"{field}:"))
        text = text.replace(line, f"{line.split(':')[0]}: {value}")
    else:
        text = HOSTILE.format(**(SAFE_FIELDS | {field: value}))
    recipe.write_text(text)

    out = tmp / "site"
    shutil.copytree(previous_site, out)
    before_out = snapshot(out, ())
    before_around = snapshot(tmp, (out,))

    status = main(["build", "--content", str(root), "--out", str(out), "--json-only"])  # must not raise

    assert status in (0, 1)
    wait_for_discards()  # the replaced site is deleted after the build returns
    assert snapshot(tmp, (out,)) == before_around  # nothing outside --out changed
    if status == 1:
        assert snapshot(out, ()) == before_out
        return
    work = tmp / "paste"
    corpus = corpus_of(published(out), load_content(root)[0], str(work / "home"))  # what the build wrote
    pastes = list(corpus.pastes.values())
    assert pastes
    ran, leftovers = run_pastes(pastes, work, batches=1)
    assert check_pastes(pastes, ran) == []
    assert leftovers == []
    assert not list(tmp.rglob("PWNED"))
