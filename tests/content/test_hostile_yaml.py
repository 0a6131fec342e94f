"""Hostile content (issue 11): alias bombs, recursion, deep nesting, bad bytes, odd files.

Every case ends in located problems, an exit status and an untouched previous site; none
raises, hangs or runs out of memory, in ``build`` as in ``serve``.
"""

from __future__ import annotations

import os
import random
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from builder.cli.build import BuildOptions, Pipeline
from builder.cli.serve import DevServer, start_dev_server
from builder.content import yaml12
from builder.content.files import Collector, read_yaml
from builder.content.problems import ContentError, Problem
from tests.support.commands import run_builder
from tests.support.paths import RECIPES
from tests.support.trees import discards_done, linked_copy, site_snapshot, snapshot

X = "models/Org/x.yaml"
QWEN = "models/Qwen/Qwen3-14B.yaml"


def billion_laughs() -> str:
    """The classic alias bomb: nine levels of ten aliases each, about 10**9 nodes."""
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def deep_nesting(levels: int = 10_000) -> str:
    return "a: " + "[" * levels + "]" * levels + "\n"


# ── the YAML loader on its own ──


def test_billion_laughs_is_small() -> None:
    assert len(billion_laughs().encode()) <= 1024


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        (
            billion_laughs(),
            4,
            "d[7]",
            "aliases expand this file to 1234567909 nodes, over the limit of 10000 for its 109 nodes",
        ),
        ("a: &a [1, *a]\n", 1, "a[1]", "recursive alias *a: it is inside its own anchor &a (line 1)"),
        ("a: &a\n  b:\n    c: *a\n", 3, "a.b.c", "recursive alias *a: it is inside its own anchor &a (line "
                                                 "1)"),
        ("a: &x 1\nb: [" + ", ".join(["*x"] * 101) + "]\n", 2, "b[100]",
         "too many aliases: more than 100 in one file"),
        (deep_nesting(), 1, "", "nesting deeper than 100 levels"),  # libyaml's own limit (1000) comes first
        ("a: " + "[" * 101 + "]" * 101 + "\n", 1, "a" + "[0]" * 99, "nesting deeper than 100 levels"),
        ("a: " + "{b: " * 120 + "1" + "}" * 120 + "\n", 1, "a" + ".b" * 99, "nesting deeper than 100 levels"),
        (
            "a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n",
            2,
            "b" + "[0]" * 50,
            "nesting deeper than 100 levels once alias *a is expanded",
        ),
        ("a: &x 1\nb: &x 2\n", 2, "", "duplicate anchor &x (first defined on line 1)"),
        ("a: 1\nb: *nope\n", 2, "b", "undefined alias *nope"),
        ("a: 1\nb: x\x00y\n", 2, "", "control character U+0000 is not allowed in YAML (column 5)"),
        ("a: \x1b[31m\n", 1, "", "control character U+001B is not allowed in YAML (column 4)"),
        ("a: b\x7f\n", 1, "", "control character U+007F is not allowed in YAML (column 5)"),
        ("a: '\x9b'\n", 1, "", "control character U+009B is not allowed in YAML (column 5)"),
        ("a: \ufffe\n", 1, "", "character U+FFFE is not allowed in YAML (column 4)"),
        ("n: " + "9" * 5000 + "\n", 1, "n", f"integer {'9' * 20}... has more than 4300 digits"),
        ("n: !!int " + "9" * 5000 + "\n", 1, "n", f"integer {'9' * 20}... has more than 4300 digits"),
        ("x" * 2_000_001, 0, "", "file is too large: 2000001 characters (the limit is 2000000 bytes)"),
    ],
    ids=[
        "billion-laughs",
        "recursive-alias",
        "recursive-alias-in-mapping",
        "too-many-aliases",
        "10000-deep",
        "101-deep",
        "120-deep-mapping",
        "deep-through-alias",
        "duplicate-anchor",
        "undefined-alias",
        "nul",
        "escape",
        "del",
        "c1",
        "noncharacter",
        "huge-int",
        "huge-tagged-int",
        "too-large",
    ],
)
def test_hostile_documents_are_located_errors(text: str, line: int, field: str, message: str) -> None:
    with pytest.raises(yaml12.YamlError) as caught:
        yaml12.load(text)
    assert (caught.value.line, caught.value.field, caught.value.message) == (line, field, message)


