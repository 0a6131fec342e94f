// Web Worker of the command builder: runs builder/resolver.py under Pyodide.
// The main thread (static/builder.js) posts {type: "init", pyodide, resolver, vocab, recipe, hfId}
// and then {type: "view", id, hfId, state, event[, recipe]}; every answer is the JSON text of
// resolver.builder_state(...).  No resolution logic lives here: this file only moves JSON.

const GLUE = `
import json, sys
sys.path.insert(0, "/home/pyodide")
resolver = None

def load(source_hash):
    """Import the resolver: the precompiled copy when it is this very source, else the fetched file."""
    global resolver
    try:
        import recipes_resolver_hash
        if source_hash and recipes_resolver_hash.SHA256 == source_hash:
            import recipes_resolver as module
            resolver = module
            return "precompiled"
    except ImportError:
        pass
    import resolver as module
    resolver = module
    return "source"

_recipes = {}
_vocab = {}

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
let booting = null;
let timings = null;
const pending = [];

async function boot(msg) {
  const base = msg.pyodide || "/pyodide/";
  const started = performance.now();
  const [{ loadPyodide }, source] = await Promise.all([
    import(base + "pyodide.mjs"),
    fetch(msg.resolver || "/static/resolver.py").then((r) => {
      if (!r.ok) throw new Error(`resolver.py: HTTP ${r.status}`);
      return r.text();
    }),
  ]);
  const fetched = performance.now();
  py = await loadPyodide({ indexURL: base, lockFileURL: base + "pyodide-lock.json", packages: [] });
  const loaded = performance.now();
  py.FS.writeFile("/home/pyodide/resolver.py", source);
  py.runPython(GLUE);
  let hash = null;
  try {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(source));
    hash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  } catch { /* no WebCrypto (plain http on a remote host): compile the fetched file */ }
  const how = py.globals.get("load")(hash);
  timings = { fetch: fetched - started, pyodide: loaded - fetched, resolver: performance.now() - loaded, how };
  const g = py.globals;
  api = { setVocab: g.get("set_vocab"), setRecipe: g.get("set_recipe"), view: g.get("view") };
  if (msg.vocab) api.setVocab(msg.vocab);
  if (msg.recipe) api.setRecipe(msg.hfId, msg.recipe);
  postMessage({ type: "ready", ms: performance.now() - started, timings });
}

function answer(msg) {
  try {
    if (msg.vocab) api.setVocab(msg.vocab);
    if (msg.recipe) api.setRecipe(msg.hfId, msg.recipe);
    const t = performance.now();
    const text = api.view(msg.hfId, JSON.stringify(msg.state || {}), JSON.stringify(msg.event ?? null));
    postMessage({ type: "view", id: msg.id, view: text, ms: performance.now() - t });
  } catch (err) {
    postMessage({ type: "error", id: msg.id, message: String(err && err.message ? err.message : err) });
  }
}

self.onmessage = (e) => {
  const msg = e.data || {};
  if (msg.type === "init") {
    booting = boot(msg).then(() => {
      while (pending.length) answer(pending.shift());
    }).catch((err) => postMessage({ type: "failed", message: String(err && err.message ? err.message : err) }));
    return;
  }
  if (msg.type === "view") {
    if (api) answer(msg);
    else pending.push(msg);
  }
};
