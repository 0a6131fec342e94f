// Worker of the command builder: runs the resolver package (builder/resolver/) under Pyodide.
// A page (static/builder.js) posts {type: "init", pyodide, resolver} and then
// {type: "view", id, hfId, state, event[, vocabUrl, recipeUrl, performanceUrl]}; every answer is the JSON
// text of resolver.builder_state(...).  The recipe's stored predictions
// (builder-data/<hf_id>.performance.json) are named by the page only after its first view, fetched once
// per page and loaded into the glue.  No resolution logic lives here: this file only moves JSON.
// The vocabulary and the recipe's data (builder-data/vocab.json, builder-data/<hf_id>.json) are
// fetched here as soon as a request names them, while the page is still parsing and the
// interpreter boots; their URLs are versioned (?v=), so a file the page preloaded, or the same
// vocabulary a second page names, comes from the HTTP cache.  (Tests may send the texts instead,
// as `vocab` and `recipe`.)
//
// Two downloads, each under a URL naming its content: the runtime (`pyodide`, the folder
// pyodide/<hash>/, which keeps its name until Pyodide itself changes) and our code (`resolver`,
// static/resolver.zip?v=<hash>: the resolver package and its glue, byte-compiled), fetched while
// the interpreter starts.  The code zip is written into Pyodide's file system and imported from
// there; each zip a page names gets its own import of the glue and the resolver, so pages of two
// builds never share code or data.
//
// Shared: where the browser has SharedWorker, every recipe page of the site talks to one instance
// over its own port, and the page asks for an extended lifetime, so the next page opened finds the
// interpreter booted.  Each page's vocabulary and recipes are loaded into its code zip's glue only
// when they differ from what that glue holds.  Elsewhere it runs as a dedicated worker of one page
// (the same code with `self` as the only port).
//
// Cold starts: half a second after a fresh boot's first answer (interpreter started, code
// imported) the worker stores a memory snapshot of the interpreter in Cache Storage, keyed by the
// runtime folder, this script's own URL (?v=<hash>) and the code zip's URL; a later boot restores
// it instead of starting Python again (the restored interpreter holds the code already; every page
// then loads its vocabulary and recipe afresh).  A rebuild that changes any of the three gets a new
// key, and older snapshots are deleted when a new one is stored.

const GLUE = "recipes_worker_glue"; // builder/site/browser/worker_glue.py, in the code zip
// Imports one code zip's glue (and through it its resolver) apart from every other zip's: the
// modules of the previous import leave sys.modules first, its module objects live on in CODE.
const LOADER = `
import importlib, sys
CODE = {}
def load_code(url, path):
    for name in [m for m in sys.modules if m in ("${GLUE}", "resolver") or m.startswith("resolver.")]:
        del sys.modules[name]
    sys.path.insert(0, path)
    try:
        CODE[url] = importlib.import_module("${GLUE}")
    finally:
        sys.path.remove(path)
`;
let py = null;
let booting = null; // the boot's promise, shared by every page
let timings = null;
let chain = Promise.resolve(); // answers in the order of the requests, across pages
const SNAPSHOTS = "vllm-recipes-snapshots";
const SHARED = "onconnect" in self;
const KEPT_RECIPES = 8; // parsed recipes kept in Python beyond the one being answered
// port -> {code, vocab, recipes: Map(hfId -> JSON text), predictions: the same, urls: Map(hfId -> their URL)}
const clients = new WeakMap();
const codes = new Map(); // code zip URL -> {glue, vocab, recipes: Map(hfId -> JSON text now parsed), oldest first}
const codeBytes = new Map(); // code zip URL -> promise of its bytes
let snapshotKeyPending = null; // a fresh boot's snapshot, taken once the first answer is out

function snapshotKey(base, code) {
  const query = `worker=${encodeURIComponent(self.location.search)}&code=${encodeURIComponent(code)}`;
  return new URL(`${base}interpreter.snapshot?${query}`, self.location.href).href;
}

