// The pomset explorer's page: talks only to the JSON API of the server that
// served it. The location's fragment (#ex=...&src=...&set=k=v,...&model=...)
// encodes the test and the options, so a link reopens the same view.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  examples: [],
  options: [],       // every option: name, values, default, doc
  sets: {},          // option -> value, where it differs from the test's own
  model: "pwt",
  last: null,        // { source, model, verdicts: {condition: observation} }
  chosenText: null,  // the state whose pomsets are drawn, as a condition
  states: [],        // the states listed so far (the first pages of `page`)
  page: null,        // { id, total }: the decision the listed states come from
  generation: 0,     // counts runs: an answer to an earlier one is dropped
};

// States asked for at a time: a test may have hundreds of thousands, and
// drawing them all at once froze the page.
const PAGE = 200;

// Requests under way, also on the body as `data-pending` (what the browser
// test waits on), each with the controller that aborts it: Cancel aborts
// them all, and the server, seeing the connection go, stops their work.
let pending = 0;
const controllers = new Set();
let since = 0;
let ticking = null;
// The tickets of the requests under way (`x-pomset-ticket`): the server
// says where each waits in its queue of heavy requests (`/api/status`).
const tickets = new Set();
let queued = null;   // the place of the first waiting request, as last asked
let asking = false;
function setPending(n) {
  pending = n;
  document.body.dataset.pending = String(n);
  const progress = $("progress");
  if (n > 0 && progress.hidden) {
    since = Date.now();
    progress.hidden = false;
    tick();
    ticking = setInterval(tick, 200);
  } else if (n === 0) {
    progress.hidden = true;
    clearInterval(ticking);
  }
}
function tick() {
  const secs = `${((Date.now() - since) / 1000).toFixed(1)} s`;
  text($("elapsed"), queued ? `waiting for a turn: ${queued.position} of ${queued.waiting} in the queue (the server runs ${queued.at_once} at once)… ${secs}` : `working… ${secs}`);
  askQueue();
}

// Asks the server where the page's requests wait, at most one question at
// a time: the place of the first that waits, or none.
async function askQueue() {
  if (asking || tickets.size === 0) { if (tickets.size === 0) queued = null; return; }
  asking = true;
  try {
    let first = null;
    for (const t of tickets) {
      const status = await (await fetch(`/api/status?ticket=${encodeURIComponent(t)}`)).json();
      if (status.position && (!first || status.position < first.position)) first = status;
    }
    queued = first;
  } catch (e) {
    queued = null;
  } finally {
    asking = false;
  }
}

// A task of several requests (the table's schemas, a sweep's chunks) is
// one piece of work for the progress line: its timer runs from the first
// request to the last, not from each.
async function working(task) {
  setPending(pending + 1);
  try { return await task(); } finally { setPending(pending - 1); }
}

function cancelAll() {
  for (const c of controllers) c.abort();
}

