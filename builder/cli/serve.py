"""``python -m builder serve``: build, serve on 127.0.0.1, rebuild what an edit touches, reload pages.

An edited recipe re-renders only its own endpoints and pages plus the indexes that list
it; any other edit (vocabulary, overlays, templates, static files) re-renders in memory
and rewrites only the files whose bytes changed. Open pages reload through a small
Server-Sent-Events script that the dev server (only) injects into HTML responses.
"""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.cli.build import BuildOptions, Pipeline
from builder.cli.static_host import QuietServer, StaticHandler
from builder.content.base_path import base_path, site_base_url
from builder.content.model import Content
from builder.content.problems import ContentError
from builder.output.writer import UnsafeOutput, UnsafePath, check_out, update_tree, write_tree
from builder.resolver.performance.measured import SUFFIX as RESULTS_SUFFIX
from builder.resolver.performance.measured import results_path
from builder.resolver.performance.store import SUFFIX, stored_path
from builder.site.browser.bundle import BrowserFilesMissing
from builder.site.paths import CHECKOUT, PROJECT_ROOT, STATIC_DIR, TEMPLATES_DIR

RELOAD_SCRIPT = (
    b"<script>new EventSource('/__events').onmessage=function(){location.reload()}</script>"
)


@dataclass
class SiteState:
    """The in-memory site, the pipeline that built it, and the files last written."""

    options: BuildOptions
    pipeline: Pipeline = field(init=False)
    files: dict[str, bytes] = field(default_factory=dict)
    version: int = 0  # bumped after every successful write
    changed: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.pipeline = Pipeline(self.options)

    @property
    def mount(self) -> str:
        """The path the site is served under: the base URL's (``site.yaml``'s when the option is
        absent; known after the first build), ``""`` at the root."""
        result = self.pipeline.result
        return base_path(site_base_url(self.options.base_url, result.content.site if result else {}))

    @property
    def content(self) -> Content | None:
        return self.pipeline.result.content if self.pipeline.result else None

    def full(self) -> set[str]:
        """Build everything in memory; write only what differs. Returns the changed paths."""
        result = self.pipeline.run()
        report(result.problems)
        return self.replace(result.files)

    def recipe_edited(self, rel: str) -> set[str] | None:
        """Rebuild after an edit of one recipe; None when only a full build is exact."""
        rebuilt = self.pipeline.rebuild(rel)
        if rebuilt is None:
            return None
        files, problems = rebuilt
        report(problems)
        return self.replace(files)

    def replace(self, files: dict[str, bytes]) -> set[str]:
        """Swap in a new file set, writing only the differences."""
        out = self.options.out
        if not self.files or not out.exists():
            write_tree(files, out)
            changed = set(files)
        else:
            changed = {p for p, data in files.items() if self.files.get(p) != data}
            removed = set(self.files) - set(files)
            update_tree({p: files[p] for p in changed}, removed, out)
            changed |= removed
        self.files = files
        if changed:
            with self.changed:
                self.version += 1
                self.changed.notify_all()
        return changed


def report(problems: list[Any]) -> None:
    for problem in problems:
        print(problem, file=sys.stderr)