def test_aliases_within_the_limits_still_work() -> None:
    data, lines = yaml12.load("base: &b {tp: 2, env: [A]}\nh100: *b\nh200: [*b, *b]\n")
    assert (data
            == {"base": {"tp": 2, "env": ["A"]}, "h100": {"tp": 2, "env": ["A"]}, "h200": [data["base"]] * 2})
    assert lines["h200[1].env[0]"] == 1  # the anchor's line
    assert yaml12.expansion_limit(10) == 10_000
    assert yaml12.expansion_limit(1_000) == 50_000
    assert yaml12.expansion_limit(100_000) == 1_000_000
    assert yaml12.expansion_limit(3_000_000) == 3_000_000  # no aliases is never too many nodes


def test_timestamps_out_of_range_stay_strings() -> None:
    data, _ = yaml12.load("a: 0001-01-01 00:30:00 +01:00\nb: 9999-12-31 23:30:00 -01:00\n")
    assert data == {"a": "0001-01-01 00:30:00 +01:00", "b": "9999-12-31 23:30:00 -01:00"}


def test_a_long_digit_key_is_not_an_index() -> None:
    data, _ = yaml12.load(f"? '{'1' * 5000}'\n: x\n2: y\n")  # an explicit key: any length
    assert list(data) == ["2", "1" * 5000]


def test_read_yaml_follows_a_link_inside_the_root_and_reads_crlf(tmp_path: Path) -> None:
    (tmp_path / "real.yaml").write_bytes(b"a: |\r\n  one\r\n  two\r\n")
    (tmp_path / "link.yaml").symlink_to("real.yaml")
    out = Collector()
    assert read_yaml(tmp_path, "link.yaml", out) == ({"a": "one\ntwo\n"}, {"": 1, "a": 1})
    assert out.problems == []


def test_a_file_name_with_a_control_character_is_shown_escaped(tmp_path: Path) -> None:
    (tmp_path / "a\nb.yaml").write_text("a: 1\n")
    out = Collector()
    assert read_yaml(tmp_path, "a\nb.yaml", out) is None
    assert [str(p) for p in out.problems] == ["a\\x0ab.yaml: file name contains control characters"]


# ── the command line on hostile files ──


@pytest.fixture()
def previous_site(recipes_site: Path) -> Path:
    """A site built from our recipes (the session's), linked into each test as the previous output."""
    return recipes_site


def write_bytes(data: bytes) -> Callable[[Path], None]:
    def put(path: Path) -> None:
        path.write_bytes(data)

    return put


def fifo(path: Path) -> None:
    os.mkfifo(path)


def dangling_link(path: Path) -> None:
    path.symlink_to("nowhere.yaml")


def link_outside(path: Path) -> None:
    path.symlink_to(RECIPES / "models" / "Qwen" / "Qwen3-14B.yaml")


def latin1_name(path: Path) -> None:
    """A strategy file named in Latin-1 (recipe file names are checked by recipe discovery)."""
    (path.parents[2] / "strategies" / os.fsdecode(b"caf\xe9.yaml")).write_text("name: cafe\n")