let ticketCount = 0;
async function api(path, body) {
  const controller = new AbortController();
  const ticket = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${++ticketCount}`;
  const init = body === undefined ? { signal: controller.signal } : {
    method: "POST",
    headers: { "Content-Type": "application/json", "x-pomset-ticket": ticket },
    body: JSON.stringify(body),
    signal: controller.signal,
  };
  controllers.add(controller);
  tickets.add(ticket);
  setPending(pending + 1);
  try {
    const response = await fetch(path, init);
    const answer = await response.json();
    if (!response.ok) throw answer.error || { message: "request failed" };
    return answer;
  } catch (e) {
    if (e && e.name === "AbortError") throw { message: "Cancelled: the server stopped this request's work.", cancelled: true };
    throw e;
  } finally {
    controllers.delete(controller);
    tickets.delete(ticket);
    setPending(pending - 1);
  }
}

function request(extra) {
  const sets = Object.entries(state.sets).map(([k, v]) => `${k}=${v}`);
  const base = { source: $("source").value, sets, model: state.model };
  if (state.timeout) base.timeout = state.timeout;
  return Object.assign(base, extra || {});
}

function text(el, s) { el.textContent = s; return el; }
function cell(row, s, cls) {
  const td = row.insertCell();
  text(td, s);
  if (cls) td.className = cls;
  return td;
}

// A problem from the API: each message once, located (file:line:col), then
// the rustc-style excerpt with its label and hint (its own copy of each
// message, a line starting with the severity, left out).
function showProblem(where, problem) {
  const el = $(where);
  const located = (problem.diagnostics || []).map((d) =>
    `${d.file}:${d.line}:${d.col}: ${d.severity}: ${d.message}`);
  const excerpt = (problem.rendered || "").split("\n")
    .filter((line) => !/^(error|warning)(\[\w+\])?: /.test(line)).join("\n");
  text(el, located.length ? located.join("\n") + "\n" + excerpt : problem.message);
  el.classList.add("problem");
  el.hidden = false;
}

// A verdict's colour: green when it is what the file expects, red when it
// is not, orange when unknown, plain when the file expects nothing.
function verdictClass(ok, met) {
  if (ok !== true && ok !== false) return "unknown";
  return met === true ? "ok" : met === false ? "no" : "plain";
}

// Results that belong to one test under one set of options: cleared before
// anything else is shown, so none can be read as another's.
function clearDerived() {
  state.generation++;
  const explanation = $("explanation");
  text(explanation, "");
  explanation.classList.remove("problem");
  $("variation").hidden = true;
  $("vary").tHead.innerHTML = "";
  $("vary").tBodies[0].innerHTML = "";
  clearRefinement();
  $("comparison").tHead.innerHTML = "";
  $("comparison").tBodies[0].innerHTML = "";
}

function clearRefinement() {
  const pane = $("refinement");
  text(pane, "");
  pane.classList.remove("problem");
  refineGeneration++;
}
let refineGeneration = 0;

// An edit without Run: the results on screen are the old text's. They are
// marked stale (not cleared: the user may compare), the example menu no
// longer names the edited example, and the derived panes go.
function edited() {
  const source = $("source").value;
  const stale = state.last !== null && state.last.source !== source;
  $("stale").hidden = !stale;
  $("right").classList.toggle("stale", stale);
  const chosen = state.examples.find((e) => e.path === $("examples").value);
  if (chosen && chosen.source !== source) $("examples").value = "";
  if (stale) clearDerived();
}

// ---------------------------------------------------------------- deciding

// One run: the decision and the drawing of its first state, one timer.
function run() { return working(decideAndDraw); }

async function decideAndDraw() {
  $("problem").hidden = true;
  $("limit").hidden = true;
  $("stale").hidden = true;
  $("right").classList.remove("stale");
  clearDerived();
  const generation = state.generation;
  document.body.classList.add("busy");
  try {
    const answer = await api("/api/decide", request({ page: PAGE }));
    if (generation !== state.generation) return;
    showReport(answer);
    updateShare();
    await drawState(firstChoice(answer.report.states));
  } catch (problem) {
    if (generation !== state.generation) return;
    // Results of an earlier text would read as this one's: cleared.
    for (const id of ["verdicts", "states"]) $(id).tBodies[0].innerHTML = "";
    $("warnings").hidden = true;
    $("pictures").innerHTML = "";
    text($("report"), "");
    text($("drawn-what"), "");
    state.states = [];
    state.page = null;
    showPaging(0, 0);
    state.last = null;
    showProblem("problem", problem);
  } finally {
    document.body.classList.remove("busy");
  }
}

function showReport(answer) {
  const report = answer.report;
  const source = $("source").value;
  const before = state.last && state.last.source === source && state.last.model === state.model
    ? state.last.verdicts : null;
  const verdicts = {};
  const body = $("verdicts").tBodies[0];
  body.innerHTML = "";
  for (const c of report.conditions) {
    const row = body.insertRow();
    // A verdict within a loop bound an execution reaches (or may reach)
    // says so, as `pomset run` does (issue 74).
    const bounded = c.bounded ? ` (bounded: --unroll ${c.bounded.unroll}${c.bounded.reached ? ", reached" : ", maybe reached"})` : "";
    const observation = (c.observation || "Unknown") + bounded;
    verdicts[c.text] = observation;
    cell(row, c.text);
    const colour = verdictClass(c.ok, c.met);
    const obs = cell(row, observation, colour);
    obs.dataset.observation = observation;
    cell(row, c.ok === true ? "Ok" : c.ok === false ? "No" : "Unknown", colour);
    cell(row, c.expected ? `${c.expected}${c.met === false ? " (NOT met)" : ""}` : "");
    const note = cell(row, "");
    if (before && c.text in before && before[c.text] !== observation) {
      row.classList.add("flipped");
      note.className = "flipped-note";
      text(note, `flipped (was ${before[c.text]})`);
    }
    row.onclick = () => { $("outcome").value = c.text.replace(/^(forbid|allow|exists|~exists|forall)\s*/, ""); };
  }
  state.last = { source, model: state.model, verdicts };
  showWarnings(answer);
  if (report.limit || report.unsupported) {
    text($("limit"), report.limit ? `Limit reached: ${limitWords(report.limit)} (the states are those found before it, at least; a verdict no found state settles is Unknown; \`pomset run\` on the command line takes higher limits)` : report.unsupported);
    $("limit").hidden = false;
  }
  $("states").tBodies[0].innerHTML = "";
  state.states = [];
  state.page = answer.page;
  listStates(report.states);
  text($("report"), answer.text);
  showOptions(answer.options);
}

