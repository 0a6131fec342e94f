// Interactive command builder (site-features §6-§7), main thread.
// Every resolution happens in builder/resolver/ (builder_state) inside a Web Worker running
// Pyodide; this file only wires the DOM to it: it sends the URL state and clicks, renders the
// returned view, replaces the URL and writes browser storage.  Before the worker is ready the
// default view the build embedded in the page (#builder-initial) is painted as soon as this script
// runs, before anything is fetched, and the first two clicks are answered from
// builder-data/<hf_id>.clicks.json (views the build computed with the same resolver, as patches of
// the default view and of each first click's view) when the page's inputs (URL query, stored
// preferences and choices, saved endpoints) are exactly those the build assumed; any other click
// waits for the worker.
(() => {
  "use strict";

  const section = document.getElementById("builder");
  if (!section || section.dataset.builderStarted) return;
  section.dataset.builderStarted = "1";
  const hfId = section.dataset.hfId || (document.querySelector("[data-hf-id]") || {}).dataset?.hfId;
  if (!hfId) return;

  const PREFS_KEY = "vllm-recipes-prefs";
  const RECIPE_KEY = "vllm-recipes-recipe-state";
  const ENDPOINTS_KEY = "vllm-recipes:cluster-endpoints";
  // Site-absolute paths under the site's base path (<html data-base="/recipes"> for a sub-path build).
  const siteUrl = (path) => (document.documentElement.dataset.base || "").replace(/\/+$/, "") + path;
  // the recipe page names its builder data (versioned: ?v=<hash>)
  const { builderData: dataUrl, builderVocab: vocabUrl, builderClicks: clicksUrl } = section.dataset;
  const perfUrl = section.dataset.builderPerformance || null; // the stored predictions, after the first view
  const pyodideUrl = section.dataset.pyodide || siteUrl("/pyodide/");
  const resolverUrl = section.dataset.resolver || siteUrl("/static/resolver.zip");
  const workerUrl = section.dataset.worker || (document.currentScript && document.currentScript.src
    ? new URL("builder-worker.js", document.currentScript.src).pathname : siteUrl("/static/builder-worker.js"));

  // ── storage (tolerates unavailable / corrupt storage, §7.4) ──
  const store = {
    get(key) {
      try { const v = JSON.parse(localStorage.getItem(key) || "null"); return v && typeof v === "object" ? v : null; }
      catch { return null; }
    },
    set(key, value) {
      try { if (value === null) localStorage.removeItem(key); else localStorage.setItem(key, JSON.stringify(value)); }
      catch { /* storage unavailable */ }
    },
  };
  // Stored values reach the resolver as JSON: anything nested deeper than the resolver reads
  // (a stored 5,000-level object) is cut here, so no stored value can stop the builder.
  function shallow(value, depth = 3) {
    if (value === null || typeof value !== "object") return value;
    if (depth <= 0) return null;
    if (Array.isArray(value)) return value.slice(0, 256).map((v) => shallow(v, depth - 1));
    const out = {};
    for (const k of Object.keys(value).slice(0, 256)) out[k] = shallow(value[k], depth - 1);
    return out;
  }
  const stored = (key) => shallow(store.get(key)) || {};
  const endpoints = () => stored(ENDPOINTS_KEY);

  // ── worker protocol ──
  let worker = null;
  let ready = false;
  let seq = 0;
  const waiting = new Map();
  function request(msg) {
    const id = ++seq;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      // the predictions: named after the first view
      const perf = ready && perfUrl && msg.hfId === hfId ? { performanceUrl: perfUrl } : {};
      worker.post({ ...msg, ...perf, type: "view", id });
    });
  }

  // ── state ──
  let view = null; // last rendered view
  let initialView = null; // the build's default view while it is still the one shown
  let buildView = null; // the build's default view (the stored clicks' patches start from it)
  let precomputed = null; // the stored clicks {views, next}, when the page's inputs are the build's
  let firstClick = null; // {key, view} of a first click answered from them
  let answeredEarly = false; // a click was answered from the build's views
  let pendingUrl = null; // the URL of the last applied view, written after the next paint
  let urlTimer = 0;
  let bootTimings = null; // worker start-up breakdown (ms), for bench/page.py
  let lastTimings = null; // the last click's worker, round-trip and render times (ms), for bench/page.py
  let busy = false;
  const queue = []; // clicks waiting for the worker (never lost)
  let selectedTab = null;
  let lastTabNames = "";
  let openPopover = null;
  let installOpen = false;
  let advancedOpen = false; // the Advanced panel stays as the reader left it across renders
  let started = false; // the worker answered the first request
  let startFailed = null; // why the builder could not start (shown with Try again)

  const root = document.createElement("div");
  root.className = "cb";
  root.dataset.cbRoot = "";
  const mount = section.querySelector("[data-builder-mount]") || section;
  const live = el("p", { class: "cb-live visually-hidden", "aria-live": "polite", role: "status" });
  const statusEl = el("p", { class: "cb-status", role: "status" }, "Loading interactive builder…");

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
    return node;
  }
  let uid = 0;
  const nextId = (p) => `${p}-${++uid}`;

  // ── events ──
  function send(event) {
    if (startFailed) return; // inert until Try again succeeds
    if (!queue.length && !(ready && busy) && answerPrecomputed(event)) return;
    if (busy || !ready || !view) { queue.push(event); markPending(); return; }
    run(event);
  }
  // The key of a click in builder-data/<hf_id>.clicks.json: compact JSON with sorted keys.
  const eventKey = (event) => JSON.stringify(event, Object.keys(event).sort());
  // A patch of builder.stored_clicks: {"=": v} replaces, {"-": 1} deletes, {"{": {k: p}} and {"[": {i: p}} descend.
  function applyPatch(before, patch) {
    if ("=" in patch) return patch["="];
    if ("{" in patch) {
      const out = { ...before };
      for (const [k, p] of Object.entries(patch["{"])) { if ("-" in p) delete out[k]; else out[k] = applyPatch(out[k], p); }
      return out;
    }
    const out = [...before];
    for (const [i, p] of Object.entries(patch["["])) out[Number(i)] = applyPatch(out[Number(i)], p);
    return out;
  }
  // The build's view of this click: a first click while the page shows the build's default view, a
  // second one while it shows a first click's view; null for any other click, and once endpoints
  // are saved (the build assumed none).
  function storedView(event) {
    if (!precomputed || !view || !sameJson(endpoints(), {})) return null;
    const key = eventKey(event);
    const first = (k) => (precomputed.views[k] ? applyPatch(buildView, precomputed.views[k]) : null);
    if (view === initialView) {
      const next = first(key);
      return next && { view: next, first: key };
    }
    const patch = firstClick && view === firstClick.view && precomputed.next ? (precomputed.next[firstClick.key] || {})[key] : null;
    if (!patch) return null;
    const next = "@" in patch ? first(key) : applyPatch(firstClick.view, patch);
    return next && { view: next, first: null };
  }
  // Show the build's view of this click when it has one.
  function answerPrecomputed(event) {
    const stored = storedView(event);
    if (!stored) return false;
    answeredEarly = true;
    apply(stored.view, event);
    firstClick = stored.first ? { key: stored.first, view: stored.view } : null;
    return true;
  }
  function markPending() { root.setAttribute("aria-busy", "true"); }
  async function run(event) {
    busy = true;
    root.setAttribute("aria-busy", "true");
    try {
      const state = { ...(view ? view.state : {}), _endpoints: endpoints() };
      const sent = performance.now();
      const answer = await request({ hfId, state, event });
      const received = performance.now();
      apply(JSON.parse(answer.view), event);
      lastTimings = { worker: answer.ms, roundtrip: received - sent - answer.ms, render: performance.now() - received };
    } catch (err) {
      showError(err);
    } finally {
      busy = false;
      if (queue.length) run(queue.shift());
      else root.removeAttribute("aria-busy");
    }
  }
  // With paint false the view becomes the page's state unpainted (a click that waited paints the next).
  function apply(next, event, paint = true) {
    const before = view ? currentCopy(view) : null;
    view = next;
    if (next !== initialView) initialView = null;
    remember(next);
    if (!paint) return;
    render();
    if (before !== null && before !== currentCopy(next)) flash();
    section.dispatchEvent(new CustomEvent("builder:view", { bubbles: true, detail: { event } }));
  }
  // What a view asks the page to keep: the stored preferences and choices, and its URL.
  function remember(next) {
    if (next.storage && next.storage.prefs) {
      store.set(PREFS_KEY, { ...(store.get(PREFS_KEY) || {}), ...next.storage.prefs });
    }
    if (next.storage && next.storage.recipe) {
      const all = store.get(RECIPE_KEY) || {};
      if (Object.keys(next.storage.recipe).length) all[hfId] = next.storage.recipe; else delete all[hfId];
      store.set(RECIPE_KEY, Object.keys(all).length ? all : null);
    }
    pendingUrl = location.pathname + (next.query ? `?${next.query}` : "") + location.hash;
    // history.replaceState costs ~10 ms in Chromium: write the URL once the new view is painted
    if (!urlTimer) urlTimer = requestAnimationFrame(() => setTimeout(writeUrl, 0));
  }
  function writeUrl() {
    urlTimer = 0;
    const url = pendingUrl;
    pendingUrl = null;
    if (url !== null && url !== location.pathname + location.search + location.hash) history.replaceState(history.state, "", url);
  }
  function showError(err) {
    if (!started) { failStart(err); return; }
    statusEl.textContent = `Builder error: ${err && err.message ? err.message : err}`;
    statusEl.hidden = false;
  }
  // The runtime could not start (blocked or failing): say so, offer Try again, make the controls
  // inert (the pre-rendered default command stays usable) and drop the clicks that were waiting.
  function failStart(err) {
    startFailed = err && err.message ? err.message : String(err);
    for (const w of waiting.values()) w.reject(new Error(startFailed));
    waiting.clear();
    queue.length = 0;
    busy = false;
    root.removeAttribute("aria-busy");
    const retry = el("button", { type: "button", class: "cb-btn cb-retry", "data-retry": "" }, "Try again");
    retry.addEventListener("click", () => {
      startFailed = null;
      statusEl.textContent = "Loading interactive builder…";
      render();
      try { spawn(); } catch (err) { failStart(err); return; }
      boot();
    });
    statusEl.replaceChildren(`The interactive builder could not start (${startFailed}). The command shown is the recipe's default. `, retry);
    statusEl.setAttribute("role", "alert");
    statusEl.hidden = false;
    if (view) render(); else if (!root.isConnected) mount.append(root); else root.replaceChildren(statusEl, live);
  }
  function flash() {
    // render() has just built a new card: adding the class needs no forced layout to restart anything
    const card = root.querySelector(".cb-command");
    if (!card) return;
    card.classList.add("cb-flash");
    setTimeout(() => card.classList.remove("cb-flash"), 600);
  }

  // ── copy (GAP-17: fallback + visible failure) ──
  async function copyText(text, button) {
    let ok = false;
    try { await navigator.clipboard.writeText(text); ok = true; } catch {
      const ta = el("textarea", { class: "visually-hidden", "aria-hidden": "true" });
      ta.value = text;
      document.body.append(ta);
      ta.select();
      try { ok = document.execCommand("copy"); } catch { ok = false; }
      ta.remove();
    }
    const label = button.textContent;
    button.textContent = ok ? "Copied" : "Copy failed";
    button.classList.toggle("cb-copied", ok);
    live.textContent = ok ? "Copied to clipboard" : "Copy failed: select the text and copy it by hand";
    setTimeout(() => { button.textContent = label; button.classList.remove("cb-copied"); }, 2000);
  }
  const copyButton = (getText, name) => {
    const b = el("button", { type: "button", class: "cb-btn cb-copy", "aria-label": name || "Copy" }, "Copy");
    b.addEventListener("click", () => copyText(getText(), b));
    return b;
  };

  // ── rendering helpers ──
  function codeBlock(prelude, command, cls) {
    const pre = el("pre", { class: `cb-code ${cls || ""}`, tabindex: "0" });
    const code = el("code");
    if (prelude) code.append(el("span", { class: "cb-prelude" }, prelude), "\n\n");
    for (const [i, line] of command.split("\n").entries()) {
      if (i) code.append("\n");
      if (line.startsWith("#")) code.append(el("span", { class: "cb-comment" }, line));
      else code.append(line);
    }
    pre.append(code);
    return pre;
  }
  // A tooltip (A11Y-03): a visible box shown on hover and on keyboard focus (CSS .has-tip), and the
  // description of the control it belongs to; never a title attribute.
  function tipBox(text, id) {
    return el("span", { class: "cb-tip", role: "tooltip", id }, text);
  }
  function withTip(control, text) {
    if (!text) return control;
    const id = nextId("cb-tip");
    if (!control.hasAttribute("aria-label") && !control.hasAttribute("aria-labelledby")) {
      control.setAttribute("aria-label", control.textContent); // the tip's text is no part of the name
    }
    control.classList.add("has-tip");
    control.setAttribute("aria-describedby", [control.getAttribute("aria-describedby"), id].filter(Boolean).join(" "));
    control.append(tipBox(text, id));
    return control;
  }

  function radioKeys(group) {
    group.addEventListener("keydown", (e) => {
      const items = [...group.querySelectorAll("[role=radio]")];
      const i = items.indexOf(document.activeElement);
      if (i < 0) return;
      let j = null;
      if (e.key === "ArrowRight" || e.key === "ArrowDown") j = (i + 1) % items.length;
      else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = (i - 1 + items.length) % items.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = items.length - 1;
      if (j === null) return;
      e.preventDefault();
      items[j].focus();
      if (items[j].getAttribute("aria-disabled") !== "true") items[j].click();
    });
  }

  function pillRow(row, onPick) {
    const labelId = nextId("cb-lbl");
    const toggle = row.kind === "toggle";
    const wrap = el("div", { class: `cb-row${row.nested ? " cb-nested" : ""}`, "data-row": row.id });
    const label = el("span", { class: "cb-row-label", id: labelId }, row.label);
    if (row.hint) {
      label.append(" ", withTip(el("button", { type: "button", class: "cb-info", "aria-label": `About ${row.label}` }, "i"), row.hint));
    }
    const group = el("div", { class: "cb-pills", role: toggle ? "group" : "radiogroup", "aria-labelledby": labelId });
    const groups = row.groups && row.groups.length > 1 ? row.groups : [{ label: null, pills: row.pills }];
    const selectedIndex = row.pills.findIndex((p) => p.selected);
    let index = 0;
    for (const g of groups) {
      const line = g.label ? el("div", { class: "cb-pill-line", "data-brand": g.label },
        el("span", { class: "cb-brand" }, g.label)) : group;
      for (const pill of g.pills) {
        const nameId = nextId("cb-name");
        const subId = pill.sub ? nextId("cb-sub") : null;
        const recId = pill.recommended ? nextId("cb-rec") : null;
        const tabbable = toggle || pill.selected || (selectedIndex < 0 && index === 0);
        const b = el("button", {
          type: "button", class: `cb-pill${pill.selected ? " is-active" : ""}${pill.disabled ? " is-disabled" : ""}`,
          role: toggle ? null : "radio", "aria-checked": toggle ? null : String(!!pill.selected),
          "aria-pressed": toggle ? String(!!pill.selected) : null, "aria-disabled": pill.disabled ? "true" : null,
          "data-value": String(pill.value), tabindex: tabbable ? "0" : "-1",
          // GAP-05: named by its visible label alone; size, "recommended" and the tooltip (the reason
          // when disabled) are its description
          "aria-labelledby": nameId, "aria-describedby": [subId, recId].filter(Boolean).join(" ") || null,
        });
        if (pill.verified) b.append(el("span", { class: "cb-dot", "aria-hidden": "true" }));
        if (pill.icon) b.append(el("span", { class: `cb-icon cb-icon-${pill.icon}`, "aria-hidden": "true" }));
        b.append(el("span", { class: "cb-pill-text", id: nameId }, pill.label));
        if (pill.recommended) b.append(el("span", { class: "cb-rec", "aria-hidden": "true" }, "✦"), el("span", { class: "visually-hidden", id: recId }, "Recommended."));
        if (pill.sub) b.append(el("span", { class: "cb-sub", id: subId }, pill.sub));
        withTip(b, pill.tooltip);
        b.addEventListener("click", () => { if (!pill.disabled) onPick(pill); });
        line.append(b);
        index++;
      }
      if (line !== group) group.append(line);
    }
    if (!toggle) radioKeys(group);
    wrap.append(label, el("div", { class: "cb-row-body" }, group,
      row.below || row.suffix ? el("p", { class: "cb-below" }, row.below || "",
        row.suffix ? el("span", { class: "cb-accent" }, ` ${row.suffix}`) : null) : null,
      row.badge ? el("span", { class: `cb-badge cb-orient-${row.badge.value}` }, row.badge.label) : null,
      row.docs ? el("a", { href: row.docs, target: "_blank", rel: "noopener", class: "cb-docs" }, "Docs ↗") : null,
      row.link ? el("a", { href: row.link, target: "_blank", rel: "noopener", class: "cb-hf" }, "HuggingFace ↗") : null));
    return wrap;
  }

  // The click a pill of this row sends: the pill's own event, else the row's with the pill's value
  // (builder/resolver/ui/rows.py pill_event).
  const pillEvent = (row, pill) => pill.event || { ...row.event, value: pill.value };

  function numberInput(labelText, value, min, max, onChange) {
    const input = el("input", { type: "number", class: "cb-num", min, max, value, "aria-label": labelText, inputmode: "numeric" });
    input.addEventListener("change", () => onChange(input.value));
    return input;
  }

  function rowView(row) {
    if (row.kind === "number") {
      const labelId = nextId("cb-lbl");
      return el("div", { class: "cb-row cb-nested", "data-row": row.id },
        el("span", { class: "cb-row-label", id: labelId }, row.label),
        el("div", { class: "cb-row-body" },
          numberInput(row.input_label, row.value, row.min, row.max, (v) => send({ ...row.input_event, value: v })),
          el("span", { class: "cb-mult" }, ` ${row.text}`), row.hint ? el("p", { class: "cb-below" }, row.hint) : null));
    }
    if (row.kind === "pool") {
      const body = el("div", { class: "cb-row-body" });
      if (row.pills.length) {
        const sub = pillRow({ ...row, id: `${row.id}_mode`, label: `${row.label} parallelism`, nested: false },
          (p) => send(pillEvent(row, p)));
        sub.querySelector(".cb-row-label").classList.add("visually-hidden");
        body.append(sub);
      }
      body.append(numberInput(row.input_label, row.value, row.min, row.max,
        (v) => send({ ...row.input_event, value: v })), el("span", { class: "cb-mult" }, ` ${row.text}`));
      if (row.after) body.append(el("p", { class: "cb-below" }, row.after));
      if (row.hint) body.append(el("p", { class: "cb-below cb-dim" }, row.hint));
      return el("div", { class: "cb-row cb-nested", "data-row": row.id }, el("span", { class: "cb-row-label" }, row.label), body);
    }
    if (row.kind === "checkbox") {
      const details = el("details", { class: "cb-advanced", "data-row": row.id });
      details.open = advancedOpen;
      details.addEventListener("toggle", () => { advancedOpen = details.open; });
      details.append(el("summary", {}, row.label, el("span", { class: "cb-dim" }, row.count ? ` (${row.count} enabled)` : " — performance tuning")));
      const grid = el("div", { class: "cb-adv-grid" });
      for (const p of row.pills) {
        if (p.shown === false) continue;
        const id = nextId("cb-adv");
        const box = el("input", { type: "checkbox", id, "data-value": p.value, checked: p.selected });
        box.addEventListener("change", () => send(pillEvent(row, p)));
        grid.append(el("label", { class: "cb-adv", for: id }, box, el("code", {}, `--${p.label}`), el("span", { class: "cb-dim" }, p.tooltip)));
      }
      details.append(grid);
      return details;
    }
    return pillRow(row, (p) => send(pillEvent(row, p)));
  }

  function tabStrip(tabs, current, onSelect, label, prefix) {
    const list = el("div", { class: "cb-tabs", role: "tablist", "aria-label": label });
    tabs.forEach((t, i) => {
      const on = t.id === current;
      const b = el("button", { type: "button", role: "tab", id: `${prefix}-${t.id}`, "aria-selected": String(on),
        "aria-controls": `${prefix}-panel`, tabindex: on ? "0" : "-1", class: `cb-tab${on ? " is-active" : ""}`,
        "aria-disabled": t.reason ? "true" : null, title: t.reason || null }, t.label);
      b.addEventListener("click", () => { if (!t.reason) onSelect(t, i); });
      list.append(b);
    });
    list.addEventListener("keydown", (e) => {
      const items = [...list.querySelectorAll("[role=tab]")];
      const i = items.indexOf(document.activeElement);
      if (i < 0) return;
      let j = null;
      if (e.key === "ArrowRight") j = (i + 1) % items.length;
      else if (e.key === "ArrowLeft") j = (i - 1 + items.length) % items.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = items.length - 1;
      if (j === null) return;
      e.preventDefault();
      const id = items[j].id;
      items[j].click();
      (document.getElementById(id) || items[j]).focus();
    });
    return list;
  }

  function currentTabs(v) { return v && v.tabs ? v.tabs : []; }
  function activeTab(v) {
    const tabs = currentTabs(v);
    return tabs.find((t) => t.name === selectedTab) || tabs[0];
  }
  function currentCopy(v) { const t = activeTab(v); return t ? t.copy : ""; }

  function popover(name, text, disabledReason) {
    const id = nextId("cb-pop");
    const btn = withTip(el("button", { type: "button", class: "cb-btn", "aria-haspopup": "dialog", "aria-expanded": "false",
      "aria-controls": id, "aria-disabled": disabledReason ? "true" : null, "data-pop": name }, name), disabledReason);
    const panel = el("div", { class: "cb-popover", id, role: "dialog", "aria-label": name, hidden: true },
      el("div", { class: "cb-pop-head" }, el("strong", {}, name), text !== null ? copyButton(() => text, `Copy ${name}`) : null));
    if (text !== null) panel.append(codeBlock("", text));
    btn.addEventListener("click", () => {
      if (disabledReason) return;
      const open = panel.hidden;
      closePopover();
      if (open) openPanel(btn, panel, name);
    });
    return [btn, panel];
  }
  // A popover takes the focus when it opens and gives it back to its button when Escape closes it (A11Y-05).
  function openPanel(btn, panel, name) {
    panel.hidden = false;
    btn.setAttribute("aria-expanded", "true");
    openPopover = name;
    if (!panel.hasAttribute("tabindex")) panel.setAttribute("tabindex", "-1");
    (panel.querySelector("button, input, [tabindex='0']") || panel).focus();
  }
  function closePopover(restoreFocus) {
    const opener = openPopover && root.querySelector(`[data-pop="${CSS.escape(openPopover)}"]`);
    openPopover = null;
    root.querySelectorAll(".cb-popover").forEach((p) => { p.hidden = true; });
    root.querySelectorAll("[aria-haspopup]").forEach((b) => b.setAttribute("aria-expanded", "false"));
    if (restoreFocus && opener) opener.focus();
  }
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && openPopover) closePopover(true); });
  document.addEventListener("click", (e) => {
    if (openPopover && !e.target.closest(".cb-popover") && !e.target.closest("[aria-haspopup]")) closePopover();
  });

  // POP-06: the "Curl / bench target" fields, one field per placeholder of the current commands
  // (with the resolver's example values) and its tips; values are saved in this browser.
  function envPanel(v) {
    const saved = endpoints();
    const count = Object.values(saved).filter(Boolean).length;
    const id = nextId("cb-pop");
    const env = v.env || { target: [], fields: (v.placeholders || []).map((name) => ({ name, example: "" })), tips: [] };
    const btn = el("button", { type: "button", class: `cb-btn${count ? " cb-accent-btn" : ""}`, "aria-haspopup": "dialog",
      "aria-expanded": "false", "aria-controls": id, "data-pop": "Env" }, count ? `Env (${count})` : "Env");
    const panel = el("div", { class: "cb-popover cb-env", id, role: "dialog", "aria-label": "Cluster env", hidden: true },
      el("p", { class: "cb-dim" }, "Saved in this browser and substituted in every command; empty fields stay $VAR."));
    const field = (f) => {
      const input = el("input", { type: "text", value: saved[f.name] || "", placeholder: f.example || "", "data-name": f.name,
        "aria-label": `$${f.name}` });
      input.addEventListener("change", () => {
        const all = endpoints();
        if (input.value.trim()) all[f.name] = input.value.trim(); else delete all[f.name];
        store.set(ENDPOINTS_KEY, Object.keys(all).length ? all : null);
        send({ type: "refresh" });
      });
      return el("label", { class: "cb-env-field" }, el("code", {}, `$${f.name}`), input);
    };
    if (env.target.length) {
      panel.append(el("p", { class: "cb-env-head" }, el("strong", {}, "Curl / bench target")), ...env.target.map(field));
    }
    if (env.fields.length) {
      panel.append(el("p", { class: "cb-env-head" }, el("strong", {}, "Placeholders in current commands")), ...env.fields.map(field));
    }
    for (const tip of env.tips) panel.append(el("p", { class: "cb-dim cb-env-tip" }, tip));
    if (count) {
      const clear = el("button", { type: "button", class: "cb-btn" }, "Clear all");
      clear.addEventListener("click", () => { store.set(ENDPOINTS_KEY, null); send({ type: "refresh" }); });
      panel.append(clear);
    }
    btn.addEventListener("click", () => {
      const open = panel.hidden;
      closePopover();
      if (open) openPanel(btn, panel, "Env");
    });
    return [btn, panel];
  }

  function renderInstall(v) {
    const ins = v.install;
    if (!ins || !ins.tabs.length) return null;
    const box = el("div", { class: "cb-install", "data-block": "install" });
    const bodyId = nextId("cb-inst");
    const head = el("button", { type: "button", class: "cb-install-head", "aria-expanded": String(installOpen), "aria-controls": bodyId },
      el("span", { class: "cb-install-title" }, "Install"), el("span", { class: "cb-dim" }, ` ${ins.header}`),
      ins.nightly ? el("span", { class: "cb-badge cb-nightly" }, "nightly") : null,
      el("span", { class: "cb-dim cb-right" }, installOpen ? "hide" : ins.summary));
    head.addEventListener("click", () => { installOpen = !installOpen; render(); });
    const body = el("div", { id: bodyId, class: "cb-install-body", hidden: !installOpen });
    const active = ins.tabs.find((t) => t.id === ins.active) || ins.tabs[0];
    const strip = tabStrip(ins.tabs, active.id, (t) => send({ ...ins.event, value: t.id }), "Install method", "cb-install");
    body.append(strip);
    if (ins.unavailable) body.append(el("p", { class: "cb-below" }, ins.unavailable));
    const cuda = ins.cuda_choices;
    if (cuda) {
      const grp = el("div", { class: "cb-cuda", role: "radiogroup", "aria-label": cuda.label });
      for (const p of cuda.pills) {
        const b = el("button", { type: "button", role: "radio", "aria-checked": String(p.selected), class: `cb-pill cb-mini${p.selected ? " is-active" : ""}`, tabindex: p.selected ? "0" : "-1", "data-value": p.value }, p.label);
        withTip(b, p.tooltip);
        b.addEventListener("click", () => send(pillEvent(cuda, p)));
        grp.append(b);
      }
      radioKeys(grp);
      body.append(grp);
    }
    const panel = el("div", { role: "tabpanel", id: "cb-install-panel", "aria-labelledby": `cb-install-${active.id}`, "data-install-tab": active.id });
    if (active.note) panel.append(el("p", { class: "cb-comment" }, `# ${active.note}`));
    panel.append(el("div", { class: "cb-code-wrap" }, codeBlock("", active.command), copyButton(() => active.command, "Copy install command")));
    body.append(panel);
    box.append(head, body);
    return box;
  }

  function renderExtras(v) {
    const ex = v.install && v.install.extras;
    if (!ex || !ex.entries.length) return null;
    const box = el("div", { class: "cb-extras", "data-block": "extras" });
    const head = el("div", { class: "cb-extras-head" }, el("strong", {}, "extra install"),
      el("span", { class: "cb-dim" }, ex.required ? ` · ${ex.required} required` : ` · ${ex.optional} optional`));
    if (ex.required) head.append(copyButton(() => ex.copy_all, "Copy all required installs"));
    box.append(head);
    for (const e of ex.entries) {
      const item = el("div", { class: `cb-extra${e.optional ? " cb-optional" : ""}` });
      if (e.note) item.append(el("p", { class: "cb-comment" }, `# ${e.note}`));
      if (e.optional) item.append(el("span", { class: "cb-badge" }, "Optional"));
      item.append(codeBlock("", String(e.command)));
      box.append(item);
    }
    return box;
  }

  function renderCommand(v) {
    const box = el("div", { class: "cb-command", "data-block": "command" });
    const tabs = currentTabs(v);
    const names = tabs.map((t) => t.name).join("|");
    const numbered = v.tabs_numbered;
    if (names !== lastTabNames) {
      if (numbered || !tabs.some((t) => t.name === selectedTab)) selectedTab = tabs[0] ? tabs[0].name : null;
      lastTabNames = names;
    }
    const active = activeTab(v);
    const head = el("div", { class: "cb-cmd-head" });
    head.append(v.summary.verified
      ? el("span", { class: "cb-verified" }, el("span", { class: "cb-dot", "aria-hidden": "true" }), v.summary.text)
      : el("span", { class: "cb-summary mono" }, v.summary.text));
    const actions = el("div", { class: "cb-actions" });
    actions.append(copyButton(() => (activeTab(view) || {}).copy || "", "Copy command"));
    // GAP-19: share this exact configuration, or go back to the recipe's defaults
    const link = el("button", { type: "button", class: "cb-btn", "aria-label": "Copy link to this configuration" }, "Link");
    link.addEventListener("click", () => { writeUrl(); copyText(location.href, link); });
    const reset = el("button", { type: "button", class: "cb-btn", "aria-label": "Reset to the recipe's defaults" }, "Reset");
    reset.addEventListener("click", () => send({ type: "reset" }));
    actions.append(link, reset);
    const clientTab = tabs.find((t) => t.client);
    const reason = active && !active.client && clientTab ? `Use the ${clientTab.name} tab: clients talk to it.` : null;
    const pops = [];
    if (v.curl !== null) pops.push(popover("cURL", v.curl, reason));
    if (v.bench) pops.push(popover("Bench", v.bench, reason));
    pops.push(envPanel(v));
    for (const [b] of pops) actions.append(b);
    head.append(actions);
    box.append(head);
    for (const [, p] of pops) box.append(p);
    if (tabs.length > 1) {
      box.append(tabStrip(tabs, active.id, (t) => { selectedTab = t.name; render(); }, "Launch steps", "cb-cmd"));
    }
    const panel = el("div", { class: "cb-cmd-panel", role: tabs.length > 1 ? "tabpanel" : null, id: "cb-cmd-panel",
      "aria-labelledby": tabs.length > 1 ? `cb-cmd-${active.id}` : null, "data-tab": active ? active.name : "" });
    if (active && active.kind === "serve" && v.hardware_note) {
      const n = v.hardware_note;
      panel.append(el("aside", { class: "cb-hwnote", role: "note" }, el("strong", {}, n.title), el("p", {}, n.body),
        n.link ? el("a", { href: n.link }, n.link_text) : null));
    }
    if (active) {
      for (const input of active.inputs) {
        panel.append(el("label", { class: "cb-tab-input" }, input.prefix,
          numberInput(input.label, input.value, input.min, input.max, (x) => send({ ...input.event, value: x })), input.suffix));
      }
      panel.append(codeBlock(active.prelude, active.command, "cb-cmd-code"));
    }
    box.append(panel);
    return box;
  }

  // Kubernetes / Compose: the resolver's files as they are, each with copy and a download of the same bytes.
  function renderDeploy(v) {
    const d = v.deploy;
    const box = el("div", { class: "cb-command cb-deploy", "data-block": "deploy", "data-format": d.format });
    box.append(el("div", { class: "cb-cmd-head" }, el("span", { class: "cb-summary mono" }, `${d.label} · ${v.summary.text}`)));
    if (d.reason) box.append(el("p", { class: "cb-warning", role: "alert" }, `No ${d.label} files for this selection: ${d.reason}`));
    for (const f of d.files) {
      const save = el("button", { type: "button", class: "cb-btn", "aria-label": `Download ${f.filename}` }, "Download");
      save.addEventListener("click", () => {
        const a = el("a", { href: URL.createObjectURL(new Blob([f.text], { type: "application/yaml" })), download: f.filename });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      });
      box.append(el("div", { class: "cb-deploy-file", "data-file": f.filename },
        el("div", { class: "cb-cmd-head" }, el("code", { class: "cb-filename" }, f.filename),
          el("span", { class: "cb-actions" }, copyButton(() => f.text, `Copy ${f.filename}`), save)),
        codeBlock("", f.text, "cb-deploy-code")));
    }
    return box;
  }

  function renderPresets(v) {
    if (!v.preset_rows.length) return null;
    const rows = el("div", { class: "cb-presets", "data-block": "presets" });
    for (const row of v.preset_rows) rows.append(rowView(row));
    if (v.preset) rows.append(el("p", { class: "cb-below" }, el("a", { href: `#${v.preset.anchor}` }, `About ${v.preset.label}`)));
    return rows;
  }

  function renderNotes(v) {
    if (!v.notes || !v.notes.length) return null;
    const box = el("div", { class: "cb-notes", "data-block": "notes" });
    const rendered = document.querySelectorAll("#notes .note");
    for (const n of v.notes) {
      const aside = el("aside", { class: "cb-note", role: "note", "data-note": n.index }, el("strong", {}, n.title));
      const src = rendered[n.index] && rendered[n.index].querySelector(".md");
      if (src) aside.append(el("div", { class: "md" }, ...[...src.childNodes].map((c) => c.cloneNode(true))));
      else aside.append(el("p", {}, n.body));
      box.append(aside);
    }
    return box;
  }

  // The memory line under the command: the resolver's text as it is (red when vLLM would not start).
  function renderMemory(v) {
    const m = v.memory;
    const text = m && (m.fallback || m.summary);
    if (!text) return null;
    const bad = m.verdict === "wont_start" || Boolean(m.error);
    const kind = bad ? " cb-memory-bad" : m.verdict === "tight" ? " cb-memory-tight" : m.fallback ? " cb-memory-fallback" : "";
    // Without facts, the command that adds them from the Hub follows the fallback note.
    const command = m.fallback && m.command ? [" Add them: ", el("code", {}, m.command)] : [];
    return el("p", { class: `cb-memory${kind}`, "data-block": "memory", role: bad ? "alert" : null }, text, command);
  }


  // ── the Performance panel (#performance, drawn at build time for the default view): the view's
  // performance section drawn by static/builder-perf.js, fetched once the first predictions arrive ──
  const perfBox = document.getElementById("performance");
  const perfBody = perfBox && perfBox.querySelector("[data-perf-body]");
  let perfQuery = perfBox ? perfBox.dataset.perfQuery : null; // the view whose figures the panel shows
  let perfShown = null;
  let perfModule = null;
  let perfPending = 0;
  function renderPerformance(v) {
    const p = v.performance;
    if (!perfBody || !p) return;
    const stale = p.status === "loading" && v.query !== perfQuery; // the figures are another selection's
    perfBox.classList.toggle("perf-stale", stale);
    if (stale) perfBox.setAttribute("aria-busy", "true"); else perfBox.removeAttribute("aria-busy");
    const json = JSON.stringify(p);
    if (p.status === "loading" || json === perfShown) return;
    perfShown = json;
    perfQuery = v.query;
    perfPending++;
    perfModule = perfModule || import(section.dataset.perfJs);
    perfModule.then((m) => { if (perfShown === json) m.drawPerformance(p, perfBody, { el, rowView, send }); })
      .catch(showError).finally(() => { perfPending--; });
  }

  function render() {
    const v = view;
    if (!v) return;
    const envFocus = document.activeElement && root.contains(document.activeElement)
      ? document.activeElement.getAttribute("data-name") : null;
    const focusKey = document.activeElement && root.contains(document.activeElement)
      ? [document.activeElement.closest("[data-row],[data-block],[role=tablist]")?.getAttribute("data-row") || document.activeElement.closest("[data-block]")?.getAttribute("data-block"),
        document.activeElement.getAttribute("data-value") || document.activeElement.getAttribute("role") + ":" + document.activeElement.textContent] : null;
    root.replaceChildren();
    statusEl.hidden = ready && !startFailed;
    root.append(statusEl, live);
    root.classList.toggle("cb-failed", Boolean(startFailed));
    const install = renderInstall(v);
    if (install) root.append(install);
    const extras = renderExtras(v);
    if (extras) root.append(extras);
    if (v.vram_warning) root.append(el("p", { class: "cb-warning", role: "alert" }, v.vram_warning));
    root.append(v.deploy ? renderDeploy(v) : renderCommand(v));
    const memory = renderMemory(v);
    if (memory) root.append(memory);
    const panel = el("div", { class: "cb-panel", "data-block": "panel" });
    const presets = renderPresets(v);
    if (presets) panel.append(presets);
    for (const row of v.rows) {
      panel.append(rowView(row));
      if (row.note) panel.append(el("p", { class: "cb-hint" }, row.note));
    }
    if (startFailed) { panel.inert = true; panel.setAttribute("aria-disabled", "true"); }
    root.append(panel);
    const notes = renderNotes(v);
    if (notes) root.append(notes);
    renderPerformance(v);
    if (openPopover) {
      const btn = root.querySelector(`[data-pop="${CSS.escape(openPopover)}"]`);
      const pop = btn && document.getElementById(btn.getAttribute("aria-controls"));
      if (pop) { pop.hidden = false; btn.setAttribute("aria-expanded", "true"); } else openPopover = null;
    }
    if (envFocus) {
      const input = root.querySelector(`.cb-env input[data-name="${CSS.escape(envFocus)}"]`);
      if (input) { input.focus(); return; }
    }
    if (focusKey && focusKey[0]) {
      const scope = root.querySelector(`[data-row="${focusKey[0]}"]`) || root.querySelector(`[data-block="${focusKey[0]}"]`);
      const target = scope && (scope.querySelector(`[data-value="${CSS.escape(focusKey[1] || "")}"]`) || scope.querySelector("[aria-checked=true],[aria-selected=true],input"));
      if (target) target.focus();
    }
  }

  function hideStatic(hidden = true) {
    for (const sel of ["#install", "#extras", "#command", "#deploy"]) {
      const node = section.querySelector(sel);
      if (node) node.hidden = hidden;
    }
  }

  // What the page's first view depends on, in the shape of stored_clicks.INITIAL_INPUTS.
  function pageInputs() {
    return { query: Object.fromEntries(new URLSearchParams(location.search)), prefs: stored(PREFS_KEY),
      stored: shallow(stored(RECIPE_KEY)[hfId]) || {}, endpoints: endpoints() };
  }
  const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  // Fetch the runtime's two big files while the worker starts (it asks for them a few round trips
  // later), once the first clicks' views have arrived; not when the worker is ready already (a shared
  // worker another page booted) or has the files on the way.
  let preloaded = false;
  function preloadRuntime() {
    if (preloaded || bootTimings || startFailed) return;
    preloaded = true;
    for (const name of ["pyodide.asm.wasm", "python_stdlib.zip"]) {
      const link = el("link", { rel: "preload", as: "fetch", crossorigin: "anonymous", href: pyodideUrl + name });
      document.head.append(link);
    }
  }

  // ── start-up: start the worker, paint the embedded default view, answer a first click from the
  // build's views, ask the worker for the first view (the URL's), drain the clicks that waited ──
  let startInputs = null; // pageInputs() when the page started: what the first view is computed from
  let published = Promise.resolve(true); // whether the recipe's builder data exist
  const onMessage = (e) => {
    const m = e.data || {};
    if (m.type === "ready") { bootTimings = { total: m.ms, ...m.timings }; return; }
    if (m.type === "failed") { showError(new Error(m.message)); return; }
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.type === "view") w.resolve(m); else w.reject(new Error(m.message));
  };
  // The channel to the worker: one shared by the site's recipe pages where the browser has
  // SharedWorker (kept a short while after its last page closes, so the next page finds Python
  // booted), else a dedicated one.  Try again (attempt > 0) always gets a fresh instance.
  function newWorker(attempt) {
    // post/stop/onmessage/onerror over a port (a shared worker's, or the dedicated worker itself)
    const channel = (port, errors, stop) => ({
      post: (m) => port.postMessage(m), stop,
      set onmessage(f) { port.onmessage = f; },
      set onerror(f) { errors.onerror = f; },
    });
    let made = null;
    if (typeof SharedWorker === "function") {
      try {
        const name = `vllm-recipes builder ${pyodideUrl}${attempt ? ` attempt ${attempt} ${Date.now()}` : ""}`;
        const shared = new SharedWorker(workerUrl, { type: "module", name, extendedLifetime: true });
        made = channel(shared.port, shared, () => shared.port.close());
      } catch { /* a browser that refuses the options: a dedicated worker */ }
    }
    if (!made) {
      const dedicated = new Worker(workerUrl, { type: "module" });
      made = channel(dedicated, dedicated, () => dedicated.terminate());
    }
    made.post({ type: "init", pyodide: pyodideUrl, resolver: resolverUrl });
    return made;
  }
  let attempts = 0;
  // Start the worker (a fresh one on Try again) and the runtime's downloads.
  function spawn() {
    if (worker) worker.stop();
    worker = newWorker(attempts++);
    worker.onmessage = onMessage;
    worker.onerror = (e) => showError(new Error(e.message || "the builder's worker failed to load"));
  }
  // The first view from the worker (spawned by start(), or afresh by Try again).
  async function boot() {
    const inputs = startInputs;
    const state = { ...inputs.query, _prefs: inputs.prefs, _stored: inputs.stored, _endpoints: inputs.endpoints };
    busy = true;
    try {
      // the worker fetches the vocabulary and the recipe's data itself, while this page parses
      const first = JSON.parse((await request({ hfId, state, event: null, vocabUrl, recipeUrl: dataUrl })).view);
      if (startFailed) return;
      ready = true;
      started = true;
      statusEl.setAttribute("role", "status");
      hideStatic();
      // After a click answered from the build's views the page already shows what the worker
      // would, and so does the build's default view when the worker's first view is the same: it
      // stays (with its views one click away), only the loading line goes.
      const same = !answeredEarly && view === initialView && sameJson(first, initialView);
      if (same) {
        remember(first);
        statusEl.hidden = true;
      } else {
        precomputed = null;
        if (answeredEarly) render();
        else apply(first, null, !queue.length); // a click that waited is answered next
      }
      section.dataset.builderReady = "1";
      if (perfUrl && perfBody) queue.push({ type: "refresh" }); // names the predictions; its view draws them
    } catch (err) {
      if (!startFailed && (await published)) failStart(err); // without data start() keeps the static commands
      return;
    } finally {
      busy = false;
    }
    if (queue.length) run(queue.shift()); else root.removeAttribute("aria-busy");
  }

  async function start() {
    mount.append(root);
    startInputs = pageInputs();
    try { spawn(); } catch (err) { failStart(err); return; } // Python boots while the page's data arrives
    const clicksPromise = fetch(clicksUrl).then((r) => (r.ok ? r.json() : null)).catch(() => null);
    published = fetch(dataUrl).then((r) => r.ok, () => false); // its body is the worker's
    let embedded = null;
    try { embedded = JSON.parse(document.getElementById("builder-initial")?.textContent || "null"); } catch { /* none */ }
    if (embedded) {
      view = initialView = buildView = embedded;
      hideStatic();
      render(); // in the page's first frame: nothing was fetched yet
      root.setAttribute("aria-busy", "true");
    }
    // The recipe's notes, whose Markdown the builder's notes reuse, come later in the page.
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", () => {
        const box = root.querySelector("[data-block=notes]");
        const notes = box && view && renderNotes(view);
        if (notes) box.replaceWith(notes);
      }, { once: true });
    }
    const booted = boot(); // asked now: a booted (shared) worker answers while the page parses
    if (!(await published)) {
      // No builder data published for this page: keep the static commands.
      worker.stop();
      root.remove();
      hideStatic(false);
      view = initialView = null;
      return;
    }
    const clicks = await clicksPromise;
    preloadRuntime();
    if (clicks && buildView && clicks.views && sameJson(clicks.inputs, startInputs)) {
      precomputed = clicks;
      while (!ready && queue.length && answerPrecomputed(queue[0])) queue.shift();
    }
    await booted;
  }

  window.vllmBuilder = {
    request: (msg) => request(msg),
    send,
    get view() { return view; },
    get ready() { return ready; },
    get timings() { return bootTimings; },
    get lastTimings() { return lastTimings; },
    get queued() { return queue.length + (busy ? 1 : 0) + (urlTimer ? 1 : 0) + perfPending; },
    get precomputed() { return precomputed; },
    applyPatch,
    eventKey,
  };
  start();
})();