async function storedSnapshot(key) {
  try {
    const hit = await (await caches.open(SNAPSHOTS)).match(key);
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch {
    return null; // no Cache Storage (opaque origin, private mode): boot from scratch
  }
}

async function storeSnapshot(key, bytes) {
  try {
    const cache = await caches.open(SNAPSHOTS);
    for (const old of await cache.keys()) if (old.url !== key) await cache.delete(old);
    await cache.put(key, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
  } catch {
    /* storage full or unavailable: the next boot starts from scratch */
  }
}

async function fetched(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url.split("?")[0]}: HTTP ${r.status}`);
  return r;
}
const fetchText = (url) => fetched(url).then((r) => r.text());
function fetchCode(url) {
  if (!codeBytes.has(url)) {
    const bytes = fetched(url).then((r) => r.arrayBuffer()).then((b) => new Uint8Array(b));
    bytes.catch(() => codeBytes.delete(url)); // a later page tries again
    codeBytes.set(url, bytes);
  }
  return codeBytes.get(url);
}

// The code zip's glue (imported on first use; the boot's own zip is imported before the snapshot).
let codeCount = 0;
async function codeFor(url) {
  if (!codes.has(url)) {
    const t = performance.now();
    const bytes = await fetchCode(url);
    if (!codes.has(url)) {
      const path = `/home/pyodide/code-${++codeCount}.zip`;
      py.FS.writeFile(path, bytes);
      py.globals.get("load_code")(url, path);
      codes.set(url, { glue: py.globals.get("CODE").get(url), vocab: null, recipes: new Map(),
        predictions: new Map() });
      if (timings) timings.code = performance.now() - t;
    }
  }
  return codes.get(url);
}

async function boot(msg) {
  const base = msg.pyodide || "/pyodide/";
  const code = msg.resolver || "/static/resolver.zip";
  const started = performance.now();
  const key = snapshotKey(base, code);
  fetchCode(code).catch(() => {}); // while the interpreter starts; reported when a page needs it
  const [{ loadPyodide }, snapshot] = await Promise.all([import(base + "pyodide.mjs"), storedSnapshot(key)]);
  const fetched = performance.now();
  const options = { indexURL: base, lockFileURL: base + "pyodide-lock.json", packages: [] };
  py = null;
  if (snapshot) {
    try { py = await loadPyodide({ ...options, _loadSnapshot: snapshot }); } catch { py = null; }
  }
  const restored = py !== null;
  if (restored) {
    // the snapshot holds the imports of its boot; their JS handles are new
    for (const url of py.globals.get("CODE").keys()) {
      codes.set(url, { glue: py.globals.get("CODE").get(url), vocab: null, recipes: new Map(),
        predictions: new Map() });
    }
  } else {
    py = await loadPyodide({ ...options, _makeSnapshot: true });
    py.runPython(LOADER);
  }
  const loaded = performance.now();
  timings = { fetch: fetched - started, pyodide: loaded - fetched, snapshot: restored };
  await codeFor(code); // imported now: into the snapshot
  if (!restored) snapshotKeyPending = key;
  timings.total = performance.now() - started;
}

function takeSnapshot(key) {
  try { storeSnapshot(key, py.makeMemorySnapshot()); } catch { /* this runtime cannot snapshot */ }
}

// Boot once for every page.  A shared worker whose boot failed closes once its pages are told
// (a failed module import stays failed in this scope), so the next page starts a fresh one.
function ready(msg) {
  if (!booting) {
    booting = boot(msg);
    if (SHARED) booting.catch(() => setTimeout(() => self.close(), 0));
  }
  return booting;
}

// Load this page's vocabulary and recipe into its code's glue unless they are loaded already.
function loadClientData(code, client, hfId) {
  const { glue } = code;
  if (client.vocab !== code.vocab) {
    glue.set_vocab(client.vocab);
    code.vocab = client.vocab;
  }
  const recipe = client.recipes.get(hfId);
  if (code.recipes.get(hfId) !== recipe) {
    glue.set_recipe(hfId, recipe);
    code.predictions.delete(hfId);
  }
  const predictions = client.predictions.get(hfId);
  if (predictions && code.predictions.get(hfId) !== predictions) {
    glue.set_predictions(hfId, predictions);
    code.predictions.set(hfId, predictions);
  }
  code.recipes.delete(hfId);
  code.recipes.set(hfId, recipe);
  for (const old of code.recipes.keys()) {
    if (code.recipes.size <= KEPT_RECIPES + 1) break;
    code.recipes.delete(old);
    code.predictions.delete(old);
    glue.drop_recipe(old);
  }
}

// The vocabulary, recipe and predictions texts a request brings or names: [vocab, recipe, predictions], each
// possibly undefined (predictions only the first time this page names their URL).
function requestData(msg, client) {
  const url = msg.performanceUrl;
  const perf = url && client.urls.get(msg.hfId) !== url ? url : null;
  if (perf) client.urls.set(msg.hfId, perf);
  const both = Promise.all([msg.vocabUrl ? fetchText(msg.vocabUrl) : msg.vocab,
    msg.recipeUrl ? fetchText(msg.recipeUrl).then((t) => JSON.stringify(JSON.parse(t).recipe)) : msg.recipe,
    perf ? fetchText(perf).catch(() => undefined) : msg.predictions]); // without them the panel says loading
  both.catch(() => {}); // reported by answer(), after the boot
  return both;
}

async function answer(port, msg, data) {
  try {
    const client = clients.get(port);
    const [vocab, recipe, predictions] = await data;
    if (vocab) client.vocab = vocab;
    if (recipe) client.recipes.set(msg.hfId, recipe);
    if (predictions) client.predictions.set(msg.hfId, predictions);
    if (client.vocab === null || !client.recipes.has(msg.hfId)) throw new Error("no vocabulary or recipe sent");
    const code = await codeFor(client.code);
    loadClientData(code, client, msg.hfId);
    const t = performance.now();
    const text = code.glue.view(msg.hfId, JSON.stringify(msg.state || {}), JSON.stringify(msg.event ?? null));
    port.postMessage({ type: "view", id: msg.id, view: text, ms: performance.now() - t });
    if (snapshotKeyPending) setTimeout(takeSnapshot, 500, snapshotKeyPending);
    snapshotKeyPending = null;
  } catch (err) {
    port.postMessage({ type: "error", id: msg.id, message: String(err && err.message ? err.message : err) });
  }
}

function connect(port) {
  clients.set(port, { code: "/static/resolver.zip", vocab: null, recipes: new Map(), predictions: new Map(),
    urls: new Map() });
  let booted = null; // this page's wait for the boot
  port.onmessage = (e) => {
    const msg = e.data || {};
    if (msg.type === "init") {
      const waited = booting !== null;
      const t = performance.now();
      if (msg.resolver) clients.get(port).code = msg.resolver;
      booted = ready(msg);
      booted.then(
        () => port.postMessage({ type: "ready", ms: performance.now() - t,
          timings: { ...timings, shared: SHARED, reused: waited } }),
        (err) => port.postMessage({ type: "failed", message: String(err && err.message ? err.message : err) }),
      );
      return;
    }
    if (msg.type === "view") {
      const wait = booted || Promise.reject(new Error("the builder's worker was not started"));
      const data = requestData(msg, clients.get(port)); // fetched now, while the interpreter boots or answers
      if (booting) fetchCode(clients.get(port).code).catch(() => {}); // another build's code: on its way
      chain = chain.then(() => wait).then(() => answer(port, msg, data), () => { /* the page was told: "failed" */ });
    }
  };
}

if (SHARED) self.onconnect = (e) => connect(e.ports[0]);
else connect(self);