// The warnings of a decision as `pomset run` prints them: the test's own
// (registers read as locations, a value outside V, ...), rustc-style as on
// standard error, then the report's (`Warning: ...`), such as a model's
// reason for a verdict.
function showWarnings(answer) {
  const box = $("warnings");
  const lines = [];
  if (answer.warnings_rendered) lines.push(answer.warnings_rendered.trimEnd());
  else for (const w of answer.warnings || []) lines.push(`${w.file}:${w.line}:${w.col}: warning: ${w.message}${w.hint ? `\n  hint: ${w.hint}` : ""}`);
  for (const w of (answer.report && answer.report.warnings) || []) lines.push(`Warning: ${limitWords(w)}`);
  text(box, lines.join("\n"));
  box.hidden = lines.length === 0;
}

// Appends states to the table (one page: the rows stay few whatever the test).
function listStates(more) {
  const body = $("states").tBodies[0];
  const rows = document.createDocumentFragment();
  for (const s of more) {
    const i = state.states.length;
    state.states.push(s);
    const row = document.createElement("tr");
    cell(row, s.values.map(([k, v]) => `${k}=${v === null ? "?" : v}`).join("; "));
    cell(row, String(s.count));
    row.onclick = () => drawState(i);
    rows.appendChild(row);
  }
  body.appendChild(rows);
  const page = state.page;
  showPaging(state.states.length, page ? page.total : state.states.length, page ? page.all : undefined);
}

// `total`: the states held, which "more" pages through; `all`: every state
// (more than are held when a test has millions: the first determined ones
// are held, as `pomset run` lists its first thousand).
function showPaging(shown, total, all) {
  const every = all === undefined ? total : all;
  const none = shown === 0 && every === 0 && !state.page;
  const count = every > total
    ? `${shown} of ${total} listed (${every} in all: the first ${total} with no ? can be listed)`
    : total > shown ? `${shown} of ${total} listed` : `${total} in all`;
  text($("states-count"), none ? "" : count);
  $("more").hidden = !(total > shown);
}

// The next page of the states of the decision on screen.
async function moreStates() {
  const page = state.page;
  const button = $("more");
  // A second click before the first page came would list it twice.
  if (!page || button.disabled) return;
  button.disabled = true;
  try {
    const answer = await api("/api/states", { id: page.id, offset: state.states.length, page: PAGE });
    if (state.page === page) listStates(answer.states);
  } catch (problem) {
    showProblem("problem", problem);
  } finally {
    button.disabled = false;
  }
}

// The state to draw after a run: the one chosen before if it is still
// there, else the first with no `?`, else the first.
function firstChoice(states) {
  if (state.chosenText) {
    const again = states.findIndex((s) => stateCondition(s) === state.chosenText);
    if (again >= 0) return again;
  }
  const full = states.findIndex((s) => s.values.every(([, v]) => v !== null));
  return full >= 0 ? full : 0;
}

// The state as a condition: its registers and locations with a value (`?`
// has no name in a condition, so it is left free).
function stateCondition(s) {
  return s.values.filter(([, v]) => v !== null).map(([k, v]) => `${k} = ${v}`).join(" /\\ ");
}

async function drawState(i) {
  const pictures = $("pictures");
  pictures.innerHTML = "";
  if (!state.states || i < 0 || i >= state.states.length) {
    text($("drawn-what"), "");
    return;
  }
  [...$("states").tBodies[0].rows].forEach((r, k) => r.classList.toggle("chosen", k === i));
  const condition = stateCondition(state.states[i]);
  state.chosenText = condition;
  text($("drawn-what"), `ending in ${condition || "any state"}`);
  const generation = state.generation;
  try {
    const answer = await api("/api/draw", request(condition ? { condition } : {}));
    if (generation !== state.generation || state.chosenText !== condition) return;
    for (const svg of answer.pictures) {
      const div = document.createElement("div");
      div.className = "picture";
      div.innerHTML = svg;  // the server's own SVG renderer
      pictures.appendChild(div);
    }
    if (answer.in_all > answer.pictures.length) {
      pictures.appendChild(text(document.createElement("p"), `${answer.pictures.length} of ${answer.in_all} drawn`));
    }
  } catch (problem) {
    if (generation === state.generation) {
      pictures.appendChild(text(document.createElement("pre"), problem.message));
    }
  }
}

// A limit as the page names it: the server's answers name the command-line
// flag (`--timeout 10`), which the page's user does not type.
function limitWords(message) {
  return String(message)
    .replace(/--timeout ([0-9.]+)/g, "the time limit of $1 s")
    .replace(/--max-pomsets ([0-9]+)/g, "the limit of $1 pomsets")
    .replace(/--max-states ([0-9]+)/g, "the limit of $1 states")
    .replace(/--max-steps ([0-9]+)/g, "the limit of $1 search steps")
    .replace(/--max-memory ([0-9]+)/g, "the memory budget of $1 MB")
    .replace(/--max-partitions ([0-9]+)/g, "the limit of $1 partitions")
    .replace(/; raise the limit\)/g, "; `pomset explain` on the command line takes higher limits)");
}

