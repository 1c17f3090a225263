// Types of js/language-model.js: the Prompt API's LanguageModel with tool use in the
// closed, open and hybrid loops of DESIGN.md §3, plus install(). This file is the
// contract of the JS face.

export type Availability = "unavailable" | "downloadable" | "downloading" | "available";
export type Role = "system" | "user" | "assistant" | "tool-call" | "tool-result" | "tool-response";

export interface ToolCallInit {
  callID?: string;
  callId?: string;
  name: string;
  arguments?: Record<string, unknown>;
}

export type ResultPart =
  | { type: "text"; value: string }
  | { type: "object"; value: unknown }
  | { type: "image" | "audio"; value: unknown };

export interface ToolSuccessInit {
  callID?: string;
  callId?: string;
  name: string;
  result: string | ResultPart[];
}

export interface ToolErrorInit {
  callID?: string;
  callId?: string;
  name: string;
  errorMessage: string;
}

export class LanguageModelToolCall {
  constructor(init: ToolCallInit);
  constructor(callID: string, name: string, args?: Record<string, unknown>);
  readonly callID: string;
  readonly callId: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  toJSON(): { callID: string; name: string; arguments: Record<string, unknown> };
}

export class LanguageModelToolSuccess {
  constructor(init: ToolSuccessInit);
  constructor(callID: string, name: string, result: string | ResultPart[]);
  readonly callID: string;
  readonly callId: string;
  readonly name: string;
  readonly result: string | ResultPart[];
  toJSON(): { callID: string; name: string; result: string | ResultPart[] };
}

export class LanguageModelToolError {
  constructor(init: ToolErrorInit);
  constructor(callID: string, name: string, errorMessage: string);
  readonly callID: string;
  readonly callId: string;
  readonly name: string;
  readonly errorMessage: string;
  toJSON(): { callID: string; name: string; errorMessage: string };
}

export type ContentPart =
  | { type: "text"; value: string }
  | { type: "image" | "audio"; value: unknown }
  | { type: "tool-call"; value: LanguageModelToolCall | ToolCallInit }
  | { type: "tool-result" | "tool-response"; value: LanguageModelToolSuccess | LanguageModelToolError | ToolSuccessInit | ToolErrorInit };

export interface Message {
  role: Role;
  content: string | ContentPart[];
  prefix?: boolean;
}

export type Prompt = string | Message[];

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolContext {
  callID: string;
  callId: string;
  /** Aborts when the prompt is aborted or the session destroyed. */
  signal: AbortSignal;
  /** Fires a toolprogress event on the session. */
  progress(value: unknown): void;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: { type: "object"; [keyword: string]: unknown };
  annotations?: ToolAnnotations;
  /** With execute the loop runs the tool (closed loop); without, calls come back to the page. */
  execute?(args: Record<string, unknown>, context: ToolContext): unknown;
}

export interface ToolUseConfig {
  enabled?: boolean;
  maxToolCalls?: number;
  parallel?: boolean;
  onLimit?: "error" | "answer";
  /** Resolve false, or a reason string, to decline the call. The signal aborts when the prompt is aborted or the session destroyed. */
  approve?(call: LanguageModelToolCall, tool: Tool, context: { signal: AbortSignal }): boolean | string | Promise<boolean | string>;
}

/** Whether the model may ("auto", the default), must not ("none") or must ("required", or one named tool) call tools. */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; name: string } | { name: string };

/** What a custom backend's generate receives for each model step. */
export interface GenerateRequest {
  /** The history in the draft-PR form (as session.history); with nativeTools false, tool calls and results are already rendered as text. */
  messages: Message[];
  /** The tools offered this step; absent with nativeTools false (they are in the system message) or when tools are off. */
  tools?: { name: string; description: string; inputSchema: object }[];
  toolChoice: "auto" | "none" | "required" | { type: "tool"; name: string };
  responseConstraint?: object;
  samplingMode?: string;
}

/** One piece of a generated answer: text, a complete tool call, or usage figures (which calibrate contextUsage). */
export type GeneratePiece =
  | string
  | { type: "text"; value: string }
  | { type: "tool-call"; value: { callID?: string; callId?: string; name: string; arguments?: Record<string, unknown> | string } }
  | { type: "usage"; value: { inputTokens?: number; outputTokens?: number } };

export type GenerateResult = GeneratePiece | GeneratePiece[] | AsyncIterable<GeneratePiece> | null | undefined;

export type Backend =
  | { kind: "scripted"; turns?: unknown[]; rules?: { match: string; tool: string; arguments?: unknown }[]; window?: number }
  | {
      kind: "openai";
      /** e.g. "http://127.0.0.1:11434/v1" (Ollama); "/chat/completions" is appended. http://, https:// or a path on the page's origin. */
      baseURL: string;
      model: string;
      /** Sent as "Authorization: Bearer …" and nowhere else. */
      apiKey?: string;
      headers?: Record<string, string>;
      /** false: tool use through the text protocol, for servers or models without native tool calling. Default true. */
      nativeTools?: boolean;
      contextWindow?: number;
    }
  | { kind: "browser"; nativeTools?: boolean; contextWindow?: number }
  | {
      kind: "custom";
      generate(request: GenerateRequest, context: { signal: AbortSignal }): GenerateResult | Promise<GenerateResult>;
      /** true: generate receives tools and yields {type: "tool-call"} pieces itself. Default false: the text protocol. */
      nativeTools?: boolean;
      contextWindow?: number;
    };

