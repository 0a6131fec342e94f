// Web Worker of the command builder: runs the resolver package (builder/resolver/) under Pyodide.
// The main thread (static/builder.js) posts {type: "init", pyodide, resolver} and then
// {type: "view", id, hfId, state, event[, vocab, recipe]}; every answer is the JSON text of
// resolver.builder_state(...).  No resolution logic lives here: this file only moves JSON.
//
// The resolver is imported once, on the first view request, against the bundle hash named by
// builder-data/vocab.json ("resolver_bundle_sha256"): the precompiled copy inside the reduced
// standard library when it is that very bundle, else the zip at `resolver` (fetched with ?v=<hash>,
// so HTTP caches keep it until it changes), unpacked into Pyodide's file system.
//
// Warm visits: after a fresh boot (interpreter started, glue run, precompiled resolver imported,
// no recipe loaded yet) the worker stores a memory snapshot of the interpreter in Cache Storage,
// keyed by the runtime folder (content-hashed) and this script's own URL (?v=<hash>); the next page
// restores it instead of starting Python again.  A rebuild that changes either gets a new key, and
// older snapshots are deleted when a new one is stored.

const GLUE = `
import io, json, sys, zipfile
HOME = "/home/pyodide"
sys.path.insert(0, HOME)
resolver = None
try:  # warm: import the precompiled package while the page fetches its data (used once its hash matches)
    import recipes_resolver  # noqa: F401
except ImportError:
    pass
_recipes = {}
_vocab = {}

def precompiled(bundle_hash):
    """Import the precompiled package when it is this very bundle; True on success."""
    global resolver
    try:
        import recipes_resolver_hash
    except ImportError:
        return False
    if not bundle_hash or recipes_resolver_hash.SHA256 != bundle_hash:
        return False
    import recipes_resolver as module
    resolver = module
    return True

def from_zip(data):
    """Unpack the fetched bundle (resolver/...) under HOME and import it."""
    global resolver
    # metadata_encoding: names are ASCII; without it zipfile looks up cp437, which the page does not ship
    zipfile.ZipFile(io.BytesIO(bytes(data)), metadata_encoding="utf-8").extractall(HOME)
    import resolver as module
    resolver = module

def bundle_hash():
    return _vocab.get("resolver_bundle_sha256") if isinstance(_vocab, dict) else None

def set_vocab(text):
    global _vocab
    _vocab = json.loads(text)

def set_recipe(hf_id, text):
    _recipes[hf_id] = json.loads(text)

def view(hf_id, state, event):
    return json.dumps(resolver.builder_state(_recipes[hf_id], _vocab, json.loads(state), json.loads(event)),
                      ensure_ascii=False)
`;

let py = null;
let api = null;
let resolverUrl = "/static/resolver.zip";
let loading = null;
let timings = null;
let chain = Promise.resolve();
const pending = [];
const SNAPSHOTS = "vllm-recipes-snapshots";

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
    /* storage full or unavailable: the next page boots from scratch */
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
    py.runPython(GLUE);
  }
  const loaded = performance.now();
  if (!restored) {
    try { storeSnapshot(key, py.makeMemorySnapshot()); } catch { /* this runtime cannot snapshot */ }
  }
  const g = py.globals;
  api = {
    setVocab: g.get("set_vocab"), setRecipe: g.get("set_recipe"), view: g.get("view"),
    precompiled: g.get("precompiled"), fromZip: g.get("from_zip"), bundleHash: g.get("bundle_hash"),
  };
  timings = { fetch: fetched - started, pyodide: loaded - fetched, snapshot: restored };
  postMessage({ type: "ready", ms: performance.now() - started, timings });
}

// Import the resolver once the vocabulary (and so the bundle hash) is known.
function ensureResolver() {
  if (!loading) {
    loading = (async () => {
      const t = performance.now();
      const hash = api.bundleHash();
      let how = "precompiled";
      if (!api.precompiled(hash)) {
        const url = hash ? `${resolverUrl}${resolverUrl.includes("?") ? "&" : "?"}v=${hash.slice(0, 16)}` : resolverUrl;
        const r = await fetch(url);
        if (!r.ok) throw new Error(`${resolverUrl}: HTTP ${r.status}`);
        api.fromZip(new Uint8Array(await r.arrayBuffer()));
        how = "source";
      }
      Object.assign(timings, { resolver: performance.now() - t, how });
    })();
  }
  return loading;
}

async function answer(msg) {
  try {
    if (msg.vocab) api.setVocab(msg.vocab);
    if (msg.recipe) api.setRecipe(msg.hfId, msg.recipe);
    await ensureResolver();
    const t = performance.now();
    const text = api.view(msg.hfId, JSON.stringify(msg.state || {}), JSON.stringify(msg.event ?? null));
    postMessage({ type: "view", id: msg.id, view: text, ms: performance.now() - t });
  } catch (err) {
    postMessage({ type: "error", id: msg.id, message: String(err && err.message ? err.message : err) });
  }
}

// Answers keep the order of the requests.
function enqueue(msg) {
  chain = chain.then(() => answer(msg));
}

self.onmessage = (e) => {
  const msg = e.data || {};
  if (msg.type === "init") {
    boot(msg).then(() => {
      while (pending.length) enqueue(pending.shift());
    }).catch((err) => postMessage({ type: "failed", message: String(err && err.message ? err.message : err) }));
    return;
  }
  if (msg.type === "view") {
    if (api) enqueue(msg);
    else pending.push(msg);
  }
};
