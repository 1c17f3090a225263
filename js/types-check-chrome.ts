// Compile-time test of language-model.d.ts (`make test-types`): page code typed for
// Chrome's built-in LanguageModel with @types/dom-chromium-ai (the global names
// LanguageModelCreateOptions, LanguageModelPrompt, LanguageModelMessage… below are
// Chrome's) must compile unchanged against the module's types. Not shipped; nothing runs it.

import * as lm from "./language-model.js";

// Chrome-typed values, as a page written for Chrome declares them.
const systemPrompt: LanguageModelSystemMessage = { role: "system", content: "Be brief." };
const history: LanguageModelMessage[] = [
  { role: "user", content: "Hi" },
  { role: "assistant", content: [{ type: "text", value: "Hello" }] },
];
const picture: LanguageModelMessageContent = { type: "image", value: new Blob([]) };
const sound: LanguageModelMessageContent = { type: "audio", value: new ArrayBuffer(8) };
const expected: LanguageModelExpected[] = [{ type: "text", languages: ["en"] }, { type: "image" }, { type: "audio" }];
const tool: LanguageModelTool = {
  name: "get_weather",
  description: "Weather in a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
  async execute(args: { city: string }) {
    return `sunny in ${args.city}`;
  },
};
const options: LanguageModelCreateOptions = {
  initialPrompts: [systemPrompt, ...history],
  expectedInputs: expected,
  expectedOutputs: [{ type: "text", languages: ["en"] }],
  tools: [tool],
  samplingMode: "balanced",
  signal: new AbortController().signal,
  monitor(m) {
    m.addEventListener("downloadprogress", (e) => console.log(e.loaded));
  },
};
const core: LanguageModelCreateCoreOptions = { expectedInputs: expected };
const promptOptions: LanguageModelPromptOptions = { responseConstraint: { type: "object" }, omitResponseConstraintInput: true, signal: options.signal };
const appendOptions: LanguageModelAppendOptions = { signal: options.signal };
const cloneOptions: LanguageModelCloneOptions = { signal: options.signal };
const input: LanguageModelPrompt = [{ role: "user", content: [{ type: "text", value: "What is this?" }, picture, sound] }];
const prefixed: LanguageModelPrompt = [{ role: "user", content: "Say hi" }, { role: "assistant", content: "Hi", prefix: true }];
const availability: Availability = await lm.LanguageModel.availability(core);

// Chrome-typed functions over a session and its handlers.
function onOverflow(this: LanguageModel, ev: Event): void {
  console.log(this.contextUsage, this.contextWindow, ev.type);
}
async function summarize(session: LanguageModel, text: string): Promise<string> {
  return session.prompt(`Summarize: ${text}`);
}
async function collect(stream: ReadableStream<string>): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += chunk;
  return out;
}

async function page(): Promise<void> {
  const session = await lm.LanguageModel.create(options);
  const text: string = await session.prompt(input, promptOptions);
  const prefix: string = await session.prompt(prefixed);
  const stream: ReadableStream<string> = session.promptStreaming(input, promptOptions);
  const all: string = await collect(stream);
  const appended: undefined = await session.append(history, appendOptions);
  const used: number = await session.measureContextUsage(input, promptOptions);
  const legacy: number = await session.measureInputUsage(input);
  const usage: number = session.contextUsage + session.contextWindow + session.inputUsage + session.inputQuota;
  session.oncontextoverflow = onOverflow;
  session.onquotaoverflow = onOverflow;
  session.oncontextoverflow = function (ev) {
    console.log(this.contextUsage, ev.type);
  };
  session.addEventListener("contextoverflow", onOverflow);
  session.addEventListener("quotaoverflow", (ev) => console.log(ev.type));
  session.removeEventListener("contextoverflow", onOverflow);
  const summary: string = await summarize(session, text);
  const asChrome: LanguageModel = session;
  const copy: LanguageModel = await session.clone(cloneOptions);
  const gone: undefined = session.destroy();
  const params: LanguageModelParams = await lm.LanguageModel.params();
  const plain = await lm.LanguageModel.create();
  const plainText: string = await plain.prompt("Hi");
  const sampled = await lm.LanguageModel.create({ samplingMode: "most-predictable" satisfies LanguageModelSamplingMode });
  console.log(availability, prefix, all, appended, used, legacy, usage, summary, asChrome, copy.topK, copy.temperature, gone, params.maxTopK, plainText, sampled);

  // The global LanguageModel, as Chrome's types declare it, with the module's additions.
  const global = await LanguageModel.create(options);
  global.ontoolcall = (e) => console.log(e.detail.call.name, e.detail.annotations?.readOnlyHint);
  global.addEventListener("toolresult", (e) => console.log(e.detail.duration));
  const transcript: lm.Message[] = global.history;
  const globalText: string = await global.prompt(input);
  console.log(transcript, globalText);
}

void page;
