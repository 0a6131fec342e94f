// Worker of the command builder: runs the resolver package (builder/resolver/) under Pyodide.
// A page (static/builder.js) posts {type: "init", pyodide, resolver} and then
// {type: "view", id, hfId, state, event[, vocabUrl, recipeUrl]}; every answer is the JSON text of
// resolver.builder_state(...).  No resolution logic lives here: this file only moves JSON.
// The vocabulary and the recipe's data (builder-data/vocab.json, builder-data/<hf_id>.json) are
// fetched here as soon as a request names them, while the page is still parsing and the
// interpreter boots; their URLs are versioned (?v=), so a file the page preloaded, or the same
// vocabulary a second page names, comes from the HTTP cache.  (Tests may send the texts instead,
// as `vocab` and `recipe`.)
//
// Shared: where the browser has SharedWorker, every recipe page of the site talks to one instance
// over its own port, and the page asks for an extended lifetime, so the next page opened finds the
// interpreter booted.  Each page's vocabulary and recipes are kept per port and loaded into Python
// only when they differ from what is loaded, so pages of two builds never see each other's data.
// Elsewhere it runs as a dedicated worker of one page (the same code with `self` as the only port).
//
// The resolver is imported per bundle hash (builder-data/vocab.json "resolver_bundle_sha256"): the
// precompiled copy inside the reduced standard library when it is that very bundle, else the zip
// at `resolver` (fetched with ?v=<hash>, so HTTP caches keep it until it changes), unpacked into
// Pyodide's file system.
//
// Cold starts: half a second after a fresh boot's first answer (interpreter started, glue run,
// resolver imported) the worker stores a memory snapshot of the interpreter in Cache Storage,
// keyed by the runtime folder (content-hashed) and this script's own URL (?v=<hash>); a later boot
// restores it instead of starting Python again (every page then loads its vocabulary and recipe
// afresh: the JS side of a restored worker has loaded nothing).  A rebuild that changes either
// gets a new key, and older snapshots are deleted when a new one is stored.

const GLUE = "recipes_worker_glue"; // builder/worker_glue.py, shipped in the reduced standard library
let py = null;
let api = null;
let resolverUrl = "/static/resolver.zip";
let booting = null; // the boot's promise, shared by every page
let timings = null;
let chain = Promise.resolve(); // answers in the order of the requests, across pages
const SNAPSHOTS = "vllm-recipes-snapshots";
const SHARED = "onconnect" in self;
const KEPT_RECIPES = 8; // parsed recipes kept in Python beyond the one being answered
const clients = new WeakMap(); // port -> {vocab, recipes: Map(hfId -> JSON text)}
let loadedVocab = null; // the vocabulary text now parsed in Python
let loadedBundle = null; // its resolver bundle hash
let snapshotKeyPending = null; // a fresh boot's snapshot, taken once the first answer is out
const loadedRecipes = new Map(); // hfId -> JSON text now parsed in Python, oldest first

