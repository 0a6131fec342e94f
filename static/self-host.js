/* vLLM Recipes — the self-host dialog (DD-01…05, A11Y-04/05), loaded only by recipe pages that list
   platforms: modal, focus moved in and given back, Escape / × / backdrop close, page scroll locked. */
(function () {
  "use strict";
  var doc = document, root = doc.documentElement;
  function selectTab(tabs, tab) {
    tabs.forEach(function (t) {
      var on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      doc.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
  }
  function initDialog(btn) {
    var dlg = doc.getElementById(btn.getAttribute("data-dialog-open"));
    if (!dlg || typeof dlg.showModal !== "function") { btn.hidden = true; return; }
    var tabs = Array.prototype.slice.call(dlg.querySelectorAll("[role=tab]"));
    btn.addEventListener("click", function () {
      if (tabs.length) selectTab(tabs, tabs[0]);
      root.classList.add("dialog-open");
      dlg.showModal();
      (tabs[0] || dlg.querySelector("[data-dialog-close]")).focus();
    });
    dlg.addEventListener("close", function () { root.classList.remove("dialog-open"); btn.focus(); });
    dlg.addEventListener("click", function (e) {
      if (e.target === dlg) dlg.close(); /* the box fills the dialog: a click on the dialog itself is on the backdrop */
      else if (e.target.closest("[data-dialog-close]")) dlg.close();
      else if (e.target.closest("[role=tab]")) selectTab(tabs, e.target.closest("[role=tab]"));
    });
    dlg.addEventListener("keydown", function (e) {
      var i = tabs.indexOf(doc.activeElement), j = null;
      if (i < 0) return;
      if (e.key === "ArrowRight") j = (i + 1) % tabs.length;
      else if (e.key === "ArrowLeft") j = (i - 1 + tabs.length) % tabs.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = tabs.length - 1;
      if (j === null) return;
      e.preventDefault(); selectTab(tabs, tabs[j]); tabs[j].focus();
    });
  }

  function init() { doc.querySelectorAll("[data-dialog-open]").forEach(initDialog); }
  if (doc.readyState === "loading") doc.addEventListener("DOMContentLoaded", init); else init();
})();