// The explanation, or the error that stopped it, in the explain pane only.
async function explain() {
  const outcome = $("outcome").value.trim();
  const pane = $("explanation");
  pane.classList.remove("problem");
  text(pane, "explaining…");
  const generation = state.generation;
  try {
    const answer = await api("/api/explain", request(outcome ? { condition: outcome } : {}));
    if (generation === state.generation) text(pane, limitWords(answer.text));
  } catch (problem) {
    if (generation === state.generation) showProblem("explanation", problem);
  }
}

// The refinement pane's Check, under the model chosen in the Model menu
// (as `pomset refine --model M`), within the server's limits.
async function refine() {
  const pane = $("refinement");
  pane.classList.remove("problem");
  const generation = ++refineGeneration;
  text(pane, `checking under ${state.model}…`);
  text($("refine-model"), state.model === "pwt"
    ? "Under pwt: the pomset-level check, then a search of contexts for a distinguishing test."
    : `Under ${state.model}: a search of contexts only (size 3): unsound with a test, or no counterexample in the bound; never "sound". The pomset options do not apply.`);
  try {
    const answer = await api("/api/refine", request({ from: $("refine-from").value, to: $("refine-to").value }));
    if (generation !== refineGeneration) return;
    let shown = limitWords(answer.text);
    if (answer.limit) shown += `\nLimit reached: ${limitWords(answer.limit)}: no verdict.`;
    text(pane, shown);
    pane.dataset.verdict = answer.verdict;
    if (answer.counterexample) {
      // The distinguishing test, opened in the editor and decided.
      const open = document.createElement("button");
      open.type = "button";
      open.id = "open-counterexample";
      open.textContent = "open the distinguishing test in the editor";
      open.onclick = () => { $("source").value = answer.counterexample; $("examples").value = ""; run(); };
      pane.appendChild(document.createElement("br"));
      pane.appendChild(open);
    }
  } catch (problem) {
    if (generation !== refineGeneration) return;
    text(pane, problem.rendered || problem.message);
    pane.classList.add("problem");
  }
}

// Compare: the test under every model, as `pomset compare --models ...`.
async function compare() {
  const table = $("comparison");
  const generation = state.generation;
  table.tHead.innerHTML = "";
  table.tBodies[0].innerHTML = "";
  try {
    const answer = await api("/api/compare", request());
    if (generation !== state.generation) return;
    const h = table.tHead.insertRow();
    for (const title of ["condition", ...answer.models]) h.appendChild(text(document.createElement("th"), title));
    for (const r of answer.rows) {
      const row = table.tBodies[0].insertRow();
      cell(row, r.condition);
      r.verdicts.forEach((v, i) => {
        const td = cell(row, limitWords(v) + (r.racy[i] ? " (racy)" : ""), /^Unknown/.test(v) ? "unknown" : "");
        td.dataset.model = answer.models[i];
      });
    }
  } catch (problem) {
    if (generation === state.generation) {
      const row = table.tBodies[0].insertRow();
      cell(row, problem.message, "no");
    }
  }
}

// ---------------------------------------------------------------- families

// A test found by the table or a sweep, put in the editor (under the model
// it was found for, when the Model menu has it) for the user to Run.
function openTest(source, model) {
  $("source").value = source;
  $("examples").value = "";
  if (model && [...$("model").options].some((o) => o.value === model) && state.model !== model) {
    state.model = model;
    $("model").value = model;
  }
  edited();
  $("source").focus();
  $("source").scrollIntoView({ block: "nearest" });
}

// A number field of a form as typed: empty is the server's default
// (undefined, left out of the request), anything else is sent as it is,
// zero included, for the server to accept or refuse with its reason.
function formNumber(id, what) {
  const typed = $(id).value.trim();
  if (typed === "") return undefined;
  const n = Number(typed);
  if (!Number.isInteger(n) || n < 0) throw { message: `${what} takes a whole number, not \`${typed}\`` };
  return n;
}

// A cell's word, coloured as verdicts are: sound green, unsound red,
// unknown orange, bounded plain.
// A vacuous cell (most of its contexts tested nothing) reads as unknown does.
const WORD_CLASS = { sound: "ok", unsound: "no", "unsound*": "no", bounded: "plain", vacuous: "unknown", unknown: "unknown" };

let tableGeneration = 0;

// The transformation table, schema by schema (one request each, within the
// server's limits), as `pomset transformations` prints it.
function decideTable() { return working(decideSchemas); }

