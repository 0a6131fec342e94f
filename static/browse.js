/* Browse page: facet filters with live counts, sort, URL state (BR-02…BR-11, §7.2). */
(function () {
  "use strict";
  var doc = document, list = doc.querySelector("[data-result-list]");
  if (!list) return;
  var rows = Array.prototype.slice.call(list.children);
  var FACETS = ["task", "arch", "size", "precision", "hw"];
  var LABELS = { task: {}, arch: {}, size: {}, precision: {}, hw: {} };
  doc.querySelectorAll(".fchip").forEach(function (b) {
    LABELS[b.getAttribute("data-facet")][b.getAttribute("data-value")] = b.firstChild.textContent.trim();
  });
  var providerSel = doc.querySelector("[data-provider]"), sortSel = doc.querySelector("[data-sort]");
  var panel = doc.querySelector("[data-filter-panel]"), toggle = doc.querySelector("[data-filter-toggle]");
  var state = read(), index = null, qMatch = null, qRank = {};

  function read() {
    var p = new URLSearchParams(location.search), s = { q: (p.get("q") || "").trim().toLowerCase(), provider: p.get("provider") || "", sort: p.get("sort") || "", panel: p.get("panel") === "open" };
    FACETS.forEach(function (f) {
      s[f] = []; p.getAll(f).forEach(function (v) { v.split(",").forEach(function (x) { x = x.trim(); if (x && s[f].indexOf(x) < 0) s[f].push(x); }); });
    });
    return s;
  }
  function write() {
    var p = new URLSearchParams();
    if (state.q) p.set("q", state.q);
    FACETS.forEach(function (f) { if (state[f].length) p.set(f, state[f].join(",")); });
    if (state.provider) p.set("provider", state.provider);
    if (state.sort) p.set("sort", state.sort);
    if (state.panel) p.set("panel", "open");
    var qs = p.toString();
    history.replaceState(null, "", location.pathname + (qs ? "?" + qs.replace(/%2C/g, ",") : "") + location.hash);
  }
  function attr(r, name) { var v = r.getAttribute("data-" + name); return v ? v.split(" ") : []; }
  function matches(r, skip) {
    var id = r.getAttribute("data-id");
    if (qMatch && !qMatch[id]) return false;
    if (state.provider && r.getAttribute("data-org") !== state.provider) return false;
    var vals = { task: attr(r, "tasks"), arch: attr(r, "arch"), size: attr(r, "size"), precision: attr(r, "precs"), hw: attr(r, "hw") };
    for (var i = 0; i < FACETS.length; i++) {
      var f = FACETS[i];
      if (f === skip || !state[f].length) continue;
      if (!state[f].some(function (v) { return vals[f].indexOf(v) >= 0; })) return false;
    }
    return true;
  }
  function activeCount() {
    return FACETS.reduce(function (n, f) { return n + state[f].length; }, 0) + (state.provider ? 1 : 0) + (state.q ? 1 : 0);
  }
  function sortRows(shown) {
    var fallback = state.q ? "relevance" : "released", key = state.sort || fallback;
    function base(r) { return +r.getAttribute("data-base"); }
    function num(r) { var v = r.getAttribute("data-params"); return v === "" ? null : +v; }
    var orders = {
      released: function (a, b) { var x = a.getAttribute("data-released"), y = b.getAttribute("data-released"); if (!x !== !y) return x ? -1 : 1; return y.localeCompare(x); },
      updated: function (a, b) { return b.getAttribute("data-updated").localeCompare(a.getAttribute("data-updated")); },
      size_desc: function (a, b) { var x = num(a), y = num(b); if ((x === null) !== (y === null)) return x === null ? 1 : -1; return (y || 0) - (x || 0); },
      size_asc: function (a, b) { var x = num(a), y = num(b); if ((x === null) !== (y === null)) return x === null ? 1 : -1; return (x || 0) - (y || 0); },
      name: function (a, b) { return a.getAttribute("data-id").localeCompare(b.getAttribute("data-id")); },
      relevance: function (a, b) { var x = qRank[a.getAttribute("data-id")], y = qRank[b.getAttribute("data-id")]; return (x === undefined ? 1e9 : x) - (y === undefined ? 1e9 : y); }
    };
    // an unknown ?sort= (even "__proto__" or "constructor") sorts as if none was given
    if (!Object.prototype.hasOwnProperty.call(orders, key)) key = fallback;
    var cmp = orders[key];
    rows.slice().sort(function (a, b) { return cmp(a, b) || base(a) - base(b); }).forEach(function (r) { list.appendChild(r); });
    if (sortSel) sortSel.value = key;
  }
  function pill(label, onRemove) {
    var b = doc.createElement("button"); b.type = "button"; b.className = "pill-remove"; b.textContent = label + " ×";
    b.setAttribute("aria-label", "Remove " + label + " filter"); b.addEventListener("click", onRemove); return b;
  }
  function render() {
    var shown = 0;
    rows.forEach(function (r) { var ok = matches(r, null); r.hidden = !ok; if (ok) shown++; });
    sortRows();
    var n = activeCount();
    doc.querySelector("[data-count]").textContent = n ? shown + " of " + rows.length : String(shown);
    doc.querySelector("[data-count-noun]").textContent = (n ? rows.length : shown) === 1 ? "recipe" : "recipes";
    doc.querySelector("[data-empty]").hidden = shown > 0;
    doc.querySelector("[data-clear]").hidden = !n;
    var badge = doc.querySelector("[data-filter-badge]"); badge.hidden = !n; badge.textContent = n;
    doc.querySelectorAll(".fchip").forEach(function (b) {
      var f = b.getAttribute("data-facet"), v = b.getAttribute("data-value"), on = state[f].indexOf(v) >= 0;
      var count = rows.filter(function (r) {
        if (!matches(r, f)) return false;
        var vals = attr(r, { task: "tasks", arch: "arch", size: "size", precision: "precs", hw: "hw" }[f]);
        return vals.indexOf(v) >= 0;
      }).length;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.querySelector("[data-fcount]").textContent = count;
      if (!count && !on) b.setAttribute("aria-disabled", "true"); else b.removeAttribute("aria-disabled");
    });
    if (providerSel) providerSel.value = state.provider;
    panel.hidden = !state.panel; toggle.setAttribute("aria-expanded", state.panel ? "true" : "false");
    var pills = doc.querySelector("[data-active-pills]"); pills.textContent = "";
    if (!state.panel) {
      if (state.q) pills.appendChild(pill("\"" + state.q + "\"", function () { state.q = ""; qMatch = null; update(); }));
      FACETS.forEach(function (f) {
        state[f].forEach(function (v) {
          pills.appendChild(pill(LABELS[f][v] || v, function () { state[f] = state[f].filter(function (x) { return x !== v; }); update(); }));
        });
      });
      if (state.provider) {
        var opt = providerSel && providerSel.querySelector("option[value='" + CSS.escape(state.provider) + "']");
        pills.appendChild(pill(opt ? opt.textContent : state.provider, function () { state.provider = ""; update(); }));
      }
    }
  }
  function update() { write(); render(); }
  function computeQuery() {
    if (!state.q) { qMatch = null; qRank = {}; return Promise.resolve(); }
    return window.VR.loadIndex().then(function (idx) {
      index = idx; qMatch = {}; qRank = {};
      window.VR.searchRecipes(idx, state.q).forEach(function (x, i) { qMatch[x.r.id] = true; qRank[x.r.id] = i; });
    }, function () { qMatch = null; });
  }
  doc.addEventListener("click", function (e) {
    var b = e.target.closest(".fchip");
    if (b) {
      if (b.getAttribute("aria-disabled") === "true") return;
      var f = b.getAttribute("data-facet"), v = b.getAttribute("data-value"), i = state[f].indexOf(v);
      if (i >= 0) state[f].splice(i, 1); else state[f].push(v);
      update(); return;
    }
    if (e.target.closest("[data-filter-toggle]")) { state.panel = !state.panel; update(); return; }
    if (e.target.closest("[data-clear]") || e.target.closest("[data-clear-all]")) {
      FACETS.forEach(function (f) { state[f] = []; }); state.provider = ""; state.q = ""; state.panel = false; qMatch = null; update();
    }
  });
  if (providerSel) providerSel.addEventListener("change", function () { state.provider = providerSel.value; update(); });
  if (sortSel) sortSel.addEventListener("change", function () { state.sort = sortSel.value === "released" && !state.q ? "" : sortSel.value; update(); });
  var si = doc.getElementById("search-input"); if (si && state.q) si.value = state.q;
  render();
  computeQuery().then(render);
})();
