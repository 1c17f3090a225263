// The workloads of `make bench-peers`, played in one page by the AI SDK (its closed loop,
// driven by its own mock model from ai/test) and by the module (the scripted backend):
// the same model steps, the same no-op tool, timed the same way. performance.now() is
// coarsened to 0.1 ms here, so every figure times many steps.

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const toolStep = (i) => ({
  content: [{ type: "tool-call", toolCallId: "c" + i, toolName: "noop", input: "{}" }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const textStep = (text) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });

// sdkLoop runs k conversations of n tool steps and a final answer through generateText;
// it returns the milliseconds per step.
export async function sdkLoop(sdk, n, k) {
  let step = 0;
  const model = new sdk.MockLanguageModelV3({ doGenerate: async () => (step < n ? toolStep(step++) : textStep("done")) });
  const tools = { noop: sdk.tool({ description: "does nothing", inputSchema: sdk.z.object({}), execute: async () => "" }) };
  const t0 = performance.now();
  for (let i = 0; i < k; i++) {
    step = 0;
    const r = await sdk.generateText({ model, tools, stopWhen: sdk.stepCountIs(n + 1), prompt: "go" });
    if (r.text !== "done" || r.steps.length !== n + 1) throw new Error(`sdk: ${r.steps.length} steps, text ${r.text}`);
  }
  return (performance.now() - t0) / (n * k);
}

// moduleLoop does the same with k sessions created beforehand (untimed: a page creates a
// session once and prompts it), each prompted once.
export async function moduleLoop(LanguageModel, n, k) {
  return moduleRun(await modulePrep(LanguageModel, n, k), n);
}

// modulePrep creates moduleLoop's k sessions of n-step loops.
export async function modulePrep(LanguageModel, n, k) {
  const turns = [];
  for (let i = 0; i < n; i++) turns.push({ calls: [{ name: "noop", arguments: {} }] });
  turns.push({ text: "done" });
  const sessions = [];
  for (let i = 0; i < k; i++) {
    sessions.push(await LanguageModel.create({
      backend: { kind: "scripted", turns },
      tools: [{ name: "noop", description: "does nothing", inputSchema: { type: "object" }, execute: async () => "" }],
      toolUseConfig: { maxToolCalls: n, maxRepeatedCalls: 0 },
    }));
  }
  return sessions;
}

// moduleRun prompts each of modulePrep's sessions once, then destroys them; it returns the
// milliseconds per step.
export async function moduleRun(sessions, n) {
  const t0 = performance.now();
  for (const s of sessions) if ((await s.prompt("go")) !== "done") throw new Error("module: not done");
  const ms = (performance.now() - t0) / (n * sessions.length);
  for (const s of sessions) s.destroy();
  return ms;
}

// history is m messages: a system message, then user and assistant in turn, ending with
// a user message when m is even.
export function history(m) {
  const out = [{ role: "system", content: "You are a benchmark." }];
  for (let i = 1; i < m; i++) out.push({ role: i % 2 ? "user" : "assistant", content: `message ${i} of the history` });
  return out;
}

// sdkHistory times one generateText call on the messages (a text answer).
export async function sdkHistory(sdk, messages) {
  const model = new sdk.MockLanguageModelV3({ doGenerate: async () => textStep("ok") });
  const t0 = performance.now();
  const r = await sdk.generateText({ model, messages });
  const ms = performance.now() - t0;
  if (r.text !== "ok") throw new Error("sdk: no answer");
  return ms;
}

// moduleHistory times create({initialPrompts}) on the messages, then one prompt on the
// session (a text answer).
export async function moduleHistory(LanguageModel, messages) {
  const t0 = performance.now();
  const s = await LanguageModel.create({ initialPrompts: messages, backend: { kind: "scripted", turns: [{ text: "ok" }], window: 1e9 } });
  const t1 = performance.now();
  const r = await s.prompt("go");
  const t2 = performance.now();
  s.destroy();
  if (r !== "ok") throw new Error("module: no answer");
  return { create: t1 - t0, prompt: t2 - t1 };
}

// historyWithCalls is history(m) with a tool call of lookup and its result in every ten
// messages (a user's message answered by a call first), as a session's history holds them.
export function historyWithCalls(m) {
  const out = history(m);
  for (let i = 2; i + 1 < m; i += 10) {
    const callID = "call_" + i;
    out[i] = { role: "tool-call", content: [{ type: "tool-call", value: { callID, name: "lookup", arguments: { word: "w" + i } } }] };
    out[i + 1] = { role: "tool-result", content: [{ type: "tool-result", value: { callID, name: "lookup", result: [{ type: "text", value: "found " + i }] } }] };
  }
  return out;
}

// lookupOptions are the options of a session whose history has historyWithCalls' calls.
export const lookupOptions = () => ({
  expectedInputs: [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }],
  tools: [{ name: "lookup", description: "Looks a word up", inputSchema: { type: "object" }, execute: () => "found" }],
  backend: { kind: "scripted", turns: [{ text: "ok" }], window: 1e9 },
});

// moduleRestore times k restore() calls of the snapshot's JSON text and returns ms per call.
export async function moduleRestore(LanguageModel, json, k) {
  let ms = 0;
  for (let i = 0; i < k; i++) {
    const snapshot = JSON.parse(json);
    const t0 = performance.now();
    const s = await LanguageModel.restore(snapshot, lookupOptions());
    ms += performance.now() - t0;
    s.destroy();
  }
  return ms / k;
}