async function decideSchemas() {
  const generation = ++tableGeneration;
  const table = $("table");
  const progress = $("table-progress");
  table.tHead.innerHTML = "";
  table.tBodies[0].innerHTML = "";
  const chosen = $("table-schema").value;
  const schemas = chosen ? [chosen] : state.schemas.map((s) => s.name);
  const models = $("table-models").value;
  let body;
  try {
    body = { models, context_size: formNumber("table-size", "context size"), timeout: formNumber("table-timeout", "seconds per schema") };
  } catch (problem) {
    text(progress, problem.message);
    return;
  }
  if (body.timeout === undefined) body.timeout = 30;
  let header = false;
  for (let k = 0; k < schemas.length; k++) {
    text(progress, `${k} of ${schemas.length} schemas decided; deciding ${schemas[k]}…`);
    let answer;
    try {
      answer = await api("/api/transformations", Object.assign({ schema: schemas[k] }, body));
    } catch (problem) {
      if (generation !== tableGeneration) return;
      if (problem.cancelled) {
        text(progress, `Cancelled after ${k} of ${schemas.length} schemas.`);
        return;
      }
      const row = table.tBodies[0].insertRow();
      cell(row, schemas[k]);
      cell(row, problem.message, "no").colSpan = 3;
      if (!header) { text(progress, problem.message); return; }
      continue;
    }
    if (generation !== tableGeneration) return;
    if (!header) {
      const h = table.tHead.insertRow();
      for (const title of ["transformation", "holes", "n", ...answer.models]) h.appendChild(text(document.createElement("th"), title));
      header = true;
    }
    for (const f of answer.families) {
      const row = table.tBodies[0].insertRow();
      row.dataset.schema = f.schema;
      cell(row, f.schema);
      cell(row, f.holes);
      cell(row, String(f.instances));
      f.cells.forEach((c) => showCell(row, c));
    }
    if (answer.limit) {
      const row = table.tBodies[0].insertRow();
      cell(row, `${answer.schema}: limit reached: ${limitWords(answer.limit)} (its unknown cells have no verdict)`, "unknown").colSpan = 3 + answer.models.length;
    }
    text(progress, `${k + 1} of ${schemas.length} schemas decided (contexts: ${answer.bound})`);
  }
}

// One cell: its word, the limit in its title (unknown), or a link opening
// its distinguishing test in the editor (unsound).
function showCell(row, c) {
  const td = row.insertCell();
  td.className = WORD_CLASS[c.verdict] || "";
  td.dataset.model = c.model;
  td.dataset.verdict = c.verdict;
  if (c.target_test) {
    const a = document.createElement("a");
    a.href = "#";
    a.textContent = c.verdict;
    a.title = `${c.instance} under ${c.model}: open the distinguishing test in the editor`;
    a.onclick = (e) => { e.preventDefault(); openTest(c.target_test, c.model); };
    td.appendChild(a);
    return;
  }
  // A bounded cell says how many of its contexts tested nothing, as the
  // terminal's table does (`bounded 12/96v`).
  const idle = (c.vacuous || 0) + (c.outside || 0);
  text(td, idle > 0 ? `${c.verdict} ${idle}/${c.contexts}v` : c.verdict);
  td.title = c.why ? `${c.instance}: ${limitWords(c.why)}`
    : idle > 0 ? `${c.instance}: ${c.vacuous || 0} of its ${c.contexts} contexts vacuous (the source undefined there), ${c.outside || 0} outside the model`
    : c.verdict === "unsound*" ? `${c.instance}: a target pomset with no match in the source, no test within the bound`
    : c.instance;
}

let sweepGeneration = 0;

// `pomset distinguish` over the form's bound, a chunk per request, with the
// count of programs decided; it stops at the first limit, naming it.
function sweep() { return working(sweepChunks); }

// The distinguish form's bound as a request (what the form says; a field
// left empty is the server's default).
function sweepBody() {
  return {
    models: [$("dist-a").value.trim(), $("dist-b").value.trim()],
    threads: formNumber("dist-threads", "threads"),
    per_thread: formNumber("dist-per-thread", "accesses per thread"),
    locations: formNumber("dist-locations", "locations"),
    modes: $("dist-modes").value,
    fences: $("dist-fences").checked,
  };
}

// The form's bound counted as it changes (no program decided): Sweep is
// offered only for a bound the server sweeps, and the note says why not.
let countGeneration = 0;
async function countSweep() {
  const generation = ++countGeneration;
  const note = $("dist-count");
  const button = $("dist-run");
  let answer;
  try {
    const response = await fetch("/api/distinguish/count", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(sweepBody()),
    });
    answer = await response.json();
    if (!response.ok) throw answer.error || { message: "the bound cannot be counted" };
  } catch (problem) {
    if (generation !== countGeneration) return;
    text(note, problem.message);
    note.className = "note no";
    button.disabled = true;
    return;
  }
  if (generation !== countGeneration) return;
  note.className = "note";
  if (answer.sweepable) {
    text(note, `${answer.programs} programs in this bound.`);
    button.disabled = false;
  } else {
    text(note, answer.programs === null
      ? `This bound is too large to count here, more than the explorer sweeps: \`pomset distinguish\` sweeps it (with --shard and --budget).`
      : `This bound has ${answer.programs} programs, more than the ${answer.max} the explorer sweeps: \`pomset distinguish\` sweeps it (with --shard and --budget).`);
    note.className = "note no";
    button.disabled = true;
  }
}