FAILED = "build failed: {} error(s); {} left unchanged"
HOSTILE = {
    "billion-laughs": (
        write_bytes(billion_laughs().encode()),
        [f"{X}:4: d[7]: aliases expand this file to 1234567909 nodes, over the limit of 10000 for its 109 "
         "nodes"],
    ),
    "recursive-alias": (
        write_bytes(b"model: &m\n  model_id: *m\n"),
        [f"{X}:2: model.model_id: recursive alias *m: it is inside its own anchor &m (line 1)"],
    ),
    "10000-deep": (write_bytes(deep_nesting().encode()), [f"{X}:1: nesting deeper than 100 levels"]),
    "nul-byte": (
        write_bytes(b"model:\n  model_id: Org/x\x00\n"),
        [f"{X}:2: control character U+0000 is not allowed in YAML (column 18)"],
    ),
    "latin-1-bytes": (
        write_bytes(b"meta:\n  title: Caf\xe9\n"),
        [f"{X}:2: not valid UTF-8 (byte 0xe9 at column 13)"],
    ),
    "latin-1-name": (latin1_name, ["strategies/caf\\xe9.yaml: file name is not valid UTF-8"]),
    "oversized": (
        write_bytes(b"# padding\n" * 200_001),
        [f"{X}: file is too large: 2,000,010 bytes (the limit is 2,000,000)"],
    ),
}
SKIPPED = {
    "fifo": (fifo, f"{X}: warning: not a regular file, skipped"),
    "dangling-symlink": (dangling_link, f"{X}: warning: not a regular file, skipped"),
    "symlink-loop": (lambda path: path.symlink_to(path.name), f"{X}: warning: not a regular file, skipped"),
    "symlink-outside-the-root": (link_outside,
                                 f"{X}: warning: a link to a file outside the content root, skipped"),
}


def build_hostile(tmp_path: Path, previous_site: Path, make: Callable[[Path], None], *flags: str):
    """Copy our recipes, add one hostile ``models/Org/x.yaml``, build; (status, stderr, site, tmp)
    before/after."""
    content, out = tmp_path / "content", tmp_path / "site"
    shutil.copytree(RECIPES, content)
    linked_copy(previous_site, out)
    (content / "models" / "Org").mkdir()
    make(content / X)
    # the linked copy has the session site's bytes: its snapshot is taken once per process
    site_before, around_before = site_snapshot(previous_site), snapshot(tmp_path, skip=out)
    # a process of its own with a timeout: a hang or a runaway would fail, not stall
    done = run_builder(["build", "--content", str(content), "--out", str(out), *flags], dict(os.environ),
                       timeout=20)
    discards_done(tmp_path)  # the replaced site is deleted by a detached process after the build returns
    assert snapshot(tmp_path, skip=out) == around_before  # nothing outside --out changed (no staging left)
    return done, out, site_before


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_file_fails_the_build_and_keeps_the_site(case: str, tmp_path: Path,
                                                         previous_site: Path) -> None:
    make, problems = HOSTILE[case]
    done, out, site_before = build_hostile(tmp_path, previous_site, make)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [*problems, FAILED.format(1, out)]
    assert snapshot(out) == site_before


@pytest.mark.parametrize("case", list(SKIPPED))
def test_odd_file_is_skipped_with_a_warning(case: str, tmp_path: Path, previous_site: Path) -> None:
    make, warning = SKIPPED[case]
    done, out, site_before = build_hostile(tmp_path, previous_site, make)
    assert done.returncode == 0
    assert done.stderr.splitlines() == [warning]
    assert done.stdout.startswith("built 11 recipes,")
    assert snapshot(out) == site_before  # the same recipes: the same bytes


@pytest.mark.parametrize("case", list(SKIPPED))
def test_odd_file_fails_a_strict_build(case: str, tmp_path: Path, previous_site: Path) -> None:
    make, warning = SKIPPED[case]
    done, out, site_before = build_hostile(tmp_path, previous_site, make, "--strict")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [warning, FAILED.format(1, out)]
    assert snapshot(out) == site_before


# ── fuzz: mutated recipes reach problems, never an exception ──

TOKENS = [
    "&a ", "*a", "&b [*a, *a]", "!!int ", "!!str ", "!!binary ", "!foo ", "<<: ", "? ", "---\n", "...\n", "[",
    "]",
    "{", "}", ": ", "- ", "|\n", ">-\n", "\t", "'", '"', "#", "%YAML 1.2\n", "\x00", "\x85", "\ufeff", "é",
    "9" * 4400, "1e999", ".nan", "0x", "2024-02-30", "0000-01-01 00:00:00 +23", "null", "~", "\n  ", "\n",
]


