"""Issue 11: no published command can run a payload (README "Safe content").

1. Paste test: every shell text published for ../shared/upstream and recipes/ runs under
   bash with ``PATH`` holding only logging stubs; only allowed stubs may run, and the
   ``vllm`` / ``docker`` stubs must receive exactly the record's argv.
2. Hostile content: payloads in unquoted positions are build errors located in the YAML;
   payloads in quoted positions build, and pasting them runs nothing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

from builder import resolver
from builder.cli.build import BuildOptions, Pipeline
from builder.cli.main import main
from builder.content import shell_safety
from builder.content.model import Content
from builder.output.writer import MARKER, MARKER_TEXT
from builder.resolver import docker, install, omni, safety, shell, values
from builder.resolver.families import family_of
from builder.resolver.topologies import mooncake
from builder.site.command_blocks import env_exports
from tests.support.paths import RECIPES

SERVE_STUBS = ("vllm", "docker")
SCRIPT_STUBS = ("uv", "pip", "curl", "git", "hf", "sudo", "modal", "python3", "cat", "jq", "base64", "sed",
                "lmcache", "mooncake_master", "vllm-router", *SERVE_STUBS)
STUB = r"""#!/usr/bin/dash
printf '\001CALL\000%s\000' "${0##*/}" >> "$STUB_LOG"
[ $# -gt 0 ] && printf '%s\000' "$@" >> "$STUB_LOG"
printf '\001END\000' >> "$STUB_LOG"
if [ "${0##*/}" = cat ] && [ $# -eq 0 ]; then
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\n' "$line"; done
fi
exit 0
"""
HARNESS_HEAD = """command_not_found_handle() {
  printf '\\001NOTFOUND\\000%s\\000' "$1" >> "$STUB_LOG"; return 127; }
"""
# Each stub is also a shell function that looks ``$1`` up in PATH as bash would: when the first hit is
# the stub folder it logs what the stub would (without a process per call), otherwise ``command`` runs
# what bash would have run. ``exec``, ``command`` and the like still reach the stub files.
STUB_FUNCTION = r"""__stub_call() {
  local __name=$1 __rest="$PATH:" __dir __hit= __line
  while [ -n "$__rest" ]; do
    __dir=${__rest%%:*}; __dir=${__dir:-.}; __rest=${__rest#*:}
    if [ -f "$__dir/$__name" ] && [ -x "$__dir/$__name" ]; then __hit=$__dir; break; fi
  done
  if [ "$__hit" != "$__stub_bin" ]; then command "$@"; return; fi
  { printf '\001CALL\000%s\000' "$__name"; shift; [ $# -gt 0 ] && printf '%s\000' "$@"
    printf '\001END\000'; } >> "$STUB_LOG"
  if [ "$__name" = cat ] && [ $# -eq 0 ]; then
    while IFS= read -r __line || [ -n "$__line" ]; do printf '%s\n' "$__line"; done
  fi
  return 0
}
"""


def stub_functions(binary: Path, names: tuple[str, ...]) -> str:
    """The harness lines defining one function per stub name (see ``STUB_FUNCTION``)."""
    return STUB_FUNCTION + f"__stub_bin='{binary}'\n" + "".join(
        f'{name}() {{ __stub_call {name} "$@"; }}\n' for name in names)


HF_MOUNT = values.HF_CACHE_MOUNT
PLACEHOLDER = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Paste:
    """One published shell text and what running it must do.

    ``calls`` None: any allowed stub may run (authored scripts); otherwise exactly these
    stub calls (name, *argv[1:]) in order. ``env``: variables the text must export.
    """

    text: str
    calls: tuple[tuple[str, ...], ...] | None
    env: tuple[tuple[str, str], ...] = ()


@dataclass
class Corpus:
    """Every paste of one content root, deduplicated by text (and expectation)."""

    pastes: dict[tuple[Any, ...], Paste] = field(default_factory=dict)
    split_items: int = 0  # expectations that split an unquoted argv item at a space (README)

    def add(self, paste: Paste) -> None:
        self.pastes.setdefault((paste.text, paste.calls, paste.env), paste)


def _split(item: str, corpus: Corpus) -> list[str]:
    """An unquoted argv item as bash sees it: the tolerated forms hold single spaces only."""
    if " " in item:
        corpus.split_items += 1
        return item.split(" ")
    return [item]


def serve_words(argv: list[str], corpus: Corpus) -> list[str]:
    """The words bash passes for a published ``vllm serve`` argv (§10.2 grouping)."""
    out = [*argv[:2], *_split(argv[2], corpus)]
    previous_flag = False
    for token in argv[3:]:
        is_flag = token.startswith("-")
        out += [token] if previous_flag and not is_flag else _split(token, corpus)
        previous_flag = is_flag
    return out


def docker_words(docker_argv: list[str], serve_argv: list[str], home: str, corpus: Corpus) -> list[str]:
    """Docker prefix (device flags, mounts, ``-e``, image) is unquoted; ``~`` expands to HOME."""
    cut = len(docker_argv) - (len(serve_argv) - 2)
    head = [w for item in docker_argv[:cut] for w in _split(item, corpus)]
    head = [home + w[1:] if w == HF_MOUNT else w for w in head]
    return head + serve_words(serve_argv, corpus)[2:]


def shell_device_flags(words: list[str], profile: dict[str, Any]) -> list[str]:
    """§12.3: the shell string writes Intel's ``--shm-size 16g`` as ``--shm-size=16g``."""
    row = family_of(profile)
    shell_form, argv_form = row["docker_flags"], list(row["docker_argv"])
    shown = shell_form.replace("\\\n", " ").split()
    assert words[2:2 + len(argv_form)] == argv_form
    return [*words[:2], *shown, *words[2 + len(argv_form):]]


PAIRS = (("command", "argv", "docker_command", "docker_argv"),
         ("head_command", "head_argv", "head_docker_command", "head_docker_argv"),
         ("worker_command", "worker_argv", "worker_docker_command", "worker_docker_argv"),
         ("vllm_command", "vllm_argv", "vllm_docker_command", "vllm_docker_argv"),
         ("vllm_worker_command", "vllm_worker_argv", "vllm_worker_docker_command", "vllm_worker_docker_argv"))
LIST_PAIRS = (("worker_commands", "worker_argvs", "worker_docker_commands", "worker_docker_argvs"),
              ("vllm_worker_commands", "vllm_worker_argvs", "vllm_worker_docker_commands",
               "vllm_worker_docker_argvs"))
SCRIPT_FIELDS = ("command", "install", "vllm_install", "curl")


def _env_lines(env: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((k, values.js_str(v)) for k, v in env.items())


def _serve_pastes(rec: dict[str, Any], profile: dict[str, Any], home: str, corpus: Corpus) -> set[str]:
    """Serve commands, their docker and pip forms; returns the command keys consumed."""
    env = rec.get("env") if isinstance(rec.get("env"), dict) else {}
    triples = [(rec[c], rec[a], rec.get(dc), rec.get(da)) for c, a, dc, da in PAIRS
               if isinstance(rec.get(c), str) and isinstance(rec.get(a), list)]
    for c, a, dc, da in LIST_PAIRS:
        if isinstance(rec.get(c), list) and isinstance(rec.get(a), list):
            dcs, das = rec.get(dc) or [None] * len(rec[c]), rec.get(da) or [None] * len(rec[c])
            triples += zip(rec[c], rec[a], dcs, das, strict=True)
    for command, argv, docker_command, docker_argv in triples:
        call = tuple(serve_words(argv, corpus))
        pip = shell.pip_view(command, env, profile)
        assert pip == command or pip.endswith("\n\n" + command)  # so the pip view pastes the command too
        corpus.add(Paste(pip, (call,), _env_lines(env)))
        exports = env_exports(env)
        if exports and exports != "\n".join(f"export {k}={v}" for k, v in _env_lines(env)):
            corpus.add(Paste(exports + "\n\n" + command, (call,),
                             tuple((k, v) for k, v in env.items() if isinstance(v, str))))
        if isinstance(docker_command, str):
            words = docker_words(docker_argv, argv, home, corpus)
            corpus.add(Paste(docker_command, (tuple(shell_device_flags(words, profile)),)))
    return {key for pair in (*PAIRS, *LIST_PAIRS) for key in (pair[0], pair[2])} if triples else set()


def collect(value: Any, profiles: dict[str, Any], home: str, corpus: Corpus,
            profile: dict[str, Any] | None = None
            ) -> None:
    """Every shell text of one published JSON document (``profile``: of the enclosing record)."""
    if isinstance(value, list):
        for item in value:
            collect(item, profiles, home, corpus, profile)
        return
    if not isinstance(value, dict):
        return
    if isinstance(value.get("hardware"), str):
        profile = profiles.get(value["hardware"]) or {}
    consumed = _serve_pastes(value, profile or {}, home, corpus)
    for key, inner in value.items():
        if key in consumed:
            continue
        if key in SCRIPT_FIELDS and isinstance(inner, str):
            if not inner.startswith("# Dockerfile"):
                corpus.add(Paste(inner, None))
        elif key == "install" and isinstance(inner, dict) and all(isinstance(v, str) for v in inner.values()):
            for text in inner.values():
                corpus.add(Paste(text, None))
        else:
            collect(inner, profiles, home, corpus, profile)


def builder_pastes(content: Content, home: str, corpus: Corpus) -> None:
    """Texts only the builder shows: omni commands and examples, install blocks, kv companions."""
    vocab = {"taxonomy": content.vocab.taxonomy, "strategies": content.vocab.strategy_map}
    for option in (content.vocab.taxonomy.get("kv_offload") or {}).values():
        if isinstance(option.get("companion"), dict):
            corpus.add(Paste(option["companion"]["command"], None))
    for recipe in content.recipes:
        data = recipe.data
        for hw in resolver.offered_hardware(data, content.vocab.taxonomy, "default"):
            if resolver.is_omni(data):
                profile = content.vocab.taxonomy["hardware_profiles"][hw]
                image = docker.docker_image(data, data["variants"]["default"], profile, hw)
                for task in omni.omni_tasks(data):
                    res = resolver.resolve(data, vocab, {"hardware": hw, "task": task["key"]})
                    corpus.add(Paste(res["command"], None))
                    # the builder's Docker mode (issue #41): the weights and a docker_source checkout mounted
                    corpus.add(Paste(docker.docker_run(res["command"], res["env"], image, profile,
                                                       source=docker.source_checkout(data)), None))
                    if res.get("example"):
                        corpus.add(Paste(res["example"], None))
            blocks = install.interactive_install(data, vocab, hw, "default")
            for block in (blocks["pip"], blocks["docker"], *blocks["extras"]):
                if block and isinstance(block.get("command"), str):
                    corpus.add(Paste(block["command"], None))


def corpus_of(api_files: Mapping[str, bytes], content: Content, home: str) -> Corpus:
    """Every shell text of a build: its JSON API files (``api_files``) and the builder's own."""
    profiles = content.vocab.taxonomy.get("hardware_profiles") or {}
    corpus = Corpus()
    for path, body in api_files.items():
        if path.endswith(".json"):
            collect(orjson.loads(body), profiles, home, corpus)
    builder_pastes(content, home, corpus)
    return corpus


def build_corpus(content_root: Path, home: str) -> tuple[Corpus, dict[str, Any]]:
    """Build ``content_root``'s JSON API in memory and gather every published shell text."""
    result = Pipeline(BuildOptions(content=content_root, out=Path("unused"), html=False)).run()
    return corpus_of(result.files, result.content, home), result.content.vocab.kv_store


# ── running pastes ────────────────────────────────────────────────────────


@dataclass
class Ran:
    """What one paste did: stub calls, names bash could not find, exported env."""

    calls: list[tuple[str, ...]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


def _parse_log(raw: bytes) -> dict[int, Ran]:
    parts = raw.split(b"\0")
    out: dict[int, Ran] = {}
    current: Ran | None = None
    i = 0
    while i < len(parts):
        tag = parts[i]
        if tag == b"\x01CASE":
            current = out.setdefault(int(parts[i + 1]), Ran())
            i += 2
        elif tag == b"\x01CALL":
            end = parts.index(b"\x01END", i)
            assert current is not None
            current.calls.append(tuple(p.decode() for p in parts[i + 1:end]))
            i = end + 1
        elif tag == b"\x01NOTFOUND":
            assert current is not None
            current.missing.append(parts[i + 1].decode())
            i += 2
        elif tag == b"\x01ENV":
            assert current is not None
            current.env[parts[i + 1].decode()] = parts[i + 2].decode()
            i += 3
        else:
            i += 1
    return out


def make_bin(folder: Path, names: tuple[str, ...]) -> Path:
    """A folder of logging stubs, one per allowed command name."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        stub = folder / name
        stub.write_text(STUB)
        stub.chmod(0o755)
    return folder


def run_pastes(pastes: list[Paste], work: Path, extra_env: dict[str, str] | None = None,
               batches: int = 2) -> tuple[list[Ran], list[Path]]:
    """Run every paste (sourced in its own subshell) in ``batches`` bash processes.

    Every ``$NAME`` a text mentions is set to the literal ``$NAME``, so expanded placeholders
    compare equal to the record. Returns what each paste did and the files left in ``work``.
    """
    binary = make_bin(work / "bin", SCRIPT_STUBS)
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    names = sorted({m.group(1) for p in pastes for m in PLACEHOLDER.finditer(p.text)} - {"PATH", "HOME"})
    env = {n: f"${n}" for n in names} | (extra_env or {})
    results: dict[int, Ran] = {}
    procs = []
    for b in range(batches):
        folder = work / f"batch{b}"
        cases = folder / "cases"
        cases.mkdir(parents=True)
        (folder / ".venv" / "bin").mkdir(parents=True)
        (folder / ".venv" / "bin" / "activate").write_text("")
        script = [HARNESS_HEAD, stub_functions(binary, SCRIPT_STUBS)]
        for i in range(b, len(pastes), batches):
            (cases / f"{i}.sh").write_text(pastes[i].text + "\n")
            probe = "".join(
                f"printf '\\001ENV\\000%s\\000%s\\000' {k} \"${{{k}-<unset>}}\" >> \"$STUB_LOG\"; "
                for k, _ in pastes[i].env)
            script.append(f"printf '\\001CASE\\000{i}\\000' >> \"$STUB_LOG\"; ( . ./cases/{i}.sh; {probe}) "
                          f"</dev/null >/dev/null 2>&1\n")
        (folder / "harness.sh").write_text("".join(script))
        vars_ = [f"{k}={v}" for k, v in env.items()]
        procs.append(subprocess.Popen(
            ["/usr/bin/env", "-i", f"PATH={binary}", f"HOME={home}", f"STUB_LOG={folder / 'log'}", *vars_,
             "/bin/bash", "--norc", "--noprofile", "harness.sh"], cwd=folder))
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    for b in range(batches):
        log = work / f"batch{b}" / "log"
        results.update(_parse_log(log.read_bytes() if log.exists() else b""))
    leftovers = [p for b in range(batches) for p in (work / f"batch{b}").rglob("*")
                 if p.is_file() and p.name not in ("harness.sh", "log", "activate")
                 and "cases" not in p.parts]
    return [results.get(i, Ran()) for i in range(len(pastes))], leftovers


def test_the_stub_functions_do_what_bash_would_run(tmp_path: Path) -> None:
    """A stub name runs as its logging function only when PATH would find the stub file first."""
    pastes = [Paste(text, None) for text in (
        "vllm serve 'a b' --x=1",
        "exec vllm serve exec",  # exec skips functions: the stub file itself logs
        "command docker run",
        "PATH=/nowhere vllm serve gone",
        "export PATH=/usr/bin:$PATH; cat /dev/null",  # the real cat, not a stub
        "rm -rf x; printf hi | cat",
        "cat <<'EOF' > out.txt\nline one\nEOF",
    )]
    ran, leftovers = run_pastes(pastes, tmp_path, batches=1)
    assert [(r.calls, r.missing) for r in ran] == [
        ([("vllm", "serve", "a b", "--x=1")], []),
        ([("vllm", "serve", "exec")], []),
        ([("docker", "run")], []),
        ([], ["vllm"]),
        ([], []),
        ([("cat",)], ["rm"]),
        ([("cat",)], []),
    ]
    assert [(p.name, p.read_text()) for p in leftovers] == [("out.txt", "line one\n")]


def check_pastes(pastes: list[Paste], ran: list[Ran]) -> list[str]:
    """Human-readable failures (empty = every paste did exactly what it should)."""
    failures = []
    for paste, got in zip(pastes, ran, strict=True):
        allowed = SERVE_STUBS if paste.calls is not None else SCRIPT_STUBS
        bad = [c[0] for c in got.calls if c[0] not in allowed] + got.missing
        if bad:
            failures.append(f"ran {bad}: {paste.text[:200]!r}")
        elif paste.calls is not None and tuple(got.calls) != paste.calls:
            failures.append(f"argv {got.calls} != {paste.calls}: {paste.text[:200]!r}")
        elif paste.env and got.env != dict(paste.env):
            failures.append(f"env {got.env} != {dict(paste.env)}: {paste.text[:200]!r}")
    return failures


def _paste_corpus(corpus: Corpus, kv_store: dict[str, Any], work: Path, tmp_path: Path,
                  run_summary: list[str], label: str) -> Corpus:
    """Run every paste of ``corpus`` (gathered with HOME ``work / "home"``) and the kv-store scripts."""
    pastes = list(corpus.pastes.values())
    ran, leftovers = run_pastes(pastes, work)
    failures = check_pastes(pastes, ran)
    assert failures == [], f"{len(failures)} failure(s):\n" + "\n".join(f[:600] for f in failures[:5])
    assert {p.name for p in leftovers} <= {"output.png", "output.wav", "output.mp4"}, leftovers
    exact = [r for p, r in zip(pastes, ran, strict=True) if p.calls is not None]
    assert exact and all(r.calls for r in exact)
    run_summary.append(f"shell paste test ({label}): {len(pastes)} distinct texts, {len(exact)} with exact "
                       f"argv, {corpus.split_items} split(s) of an unquoted item holding a space")
    for name, dep in kv_store.items():  # the Mooncake Config tab writes its files through a heredoc
        folder = tmp_path / "mooncake" / name
        paths = {"MOONCAKE_CONFIG_PATH": folder / "vllm.json",
                 "MOONCAKE_STORE_CONFIG_PATH": folder / "store.json"}
        script = Paste(mooncake.mooncake_config_script(dep), None)
        ran, _ = run_pastes([script], folder, {k: str(v) for k, v in paths.items()}, batches=1)
        assert check_pastes([script], ran) == []
        template = (dep.get("mooncake_vllm_config") or {}).get("template") or {}
        assert json.loads(paths["MOONCAKE_CONFIG_PATH"].read_text()) == template
    return corpus


def test_paste_upstream(upstream_build: dict[str, Any], tmp_path: Path, run_summary: list[str]) -> None:
    """Every command the upstream build publishes runs only stubs, with the record's argv.

    (The session's build of ../shared/upstream: its API files are those a JSON-only build writes.)"""
    work = tmp_path / "serve"
    pages = upstream_build["pages"]
    api = {path: body for path, body in upstream_build["files"].items() if path not in pages}
    content = upstream_build["content"]
    corpus = corpus_of(api, content, str(work / "home"))  # run_pastes' HOME
    _paste_corpus(corpus, content.vocab.kv_store, work, tmp_path, run_summary, "upstream")
    assert len(corpus.pastes) > 10_000


def test_paste_recipes(tmp_path: Path, run_summary: list[str]) -> None:
    """The same for our own recipes/ (presets, omni, the builder's install blocks)."""
    work = tmp_path / "serve"
    corpus = _paste_corpus(*build_corpus(RECIPES, str(work / "home")), work, tmp_path, run_summary, "recipes")
    assert len(corpus.pastes) > 100


# ── hostile content ───────────────────────────────────────────────────────

HOSTILE = """meta:
  title: "Case"
  provider: "Hostile"
  description: "A recipe carrying a payload."
  tasks: [text]
  hardware:
    h200: verified
  date_added: 2026-12-01
model:
  model_id: {model_id}
  parameter_count: "8B"
  context_length: 131072
  min_vllm_version: "0.11.0"
  base_args: {base_args}
  base_env: {base_env}
variants:
  default:
    precision: bf16
    vram_minimum_gb: 16
    docker_image: {image}
    extra_args: {extra_args}
compatible_strategies: [single_node_tp]
dependencies: {dependencies}
"""
HOSTILE_PATH = "models/Hostile/Case.yaml"
SAFE_FIELDS = {"model_id": '"Hostile/Case"', "base_args": "[]", "base_env": "{}",
               "image": '"vllm/vllm-openai:latest"', "extra_args": "[]", "dependencies": "[]"}
ALLOWED = "only letters, digits and _ . / = : @ , + % - are allowed"
ENV_ALLOWED = "only letters, digits and _ . / = : @ , + % - or one $UPPER_CASE variable are allowed"


def hostile_root(tmp_path: Path, **fields: str) -> Path:
    """recipes/' vocabulary plus models/Hostile/Case.yaml with ``fields`` (YAML flow text) set.

    (Our recipes are left out to keep each build fast; the paste test covers them.)"""
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root, ignore=lambda folder, names: ["models"] if Path(folder) == RECIPES else [])
    target = root / HOSTILE_PATH
    target.parent.mkdir(parents=True)
    target.write_text(HOSTILE.format(**(SAFE_FIELDS | fields)))
    return root


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


UNQUOTED_CASES = [
    pytest.param({"base_args": _json(["--served-model-name=$(touch PWNED)"])},
                 f"{HOSTILE_PATH}:14: model.base_args[0]: flag '--served-model-name=$(touch PWNED)' is "
                 f"printed unquoted: {ALLOWED} (give a value as the next list item: values are quoted)",
                 id="flag-value"),
    pytest.param({"extra_args": _json(["--enforce-eager", "x", "; touch PWNED"])},
                 f"{HOSTILE_PATH}:21: variants.default.extra_args[2]: positional argument '; touch PWNED' is "
                 f"printed unquoted: {ALLOWED}", id="positional"),
    pytest.param({"extra_args": _json(["--enforce-eager", "x", "::error::approved"])},
                 f"{HOSTILE_PATH}:21: variants.default.extra_args[2]: positional argument "
                 "'::error::approved' starts with '::': printed on its own line, a CI log reads it as a "
                 "command", id="workflow-command-positional"),
    pytest.param({"extra_args": _json(["::stop-commands::x"])},
                 f"{HOSTILE_PATH}:21: variants.default.extra_args[0]: positional argument "
                 "'::stop-commands::x' starts with '::': printed on its own line, a CI log reads it as a "
                 "command", id="workflow-command-leading"),
    pytest.param({"extra_args": _json(["; touch PWNED"])},
                 f"{HOSTILE_PATH}:21: variants.default.extra_args[0]: positional argument '; touch PWNED' is "
                 f"printed unquoted: {ALLOWED}", id="leading-positional"),
    pytest.param({"base_env": _json({"FOO": "`touch PWNED`"})},
                 f"{HOSTILE_PATH}:15: model.base_env.FOO: env value '`touch PWNED`' is printed unquoted: "
                 f"{ENV_ALLOWED}", id="env-backticks"),
    pytest.param({"base_env": _json({"A=B": "1"})},
                 f"{HOSTILE_PATH}:15: model.base_env.A=B: env name 'A=B' must match [A-Za-z_][A-Za-z0-9_]*",
                 id="env-name-equals"),
    pytest.param({"base_env": _json({"A B": "1"})},
                 f"{HOSTILE_PATH}:15: model.base_env.A B: env name 'A B' must match [A-Za-z_][A-Za-z0-9_]*",
                 id="env-name-space"),
    pytest.param({"model_id": _json("Hostile/Case|touch PWNED")},
                 f"{HOSTILE_PATH}:10: model.model_id: model id 'Hostile/Case|touch PWNED' must be org/repo "
                 f"(letters, digits, _ . -) or an absolute path of letters, digits and _ . + - /",
                 id="model-id"),
    pytest.param({"base_env": _json({"MOONCAKE_CONFIG_PATH": "/etc/$(touch PWNED)"})},
                 f"{HOSTILE_PATH}:15: model.base_env.MOONCAKE_CONFIG_PATH: env value '/etc/$(touch PWNED)' "
                 f"is printed unquoted: {ENV_ALLOWED}", id="mount-config-path"),
    pytest.param({"image": _json("vllm/vllm-openai:latest; touch PWNED")},
                 f"{HOSTILE_PATH}:20: variants.default.docker_image: docker image 'vllm/vllm-openai:latest; "
                 f"touch PWNED' must be a docker image reference ([registry/]name[:tag][@sha256:digest])",
                 id="image"),
    pytest.param({"dependencies": _json([{"command": "curl -s https://example.com/x | sh"}])},
                 f"{HOSTILE_PATH}:23: dependencies[0].command: shell command: '|' outside quotes at line 1, "
                 f"column 31 is not allowed (join commands with a newline or &&)", id="install-pipe"),
    pytest.param({"dependencies": _json([{"command": 'uv pip install "$(touch PWNED)"'}])},
                 f"{HOSTILE_PATH}:23: dependencies[0].command: shell command: '$' at line 1, column 17 must "
                 f"start $NAME, ${{NAME}} or $(cat <path>)", id="install-subst"),
]


@pytest.mark.parametrize(("fields", "error"), UNQUOTED_CASES)
def test_payload_in_unquoted_position_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fields: dict[str, str], error: str
) -> None:
    root = hostile_root(tmp_path, **fields)
    assert main(["check", "--content", str(root)]) == 1
    err = capsys.readouterr().err
    assert error in err.splitlines(), err
    assert not (tmp_path / "PWNED").exists()


def test_located_error_fails_the_build_and_keeps_the_site(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = hostile_root(tmp_path, base_args=_json(["--served-model-name=$(touch PWNED)"]))
    out = tmp_path / "site"
    out.mkdir()
    (out / MARKER).write_bytes(MARKER_TEXT)  # what an earlier build leaves
    (out / "marker").write_text("previous build")
    assert main(["build", "--content", str(root), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "build failed: 1 error(s)" in err
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "marker"])
    assert (out / "marker").read_text() == "previous build"


def test_payload_in_vocabulary_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = hostile_root(tmp_path)
    strategy = root / "strategies" / "single_node_tp.yaml"
    lines = strategy.read_text().splitlines()
    strategy.write_text("\n".join([*lines, 'env:', '  NCCL_DEBUG: "$(touch PWNED)"']) + "\n")
    assert main(["check", "--content", str(root)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert (f"strategies/single_node_tp.yaml:{len(lines) + 2}: env.NCCL_DEBUG: env value '$(touch PWNED)' is "
            f"printed unquoted: {ENV_ALLOWED}") in err


QUOTED_CASES = [
    pytest.param(["--served-model-name", "$(touch PWNED)"], id="subst-value"),
    pytest.param(["--served-model-name", "`touch PWNED`; touch PWNED"], id="backtick-value"),
    pytest.param(["--chat-template", "it's $(touch PWNED) | sh"], id="single-quote-value"),
    pytest.param(["--override-generation-config", '{"a":"$(touch PWNED)","b":"\'"}'], id="json-value"),
]


@pytest.mark.parametrize("extra_args", QUOTED_CASES)
def test_payload_in_quoted_position_builds_and_pastes_harmlessly(tmp_path: Path,
                                                                 extra_args: list[str]) -> None:
    root = hostile_root(tmp_path, extra_args=_json(extra_args),
                        base_env=_json({"NCCL_IB_HCA": "$IFACE_NAME"}))
    result = Pipeline(BuildOptions(content=root, out=tmp_path / "unused", html=False)).run()
    assert [p for p in result.problems if not p.warning] == []
    record = orjson.loads(result.files["Hostile/Case/hw/h200.json"])
    at = record["argv"].index(extra_args[0])
    assert record["argv"][at:at + 2] == extra_args
    corpus = Corpus()
    home = tmp_path / "run" / "home"
    collect(record, result.content.vocab.taxonomy["hardware_profiles"], str(home), corpus)
    pastes = list(corpus.pastes.values())
    assert len(pastes) == 2  # pip view (exports + command) and docker run
    ran, leftovers = run_pastes(pastes, tmp_path / "run")
    assert check_pastes(pastes, ran) == []
    assert ran[0].calls == [tuple(record["argv"])]
    assert ran[0].env == {"NCCL_IB_HCA": "$IFACE_NAME"}
    assert leftovers == [] and not list(tmp_path.rglob("PWNED"))


# ── the rules themselves ──────────────────────────────────────────────────


@pytest.mark.parametrize(("text", "problem"), [
    ("echo ok\n  ::error::approved by maintainers", "shell command line 2 starts with '::e': a CI log reads "
                                                    "it as a command"),
    ("echo 'one\n##[group]two'", "shell command line 2 starts with '##[': a CI log reads it as a command"),
    ("uv pip install -U \"transformers>=5.4.0\"", None),
    ("git clone https://x/y.git && cd y && uv pip install -e .", None),
    ("# note\nlmcache server \\\n  --port 5555", None),
    ('curl -F "prompt=$(cat assets/p.json)" -F "x=@${FIRST_FRAME};type=image/png" -o out.mp4', None),
    ("curl -d '{\"a\": \"b; c | d\"}' | jq -r '.x' | base64 -d > output.png", None),
    ("curl https://x | sh", "shell command: '|' outside quotes at line 1, column 16 is not allowed "
                            "(join commands with a newline or &&)"),
    ("a; b", "shell command: ';' outside quotes at line 1, column 2 is not allowed (join commands with a "
             "newline or &&)"),
    ("a & b", "shell command: '&' outside quotes at line 1, column 3 is not allowed (join commands with a "
              "newline or &&)"),
    ("a > /etc/passwd", "shell command: '>' outside quotes at line 1, column 3 is not allowed (join commands "
                        "with a newline or &&)"),
    ("a < b", "shell command: '<' outside quotes at line 1, column 3 is not allowed (join commands with a "
              "newline or &&)"),
    ("echo `id`", "shell command: '`' outside quotes at line 1, column 6 is not allowed (join commands with "
                  "a newline or &&)"),
    ("echo $(id)", "shell command: '$' at line 1, column 6 must start $NAME or ${NAME}"),
    ('echo "$(id)"', "shell command: '$' at line 1, column 7 must start $NAME, ${NAME} or $(cat <path>)"),
    ('echo "`id`"', "shell command: '`' inside double quotes at line 1, column 7 is not allowed"),
    ("ok\nx \\ y", "shell command: '\\\\' outside quotes at line 2, column 3 is not allowed (join commands "
                   "with a newline or &&)"),
    ("echo 'open", "shell command: unterminated ' quote"),
    ("a\rb", "shell command contains the control/invisible character U+000D"),
])
def test_script_rule(text: str, problem: str | None) -> None:
    assert safety.shell_script_problem(text) == problem


@pytest.mark.parametrize(("check", "value", "ok"), [
    (safety.shell_flag_problem, "--max-model-len auto", True),  # upstream: bash splits it, the lint warns
    (safety.shell_flag_problem, "--x=a,b:c@d%e+f", True),
    (safety.shell_flag_problem, '--x={"a":1}', False),
    (safety.shell_flag_problem, "--x  y", False),
    (safety.shell_positional_problem, "~/x", False),
    (safety.shell_value_problem, "a\x1b[2Jb", False),
    (safety.shell_value_problem, "{\"a\": \"$(x)\"}", True),
    (safety.env_value_problem, "$HEAD_IP", True),
    (safety.env_value_problem, "${HEAD_IP}", False),
    (safety.env_value_problem, 0.95, True),
    (safety.env_name_problem, "1X", False),
    (safety.model_id_problem, "/models/llama-3.1", True),
    (safety.model_id_problem, "~/models/x", False),
    (safety.image_problem, "quay.io/ascend/vllm-ascend:qwen3.8-a5", True),
    (safety.image_problem, "docker pull vllm/vllm-openai-rocm:nightly", True),  # upstream; the lint warns
    (safety.image_problem, "vllm/vllm-openai:latest $(id)", False),
    (safety.heredoc_text_problem, "$MOONCAKE_MASTER_IP:50051", True),
    (safety.heredoc_text_problem, "a\\b", False),
    (safety.mount_path_problem, "/path/to/vllm-omni", True),
    (safety.mount_path_problem, "vllm-omni", False),  # docker -v would make it a named volume
    (safety.mount_path_problem, "/src/../etc", False),
    (safety.mount_path_problem, "/src:/etc", False),
    (safety.mount_path_problem, "/src $(id)", False),
])
def test_token_rules(check: Any, value: Any, ok: bool) -> None:
    assert (check(value) is None) is ok


def test_docker_source_mount_path_is_a_located_field() -> None:
    data = {"model": {"docker_source": {"mount_path": "/src;id"}}}
    assert list(shell_safety.field_problems(data)) == [
        ("model.docker_source.mount_path",
         "mount path '/src;id' must be an absolute path of letters, digits and _ . + - / (no ..)")]