async function sweepChunks() {
  const generation = ++sweepGeneration;
  const progress = $("dist-progress");
  const list = $("dist-tests");
  list.innerHTML = "";
  text($("dist-headline"), "");
  text($("dist-summary"), "");
  let body;
  try {
    body = sweepBody();
  } catch (problem) {
    showProblem("dist-headline", problem);
    return;
  }
  let chunks = 1;
  let id = null;
  for (let k = 0; k < chunks; k++) {
    let answer;
    try {
      answer = await api("/api/distinguish", Object.assign({ chunk: k }, id === null ? {} : { sweep: id, chunks }, body));
    } catch (problem) {
      if (generation !== sweepGeneration) return;
      text(progress, problem.cancelled ? `Cancelled after ${k} of ${chunks} chunks.` : "");
      if (!problem.cancelled) showProblem("dist-headline", problem);
      return;
    }
    if (generation !== sweepGeneration) return;
    id = answer.sweep;
    chunks = answer.chunks;
    text(progress, `${answer.decided} of ${answer.programs} programs decided (chunk ${k + 1} of ${chunks})`);
    showSweep(answer);
    if (answer.limit) return;
  }
}

function showSweep(answer) {
  const headline = $("dist-headline");
  headline.classList.remove("problem");
  text(headline, limitWords(answer.headline));
  headline.className = answer.limit ? "unknown" : "";
  text($("dist-summary"), answer.summary);
  const list = $("dist-tests");
  list.innerHTML = "";
  for (const t of answer.tests) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "#";
    a.textContent = t.name;
    a.title = "open this test in the editor";
    a.onclick = (e) => { e.preventDefault(); openTest(t.litmus, t.allowed_by); };
    li.appendChild(a);
    li.appendChild(document.createTextNode(` ${t.allowed_by} only: ${t.state}    ${t.program}`));
    list.appendChild(li);
  }
}

// ---------------------------------------------------------------- options

function showOptions(current) {
  const body = $("options").tBodies[0];
  body.innerHTML = "";
  let changed = 0;
  for (const o of current) {
    const row = body.insertRow();
    row.title = o.doc;
    cell(row, o.name);
    const select = document.createElement("select");
    select.id = `option-${o.name}`;
    for (const v of o.values) {
      const opt = document.createElement("option");
      opt.value = v;
      opt.textContent = v === o.default ? `${v} (default)` : v;
      select.appendChild(opt);
    }
    select.value = o.value;
    select.onchange = () => { state.sets[o.name] = select.value; run(); };
    row.insertCell().appendChild(select);
    cell(row, o.default);
    if (o.applies === false) {
      // SC and the cat models read no option: a flip would change nothing.
      row.classList.add("na");
      select.disabled = true;
      row.title = `${state.model} does not read ${o.name}: it applies to pwt only`;
    }
    const vary = document.createElement("button");
    vary.type = "button";
    vary.textContent = "vary";
    vary.title = `decide the test under every value of ${o.name}`;
    vary.onclick = () => showVariation(o.name);
    row.insertCell().appendChild(vary);
    if (o.value !== o.default) { row.classList.add("changed"); changed++; }
  }
  const na = current.length > 0 && current.every((o) => o.applies === false);
  text($("changed"), na ? `(not read by ${state.model}: they apply to pwt only)`
    : changed ? `(${changed} not default)` : "(all default)");
}

// The REPL's `:vary OPTION`: one row per value, one column per condition.
async function showVariation(name) {
  const box = $("variation");
  const generation = state.generation;
  try {
    const table = await api("/api/vary", request({ option: name }));
    if (generation !== state.generation) return;
    text($("variation-title"), `Varying ${table.option}`);
    const head = $("vary").tHead;
    head.innerHTML = "";
    const h = head.insertRow();
    for (const title of [table.option, "states", ...table.conditions]) {
      h.appendChild(text(document.createElement("th"), title));
    }
    const body = $("vary").tBodies[0];
    body.innerHTML = "";
    for (const r of table.rows) {
      const row = body.insertRow();
      const marks = [r.current ? "current" : "", r.default ? "default" : ""].filter(Boolean);
      cell(row, r.value + (marks.length ? ` (${marks.join(", ")})` : ""));
      cell(row, r.unsupported ? "unsupported" : r.limit ? `? (${limitWords(r.limit)})` : String(r.states));
      table.conditions.forEach((_, k) => {
        const v = r.unsupported ? undefined : r.verdicts[k];
        const met = r.met ? r.met[k] : undefined;
        cell(row, v === true ? "Ok" : v === false ? "No" : r.unsupported ? "-" : "Unknown",
          r.unsupported ? "" : verdictClass(v, met));
      });
    }
    box.hidden = false;
  } catch (problem) {
    if (generation === state.generation) showProblem("problem", problem);
  }
}