export interface ExpectedType {
  type: "text" | "image" | "audio" | "tool-call";
  languages?: string[];
}

export interface CreateMonitor extends EventTarget {}

export interface CreateOptions {
  initialPrompts?: Message[];
  expectedInputs?: ExpectedType[];
  expectedOutputs?: ExpectedType[];
  tools?: Tool[];
  toolUseConfig?: ToolUseConfig;
  samplingMode?: string;
  topK?: number;
  temperature?: number;
  signal?: AbortSignal;
  monitor?(monitor: CreateMonitor): void;
  backend?: Backend;
  /** The session's default; a TypeError if it names a tool the session does not declare. */
  toolChoice?: ToolChoice;
}

export interface PromptOptions {
  signal?: AbortSignal;
  responseConstraint?: object | RegExp;
  omitResponseConstraintInput?: boolean;
  /** Overrides the session's toolChoice for this prompt. */
  toolChoice?: ToolChoice;
}

export type PromptResult = string | ({ type: "text"; value: string } | { type: "tool-call"; value: LanguageModelToolCall })[];
export type StreamChunk = string | { type: "tool-call"; value: LanguageModelToolCall };

export interface ToolCallEventDetail {
  call: LanguageModelToolCall;
  annotations: ToolAnnotations | null;
}
export interface ToolProgressEventDetail {
  call: LanguageModelToolCall;
  value: unknown;
}
export interface ToolResultEventDetail {
  call: LanguageModelToolCall;
  result: LanguageModelToolSuccess | LanguageModelToolError;
  /** Milliseconds. */
  duration: number;
}

export interface LanguageModelEventMap {
  contextoverflow: Event;
  toolcall: CustomEvent<ToolCallEventDetail>;
  toolprogress: CustomEvent<ToolProgressEventDetail>;
  toolresult: CustomEvent<ToolResultEventDetail>;
}

export interface LanguageModelParams {
  defaultTopK: number;
  maxTopK: number;
  defaultTemperature: number;
  maxTemperature: number;
}

export class LanguageModel extends EventTarget {
  private constructor();
  static create(options?: CreateOptions): Promise<LanguageModel>;
  static availability(options?: CreateOptions): Promise<Availability>;
  static params(): Promise<LanguageModelParams>;

  /** A string, or an array of parts when expectedOutputs has tool-call and the session is not closed. */
  prompt(input: Prompt, options?: PromptOptions): Promise<PromptResult>;
  promptStreaming(input: Prompt, options?: PromptOptions): ReadableStream<StreamChunk>;
  append(input: Prompt, options?: { signal?: AbortSignal }): Promise<void>;
  measureContextUsage(input: Prompt, options?: { signal?: AbortSignal }): Promise<number>;
  readonly contextUsage: number;
  readonly contextWindow: number;
  oncontextoverflow: ((this: LanguageModel, ev: Event) => unknown) | null;
  ontoolcall: ((this: LanguageModel, ev: CustomEvent<ToolCallEventDetail>) => unknown) | null;
  ontoolprogress: ((this: LanguageModel, ev: CustomEvent<ToolProgressEventDetail>) => unknown) | null;
  ontoolresult: ((this: LanguageModel, ev: CustomEvent<ToolResultEventDetail>) => unknown) | null;
  readonly samplingMode: string;
  clone(options?: { signal?: AbortSignal }): Promise<LanguageModel>;
  destroy(): void;
  /** The whole transcript in the draft-PR form, a deep copy; edit it and pass it as initialPrompts. */
  readonly history: Message[];

  /** @deprecated measureContextUsage */
  measureInputUsage(input: Prompt, options?: { signal?: AbortSignal }): Promise<number>;
  /** @deprecated contextUsage */
  readonly inputUsage: number;
  /** @deprecated contextWindow */
  readonly inputQuota: number;
  /** @deprecated oncontextoverflow */
  onquotaoverflow: ((this: LanguageModel, ev: Event) => unknown) | null;
  /** @deprecated */
  readonly topK: number;
  /** @deprecated */
  readonly temperature: number;

  addEventListener<K extends keyof LanguageModelEventMap>(type: K, listener: (this: LanguageModel, ev: LanguageModelEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

export interface InstallConfig {
  /** URL of langmodel.wasm (a string is relative to the page; in Node, to the working directory); default: the one beside language-model.js. */
  wasm?: string | URL;
  /** URL of Go's wasm_exec.js; default: the one beside language-model.js, or beside `wasm` when that is given. Not loaded when globalThis.Go exists. */
  wasmExec?: string | URL;
  /** The default backend of create(); default: the offline demo model (scripted rules). */
  backend?: Backend;
  /** Define globalThis.LanguageModel etc.: "auto" (where there is none or the native one is "unavailable"), "always" or "never". */
  globals?: "auto" | "always" | "never";
  /** The fetch that downloads the module and carries the openai backend's requests; default globalThis.fetch. */
  fetch?: typeof fetch;
}

export interface Installed {
  version: number;
  /** Whether the globals were defined. */
  globals: boolean;
  /** The browser's own LanguageModel, if it had one. */
  native: unknown;
}

export function install(config?: InstallConfig): Promise<Installed>;
