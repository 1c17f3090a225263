// The demo page's real tools. Each is a Prompt-API tool declaration (name, description,
// inputSchema, annotations) plus run(args, {signal, progress}), which the page uses as
// the tool's execute in the closed loop and calls itself in the open loop. run checks its
// own arguments too: in the open loop the module hands calls back exactly as the model
// made them, unvalidated.

import { evaluate, format } from "./calc.js";

function abortError(signal) {
  return signal?.reason ?? new DOMException("The tool call was aborted.", "AbortError");
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(abortError(signal));
      },
      { once: true },
    );
  });
}

function stringArg(args, key, { optional = false } = {}) {
  const v = args?.[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== "string") throw new TypeError(`argument "${key}" must be a string`);
  return v;
}

// ---------------------------------------------------------------- time zones

let zones;
function timeZones() {
  zones ??= typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return zones;
}

const ALIASES = { utc: "UTC", gmt: "UTC", "new york": "America/New_York", nyc: "America/New_York", "san francisco": "America/Los_Angeles", "los angeles": "America/Los_Angeles", beijing: "Asia/Shanghai", delhi: "Asia/Kolkata", "new delhi": "Asia/Kolkata", mumbai: "Asia/Kolkata" };

function validZone(z) {
  try {
    new Intl.DateTimeFormat("en", { timeZone: z });
    return true;
  } catch {
    return false;
  }
}

/** resolveZone accepts an IANA name ("Asia/Tokyo") or a city ("Tokyo", "new york?"). */
export function resolveZone(input) {
  const raw = input.trim().replace(/[?!.,;:]+$/, "").trim();
  if (raw === "") throw new Error("no time zone given");
  if (raw.includes("/") || /^utc$/i.test(raw)) {
    if (validZone(raw)) return new Intl.DateTimeFormat("en", { timeZone: raw }).resolvedOptions().timeZone;
  }
  const key = raw.toLowerCase().replace(/^(the\s+)/, "");
  if (ALIASES[key]) return ALIASES[key];
  const city = key.replace(/\s+/g, "_");
  const hit = timeZones().find((z) => z.toLowerCase().split("/").at(-1) === city);
  if (hit) return hit;
  throw new Error(`unknown time zone or city "${raw}" (try an IANA name such as Europe/Paris)`);
}

// ---------------------------------------------------------------- data files