// ---------------------------------------------------------------- links

function updateShare() {
  const parts = [];
  const chosen = $("examples").value;
  const example = state.examples.find((e) => e.path === chosen);
  if (example && example.source === $("source").value) parts.push(`ex=${encodeURIComponent(chosen)}`);
  else parts.push(`src=${encodeURIComponent($("source").value)}`);
  const sets = Object.entries(state.sets).map(([k, v]) => `${k}=${v}`).join(",");
  if (sets) parts.push(`set=${encodeURIComponent(sets)}`);
  if (state.model !== "pwt") parts.push(`model=${encodeURIComponent(state.model)}`);
  const link = `#${parts.join("&")}`;
  $("share").href = link;
  history.replaceState(null, "", link);
}

// The parameters a link may carry (the book's "Sharing a link").
const LINK_KEYS = ["ex", "src", "set", "model", "timeout", "from", "to", "flip", "vary", "explain", "check", "table", "models", "sweep"];

// The link's parameters: `key=value`, or a bare `key` (`&check`, `&sweep`),
// whose value is empty. What cannot be read is added to `problems`.
function readHash(problems) {
  const params = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const at = part.indexOf("=");
    const key = at < 0 ? part : part.slice(0, at);
    let value = at < 0 ? "" : part.slice(at + 1);
    try {
      value = decodeURIComponent(value);
    } catch (e) {
      problems.push(`the link's \`${key}\` is not URL-encoded text: ignored`);
      continue;
    }
    if (!LINK_KEYS.includes(key)) {
      problems.push(`the link's \`${key}\` is not a parameter of the explorer (it takes ${LINK_KEYS.join(", ")}): ignored`);
      continue;
    }
    params[key] = value;
  }
  return params;
}

// An option's value as a link gives it (`c7a=direct`): the problem, if the
// option or the value is not one the explorer has.
function optionProblem(k, v) {
  const o = (state.options || []).find((o) => o.name === k);
  if (!o) return `the link names no model option \`${k}\``;
  if (!o.values.includes(v)) return `the option ${k} has no value \`${v}\` (it takes ${o.values.join(", ")})`;
  return null;
}

// Opens the view a link describes (at start, and when the address's
// fragment changes in an open tab): the test, the options and the model,
// decided, then the actions the link asks for. A value the explorer does
// not have is named in a message above the page, never left as a blank
// menu: the rest of the link still applies.
async function openLink() {
  delete document.body.dataset.ready;
  const problems = [];
  const params = readHash(problems);
  const fallback = "classic/mp+rel+acq.litmus";
  if (params.ex !== undefined) {
    if (!chooseExample(params.ex)) {
      problems.push(`the link names no bundled example \`${params.ex}\`: ${params.src !== undefined ? "its `src` is shown" : `showing ${fallback}`}`);
      if (params.src !== undefined) { $("source").value = params.src; $("examples").value = ""; } else chooseExample(fallback);
    }
  } else if (params.src !== undefined) {
    $("source").value = params.src;
    $("examples").value = "";
    state.last = null;
  } else if (!state.linked) {
    chooseExample(fallback);
  }
  state.linked = true;
  state.sets = {};
  for (const kv of (params.set || "").split(",").filter(Boolean)) {
    const at = kv.indexOf("=");
    const [k, v] = at < 0 ? [kv.trim(), ""] : [kv.slice(0, at).trim(), kv.slice(at + 1).trim()];
    const problem = optionProblem(k, v);
    if (problem) problems.push(`${problem}: not set`);
    else state.sets[k] = v;
  }
  const models = [...$("model").options].map((o) => o.value);
  if (params.model === undefined || params.model === "") state.model = "pwt";
  else if (models.includes(params.model)) state.model = params.model;
  else {
    problems.push(`the link names the model \`${params.model}\`, which the Model menu does not have (it has ${models.join(", ")}): deciding under pwt`);
    state.model = "pwt";
  }
  $("model").value = state.model;
  // `timeout=SECONDS`: every request's time limit (the server's 10 s by
  // default, at most 60).
  state.timeout = undefined;
  if (params.timeout !== undefined) {
    const t = Number(params.timeout);
    if (params.timeout.trim() !== "" && t > 0 && t <= 60) state.timeout = t;
    else problems.push(`the link's timeout \`${params.timeout}\` is not a number of seconds from 0 to 60: the server's 10 s apply`);
  }
  if (params.from !== undefined) $("refine-from").value = params.from;
  if (params.to !== undefined) $("refine-to").value = params.to;
  const box = $("link-problem");
  text(box, problems.join("\n"));
  box.hidden = problems.length === 0;
  await run();
  // `flip=OPTION=VALUE` changes one option through its menu after the first
  // run, as a person would (the browser test and the book's screenshots use it).
  if (params.flip !== undefined) {
    const at = params.flip.indexOf("=");
    const [k, v] = at < 0 ? [params.flip, ""] : [params.flip.slice(0, at), params.flip.slice(at + 1)];
    const problem = optionProblem(k, v);
    const select = $(`option-${k}`);
    if (problem || !select) addLinkProblem(`flip: ${problem}`);
    else {
      select.value = v;
      state.sets[k] = v;
      await run();
    }
  }
  if (params.vary !== undefined) {
    if ((state.options || []).some((o) => o.name === params.vary)) await showVariation(params.vary);
    else addLinkProblem(`vary: the link names no model option \`${params.vary}\``);
  }
  if (params.explain !== undefined) {
    $("outcome").value = params.explain;
    await explain();
  }
  // `check` presses the refinement pane's Check (with `from`, `to`).
  if (params.check !== undefined) {
    $("refine-panel").open = true;
    await refine();
  }
  // `table=SCHEMA&models=A,B` decides that schema's rows in the
  // transformations panel (`table` alone: every schema); `sweep` runs the
  // distinguish form.
  if (params.table !== undefined) {
    $("table-panel").open = true;
    const known = (state.schemas || []).some((sc) => sc.name === params.table);
    if (params.table === "" || known) {
      $("table-schema").value = params.table;
      if (params.models) $("table-models").value = params.models;
      await decideTable();
    } else {
      addLinkProblem(`table: there is no schema \`${params.table}\` (the panel's menu lists them)`);
    }
  }
  if (params.sweep !== undefined) {
    $("distinguish-panel").open = true;
    await sweep();
  }
  document.body.dataset.ready = "yes";
}

