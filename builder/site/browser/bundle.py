"""What the recipe pages load for the command builder: the Pyodide runtime, and our code beside it.

Two parts, each under a URL that names its content, so a change of one never makes readers fetch
the other again:

- **The runtime** (:func:`pyodide_files`): the parts of the npm package ``pyodide``
  (``node_modules/pyodide``, installed by ``npm ci``) the builder's Web Worker needs, under
  ``pyodide/<hash>/`` (:func:`runtime_dir`: a hash of those files only).  Its 2.5 MB standard library
  zip is replaced by a reduced one: only the modules Pyodide's own bootstrap imports plus those the
  resolver and the worker glue import (found by experiment: run the worker with the full library
  and list ``sys.modules``), byte-compiled *by Pyodide itself* under Node (same CPython version and
  magic number), which cuts the interpreter start-up by about 3 seconds in Chromium.  The folder keeps
  its name until Pyodide or :data:`STDLIB_MODULES` change.
- **Our code** (:func:`code_zip`, published as ``static/resolver.zip`` by :func:`resolver_files`):
  the resolver package (``resolver/``) and the worker's glue (``recipes_worker_glue``,
  :mod:`builder.site.browser.worker_glue`), byte-compiled the same way.  Recipe pages name it with
  ``?v=`` its content hash (:func:`resolver_url`); the worker imports it from Pyodide's file system
  (zipimport reads the ``.pyc`` files as they are).  A resolver change renames only this file.

Both zips are *stored* zips (no per-member deflate: Brotli and gzip over the whole file compress the
``.pyc`` files much better, and the interpreter imports them without inflating); the compiled zips
are cached under ``node_modules/.cache``.  Without Node the sources are shipped (slower start, same
behaviour).  Every file the browser loads gets ``.br`` and ``.gz`` twins
(:mod:`builder.site.compression`) for servers that can send them.

:func:`resolver_bundle` is the resolver package as one deterministic zip of sources: what
:func:`sources_key` hashes to tell whether a packed copy carries the installed sources.

:func:`browser_files` is everything above as the site publishes it (output path → bytes): built
from ``node_modules`` in a checkout, read back from ``builder/packed/browser/`` in an installed tool,
where the wheel build wrote what this very function returned (:mod:`builder.site.packing`), so both
publish the same bytes under the same hashed names.  Without either it raises
:class:`BrowserFilesMissing`: a site must not quietly lose its builder.

The builder data the worker resolves against are :mod:`builder.site.browser.data`.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from builder.site.compression import cold_twins, with_twins
from builder.site.disk_cache import cached_bytes
from builder.site.packed import read_manifest
from builder.site.paths import CHECKOUT, NODE_MODULES, PACKED_BROWSER_DIR, PROJECT_ROOT
from builder.site.versions import versioned

PACKAGE = Path("node_modules") / "pyodide"
RESOLVER_DIR = Path(__file__).resolve().parents[2] / "resolver"
WORKER_GLUE = Path(__file__).resolve().parent / "worker_glue.py"  # shipped as recipes_worker_glue
CODE_ZIP = "static/resolver.zip"  # output path of our code (the resolver and the worker glue)
GLUE_MODULE = "recipes_worker_glue"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
CACHE = Path("node_modules") / ".cache" / "vllm-recipes-pyodide"

# Modules imported by Pyodide's bootstrap (loadPyodide), by the resolver package and by the worker
# glue (static/builder-worker.js, builder/site/browser/worker_glue.py).  Dotted names; a package
# brings its __init__ only unless its submodules are listed too.
STDLIB_MODULES: tuple[str, ...] = (
    # Pyodide bootstrap
    "_pyodide", "_pyodide._base", "_pyodide._core_docs", "_pyodide._future_helper", "_pyodide._importhook",
    "_pyodide.docs_argspec", "_pyodide.docstring", "_pyodide.jsbind",
    "pyodide", "pyodide._package_loader", "pyodide._state", "pyodide.code", "pyodide.common", "pyodide.ffi",
    "pyodide.webloop", "pyodide.console", "pyodide.http",
    "__future__", "_collections_abc", "_colorize", "_opcode_metadata", "_py_warnings", "_sitebuiltins",
    "_ssl",
    "_weakrefset", "abc", "annotationlib", "ast", "base64", "bisect", "bz2", "codecs", "codeop", "contextlib",
    "contextvars", "copy", "copyreg", "dataclasses", "dis", "enum", "fnmatch", "functools", "genericpath",
    "glob", "heapq", "inspect", "io", "keyword", "linecache", "locale", "lzma", "ntpath", "opcode",
    "operator",
    "os", "posixpath", "random", "reprlib", "selectors", "shutil", "signal", "site", "socket", "ssl", "stat",
    "struct", "subprocess", "tempfile", "textwrap", "threading", "token", "tokenize", "traceback", "types",
    "typing", "warnings", "weakref", "zipimport",
    "asyncio", "asyncio.base_events", "asyncio.base_futures", "asyncio.base_subprocess", "asyncio.base_tasks",
    "asyncio.constants", "asyncio.coroutines", "asyncio.events", "asyncio.exceptions",
    "asyncio.format_helpers", "asyncio.futures", "asyncio.graph", "asyncio.locks", "asyncio.log",
    "asyncio.mixins", "asyncio.protocols", "asyncio.queues", "asyncio.runners", "asyncio.selector_events",
    "asyncio.sslproto", "asyncio.staggered", "asyncio.streams", "asyncio.subprocess", "asyncio.taskgroups",
    "asyncio.tasks", "asyncio.threads", "asyncio.timeouts", "asyncio.transports", "asyncio.trsock",
    "asyncio.unix_events",
    "collections", "collections.abc", "compression", "compression._common", "compression._common._streams",
    "compression.zstd", "compression.zstd._zstdfile", "concurrent", "concurrent.futures",
    "concurrent.futures._base",
    "encodings", "encodings.aliases", "encodings.utf_8", "encodings.utf_8_sig", "encodings.ascii",
    "encodings.latin_1",
    "importlib", "importlib._abc", "importlib._bootstrap", "importlib._bootstrap_external", "importlib.abc",
    "importlib.machinery", "importlib.util", "importlib.resources", "importlib.metadata",
    "json", "json.decoder", "json.encoder", "json.scanner", "logging", "pathlib", "pathlib._os",
    "pathlib._abc", "re", "re._casefix", "re._compiler", "re._constants", "re._parser", "string",
    "zipfile", "zipfile._path", "zipfile._path.glob",
    # the resolver package and the worker glue (hashlib: deployment names, on Pyodide's built-in _sha2)
    "hashlib", "math", "typing",
)

# Runs inside Pyodide under Node: byte-compile the selected sources into a sourceless .pyc zip.
_COMPILE_JS = r"""
const [pkg, src, dst, optimize] = process.argv.slice(-4);
const { loadPyodide } = await import(pkg + "/pyodide.mjs");
const fs = await import("node:fs");
// no_debug_ranges: no column tables in the code objects (a quarter of the zip after Brotli; the
// browser's tracebacks keep their line numbers)
const py = await loadPyodide({ indexURL: pkg + "/", env: { PYTHONNODEBUGRANGES: "1" } });
py.FS.writeFile("/tmp/in.zip", fs.readFileSync(src));
py.runPython(`
import zipfile, importlib._bootstrap_external as be
zin = zipfile.ZipFile('/tmp/in.zip')
with zipfile.ZipFile('/tmp/out.zip', 'w', zipfile.ZIP_STORED) as zout:
    for info in zin.infolist():
        code = compile(zin.read(info.filename), info.filename, 'exec', dont_inherit=True,
                       optimize=${optimize})
        data = bytes(be._code_to_timestamp_pyc(code, 0, 0))
        zout.writestr(zipfile.ZipInfo(info.filename + 'c', (1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_STORED)
`);
fs.writeFileSync(dst, py.FS.readFile("/tmp/out.zip"));
"""


def _member_names(names: set[str]) -> list[str]:
    """Zip members of the selected modules, in the package's own order."""
    wanted = set()
    for mod in STDLIB_MODULES:
        path = mod.replace(".", "/")
        for candidate in (f"{path}.py", f"{path}/__init__.py"):
            if candidate in names:
                wanted.add(candidate)
    return sorted(wanted)