def mutate(text: str, rng: random.Random) -> bytes:
    """One random edit or a few: insert a YAML token, drop or repeat a slice, flip a byte."""
    data = text
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(data) + 1)
        kind = rng.random()
        if kind < 0.5:
            data = data[:at] + rng.choice(TOKENS) + data[at:]
        elif kind < 0.7:
            data = data[:at] + data[at + rng.randint(1, 40) :]
        elif kind < 0.85:
            end = at + rng.randint(1, 200)
            data = data[:end] + data[at:end] + data[end:]
        else:
            data = data[:at] + " " * rng.randint(1, 6) + data[at:]
    raw = bytearray(data.encode("utf-8", "surrogatepass"))
    if rng.random() < 0.1 and raw:
        raw[rng.randrange(len(raw))] = rng.randrange(256)
    return bytes(raw)


def assert_printable(problems: list[Problem]) -> None:
    for problem in problems:
        shown = str(problem)
        shown.encode("utf-8")  # no surrogates
        assert "\n" not in shown and shown.startswith(("models/", "taxonomy", "strategies/")), shown


def test_mutated_yaml_files_give_problems_not_exceptions(tmp_path: Path) -> None:
    original = (RECIPES / QWEN).read_text()
    (tmp_path / "models" / "Qwen").mkdir(parents=True)
    rng = random.Random(11)
    loaded = 0
    for _ in range(400):
        (tmp_path / QWEN).write_bytes(mutate(original, rng))
        out = Collector()
        if read_yaml(tmp_path, QWEN, out) is not None:
            loaded += 1
            assert out.problems == []
        else:
            assert len(out.problems) == 1
            assert_printable(out.problems)
    assert 50 <= loaded <= 350, loaded  # both outcomes were exercised


