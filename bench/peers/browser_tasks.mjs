// A scripted policy acting on a browser MCP server as a model would, only through the refs of
// what the server shows: the tasks of browser_bench.mjs and the widgets of ../widget_zoo/zoo.mjs.
//
//   runTask(spec, call, base, task) -> { solved, calls, tokens, ms, error, log }
//
// spec: one of serverSpecs() (browser_servers.mjs); call(name, args): a tools/call on it;
// task: { start, check, steps }, each step { do: "click"|"type"|"select"|"fill"|"read", find, ... }
// where `find` is a pattern of the line a model would look for (never a ref). A step's line is
// looked for in the newest result that has one, else in a fresh snapshot; `check` is the bench's
// own look at the end state (not counted).
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { findRef, textOf } from "./browser_servers.mjs";

const tokens = (s) => encode(s).length;
const now = () => performance.now();

// The tools each server offers for a task's actions, as a model would call them.
export function taskActions(spec) {
  if (spec.uidStyle)  // chrome-devtools-mcp
    return {
      click: (ref) => ["click", { uid: ref }],
      type: (ref, text, submit) => [["fill", { uid: ref, value: text }], ...(submit ? [["press_key", { key: "Enter" }]] : [])],
      select: (ref, value) => ["fill", { uid: ref, value }],
      fill: (fields) => [["fill_form", { elements: fields.map((f) => ({ uid: f.ref, value: f.value })) }]],
    };
  if (spec.name === "agent-browser")
    return {
      click: (ref) => ["agent_browser_click", { selector: "@" + ref }],
      type: (ref, text, submit) => [["agent_browser_fill", { selector: "@" + ref, text }], ...(submit ? [["agent_browser_press", { key: "Enter" }]] : [])],
      select: (ref, value) => ["agent_browser_select", { selector: "@" + ref, values: [value] }],
      fill: (fields) => fields.map((f) =>
        f.type === "checkbox" ? ["agent_browser_click", { selector: "@" + f.ref }]
          : f.type === "combobox" ? ["agent_browser_select", { selector: "@" + f.ref, values: [f.value] }]
            : ["agent_browser_fill", { selector: "@" + f.ref, text: f.value }]),
      readArgs: { interactive: false, compact: true },  // its default snapshot has no page text
    };
  const target = (ref) => ({ target: ref, element: "target element" });  // Playwright MCP and agentkit
  return {
    click: (ref) => ["browser_click", target(ref)],
    type: (ref, text, submit) => [["browser_type", { ...target(ref), text, ...(submit ? { submit: true } : {}) }]],
    select: (ref, value) => ["browser_select_option", { ...target(ref), values: [value] }],
    fill: (fields, submit) => [["browser_fill_form", {
      fields: fields.map((f) => ({ name: f.name, type: f.type, target: f.ref, value: f.value })),
      ...(submit && spec.fillSubmits ? { submit } : {}),
    }]],
    fillSubmits: !!spec.fillSubmits,
  };
}

export async function runTask(spec, call, base, task) {
  const act = taskActions(spec);
  let calls = 0;
  let returned = 0;
  const seen = [];  // every result of the task, oldest first: what a model has in its context
  const log = [];
  const t0 = now();
  const c = async (name, a, { mayFail = false } = {}) => {
    ++calls;
    const r = await call(name, a);
    const text = textOf(r);
    returned += tokens(text);
    log.push(`-- ${name} ${JSON.stringify(a)} (${tokens(text)} tokens)\n${text}`);
    if (r.isError && !mayFail) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
    if (!r.isError) seen.push(text);
    return r.isError ? null : text;
  };
  const last = () => seen[seen.length - 1] ?? "";
  const snapshot = (a = {}) => c(spec.tools.snapshot, a);
  // The ref of the line `re` finds in the newest result that has one (a model remembers what it
  // saw), else in a fresh snapshot (twice at most: a page may still be loading). `fresh` tells
  // whether it came from the newest result, so a ref of an older one may have gone stale.
  const ref = async (re) => {
    for (let i = seen.length - 1; i >= 0; --i) {
      const r = findRef(seen[i], re);
      if (r) return { ref: r, fresh: i === seen.length - 1 };
    }
    for (let k = 0; k < 2; ++k) {
      await snapshot();
      const r = findRef(last(), re);
      if (r) return { ref: r, fresh: true };
    }
    throw new Error(`no line matches ${re}`);
  };
  // an action is one call [name, args] or a list of them
  const callsOf = (steps) => (Array.isArray(steps[0]) ? steps : [steps]);
  // Run the calls of one action on a ref; when one fails on a ref an older result gave (the page
  // changed since), look again in a fresh snapshot and retry once, as a model would.
  const actOn = async (re, make) => {
    let r = await ref(re);
    for (let attempt = 0; ; ++attempt) {
      const steps = make(r.ref);
      let failed = false;
      for (const st of callsOf(steps))
        if ((await c(st[0], st[1], { mayFail: !r.fresh && attempt === 0 })) === null) {
          failed = true;
          break;
        }
      if (!failed) return r.ref;
      await snapshot();
      const again = findRef(last(), re);
      if (!again) throw new Error(`no line matches ${re} after a stale ref`);
      r = { ref: again, fresh: true };
    }
  };
  const run = async (steps) => {
    for (const st of callsOf(steps)) await c(st[0], st[1]);
  };
  let solved = false;
  let error = "";
  try {
    await c(spec.tools.navigate, { url: base + task.start, ...(spec.uidStyle ? { type: "url" } : {}) });
    for (const step of task.steps) {
      if (step.do === "click") await actOn(step.find, act.click);
      else if (step.do === "type") await actOn(step.find, (r) => act.type(r, step.text, step.submit));
      else if (step.do === "select") await actOn(step.find, (r) => act.select(r, step.value));
      else if (step.do === "fill") {
        const fields = [];
        for (const f of step.fields) fields.push({ ...f, ref: (await ref(f.find)).ref });
        const submit = (await ref(step.submit)).ref;
        await run(act.fill(fields, submit));
        if (!act.fillSubmits) await run(act.click(submit));
      } else if (step.do === "read") {
        if (!step.want.test(last())) await snapshot();
        if (!step.want.test(last()) && act.readArgs) await snapshot(act.readArgs);
        if (!step.want.test(last())) throw new Error(`the answer (${step.want}) is not in what the server showed`);
      }
    }
    solved = true;
  } catch (e) {
    error = e.message;
  }
  const ms = now() - t0;
  // the bench's own check of the end state (not counted): what the page shows now
  if (solved) {
    let text = textOf(await call(spec.tools.snapshot, act.readArgs ?? {}));
    solved = task.check.test(text);
    if (!solved) error = `the page does not show ${task.check}`;
  }
  return { solved, calls, tokens: returned, ms, error, log };
}