class DevHandler(StaticHandler):
    """The dev server: static files, a reload event stream, and the reload script in HTML pages."""

    state: SiteState

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/__events":
            self.events()
            return
        target = self.requested_file()
        if target.suffix == ".html" and target.is_file():
            body = target.read_bytes().replace(b"</body>", RELOAD_SCRIPT + b"</body>", 1)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def events(self) -> None:
        """Server-Sent Events: one message per rebuild."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        state = self.state
        seen = state.version
        try:
            while True:
                with state.changed:
                    state.changed.wait_for(lambda last=seen: state.version != last, timeout=15)
                if state.version != seen:
                    seen = state.version
                    self.wfile.write(b"data: reload\n\n")
                else:
                    self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
        except ConnectionError:  # the page went away
            return


def watch_paths(content: Path) -> list[Path]:
    """What a rebuild depends on: the content, templates and static sources."""
    # an installed tool's don't change
    sources = (content, TEMPLATES_DIR, STATIC_DIR) if CHECKOUT else (content,)
    return [p for p in sources if p.exists()]


def on_changes(state: SiteState, changes: set[tuple[Any, str]], everything: bool = False) -> None:
    """Apply one batch of file-system changes.

    Whatever was saved, the server keeps serving: problems in the content are printed and
    the previous site stays; so does it after an internal error, printed with its traceback."""
    started = time.perf_counter()
    try:
        # realpath, not Path.resolve(): a saved symlink loop must not raise
        edited = (None if everything
                  else edited_recipes(state, {Path(os.path.realpath(p)) for _, p in changes}))
        changed: set[str] | None = set()
        for rel in edited or []:
            done = state.recipe_edited(rel)
            changed = None if done is None or changed is None else changed | done
            if changed is None:
                break
        if edited is None or changed is None:
            changed = state.full()
    except ContentError as exc:
        report(exc.problems)
        print("rebuild failed; the site is unchanged", file=sys.stderr)
        return
    except (UnsafeOutput, UnsafePath, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        print("rebuild failed; the site is unchanged", file=sys.stderr)
        return
    except Exception:  # a bug of ours: show it to whoever develops, keep serving the last site
        traceback.print_exc()
        print("rebuild failed with an internal error (please report it); the site is unchanged",
              file=sys.stderr)
        return
    print(f"rebuilt: {len(changed)} file(s) in {time.perf_counter() - started:.2f} s", flush=True)


def edited_recipes(state: SiteState, paths: set[Path]) -> list[str] | None:
    """The known recipe files a batch edited in place (a recipe's stored predictions and results count as
    the recipe), or None when anything else changed.

    Editors save through temporary and swap files: files the build does not read are ignored.
    """
    if state.content is None:
        return None
    root = Path(os.path.realpath(state.options.content))
    known = {Path(os.path.realpath(root / r.rel_path)): r.rel_path for r in state.content.recipes}
    for beside in (stored_path, results_path):
        known.update({Path(os.path.realpath(root / beside(r.hf_id))): r.rel_path
                      for r in state.content.recipes})
    edited = []
    for path in sorted(paths):
        if path in known and path.exists():
            edited.append(known[path])
        elif _is_source(path, root):
            return None
    return edited


def _is_source(path: Path, root: Path) -> bool:
    """A file the site is built from: content YAML, stored predictions and results, or a template or static
    file."""
    if not path.is_relative_to(root):
        return not path.name.startswith(".") and not path.name.endswith("~")
    beside = path.name.endswith((SUFFIX, RESULTS_SUFFIX))
    return (path.suffix in (".yaml", ".yml") or beside) and not path.name.startswith(".")


@dataclass
class DevServer:
    """A ``python -m builder serve`` child process, serving and watching."""

    process: subprocess.Popen[str]
    port: int
    lines: list[str]  # its output so far; a reader thread keeps appending

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def start_dev_server(content: Path, out: Path, *options: str) -> DevServer:
    """Start ``serve`` (with ``options``) on a free port in a child process; return once it serves and
    watches."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "builder", "serve", "--content", str(content), "--out", str(out), "--port",
         str(port), *options],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line)
        if line.startswith("watching for changes"):
            break
    else:
        raise RuntimeError("serve stopped before watching:\n" + "".join(lines))
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return DevServer(process, port, lines)


def watch_and_rebuild(state: SiteState, content: Path) -> None:
    """Rebuild on every batch of changes, forever.

    watchfiles gives up on a path it cannot decode (a file name that is not UTF-8): the
    watcher is then started again and everything rebuilt, since changes may have been missed.
    """
    from watchfiles import watch as watch_files

    announced = missed = False
    while True:
        try:
            for changes in watch_files(
                *watch_paths(content), debounce=50, step=20, yield_on_timeout=True, rust_timeout=500
            ):
                if not announced:
                    print("watching for changes", flush=True)
                    announced = True
                if missed:
                    missed = False
                    print("watching again; rebuilding everything", flush=True)
                    on_changes(state, set(), everything=True)
                if changes:
                    on_changes(state, changes)
            return
        except RuntimeError as exc:  # watchfiles' WatchfilesRustInternalError
            print(f"error: the file watcher stopped: {exc}", file=sys.stderr, flush=True)
            missed = True
            time.sleep(0.2)  # should it keep failing, without spinning


def serve(content: Path, out: Path, port: int, watch: bool = True, base_url: str | None = None) -> int:
    """Build, then serve ``out`` on 127.0.0.1:``port`` until interrupted (exit 2: an unsafe ``out``).

    ``base_url`` builds the site for that address and, when it has a path, serves it under that path
    (the host's root redirects there), as the host will."""
    try:
        check_out(out, content)
    except UnsafeOutput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    state = SiteState(BuildOptions(content=content, out=out, base_url=base_url))
    try:
        state.full()
    except ContentError as exc:
        report(exc.problems)
        return 1
    except BrowserFilesMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    handler = functools.partial(DevHandler, directory=str(out.resolve()))
    DevHandler.state = state
    DevHandler.base_path = state.mount
    server = QuietServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {out} on http://127.0.0.1:{port}{state.mount}/ (Ctrl-C to stop)", flush=True)
    try:
        if watch:
            watch_and_rebuild(state, content)
        else:
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    return 0