def _zip_member(name: str) -> zipfile.ZipInfo:
    """A zip entry that depends on nothing but its name (time, system and mode fixed)."""
    info = zipfile.ZipInfo(name, ZIP_TIME)
    info.create_system = 3
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _deterministic_zip(members: dict[str, bytes]) -> bytes:
    """``members`` as a zip whose bytes depend only on names and contents (sorted, deflate level 9)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for name in sorted(members):
            zout.writestr(_zip_member(name), members[name], zipfile.ZIP_DEFLATED, 9)
    return buf.getvalue()


def _package_sources(package_dir: Path, prefix: str) -> dict[str, bytes]:
    """The ``.py`` files of a package directory, keyed ``prefix/relative/path.py``."""
    return {f"{prefix}/{path.relative_to(package_dir).as_posix()}": path.read_bytes()
            for path in sorted(package_dir.rglob("*.py")) if "__pycache__" not in path.parts}


def resolver_bundle(package_dir: Path = RESOLVER_DIR) -> bytes:
    """The resolver package as one deterministic zip of ``resolver/...`` sources."""
    return _deterministic_zip(_package_sources(package_dir, "resolver"))


def _stdlib_members(stdlib: bytes) -> dict[str, bytes]:
    """The sources of the reduced standard library (:data:`STDLIB_MODULES`), by zip member name."""
    with zipfile.ZipFile(io.BytesIO(stdlib)) as zin:
        return {name: zin.read(name) for name in _member_names(set(zin.namelist()))}


def _code_members(package_dir: Path) -> dict[str, bytes]:
    """Our code as the worker imports it: the resolver package as ``resolver/`` and the glue."""
    return {**_package_sources(package_dir, "resolver"), f"{GLUE_MODULE}.py": WORKER_GLUE.read_bytes()}


def _compiled_zip(package: Path, members: dict[str, bytes], cache_dir: Path, optimize: int = 1) -> bytes:
    """``members`` byte-compiled with Pyodide under Node, as a stored zip (cached by their names and
    contents, so a build that finds them compiled does not zip them); their sources, deflated, when
    Node is unavailable."""
    node = shutil.which("node")
    cached = _compiled_entry(package, members, cache_dir, optimize)
    if node is None:
        return cached.read_bytes() if cached.is_file() else _deterministic_zip(members)

    def compile_with_pyodide() -> bytes | None:
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "src.zip", Path(tmp) / "out.zip"
            src.write_bytes(_deterministic_zip(members))
            try:
                subprocess.run(
                    [node, "--input-type=module", "-e", _COMPILE_JS, "--", str(package.resolve()), str(src),
                     str(dst), str(optimize)], check=True, capture_output=True, timeout=300)
            except (OSError, subprocess.SubprocessError):
                return None
            return dst.read_bytes()

    compiled = cached_bytes(cached, compile_with_pyodide)
    return compiled if compiled is not None else _deterministic_zip(members)


def _compiled_entry(package: Path, members: dict[str, bytes], cache_dir: Path, optimize: int) -> Path:
    """Where :func:`_compiled_zip` keeps ``members`` compiled: named by them, the compiler and Pyodide."""
    key_hash = hashlib.sha256(
        _COMPILE_JS.encode() + (package / "package.json").read_bytes() + bytes([optimize]))
    for name in sorted(members):
        key_hash.update(f"{name}\0{hashlib.sha256(members[name]).hexdigest()}\0".encode())
    return cache_dir / f"compiled-{key_hash.hexdigest()[:20]}.zip"


def pyodide_files(project_root: Path | str) -> dict[str, bytes]:
    """Output-relative ``pyodide/<hash>/...`` files (runtime, reduced stdlib, lock file, ``.br``/``.gz``
    twins).

    Empty when ``node_modules/pyodide`` is absent.
    """
    name, files = _runtime(str(Path(project_root).resolve()))
    return with_twins({f"pyodide/{name}/{path}": data for path, data in files.items()})


class BrowserFilesMissing(Exception):
    """The tool has no runtime to ship (no ``node_modules/pyodide`` in a checkout, no packed copy
    when installed): pages built now would lack the interactive builder."""


def sources_key(package_dir: Path = RESOLVER_DIR) -> str:
    """SHA-256 of the Python the browser files carry (the resolver bundle and the worker glue); the
    packed copy records it, so an installed tool never ships a code zip built from other sources."""
    digest = hashlib.sha256(resolver_bundle(package_dir))
    digest.update(WORKER_GLUE.read_bytes())
    return digest.hexdigest()


@functools.cache
def browser_files() -> dict[str, bytes]:
    """Every file of the site that comes from the tool, not the content, for the in-browser builder
    (today :func:`pyodide_files` and :func:`resolver_files`), by output path; raises
    :class:`BrowserFilesMissing` when there is nothing to ship."""
    check_browser_files()
    if CHECKOUT:
        return {**pyodide_files(PROJECT_ROOT), **resolver_files(PROJECT_ROOT)}
    return {path.relative_to(PACKED_BROWSER_DIR).as_posix(): path.read_bytes()
            for path in sorted(PACKED_BROWSER_DIR.rglob("*")) if path.is_file()}


def check_browser_files() -> None:
    """Raise :class:`BrowserFilesMissing` when :func:`browser_files` would, computing nothing (a build
    checks first and compiles and compresses only when its pages need the files)."""
    if CHECKOUT:
        if not (NODE_MODULES / "pyodide" / "pyodide.asm.wasm").is_file():
            raise BrowserFilesMissing(
                f"the command builder's runtime is missing: {NODE_MODULES / 'pyodide'} is not installed; "
                f"run `npm ci` in {PROJECT_ROOT} (a site without it would lack the interactive builder)")
        return
    manifest = read_manifest()
    if manifest is None or not PACKED_BROWSER_DIR.is_dir():
        raise BrowserFilesMissing(
            f"this installation has no packed runtime ({PACKED_BROWSER_DIR} is missing): "
            "reinstall vllm-recipes from a wheel or sdist built in a checkout where `npm ci` has run")
    if manifest["sources_sha256"] != sources_key():
        raise BrowserFilesMissing(
            f"the packed runtime in {PACKED_BROWSER_DIR} was built from other resolver sources "
            "than the installed ones: reinstall vllm-recipes from one wheel")


def code_zip() -> bytes:
    """The bytes of ``static/resolver.zip`` as :func:`browser_files` publishes it (raises
    :class:`BrowserFilesMissing`; in a checkout without compressing anything)."""
    if CHECKOUT:
        check_browser_files()
        return _code(str(PROJECT_ROOT.resolve()))
    return browser_files()[CODE_ZIP]


def resolver_url(site_url: Callable[[str], str]) -> str:
    """The URL recipe pages load our code from: ``static/resolver.zip?v=<its content hash>``."""
    return versioned(site_url(CODE_ZIP), code_zip())


def runtime_dir() -> str:
    """The hashed folder name of the runtime under ``pyodide/`` (raises :class:`BrowserFilesMissing`; in
    a checkout without compressing anything)."""
    if CHECKOUT:
        check_browser_files()
        return _runtime(str(PROJECT_ROOT.resolve()))[0]
    names = sorted({path.split("/")[1] for path in browser_files() if path.startswith("pyodide/")})
    if len(names) != 1:
        raise BrowserFilesMissing(f"expected one runtime folder under pyodide/, found {names}")
    return names[0]


def pyodide_version() -> str | None:
    """The version of the Pyodide the runtime comes from (None when there is none)."""
    if not CHECKOUT:
        manifest = read_manifest()
        return manifest["pyodide_version"] if manifest is not None else None
    package = NODE_MODULES / "pyodide" / "package.json"
    if not package.is_file():
        return None
    version: str = json.loads(package.read_text(encoding="utf-8")).get("version", "")
    return version or None


@functools.lru_cache(maxsize=4)
def _runtime(root_text: str) -> tuple[str, dict[str, bytes]]:
    """The runtime's files and the hash naming their folder (computed once per process)."""
    root = Path(root_text)
    package = root / PACKAGE
    if not (package / "pyodide.asm.wasm").is_file():
        return "", {}
    out: dict[str, bytes] = {name: (package / name).read_bytes() for name in RUNTIME}
    lock = json.loads((package / "pyodide-lock.json").read_text(encoding="utf-8"))
    out["pyodide-lock.json"] = json.dumps({"info": lock.get("info", {}), "packages": {}},
                                          separators=(",", ":")).encode()
    stdlib = _stdlib_members((package / "python_stdlib.zip").read_bytes())
    out["python_stdlib.zip"] = _compiled_zip(package, stdlib, root / CACHE, optimize=2)
    digest = hashlib.sha256()
    for path in sorted(out):
        digest.update(path.encode() + b"\0" + hashlib.sha256(out[path]).digest())
    return digest.hexdigest()[:16], out


