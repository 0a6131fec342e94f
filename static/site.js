/* vLLM Recipes — small progressive enhancements: theme, copy, sidebar, search, 404 lookup. */
(function () {
  "use strict";
  var doc = document, root = doc.documentElement;

  /* ── storage that tolerates being unavailable ── */
  function store(key, value) {
    try { if (value === undefined) return localStorage.getItem(key); localStorage.setItem(key, value); } catch (e) { return null; }
    return null;
  }

  /* ── theme (THEME-01/02, GAP-07) ── */
  var mq = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function currentTheme() { return root.getAttribute("data-theme") || (mq && mq.matches ? "dark" : "light"); }
  function syncToggle() {
    var dark = currentTheme() === "dark";
    doc.querySelectorAll("[data-theme-toggle]").forEach(function (b) {
      b.setAttribute("aria-label", dark ? "Switch to light mode" : "Switch to dark mode");
    });
  }
  doc.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-theme-toggle]");
    if (!b) return;
    var next = currentTheme() === "dark" ? "light" : "dark";
    root.setAttribute("data-theme", next);
    store("theme", next);
    syncToggle();
  });
  if (mq && mq.addEventListener) mq.addEventListener("change", syncToggle);

  /* ── copy buttons on every pre (GAP-17: fallback + visible failure) ── */
  var live;
  function announce(msg) {
    if (!live) { live = doc.createElement("div"); live.className = "visually-hidden"; live.setAttribute("aria-live", "polite"); doc.body.appendChild(live); }
    live.textContent = ""; setTimeout(function () { live.textContent = msg; }, 30);
  }
  function fallbackCopy(text) {
    var ta = doc.createElement("textarea");
    ta.value = text; ta.setAttribute("readonly", ""); ta.style.position = "fixed"; ta.style.opacity = "0";
    doc.body.appendChild(ta); ta.select();
    var ok = false;
    try { ok = doc.execCommand("copy"); } catch (e) { ok = false; }
    doc.body.removeChild(ta);
    return ok;
  }
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return fallbackCopy(text); });
    }
    return Promise.resolve(fallbackCopy(text));
  }
  function addCopyButtons(scope) {
    scope.querySelectorAll("pre").forEach(function (pre) {
      if (pre.parentNode.classList.contains("pre-wrap") || pre.closest("[data-cb-root]")) return; // the builder has its own
      var wrap = doc.createElement("div"); wrap.className = "pre-wrap";
      pre.parentNode.insertBefore(wrap, pre); wrap.appendChild(pre);
      var btn = doc.createElement("button");
      btn.type = "button"; btn.className = "copy-btn"; btn.textContent = "Copy";
      btn.setAttribute("aria-label", "Copy " + (pre.id && pre.id.indexOf("cmd-") === 0 ? "command" : "code"));
      btn.addEventListener("click", function () {
        copyText(pre.innerText.replace(/\n$/, "")).then(function (ok) {
          btn.textContent = ok ? "Copied" : "Copy failed"; btn.setAttribute("data-state", ok ? "ok" : "fail");
          announce(ok ? "Copied to clipboard" : "Copy failed: select the text and copy it manually");
          setTimeout(function () { btn.textContent = "Copy"; btn.removeAttribute("data-state"); }, 2000);
        });
      });
      wrap.appendChild(btn);
    });
  }

  /* ── sidebar accordion (NAV-03) and auto-scroll (NAV-06) ── */
  function fillOrg(ul) {
    loadIndex().then(function (idx) {
      var org = ul.getAttribute("data-org");
      idx.recipes.filter(function (r) { return r.org === org; }).sort(function (a, b) {
        return (b.rel || "").localeCompare(a.rel || "") || a.repo.toLowerCase().localeCompare(b.repo.toLowerCase());
      }).forEach(function (r) {
        var li = doc.createElement("li"), a = doc.createElement("a");
        a.href = siteUrl("/" + r.id); a.textContent = r.repo; a.title = (r.tasks && r.tasks[0]) || "other";
        li.appendChild(a); ul.appendChild(li);
      });
    }, function () {});
  }
  function initSidebar() {
    var side = doc.querySelector(".sidebar");
    if (!side) return;
    side.addEventListener("click", function (e) {
      var fold = e.target.closest(".sidebar-toggle");
      if (fold) { fold.setAttribute("aria-expanded", String(side.classList.toggle("is-open"))); return; }
      var b = e.target.closest(".nav-chevron");
      if (!b) return;
      var open = b.getAttribute("aria-expanded") !== "true";
      side.querySelectorAll(".nav-chevron[aria-expanded='true']").forEach(function (o) {
        if (o !== b) { o.setAttribute("aria-expanded", "false"); o.setAttribute("aria-label", "Expand"); doc.getElementById(o.getAttribute("aria-controls")).hidden = true; }
      });
      b.setAttribute("aria-expanded", open ? "true" : "false");
      b.setAttribute("aria-label", open ? "Collapse" : "Expand");
      var ul = doc.getElementById(b.getAttribute("aria-controls"));
      ul.hidden = !open;
      if (open && !ul.children.length) fillOrg(ul);
    });
    var cur = side.querySelector("a.current");
    // Measured in the first frame, with the layout it paints: measuring now would force that layout
    // before the deferred scripts after this one (the builder's data requests) could start.
    if (cur) requestAnimationFrame(function () {
      var sr = side.getBoundingClientRect(), cr = cur.getBoundingClientRect();
      if (cr.top < sr.top || cr.bottom > sr.bottom) side.scrollTop += cr.top - sr.top - side.clientHeight / 2;
    });
  }

  /* ── the site's base path (a build for https://host/recipes/ serves every page under /recipes) ── */
  var BASE = (doc.documentElement.getAttribute("data-base") || "").replace(/\/+$/, "");
  function siteUrl(path) { return BASE + path; }
  function safeDecode(text) { try { return decodeURIComponent(text); } catch (e) { return text; } }

  /* ── search index + matching (SR-06/07), shared with browse.js ── */
  var indexPromise = null;
  function loadIndex() {
    if (!indexPromise) {
      indexPromise = fetch(siteUrl("/search-index.json")).then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); });
      indexPromise.catch(function () { indexPromise = null; });
    }
    return indexPromise;
  }
  function norm(s) {
    return String(s || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[-_.]/g, "");
  }
  function level(word, raw, text) {
    // 0 exact (case-sensitive), 1 exact, 2 starts-with, 3 word-starts-with, 4 contains, -1 none
    var n = norm(text);
    if (!n) return -1;
    if (String(text).replace(/[-_.]/g, "") === raw) return 0;
    if (n === word) return 1;
    if (n.indexOf(word) === 0) return 2;
    var parts = String(text).split(/[\s\/,()·:;]+/);
    for (var i = 0; i < parts.length; i++) if (norm(parts[i]).indexOf(word) === 0) return 3;
    return n.indexOf(word) >= 0 ? 4 : -1;
  }
  function recipeFields(r) {
    return [r.repo, r.org, r.title, r.provider, r.desc, (r.tasks || []).join(" "), r.arch, r.params, r.prec,
      (r.precs || []).join(" "), (r.hw || []).concat(r.hwsyn || []).join(" ")];
  }
  function bestMatch(rawWord, fields) {
    var w = norm(rawWord), raw = String(rawWord).replace(/[-_.]/g, ""), best = null;
    if (!w) return { lvl: 9, field: 0, text: "" };
    for (var f = 0; f < fields.length; f++) {
      var l = level(w, raw, fields[f]);
      if (l >= 0 && (!best || l < best.lvl)) best = { lvl: l, field: f, text: String(fields[f]) };
    }
    return best;
  }
  // Every word must match some field. A multi-word query also matches as one word ("deepseek v3"
  // is exactly DeepSeek-V3), and recipes tie-break on how well each of its words matched.
  function matchAll(query, fields) {
    var words = String(query || "").trim().split(/\s+/).filter(Boolean), first = null, sum = 0;
    for (var i = 0; i < words.length; i++) {
      var m = bestMatch(words[i], fields);
      if (!m) return null;
      if (i === 0) first = m;
      sum += m.lvl;
    }
    if (!first) return { whole: 9, lvl: 9, field: 0, text: "", sum: 0 };
    var whole = words.length > 1 ? bestMatch(words.join(""), fields) : null;
    var best = whole || first;
    return { whole: whole ? whole.lvl : 9, lvl: first.lvl, field: best.field, text: best.text, sum: sum };
  }
  function cmpRank(a, b) {
    return a.m.whole - b.m.whole || a.m.lvl - b.m.lvl || a.m.sum - b.m.sum || a.m.field - b.m.field ||
      (a.m.text < b.m.text ? -1 : a.m.text > b.m.text ? 1 : 0);
  }
  function searchRecipes(idx, q) {
    var out = [];
    idx.recipes.forEach(function (r) { var m = matchAll(q, recipeFields(r)); if (m) out.push({ r: r, m: m }); });
    return out.sort(cmpRank);
  }
  function searchProviders(idx, q) {
    var out = [], seen = {};
    idx.providers.forEach(function (p) {
      var m = matchAll(q, [p.id, p.name]);
      if (m && !seen[p.name.toLowerCase()]) { seen[p.name.toLowerCase()] = 1; out.push({ p: p, m: m }); }
    });
    return out.sort(cmpRank);
  }
  function latest(idx, n) {
    return idx.recipes.slice().sort(function (a, b) {
      return (b.added || "").localeCompare(a.added || "") || (a.id < b.id ? -1 : 1);
    }).slice(0, n);
  }
  window.VR = { url: siteUrl, loadIndex: loadIndex, searchRecipes: searchRecipes, matchAll: matchAll, recipeFields: recipeFields, store: store };

  /* ── header search combobox (SR-01…05, A11Y-10, GAP-06) ── */
  function initSearch() {
    var form = doc.querySelector("[data-search]");
    if (!form) return;
    var input = form.querySelector("input"), box = form.querySelector("#search-results"), active = 0, opts = [];
    function el(tag, cls, text) { var e = doc.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; }
    function option(href, title, sub) {
      var a = el("a", "sr-opt"); a.href = href; a.setAttribute("role", "option"); a.id = "sr-opt-" + opts.length; a.tabIndex = -1;
      a.appendChild(el("span", "", title)); if (sub) a.appendChild(el("span", "muted", sub));
      a.addEventListener("mousedown", function (e) { e.preventDefault(); go(href); });
      opts.push(a); return a;
    }
    function go(href) { close(); input.value = ""; location.href = href; }
    function close() { box.hidden = true; input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant"); }
    function highlight(i) {
      if (!opts.length) return;
      active = Math.max(0, Math.min(opts.length - 1, i));
      opts.forEach(function (o, j) { o.setAttribute("aria-selected", j === active ? "true" : "false"); });
      input.setAttribute("aria-activedescendant", opts[active].id);
      opts[active].scrollIntoView({ block: "nearest" });
    }
    function render(idx) {
      var q = input.value.trim(); box.textContent = ""; opts = []; active = 0;
      var total = idx.recipes.length;
      if (!q) {
        box.appendChild(el("p", "sr-head", "Latest"));
        latest(idx, 5).forEach(function (r) { box.appendChild(option(siteUrl("/" + r.id), r.repo, r.provider + " · " + (r.params || ""))); });
        box.appendChild(option(siteUrl("/browse"), "Browse all " + total + " recipes"));
      } else {
        var ps = searchProviders(idx, q).slice(0, 3), rs = searchRecipes(idx, q);
        if (ps.length) box.appendChild(el("p", "sr-head", "Providers"));
        ps.forEach(function (x) { box.appendChild(option(siteUrl("/" + x.p.id), x.p.name, x.p.id + " · Provider · " + x.p.n + (x.p.n === 1 ? " recipe" : " recipes"))); });
        if (rs.length) box.appendChild(el("p", "sr-head", "Recipes"));
        rs.slice(0, 6).forEach(function (x) {
          box.appendChild(option(siteUrl("/" + x.r.id), x.r.repo, [x.r.provider, x.r.params, x.r.arch ? x.r.arch.toUpperCase() : ""].filter(Boolean).join(" · ")));
        });
        if (rs.length) box.appendChild(option(siteUrl("/browse?q=" + encodeURIComponent(q)), "Browse " + rs.length + " matching recipe" + (rs.length === 1 ? "" : "s") + " with q = \"" + q + "\""));
        else box.appendChild(option(siteUrl("/browse"), "Browse all " + total + " recipes"));
      }
      box.hidden = false; input.setAttribute("aria-expanded", "true"); highlight(0);
    }
    function refresh() { loadIndex().then(render, function () { close(); }); }
    input.addEventListener("focus", refresh);
    input.addEventListener("input", refresh);
    input.addEventListener("blur", function () { setTimeout(close, 150); });
    input.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown") { e.preventDefault(); if (box.hidden) refresh(); else highlight(active + 1); }
      else if (e.key === "ArrowUp") { e.preventDefault(); highlight(active - 1); }
      else if (e.key === "Enter") { if (!box.hidden && opts[active]) { e.preventDefault(); go(opts[active].getAttribute("href")); } }
      else if (e.key === "Escape") { input.value = ""; close(); input.blur(); }
    });
    doc.addEventListener("keydown", function (e) {
      var t = e.target, typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
      if ((e.metaKey || e.ctrlKey) && (e.key === "k" || e.key === "K")) { e.preventDefault(); input.focus(); input.select(); }
      else if (e.key === "/" && !typing) { e.preventDefault(); input.focus(); }
    });
  }

  /* ── 404: case-insensitive lookup, aliases, nearest recipes (ERR-01/02/05) ── */
  function dist(a, b) {
    var m = a.length, n = b.length, prev = [], cur, i, j;
    for (j = 0; j <= n; j++) prev[j] = j;
    for (i = 1; i <= m; i++) {
      cur = [i];
      for (j = 1; j <= n; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[n];
  }
  function init404() {
    var box = doc.querySelector("[data-notfound]");
    if (!box) return;
    var path = safeDecode(location.pathname);
    if (BASE && (path === BASE || path.indexOf(BASE + "/") === 0)) path = path.slice(BASE.length);
    path = path.replace(/\/index\.html$/, "").replace(/\/+$/, "");
    var segs = path.split("/").filter(Boolean), reserved = { _next: 1, api: 1, og: 1, providers: 1 };
    var modelLike = segs.length === 2 && !reserved[segs[0]], id = segs.join("/");
    var echo = box.querySelector("[data-nf-echo]");
    if (modelLike) {
      box.querySelector("[data-nf-title]").textContent = "No recipe yet for this model";
      echo.textContent = ""; echo.appendChild(doc.createTextNode("There is no recipe for "));
      var c = doc.createElement("code"); c.textContent = id; echo.appendChild(c); echo.appendChild(doc.createTextNode(" yet."));
      var req = box.querySelector("[data-nf-request]");
      var body = "## Model\n\nhttps://huggingface.co/" + id + "\n\n## Target hardware\n\n\n## Precision / variant\n\n\n## Notes\n\n";
      req.href = box.getAttribute("data-request-base") + "?title=" + encodeURIComponent("Recipe request: " + id) + "&body=" + encodeURIComponent(body) + "&labels=recipe-request";
      req.querySelector("strong").textContent = "Request this recipe";
      box.querySelector("[data-nf-hf]").hidden = false;
      box.querySelector("[data-nf-hf-link]").href = "https://huggingface.co/" + id;
    } else if (path) {
      echo.textContent = ""; echo.appendChild(doc.createTextNode("Nothing lives at "));
      var p = doc.createElement("code"); p.textContent = path; echo.appendChild(p);
      echo.appendChild(doc.createTextNode(". Recipes live at /<hf_org>/<hf_repo>, mirroring HuggingFace model ids."));
    }
    if (!segs.length) return;
    loadIndex().then(function (idx) {
      var low = id.toLowerCase(), hit = null;
      idx.recipes.forEach(function (r) { if (r.id.toLowerCase() === low) hit = "/" + r.id; });
      Object.keys(idx.aliases || {}).forEach(function (a) { if (!hit && a.toLowerCase() === low) hit = idx.aliases[a]; });
      if (!hit && segs.length === 1) idx.providers.forEach(function (p) { if (p.id.toLowerCase() === low) hit = "/" + p.id; });
      if (hit && hit !== path) { location.replace(siteUrl(hit) + (hit.indexOf("?") < 0 ? location.search : "") + location.hash); return; }
      var scored = idx.recipes.map(function (r) {
        var rid = r.id.toLowerCase(), repo = r.repo.toLowerCase(), last = (segs[segs.length - 1] || "").toLowerCase();
        return { r: r, d: Math.min(dist(low, rid), dist(last, repo) + (segs.length === 2 && segs[0].toLowerCase() === r.org.toLowerCase() ? 0 : 2)) };
      }).sort(function (a, b) { return a.d - b.d || (a.r.id < b.r.id ? -1 : 1); }).slice(0, 5);
      var list = box.querySelector("[data-nf-suggest-list]");
      scored.forEach(function (s) {
        var li = doc.createElement("li"), a = doc.createElement("a"); a.href = siteUrl("/" + s.r.id); a.textContent = s.r.id; li.appendChild(a); list.appendChild(li);
      });
      if (scored.length) box.querySelector("[data-nf-suggest]").hidden = false;
    }, function () {});
  }

  function init() { syncToggle(); addCopyButtons(doc); initSidebar(); initSearch(); init404(); }
  if (doc.readyState === "loading") doc.addEventListener("DOMContentLoaded", init); else init();
})();
