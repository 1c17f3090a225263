// Compile-time test of language-model.d.ts (`make test-types`, run by `make test`): code a
// page would write, which must type-check under --strict. Not shipped; nothing runs it.
// Each @ts-expect-error line is a misuse the types must reject.

import {
  install,
  LanguageModel,
  LanguageModelToolCall,
  LanguageModelToolError,
  LanguageModelToolSuccess,
  SNAPSHOT_VERSION,
  snapshotStore,
  type Availability,
  type AgentTool,
  type Backend,
  type Recording,
  type Snapshot,
  type ApprovedTool,
  type ListedTool,
  type ChatCompletionsRequest,
  type Message,
  type ModelContext,
  type Tool,
} from "./language-model.js";

async function page(): Promise<void> {
  const { globals, nativeAvailability } = await install({ wasm: new URL("langmodel.wasm", "https://example.test/"), globals: "auto" });
  const asked: Availability | undefined = nativeAvailability;
  void asked;
  const ready: boolean = globals;

  const weather: Tool = {
    name: "get_weather",
    description: "Weather in a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    annotations: { title: "Get weather", readOnlyHint: true },
    async execute(args, { callID, signal, progress }) {
      progress({ pct: 50 });
      signal.throwIfAborted();
      return `sunny in ${String(args.city)} (${callID})`;
    },
  };

  // Closed loop: prompt() is a string.
  const closed = await LanguageModel.create({
    tools: [weather],
    toolUseConfig: { maxToolCalls: 4, maxRepeatedCalls: 2, maxTokens: 20000, onLimit: "answer", approve: (call, tool, { signal }) => !signal.aborted && call.name === tool.name && (tool.source.kind !== "mcp" || tool.source.origin === "https://tools.example.com") },
    toolChoice: "auto",
    keepReasoning: true,
    monitor(m) {
      m.addEventListener("downloadprogress", (e) => console.log((e as ProgressEvent).loaded));
    },
  });
  closed.addEventListener("toolcall", (e) => console.log(e.detail.call.name, e.detail.annotations?.title));
  closed.ontoolresult = (e) => console.log(e.detail.result instanceof LanguageModelToolError, e.detail.duration);
  closed.onreasoning = (e) => console.log(e.detail.text.length);
  closed.addEventListener("reasoning", (e) => console.log(e.detail.text));
  const thought = closed.history.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === "reasoning");
  console.log(thought.length);
  closed.ontoolcalldelta = (e) => console.log(e.detail.callID, e.detail.name, e.detail.argumentsText.length, e.detail.arguments?.city, e.detail.dropped);
  closed.onstepusage = (e) => console.log(e.detail.inputTokens + e.detail.outputTokens, e.detail.estimated, e.detail.toolCalls > 0, e.detail.duration);
  closed.addEventListener("stepusage", (e) => console.log(`${e.detail.cachedTokens ?? "?"} of ${e.detail.inputTokens} cached`));
  const spent: number = closed.usage.inputTokens + closed.usage.outputTokens + closed.usage.steps - closed.usage.estimatedSteps;
  console.log(spent);
  // Tool search: a quarter of the window for declarations, one tool pinned; a prompt sets its tools.
  const many = await LanguageModel.create({ tools: [weather], toolUseConfig: { toolSearch: { share: 0.25, pinned: ["get_weather"] } } });
  many.addEventListener("toolcall", (e) => console.log(e.detail.builtin === true ? "searched" : e.detail.call.name));
  console.log(await many.prompt("Weather?", { activeTools: ["get_weather"] }));
  const found: string[] = many.snapshot().activeTools ?? []; // the active set, kept by a snapshot
  console.log(found.includes("get_weather"));
  // Compaction: by hand (a new session) and on overflow, with the usage before and after.
  const shorter: LanguageModel<string> = await closed.compact({ keepTurns: 2, dropToolResults: true, summarize: true, signal: AbortSignal.timeout(5000) });
  console.log(shorter.contextUsage < closed.contextUsage);
  const small = await LanguageModel.create({ tools: [weather], compactOnOverflow: { keepTurns: 1 } });
  small.addEventListener("contextoverflow", (e) => { if ("detail" in e && e.detail.compacted) console.log(e.detail.contextUsageBefore - e.detail.contextUsageAfter, e.detail.evicted); });
  console.log((await LanguageModel.create({ compactOnOverflow: true })).contextWindow);
  // No "tool-call" in expectedOutputs: prompt() is a string, promptStreaming() yields strings.
  const answer: string = await closed.prompt("Weather in Oslo?", { toolChoice: { type: "tool", name: "get_weather" } });
  console.log(answer.toUpperCase());
  for await (const chunk of closed.promptStreaming("And in Bergen?").values({ preventCancel: true })) console.log(chunk.length);

  // Open loop: prompt() may be an array of parts; results go back in either form.
  const open = await LanguageModel.create({
    expectedInputs: [{ type: "text" }],
    expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
    tools: [{ name: weather.name, description: weather.description, inputSchema: weather.inputSchema }],
  });
  const r = await open.prompt("Weather in Rome?");
  // @ts-expect-error with "tool-call" in expectedOutputs, prompt() may be an array of parts
  const notText: string = r;
  console.log(notText);
  if (Array.isArray(r)) {
    for (const part of r) {
      if (part.type !== "tool-call") continue;
      const call: LanguageModelToolCall = part.value;
      const appended: undefined = await open.append([
        { role: "user", content: [{ type: "tool-response", value: new LanguageModelToolSuccess({ callId: call.callId, name: call.name, result: [{ type: "text", value: "sun" }] }) }] },
      ]);
      console.log(appended);
      await open.append([{ role: "tool-result", content: [{ type: "tool-result", value: new LanguageModelToolError(call.callID, call.name, "offline") }] }]);
      // The explainer's form: content one part object, callId, an object result.
      await open.prompt([{ role: "tool-result", content: { type: "tool-result", value: { callId: call.callID, name: call.name, result: [{ type: "object", value: { temp: 12 } }] } } }]);
      // A text part holding any JSON value, as Chrome's tests send.
      await open.append([{ role: "user", content: [{ type: "tool-response", value: { callId: call.callID, name: call.name, result: [{ type: "text", value: { temp: 12 } }, { type: "text", value: [1, 2] }] } }] }]);
    }
  }

  // Streaming, abort, usage, errors.
  const ac = new AbortController();
  for await (const chunk of open.promptStreaming("More?", { signal: ac.signal })) {
    console.log(typeof chunk === "string" ? chunk : chunk.value.arguments);
  }
  const before: number = open.contextUsage;
  const needed: number = await open.measureContextUsage([{ role: "user", content: "x" }]);
  try {
    await open.prompt("x".repeat(1e6));
  } catch (e) {
    if (e instanceof DOMException && e.name === "QuotaExceededError") console.log(before, needed, open.contextWindow);
  }

  // History, edited, fed back: caller-supplied tool calls and responses are declared.
  const edited: Message[] = open.history.filter((m) => m.role !== "tool-result");
  const again = await LanguageModel.create({
    initialPrompts: edited,
    expectedInputs: [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }],
    tools: [weather],
  });
  const copy = await again.clone({ signal: ac.signal });
  const gone: undefined = copy.destroy();
  console.log(gone);

  // Backends.
  const backends: Backend[] = [
    { kind: "openai", baseURL: "http://127.0.0.1:11434/v1", model: "qwen2.5:7b" },
    { kind: "openai", baseURL: "http://127.0.0.1:8000/v1", model: "m", apiKey: "k", nativeTools: false },
    { kind: "browser" },
    {
      kind: "custom",
      async *generate(request, { signal }) {
        if (signal.aborted) return;
        yield `You said ${request.messages.length} messages`;
        yield { type: "tool-call", value: { name: "get_weather", arguments: { city: "Oslo" } } };
      },
    },
    // In-page engines: wllama's shape and WebLLM's.
    {
      kind: "engine",
      engine: {
        async createChatCompletion(request: ChatCompletionsRequest & { abortSignal: AbortSignal }) {
          return (async function* () {
            if (!request.abortSignal.aborted) yield { choices: [{ index: 0, delta: { content: "Hi" } }] };
          })();
        },
      },
      contextWindow: 2048,
    },
    {
      kind: "engine",
      engine: { chat: { completions: { create: async () => ({ choices: [] }) } }, interruptGenerate() {} },
      model: "Qwen2.5-0.5B-Instruct-q4f16_1-MLC",
      nativeTools: false,
      templateOpensThink: true,
    },
    // A GGUF model the module loads into the wllama module the page imported.
    {
      kind: "gguf",
      model: "https://example.com/qwen2.5-0.5b-instruct-q4_k_m.gguf",
      wllama: { Wllama: class {}, CacheManager: class {} },
      paths: { default: "/wllama/wasm/wllama.wasm" },
      compat: { wasm: "/wllama-compat/wllama.wasm", worker: "/wllama-compat/wllama.js" },
      load: { n_ctx: 4096 },
    },
    { kind: "gguf", model: [new Blob([]), new Blob([])], wllama: { Wllama: class {}, CacheManager: class {} }, paths: { default: "/w.wasm" } },
  ];
  for (const backend of backends) console.log(await LanguageModel.availability({ backend }), ready);
  // @ts-expect-error a GGUF model needs the wllama module and its paths
  await LanguageModel.create({ backend: { kind: "gguf", model: "/m.gguf" } });
  // @ts-expect-error an engine needs createChatCompletion or chat.completions.create
  await LanguageModel.create({ backend: { kind: "engine", engine: { generate() {} } } });

  // @ts-expect-error an inputSchema is a JSON Schema object, not a string
  const bad: Tool = { name: "x", description: "x", inputSchema: "object" };
  // @ts-expect-error "video" is no expected type
  await LanguageModel.availability({ expectedInputs: [{ type: "video" }] });
  // @ts-expect-error an open session's stream yields tool calls too
  const textOnly: ReadableStream<string> = open.promptStreaming("x");
  // @ts-expect-error append() resolves to undefined
  const appendedValue: string = await closed.append("x");
  console.log(textOnly, appendedValue);
  // @ts-expect-error no such sampling mode
  await LanguageModel.create({ samplingMode: "random" });
  // @ts-expect-error a misspelt option is caught
  await LanguageModel.create({ expectedOutput: [{ type: "tool-call" }] });
  // @ts-expect-error toolChoice takes no other words
  await closed.prompt("x", { toolChoice: "always" });
  // @ts-expect-error a tool result needs a result or an errorMessage
  new LanguageModelToolSuccess({ callId: "c", name: "n" });
  console.log(bad);

  // WebMCP: the page's registered tools as the session's, a WebMCP-shaped declaration
  // beside them (no inputSchema, a top-level title), approval for consequential tools.
  const modelContext = (document as unknown as { modelContext?: ModelContext }).modelContext;
  const ping: Tool = { name: "ping", title: "Ping", description: "Ping the page", execute: () => "pong" };
  const webmcp = await LanguageModel.create({
    modelContext,
    tools: [ping],
    toolUseConfig: { approve: (call, tool) => !tool.annotations?.consequentialHint || confirm(`Run ${tool.title ?? call.name}?`) },
  });
  const history = webmcp.history.map((m) => m.content);
  console.log(history);
  // @ts-expect-error a model context needs getTools and executeTool
  await LanguageModel.create({ modelContext: { getTools: async () => [] } });

  // Snapshots: saved after every step, restored after a reload.
  const store = snapshotStore();
  const stop: () => void = store.autosave("chat", closed);
  stop();
  await store.save("chat", closed);
  const snap: Snapshot | undefined = await store.load("chat");
  if (snap && snap.version <= SNAPSHOT_VERSION) {
    const restored = await LanguageModel.restore(snap, { tools: [weather], toolUseConfig: { approve: () => true } });
    const again: Snapshot = restored.snapshot();
    const pending: string[] = again.pending.concat(again.running, again.approving);
    console.log(pending, await store.list(), await LanguageModel.restore(JSON.stringify(again)));
    await store.delete("chat");
  }
  // @ts-expect-error restore() needs a snapshot, not options
  await LanguageModel.restore({ tools: [weather] });

  // Approvals remembered: "Allow always", listed, revoked, kept by a snapshot the page saved.
  const remembering = await LanguageModel.create({ tools: [weather], toolUseConfig: { approve: async (call, tool) => (tool.source.kind === "page" ? { allow: "always" } : call.name === "ok") } });
  const allowed: ApprovedTool[] = remembering.approvals;
  console.log(allowed.map((t) => `${t.name} from ${t.source.kind}`), remembering.revokeApproval("weather"), remembering.revokeApproval());
  // A session's tools, wherever they come from (session.listTools()).
  const listed: ListedTool[] = await remembering.listTools();
  console.log(listed.map((t) => (t.source.kind === "mcp" ? `${t.source.name}: ${t.name}` : t.name) + (t.active ? "" : " (found by search)")));
  await LanguageModel.restore(remembering.snapshot(), { tools: [weather], toolUseConfig: { approve: () => ({ allow: "once" }) }, keepApprovals: true });
  // @ts-expect-error allow is "once" or "always"
  await LanguageModel.create({ tools: [weather], toolUseConfig: { approve: () => ({ allow: "alwyas" }) } });

  // Recordings: any backend recorded, replayed strictly by the scripted backend.
  const recorder = await LanguageModel.create({ backend: { kind: "record", backend: { kind: "openai", baseURL: "/v1", model: "m" } }, tools: [weather] });
  const recording: Recording = recorder.recording();
  const first = recording.turns[0]?.request?.messages[0];
  console.log(first, recording.turns.map((t) => t.usage?.inputTokens ?? t.chunks?.join("")));
  const replay = await LanguageModel.create({ backend: { ...recording, strict: true }, tools: [weather] });
  console.log(await replay.prompt("Weather in Paris?"));
  // @ts-expect-error strict is true or false
  await LanguageModel.create({ backend: { ...recording, strict: "yes" } });

  // Sessions as tools: a child session answers the call; its events come marked with the path.
  const research: AgentTool = { name: "research", description: "Finds things out", agent: { tools: [weather], toolUseConfig: { maxToolCalls: 4 } } };
  const parent = await LanguageModel.create({ tools: [research, weather], toolUseConfig: { maxDepth: 1, maxTotalToolCalls: 20, approve: (call, tool, { path }) => (path ?? []).length < 2 && call.name === tool.name } });
  parent.ontoolcall = (e) => console.log(e.detail.path?.map((c) => c.callID).join(">"), e.detail.call.name);
  // @ts-expect-error an agent tool has no execute: its child session is
  await LanguageModel.create({ tools: [{ name: "x", description: "x", agent: {}, execute: () => "" }] });
  // A chain of backends: the browser's own model, else a server; stepusage names the member.
  const chained = await LanguageModel.create({ backend: { kind: "chain", backends: [{ kind: "browser" }, { kind: "openai", baseURL: "/v1", model: "m" }] } });
  chained.onstepusage = (e) => console.log(e.detail.backend === 0 ? "on-device" : "server", recording.turns[0]?.backend);
  // @ts-expect-error a chain has at least one member
  await LanguageModel.create({ backend: { kind: "chain", backends: [] } });
  // @ts-expect-error chains do not nest
  await LanguageModel.create({ backend: { kind: "chain", backends: [{ kind: "chain", backends: [{ kind: "browser" }] }] } });
}

void page;
