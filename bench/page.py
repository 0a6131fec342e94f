"""Recipe page benchmark: cold and warm page loads through emulated links, median of N runs.

For each link (localhost, then bench/link.py at 20 Mbit/s with a 30 ms round trip and at 9 Mbit/s
with 85 ms; every connection of the page and its worker shares the cap) it prints, from navigation
start: the default command on screen, the first click answered (a hardware pill clicked in the
first frame after the one that painted it, before Pyodide is ready), the full resolver ready (the worker answered), the bytes received
before the first answered click and in total; then, in the same browser context, a second recipe
page's first click answered and resolver ready (warm HTTP and code caches, stored interpreter
snapshot).  On localhost it also times click-to-update once the worker is ready, split into the
worker's builder_state call, the message round trip and the rendering.

Figures only, no pass/fail.  Acceptance targets (issue #14) are printed beside them.

    .venv/bin/python bench/page.py [--runs 5] [--page /MiniMaxAI/MiniMax-M3] [--second /Qwen/Qwen3-8B]
        [--content recipes] [--links local,20/30,9/85]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.link import EmulatedLink  # noqa: E402

TARGETS = {  # (link, figure) -> target in ms or bytes
    ("20/30", "answered"): 1000, ("20/30", "ready"): 2500, ("9/85", "answered"): 1800,
    ("20/30", "second_answered"): 500, ("20/30", "bytes_first"): 400_000, ("20/30", "bytes_total"): 4_500_000,
    ("local", "click_shown"): 50,
}

# Runs in the page before any script: records when the default command is on screen, clicks a
# hardware pill as soon as one is on screen and records when its view is shown, and when the worker
# is ready.
PROBE = r"""
(() => {
  const mark = (k, t) => { if (!(k in window.__bench)) window.__bench[k] = t ?? performance.now(); };
  window.__bench = {};
  // Read through textContent: innerText would force a layout in every frame and slow the page down.
  const visible = () => /vllm serve/.test(document.querySelector('#builder')?.textContent || '');
  const painted = () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
  let commandSeen = null, pillSeen = null, clicked = null;
  const tick = (frame) => {
    if (commandSeen === null && visible()) commandSeen = performance.now();
    // on screen once the page has painted: the later of the first paint and the DOM having it
    if (commandSeen !== null && painted() !== undefined) mark('command', Math.max(commandSeen, painted()));
    if (!clicked) {
      const pills = [...document.querySelectorAll('[data-row="hardware"] .cb-pill:not([aria-disabled="true"])')];
      const target = pills.find((p) => p.getAttribute('aria-checked') !== 'true');
      // clicked in the first frame after the one that showed the pill (and after the first paint)
      if (target && pillSeen !== null && frame > pillSeen && painted() !== undefined) {
        clicked = target.dataset.value; window.__bench.target = clicked; mark('clicked'); target.click();
      } else if (target && pillSeen === null) pillSeen = frame;
    }
    if (document.querySelector('#builder')?.dataset.builderReady === '1') mark('ready');
    if (!('answered' in window.__bench && 'ready' in window.__bench)) requestAnimationFrame(tick);
  };
  document.addEventListener('builder:view', () => {
    const v = window.vllmBuilder && window.vllmBuilder.view;
    if (clicked && v && v.state.hardware === clicked) mark('answered');
  });
  requestAnimationFrame(tick);
})();
"""

CLICKS = r"""
async (n) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    const pills = [...document.querySelectorAll('[data-row="hardware"] .cb-pill:not([aria-disabled="true"])')];
    const target = pills.filter((p) => p.getAttribute('aria-checked') !== 'true')[i % 2];
    const done = new Promise((resolve) => document.querySelector('#builder')
      .addEventListener('builder:view', resolve, { once: true }));
    const t = performance.now();
    target.click();
    await done;
    const shown = performance.now() - t;
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));  // painted
    out.push({ total: performance.now() - t, shown, ...window.vllmBuilder.lastTimings });
  }
  return out;
}
"""


def _load(page: Any, url: str) -> dict[str, Any]:
    """Open ``url`` with the probe; its marks (ms from navigation start) and time origin."""
    page.add_init_script(PROBE)
    page.goto(url)
    page.wait_for_function("window.__bench && 'answered' in window.__bench && 'ready' in window.__bench",
                           timeout=120000)
    return page.evaluate("({...window.__bench, origin: performance.timeOrigin})")


def _wait_quiet(page: Any, link: EmulatedLink | None, quiet: float = 0.5, limit: float = 60.0) -> None:
    """Wait until the page has everything: no byte over the link for ``quiet`` seconds (Playwright's
    "networkidle" never comes: it sees the shared worker's script request but not its response)."""
    page.wait_for_load_state("load")
    if link is None:
        time.sleep(quiet)
        return
    deadline = time.monotonic() + limit
    total = -1
    while link.stats.total != total and time.monotonic() < deadline:
        total = link.stats.total
        time.sleep(quiet)


def run_once(browser: Any, base: str, first: str, second: str, link: EmulatedLink | None,
             clicks: bool) -> dict[str, float]:
    """A cold first page (fresh context), then a warm second page in the same context."""
    ctx = browser.new_context()
    page = ctx.new_page()
    if link:
        link.reset()
    marks = _load(page, base + first)
    _wait_quiet(page, link)
    out = {"command": marks["command"], "answered": marks["answered"], "ready": marks["ready"]}
    if link:
        out["bytes_first"] = link.stats.bytes_until((marks["origin"] + marks["answered"]) / 1000)
        out["bytes_total"] = link.stats.total
    if clicks:
        timed = page.evaluate(CLICKS, 11)
        for key in ("shown", "total", "worker", "roundtrip", "render"):
            out[f"click_{key}"] = statistics.median(t.get(key, float("nan")) for t in timed)
    time.sleep(1.5)  # the worker stores its interpreter snapshot in the background
    page2 = ctx.new_page()
    page.close()
    marks2 = _load(page2, base + second)
    out.update(second_answered=marks2["answered"], second_ready=marks2["ready"])
    ctx.close()
    return out


def _line(label: str, key: str, link: str, med: dict[str, float], unit: str = "ms") -> str:
    value = med.get(key)
    if value is None:
        return ""
    target = TARGETS.get((link, key))
    shown = f"{value / 1e3:8.0f} KB" if unit == "B" else f"{value:8.0f} ms" if unit == "ms" else f"{value:8.1f} ms"
    return f"  {label:34s}{shown}" + (f"   (target {target / 1e3:.0f} KB)" if target and unit == "B" else
                                      f"   (target {target} ms)" if target else "") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--page", default="/MiniMaxAI/MiniMax-M3")
    ap.add_argument("--second", default="/Qwen/Qwen3-8B", help="the warm second page")
    ap.add_argument("--content", type=Path, default=ROOT / "recipes")
    ap.add_argument("--links", default="local,20/30,9/85", help="'local' and/or MBIT/RTT_MS pairs")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from builder.cli.static_host import serve_directory
    from tests.support.paths import CHROMIUM, CHROMIUM_ARGS
    from tests.support.sites import build_real

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        build_real(args.content, out)
        server, base = serve_directory(out)
        port = int(base.rsplit(":", 1)[1])
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for name in args.links.split(","):
                    link = None
                    url = base
                    if name != "local":
                        mbit, rtt = (float(x) for x in name.split("/"))
                        link = EmulatedLink(port, mbit, rtt)
                        url = link.start()
                    try:
                        runs = [run_once(browser, url, args.page, args.second, link, clicks=link is None)
                                for _ in range(args.runs)]
                    finally:
                        if link:
                            link.stop()
                    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                    title = "localhost" if link is None else f"{name.split('/')[0]} Mbit/s, {name.split('/')[1]} ms RTT"
                    print(f"{args.page} then {args.second}, {title}, median of {args.runs} (cold first page):")
                    text = "".join([
                        _line("default command visible", "command", name, med),
                        _line("first click answered", "answered", name, med),
                        _line("full resolver ready", "ready", name, med),
                        _line("bytes before first answered click", "bytes_first", name, med, "B"),
                        _line("bytes in total (page + worker)", "bytes_total", name, med, "B"),
                        _line("warm second page: click answered", "second_answered", name, med),
                        _line("warm second page: resolver ready", "second_ready", name, med),
                        _line("click-to-update (ready, view shown)", "click_shown", "local", med, "ms1"),
                        _line("click-to-update (next frame painted)", "click_total", "-", med, "ms1"),
                        _line("  of which builder_state in worker", "click_worker", "-", med, "ms1"),
                        _line("  of which message round trip", "click_roundtrip", "-", med, "ms1"),
                        _line("  of which render", "click_render", "-", med, "ms1"),
                    ])
                    print(text, flush=True)
                browser.close()
        finally:
            server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