def test_mutated_recipes_build_or_give_problems(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(RECIPES, content,
                    ignore=lambda folder, names: [n for n in names if n in ("MiniMaxAI", "moonshotai")])
    recipe = content / QWEN
    original = recipe.read_text()
    rng = random.Random(12)
    outcomes = {"built": 0, "problems": 0}
    for round_ in range(40):
        recipe.write_bytes(mutate(original, rng))
        try:
            Pipeline(BuildOptions(content=content, out=tmp_path / "site", html=False)).run()
            outcomes["built"] += 1
        except ContentError as exc:
            assert exc.problems, round_
            assert_printable(exc.problems)
            outcomes["problems"] += 1
    assert outcomes["problems"] >= 10 and outcomes["built"] >= 5, outcomes  # both paths were exercised


def test_random_alias_graphs_load_or_fail_cleanly() -> None:
    rng = random.Random(7)
    for _ in range(300):
        lines, anchors = [], []
        for index in range(rng.randint(1, 12)):
            parts = []
            for _ in range(rng.randint(1, 6)):
                if anchors and rng.random() < 0.6:
                    parts.append(f"*{rng.choice(anchors)}")
                else:
                    parts.append(rng.choice(["1", "x", "[]", "{}", "[1, 2]"]))
            name = f"n{index}"
            if rng.random() < 0.1:  # refer to itself
                parts.append(f"*{name}")
            lines.append(f"k{index}: &{name} [{', '.join(parts)}]")
            anchors.append(name)
        try:
            yaml12.load("\n".join(lines) + "\n")
        except yaml12.YamlError as exc:
            assert exc.line >= 1 and exc.message


# ── serve: every bad save leaves the last good site served ──


def fetch(port: int, path: str) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
        return response.read()


def wait_for(lines: list[str], text: str, since: int, timeout: float = 30.0) -> None:
    """Until a line containing ``text`` is printed after the first ``since`` lines."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(text in line for line in lines[since:]):
            return
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not printed; output since:\n{''.join(lines[since:])}")


@pytest.fixture()
def dev_server(tmp_path: Path) -> Iterator[tuple[DevServer, Path]]:
    content = tmp_path / "content"
    shutil.copytree(RECIPES, content)
    dev = start_dev_server(content, tmp_path / "site")
    try:
        yield dev, content
    finally:
        dev.stop()


def save(path: Path, data: bytes, scratch: Path) -> None:
    """Write ``data`` as an editor would: to a scratch file, then renamed into place (one event)."""
    scratch.write_bytes(data)
    os.replace(scratch, path)


def test_serve_survives_every_bad_save(dev_server, tmp_path: Path) -> None:
    dev, content = dev_server
    recipe, strategy = content / QWEN, content / "strategies" / "single_node_tp.yaml"
    good, strategy_text = recipe.read_bytes(), strategy.read_bytes()
    scratch = tmp_path / "scratch"
    page, json = fetch(dev.port, "/Qwen/Qwen3-14B/"), fetch(dev.port, "/Qwen/Qwen3-14B.json")

    def still_serving() -> None:
        assert dev.process.poll() is None
        assert (fetch(dev.port, "/Qwen/Qwen3-14B/"), fetch(dev.port, "/Qwen/Qwen3-14B.json")) == (page, json)

    def bad_save(make: Callable[[], None], problem: str) -> None:
        since = len(dev.lines)
        make()
        wait_for(dev.lines, "rebuild failed; the site is unchanged", since)
        assert any(problem in line for line in dev.lines[since:]), "".join(dev.lines[since:])
        still_serving()

    def restore() -> None:
        since = len(dev.lines)
        save(recipe, good, scratch)
        wait_for(dev.lines, "rebuilt: ", since)
        still_serving()

    bad_save(lambda: save(recipe, billion_laughs().encode(), scratch),
             f"{QWEN}:4: d[7]: aliases expand this file")
    bad_save(lambda: save(recipe, good.replace(b"title: ", b"title: Caf\xe9 ", 1), scratch),
             "not valid UTF-8 (byte 0xe9")
    bad_save(lambda: save(recipe, good + b"x: &x [*x]\n", scratch), "recursive alias *x")
    bad_save(
        lambda: save(recipe, good.replace(b"compatible_strategies:\n", b"compatible_strategies:\n  - nope\n",
                                          1), scratch),
        "compatible_strategies[0]: unknown strategy 'nope'",
    )
    restore()

    bad_save(lambda: (recipe.unlink(), os.mkfifo(recipe)), f"{QWEN}: warning: not a regular file, skipped")
    recipe.unlink()
    restore()

    since = len(dev.lines)
    loop = content / "models" / "Qwen" / "loop.yaml"
    loop.symlink_to("loop.yaml")
    wait_for(dev.lines, "rebuilt: ", since)
    assert "models/Qwen/loop.yaml: warning: not a regular file, skipped\n" in dev.lines[since:]
    still_serving()
    loop.unlink()
    bad_save(strategy.unlink, "unknown strategy 'single_node_tp'")
    since = len(dev.lines)
    save(strategy, strategy_text, scratch)
    wait_for(dev.lines, "rebuilt: ", since)
    still_serving()

    since = len(dev.lines)
    latin1 = content / "strategies" / os.fsdecode(b"caf\xe9.yaml")
    latin1.write_text("name: cafe\n")  # watchfiles cannot decode this name: the watcher restarts
    wait_for(dev.lines, "strategies/caf\\xe9.yaml: file name is not valid UTF-8", since)
    wait_for(dev.lines, "rebuild failed; the site is unchanged", since)
    still_serving()
    since = len(dev.lines)
    latin1.unlink()
    wait_for(dev.lines, "rebuilt: ", since)

    since = len(dev.lines)
    save(recipe, good.replace(b'title: "', b'title: "Edited ', 1), scratch)
    wait_for(dev.lines, "rebuilt: ", since)
    assert b'"title": "Edited ' in fetch(dev.port, "/Qwen/Qwen3-14B.json")
    assert dev.process.poll() is None