def resolver_files(project_root: Path | str) -> dict[str, bytes]:
    """``static/resolver.zip``: ``builder/resolver/`` and the worker glue, byte-compiled by the
    runtime's Pyodide (their sources without Node), with its twins; empty without ``node_modules/pyodide``."""
    root = Path(project_root)
    if not (root / PACKAGE / "pyodide.asm.wasm").is_file():
        return {}
    return with_twins({CODE_ZIP: _code(str(root.resolve()))})


@functools.lru_cache(maxsize=4)
def _code(root_text: str) -> bytes:
    """The compiled code zip of the checkout at ``root_text`` (computed once per process)."""
    root = Path(root_text)
    # optimize 2: without docstrings (the resolver reads none), asserts and __debug__ blocks
    members = _code_members(root / "builder" / "resolver")
    return _compiled_zip(root / PACKAGE, members, root / CACHE, optimize=2)


def warm_up_jobs() -> list[Callable[[], bool]]:
    """What a build on cold caches would wait for, as jobs the caller runs beside it (forked:
    :mod:`builder.cli.build`): one per runtime file whose twins are not cached (largest first: the
    9.6 MB ``pyodide.asm.wasm`` takes half a minute at Brotli's best quality), and, when anything is
    cold, one computing :func:`browser_files` (the compiled zips first, then the other twins).  The
    jobs leave their results in the disk caches, where the build finds them or waits, under their
    locks, for the job computing them.  Empty in an installed tool and when everything is cached."""
    root = PROJECT_ROOT.resolve()
    package = root / PACKAGE
    if not CHECKOUT or not (package / "pyodide.asm.wasm").is_file():
        return []
    raw = {name: (package / name).read_bytes() for name in RUNTIME}
    jobs: list[Callable[[], bool]] = [functools.partial(_twins_job, {name: raw[name]})
                                      for name in cold_twins(raw)]
    stdlib = _stdlib_members((package / "python_stdlib.zip").read_bytes())
    compiled = [_compiled_entry(package, stdlib, root / CACHE, 2),
                _compiled_entry(package, _code_members(root / "builder" / "resolver"), root / CACHE, 2)]
    compiles = shutil.which("node") is not None
    if (jobs or (compiles and not all(entry.is_file() for entry in compiled))
            or cold_twins({entry.name: entry.read_bytes() for entry in compiled})):
        jobs.append(_browser_files_job)
    return jobs


def _browser_files_job() -> bool:
    """:func:`browser_files`, the compiled zips first (the pages need them, not the twins)."""
    runtime_dir()
    code_zip()
    return bool(browser_files())


def _twins_job(files: dict[str, bytes]) -> bool:
    with_twins(files)
    return True