function addLinkProblem(message) {
  const box = $("link-problem");
  text(box, box.hidden || !box.textContent ? message : `${box.textContent}\n${message}`);
  box.hidden = false;
}

function chooseExample(path) {
  const example = state.examples.find((e) => e.path === path);
  if (!example) return false;
  $("examples").value = path;
  $("source").value = example.source;
  state.last = null;
  state.chosenText = null;
  return true;
}

// ---------------------------------------------------------------- start

async function start() {
  state.examples = (await api("/api/examples")).filter((e) => !e.path.endsWith(".refine"));
  for (const e of state.examples) {
    const opt = document.createElement("option");
    opt.value = e.path;
    opt.textContent = e.path;
    $("examples").appendChild(opt);
  }
  const options = await api("/api/options");
  for (const m of options.models.filter((m) => m !== "pwt")) {
    const opt = document.createElement("option");
    opt.value = m;
    opt.textContent = m;
    $("model").appendChild(opt);
  }
  state.options = options.options;
  showOptions(options.options);
  const family = await api("/api/transformations");
  state.schemas = family.schemas;
  for (const sc of family.schemas) {
    const opt = document.createElement("option");
    opt.value = sc.name;
    opt.textContent = `${sc.name} (${sc.instances.length})`;
    $("table-schema").appendChild(opt);
  }
  $("table-models").value = family.models.join(",");
  $("examples").onchange = () => { if (chooseExample($("examples").value)) { state.sets = {}; run(); } };
  $("more").onclick = moreStates;
  $("model").onchange = () => { state.model = $("model").value; run(); };
  $("run").onclick = run;
  $("explain").onclick = explain;
  $("refine").onclick = refine;
  $("compare").onclick = compare;
  $("table-run").onclick = decideTable;
  $("dist-run").onclick = sweep;
  for (const id of ["dist-threads", "dist-per-thread", "dist-locations", "dist-modes", "dist-fences", "dist-a", "dist-b"]) {
    $(id).addEventListener("input", countSweep);
    $(id).addEventListener("change", countSweep);
  }
  countSweep();
  $("cancel").onclick = cancelAll;
  $("source").addEventListener("input", edited);
  for (const id of ["refine-from", "refine-to"]) $(id).addEventListener("input", clearRefinement);
  $("reset").onclick = (e) => { e.preventDefault(); state.sets = {}; run(); };
  $("source").addEventListener("keydown", (e) => { if (e.key === "Enter" && e.ctrlKey) run(); });
  $("outcome").addEventListener("keydown", (e) => { if (e.key === "Enter") explain(); });
  // A link opened in this tab (a new fragment typed or followed) opens its view.
  window.addEventListener("hashchange", () => { openLink().catch((problem) => showProblem("problem", problem)); });
  await openLink();
}

start().catch((problem) => showProblem("problem", problem));
