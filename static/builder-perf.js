// The Performance panel's drawing (static/builder.js imports it once the builder's view carries
// predictions): the view's performance section as it is, its chart an element list
// (builder/resolver/performance/chart.py). It decides nothing: every text, class and event is the view's.
let pickOpen = false;
let el, rowView, send;

function svgNode([tag, attrs, content]) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, val] of Object.entries(attrs)) node.setAttribute(k, String(val));
  if (Array.isArray(content)) for (const child of content) node.append(svgNode(child));
  else node.textContent = content;
  return node;
}
function perfTable(p) {
  const body = el("tbody");
  for (const row of p.rows) {
    const label = row.cells[0];
    const attrs = { type: "button", class: "perf-point-btn", "data-perf": `c${label}`,
      "aria-pressed": String(row.current), "aria-label": `Select concurrency ${label}` };
    const first = row.event ? el("button", attrs, label) : label;
    if (row.event) first.addEventListener("click", () => send(row.event));
    body.append(el("tr", { class: row.class || null },
      el("td", {}, first), ...row.cells.slice(1).map((c) => el("td", {}, c))));
  }
  return el("table", { class: "perf-table", tabindex: "0" }, el("caption", {}, p.caption),
    el("thead", {}, el("tr", {}, ...p.columns.map((c) => el("th", { scope: "col" }, c)))), body);
}
function perfPrice(price) {
  const input = el("input", { type: "number", class: "cb-num perf-price-input", min: price.min,
    max: price.max, step: price.step, value: price.value, inputmode: "decimal", "data-perf": "price" });
  input.addEventListener("change", () => send({ ...price.input_event, value: input.value }));
  return el("p", { class: "perf-price" }, el("label", {}, `${price.label} `, input), " ",
    el("span", { class: "perf-note" }, price.note));
}
function perfPick(pick) {
  const details = el("details", { class: "perf-pick", "data-block": "pick" });
  details.open = pickOpen || Boolean(pick.answer);
  details.addEventListener("toggle", () => { pickOpen = details.open; });
  const form = el("form", { class: "perf-pick-form" });
  const inputs = pick.fields.map((f) => el("input", { type: "number", min: "0", step: "any", name: f.name,
    value: f.value, inputmode: "decimal", "data-perf": `pick-${f.name}` }));
  pick.fields.forEach((f, i) => form.append(el("label", { class: "perf-field" }, `${f.label} `,
    inputs[i])));
  form.append(el("button", { type: "submit", class: "cb-btn", "data-perf": "pick" }, pick.submit));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    send({ ...pick.event, value: Object.fromEntries(inputs.map((i) => [i.name, i.value])) });
  });
  details.append(el("summary", {}, pick.label), form);
  const answer = pick.answer;
  if (answer) details.append(el("p", { class: answer.class, role: "status" }, answer.text));
  return details;
}

export function drawPerformance(p, body, tools) {
  ({ el, rowView, send } = tools);
  const box = body.parentElement;
  const active = box.contains(document.activeElement) ? document.activeElement : null;
  const focus = active && (active.dataset.perf || active.dataset.value);
  const parts = [el("p", { class: "perf-for" }, p.heading)];
  if (p.text) parts.push(el("p", { class: "perf-unavailable", role: "status" }, p.text));
  if (p.source) {
    const badge = el("span", { class: "perf-badge" }, p.badge);
    parts.push(el("p", { class: "perf-source" }, p.source, " ", badge));
  }
  parts.push(rowView(p.workloads));
  if (p.chart) {
    const keys = p.legend.map((k) => el("li", { class: k.class },
      el("span", { class: "perf-key", "aria-hidden": "true" }), k.label));
    parts.push(el("div", { class: "perf-figure" }, svgNode(p.chart)),
      el("ul", { class: "perf-legend" }, ...keys), perfTable(p));
  }
  parts.push(perfPrice(p.price), perfPick(p.pick));
  body.replaceChildren(...parts);
  const key = focus && CSS.escape(focus);
  const target = key && body.querySelector(`[data-perf="${key}"],[data-value="${key}"]`);
  if (target) target.focus();
}