function snapshotKey(base) {
  return new URL(`${base}interpreter.snapshot?worker=${encodeURIComponent(self.location.search)}`, self.location.href).href;
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

async function boot(msg) {
  const base = msg.pyodide || "/pyodide/";
  resolverUrl = msg.resolver || resolverUrl;
  const started = performance.now();
  const key = snapshotKey(base);
  const [{ loadPyodide }, snapshot] = await Promise.all([import(base + "pyodide.mjs"), storedSnapshot(key)]);
  const fetched = performance.now();
  const options = { indexURL: base, lockFileURL: base + "pyodide-lock.json", packages: [] };
  py = null;
  if (snapshot) {
    try { py = await loadPyodide({ ...options, _loadSnapshot: snapshot }); } catch { py = null; }
  }
  const restored = py !== null;
  if (!restored) {
    py = await loadPyodide({ ...options, _makeSnapshot: true });
    py.pyimport(GLUE); // imports the precompiled resolver too, before the snapshot
  }
  const loaded = performance.now();
  if (!restored) snapshotKeyPending = key;
  const g = py.pyimport(GLUE);
  api = {
    setVocab: g.set_vocab, setRecipe: g.set_recipe, dropRecipe: g.drop_recipe,
    view: g.view, use: g.use, precompiled: g.precompiled, fromZip: g.from_zip,
  };
  timings = { fetch: fetched - started, pyodide: loaded - fetched, snapshot: restored, total: performance.now() - started };
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

async function fetched(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url.split("?")[0]}: HTTP ${r.status}`);
  return r;
}
const fetchText = (url) => fetched(url).then((r) => r.text());

// Import the package of this bundle once; later pages of the same build reuse it.
async function ensureResolver(hash) {
  if (api.use(hash)) return;
  const t = performance.now();
  let how = "precompiled";
  if (!api.precompiled(hash)) {
    const url = hash ? `${resolverUrl}${resolverUrl.includes("?") ? "&" : "?"}v=${hash.slice(0, 16)}` : resolverUrl;
    api.fromZip(new Uint8Array(await (await fetched(url)).arrayBuffer()), hash);
    how = "source";
  }
  Object.assign(timings, { resolver: performance.now() - t, how });
}

// Load this page's vocabulary and recipe into Python unless they are loaded already.
function loadClientData(client, hfId) {
  if (client.vocab !== loadedVocab) {
    loadedBundle = api.setVocab(client.vocab);
    loadedVocab = client.vocab;
  }
  const recipe = client.recipes.get(hfId);
  if (loadedRecipes.get(hfId) !== recipe) api.setRecipe(hfId, recipe);
  loadedRecipes.delete(hfId);
  loadedRecipes.set(hfId, recipe);
  for (const old of loadedRecipes.keys()) {
    if (loadedRecipes.size <= KEPT_RECIPES + 1) break;
    loadedRecipes.delete(old);
    api.dropRecipe(old);
  }
}

// The vocabulary and recipe texts a request brings or names: [vocab, recipe], each possibly undefined.
function requestData(msg) {
  const both = Promise.all([msg.vocabUrl ? fetchText(msg.vocabUrl) : msg.vocab,
    msg.recipeUrl ? fetchText(msg.recipeUrl).then((t) => JSON.stringify(JSON.parse(t).recipe)) : msg.recipe]);
  both.catch(() => {}); // reported by answer(), after the boot
  return both;
}

async function answer(port, msg, data) {
  try {
    const client = clients.get(port);
    const [vocab, recipe] = await data;
    if (vocab) client.vocab = vocab;
    if (recipe) client.recipes.set(msg.hfId, recipe);
    if (client.vocab === null || !client.recipes.has(msg.hfId)) throw new Error("no vocabulary or recipe sent");
    loadClientData(client, msg.hfId);
    await ensureResolver(loadedBundle);
    const t = performance.now();
    const text = api.view(msg.hfId, JSON.stringify(msg.state || {}), JSON.stringify(msg.event ?? null));
    port.postMessage({ type: "view", id: msg.id, view: text, ms: performance.now() - t });
    if (snapshotKeyPending) setTimeout(takeSnapshot, 500, snapshotKeyPending);
    snapshotKeyPending = null;
  } catch (err) {
    port.postMessage({ type: "error", id: msg.id, message: String(err && err.message ? err.message : err) });
  }
}

function connect(port) {
  clients.set(port, { vocab: null, recipes: new Map() });
  let booted = null; // this page's wait for the boot
  port.onmessage = (e) => {
    const msg = e.data || {};
    if (msg.type === "init") {
      const waited = booting !== null;
      const t = performance.now();
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
      const data = requestData(msg); // fetched now, while the interpreter boots or answers others
      chain = chain.then(() => wait).then(() => answer(port, msg, data), () => { /* the page was told: "failed" */ });
    }
  };
}

if (SHARED) self.onconnect = (e) => connect(e.ports[0]);
else connect(self);