// fetchJSON reads data/<name>.json beside the page, reporting download progress.
async function fetchJSON(base, name, signal, progress) {
  const url = new URL(`data/${name}.json`, base);
  progress({ message: `fetching ${name}.json`, fraction: 0 });
  const res = await fetch(url, { signal });
  if (res.status === 404) throw new Error(`there is no data file "${name}" (ask for the file "index" to list them)`);
  if (!res.ok) throw new Error(`fetching ${name}.json: HTTP ${res.status}`);
  const total = Number(res.headers.get("Content-Length")) || 0;
  const reader = res.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    if (total) progress({ message: `fetching ${name}.json`, fraction: Math.min(loaded / total, 1) });
  }
  const text = new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
  progress({ message: `parsing ${loaded} bytes`, fraction: 1 });
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}.json is not valid JSON: ${e.message}`);
  }
}

// ---------------------------------------------------------------- the tools

/**
 * makeTools returns the page's tools. notes is {list: string[], changed()}: the notes
 * that add_note and clear_notes work on. base is the URL data files are read against.
 */
export function makeTools({ notes, base }) {
  return [
    {
      name: "get_current_time",
      description: "The current date and time in a time zone (an IANA name such as Asia/Tokyo, or a city name).",
      inputSchema: {
        type: "object",
        properties: { timeZone: { type: "string", description: "IANA time zone or city, e.g. Europe/Paris or Tokyo" } },
        required: ["timeZone"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: false },
      async run(args) {
        const zone = resolveZone(stringArg(args, "timeZone"));
        const now = new Date();
        const when = new Intl.DateTimeFormat("en-GB", { timeZone: zone, dateStyle: "full", timeStyle: "short" }).format(now);
        const offset = new Intl.DateTimeFormat("en-GB", { timeZone: zone, timeZoneName: "shortOffset" }).formatToParts(now).find((p) => p.type === "timeZoneName")?.value;
        return `${when} in ${zone} (${offset})`;
      },
    },
    {
      name: "calculate",
      description: "Evaluates an arithmetic expression: numbers, + - * / % ^, parentheses, pi, e, sqrt, abs, round, floor, ceil, sin, cos, tan, ln, log, exp, min, max.",
      inputSchema: {
        type: "object",
        properties: { expression: { type: "string", maxLength: 500, description: "e.g. (17 + 25) * 3 / 2" } },
        required: ["expression"],
        additionalProperties: false,
      },
      annotations: { title: "Calculator", readOnlyHint: true, idempotentHint: true },
      async run(args) {
        const expression = stringArg(args, "expression");
        const value = evaluate(expression);
        return `${expression.trim().replace(/[?=.!\s]+$/, "")} = ${format(value)}`;
      },
    },
    {
      name: "read_data_file",
      description: 'Reads a JSON data file served beside the page, by name (without ".json"). The file "index" lists the others.',
      inputSchema: {
        type: "object",
        properties: { file: { type: "string", description: "the file's name, e.g. planets" } },
        required: ["file"],
        additionalProperties: false,
      },
      annotations: { title: "Read a data file", readOnlyHint: true, openWorldHint: false },
      async run(args, { signal, progress }) {
        // One word of letters, digits, - and _: never a path.
        const name = stringArg(args, "file")
          .trim()
          .toLowerCase()
          .replace(/\.json$/, "")
          .split(/\s+/)[0]
          .replace(/[^a-z0-9_-]/g, "");
        if (!name) throw new Error('no file name given (ask for the file "index" to list them)');
        return fetchJSON(base, name, signal, progress);
      },
    },
    {
      name: "add_note",
      description: "Saves a short note in the page's notes panel.",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string", minLength: 1, maxLength: 500 } },
        required: ["text"],
        additionalProperties: false,
      },
      annotations: { idempotentHint: false },
      async run(args) {
        const text = stringArg(args, "text")
          .replace(/^[\s:,-]*(that\s+)?/i, "")
          .trim();
        if (!text) throw new Error("the note is empty");
        notes.list.push(text);
        notes.changed();
        return `Saved note ${notes.list.length}: ${text}`;
      },
    },
    {
      name: "clear_notes",
      description: "Deletes every note in the page's notes panel. Cannot be undone.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { title: "Clear all notes", destructiveHint: true, idempotentHint: true },
      async run() {
        const n = notes.list.length;
        notes.list.length = 0;
        notes.changed();
        return n === 0 ? "There were no notes to clear." : `Cleared ${n} note${n === 1 ? "" : "s"}.`;
      },
    },
    {
      name: "wait_seconds",
      description: "Waits a number of seconds, reporting progress: a slow task, to try the Stop button on.",
      inputSchema: {
        type: "object",
        properties: { seconds: { type: "integer", minimum: 1, maximum: 30 } },
        required: ["seconds"],
        additionalProperties: false,
      },
      annotations: { title: "Slow task", readOnlyHint: true },
      async run(args, { signal, progress }) {
        const seconds = args?.seconds;
        if (!Number.isInteger(seconds) || seconds < 1 || seconds > 30) throw new TypeError('argument "seconds" must be an integer from 1 to 30');
        const steps = seconds * 4;
        for (let i = 0; i < steps; i++) {
          progress({ message: `${(i / 4).toFixed(1)} s of ${seconds} s`, fraction: i / steps });
          await sleep(250, signal);
        }
        progress({ message: `${seconds} s of ${seconds} s`, fraction: 1 });
        return `Waited ${seconds} second${seconds === 1 ? "" : "s"}.`;
      },
    },
  ];
}

/**
 * RULES are the offline demo model's rules (loop/scripted/rules.go): a keyword in the
 * user's message becomes a call; "{{text}}" is the text after the keyword. Every rule
 * that matches makes a call, in this order. "/tool {json}" calls any tool by hand.
 */
export const RULES = [
  { match: "world clock", tool: "get_current_time", arguments: { timeZone: "Asia/Tokyo" } },
  { match: "world clock", tool: "get_current_time", arguments: { timeZone: "Europe/London" } },
  { match: "world clock", tool: "get_current_time", arguments: { timeZone: "America/New_York" } },
  { match: "research", tool: "research", arguments: { task: "{{text}}" } },
  { match: "find a tool", tool: "search_tools", arguments: { query: "{{text}}" } },
  { match: "look up", tool: "look_up_data_file", arguments: { file: "{{text}}" } },
  { match: "time in", tool: "get_current_time", arguments: { timeZone: "{{text}}" } },
  { match: "calculate", tool: "calculate", arguments: { expression: "{{text}}" } },
  { match: "read file", tool: "read_data_file", arguments: { file: "{{text}}" } },
  { match: "list files", tool: "read_data_file", arguments: { file: "index" } },
  { match: "remember", tool: "add_note", arguments: { text: "{{text}}" } },
  { match: "clear notes", tool: "clear_notes" },
  { match: "wait", tool: "wait_seconds", arguments: { seconds: 5 } },
];

/**
 * researcher is a session offered as a tool (an agent tool, docs/chat-ui.md "Sessions as
 * tools"): the model hands it a task, a child session on the same model does it with one
 * read-only tool of its own (the data files, as "Look up a data file"), and its answer is
 * the call's result. The child's calls come as the parent's events with detail.path, and
 * the page shows them inside the research call's card. toolByName gives the page's tools.
 */
export function researcher(toolByName) {
  const read = toolByName.get("read_data_file");
  return {
    name: "research",
    description: "Hands a task about the page's data files to a researcher, a helper with its own model and tools, and gives back its report.",
    annotations: { title: "Researcher", readOnlyHint: true },
    agent: {
      initialPrompts: [{ role: "system", content: "You look things up in the page's data files and report what you found." }],
      tools: [
        {
          name: "look_up_data_file",
          description: read.description,
          inputSchema: read.inputSchema,
          annotations: { title: "Look up a data file", readOnlyHint: true, openWorldHint: false },
          execute: (args, ctx) => read.run(args, { signal: ctx.signal, progress: ctx.progress ?? (() => {}) }),
        },
      ],
      toolUseConfig: { maxToolCalls: 4 },
    },
  };
}

const VERBS = ["get", "list", "convert", "check", "book", "cancel", "track", "count", "translate", "rate"];
const NOUNS = ["currency", "weather", "flight", "hotel", "parcel", "invoice", "meeting", "recipe", "song", "playlist", "ticket", "train", "taxi", "table", "room", "stock", "loan", "payment", "order", "review", "photo", "album", "note", "task", "alarm", "timer", "contact", "email", "message", "document"];

/**
 * manyTools are the many-tools mode's 300 small generated tools (convert_currency,
 * book_flight, …): with them the declarations outgrow a quarter of the context window, so
 * the session offers the model search_tools and a small active set instead
 * (docs/small-windows.md "Tool search"). Each answers with what it was asked.
 */
export function manyTools() {
  const out = [];
  for (const noun of NOUNS) {
    for (const verb of VERBS) {
      const name = `${verb}_${noun}`;
      out.push({
        name,
        description: `${verb[0].toUpperCase()}${verb.slice(1)}s a ${noun}: a generated tool of the many-tools mode, which answers with its arguments.`,
        inputSchema: { type: "object", properties: { id: { type: "string", description: `the ${noun}` } }, additionalProperties: false },
        annotations: { readOnlyHint: true },
        async run(args) {
          return `${name} done: ${JSON.stringify(args ?? {})}`;
        },
      });
    }
  }
  return out;
}

/** EXAMPLES are prompts that exercise the rules, shown as chips under the chat. */
export const EXAMPLES = [
  "What's the time in Tokyo?",
  "Show me the world clock",
  "Calculate (17 + 25) * 3 / 2",
  "Calculate 1 / 0",
  "List files",
  "Read file planets",
  "Remember: buy oat milk",
  "Clear notes",
  "Wait a moment",
  "Research: look up planets",
  "Tell me a **joke**",
];
