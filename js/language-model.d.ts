// Types of js/language-model.js: the Prompt API's LanguageModel with tool use in the
// closed, open and hybrid loops of DESIGN.md §3, plus install(). This file is the
// contract of the JS face.
//
// Page code typed for Chrome (@types/dom-chromium-ai) compiles against it unchanged: the
// options, messages, tools and handlers Chrome's types describe are accepted, and a
// session created without "tool-call" in expectedOutputs is typed as Chrome's is
// (prompt() a Promise<string>, promptStreaming() a ReadableStream<string>). The globals
// that install() defines are declared at the end, in a form that coexists with
// @types/dom-chromium-ai (RATIONALE.md, "Why are the globals declared that way in
// language-model.d.ts?").

export type Availability = "unavailable" | "downloadable" | "downloading" | "available";
export type Role = "system" | "user" | "assistant" | "tool-call" | "tool-result" | "tool-response";

export interface ToolCallInit {
  callID?: string;
  callId?: string;
  name: string;
  arguments?: Record<string, unknown>;
}

/** What a text, image or audio part may hold, as Chrome's LanguageModelMessageValue. */
export type MessageValue = ImageBitmapSource | AudioBuffer | BufferSource | string;

export type ResultPart =
  /** A string; any other JSON value is taken as its JSON text (as Chrome's tests send objects and arrays). */
  | { type: "text"; value: string | null | boolean | number | object }
  | { type: "object"; value: unknown }
  | { type: "image" | "audio"; value: MessageValue };

export interface ToolSuccessInit {
  callID?: string;
  callId?: string;
  name: string;
  result: string | ResultPart[];
  /** In session.history: the output of a tool with untrustedContentHint, framed as data. */
  untrusted?: boolean;
}

export interface ToolErrorInit {
  callID?: string;
  callId?: string;
  name: string;
  errorMessage: string;
  /** In session.history: the error of a tool with untrustedContentHint, framed as data. */
  untrusted?: boolean;
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
  | { type: "text" | "image" | "audio"; value: MessageValue }
  /** What the model thought before it answered: on an assistant message, kept in the history only under keepReasoning (beyond the spec). */
  | { type: "reasoning"; value: string }
  | { type: "tool-call"; value: LanguageModelToolCall | ToolCallInit }
  | { type: "tool-result" | "tool-response"; value: LanguageModelToolSuccess | LanguageModelToolError | ToolSuccessInit | ToolErrorInit };

export interface Message {
  role: Role;
  /** A string (one text part), an array of parts, or one part object, as the explainer writes it (a one-part array). */
  content: string | ContentPart[] | ContentPart;
  prefix?: boolean;
}

/** A string is one user message with one text part. */
export type Prompt = string | Message[];

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  /** WebMCP: the call has effects the user should confirm; it runs only once toolUseConfig.approve says yes (as with destructiveHint). */
  consequentialHint?: boolean;
  /** WebMCP: the output is untrusted; the model sees it framed as data, and the history marks it untrusted. */
  untrustedContentHint?: boolean;
}

/** execute's second argument; signal and progress are getters, made when first read (so `{...context}` copies neither). */
export interface ToolContext {
  callID: string;
  callId: string;
  /** Aborts when the prompt is aborted or the session destroyed. */
  signal: AbortSignal;
  /** Fires a toolprogress event on the session. */
  progress(value: unknown): void;
}

/** Where a tool comes from, as approve is shown it: the page's tools option, its WebMCP model context, or an MCP server (its name in mcpServers, and its origin). */
export type ToolSource = { kind: "page" } | { kind: "webmcp" } | { kind: "mcp"; name: string; origin: string };

export interface Tool {
  name: string;
  /** WebMCP's top-level title; annotations.title wins when both are given. */
  title?: string;
  description: string;
  /** A JSON Schema with type "object"; create() rejects anything else with a TypeError. Without it (as WebMCP allows), the tool takes no arguments. */
  inputSchema?: object;
  annotations?: ToolAnnotations;
  /** With execute the loop runs the tool (closed loop); without, calls come back to the page. */
  execute?(args: Record<string, unknown>, context: ToolContext): unknown;
  /** Only on an AgentTool. */
  agent?: never;
}

/**
 * A session offered as a tool (docs/chat-ui.md "Sessions as tools"): the model calls it
 * with {task}, and a child session, created for the call with these options and
 * destroyed after it, answers it. Its approvals go through the parent's approve; absent,
 * its backend is the parent's. A bad declaration is a TypeError naming the field.
 */
export interface AgentTool {
  name: string;
  title?: string;
  description: string;
  annotations?: ToolAnnotations;
  agent: AgentOptions;
  /** An agent tool's execute is its child session; its inputSchema is {task: string}. */
  execute?: never;
  inputSchema?: never;
}

/** The child's create() options an agent tool may set; every tool of its own has execute, or is an agent tool. */
export interface AgentOptions {
  initialPrompts?: Message[];
  tools?: (Tool | AgentTool)[];
  /** Its own stops, per its prompt; approve, maxDepth and maxTotalToolCalls are the root session's (TypeError here). */
  toolUseConfig?: Omit<ToolUseConfig, "approve" | "maxDepth" | "maxTotalToolCalls">;
  backend?: Backend;
  samplingMode?: SamplingMode;
  temperature?: number;
  topK?: number;
  toolChoice?: ToolChoice;
}

/** Beside every event's detail: the chain of agent calls, outermost first, whose child sent it; absent for the session's own. */
export interface AgentPathDetail {
  path?: LanguageModelToolCall[];
}

export interface ToolUseConfig {
  enabled?: boolean;
  maxToolCalls?: number;
  /**
   * How many times one identical call (same tool, same arguments) may run in a prompt;
   * the next one stops the loop as onLimit says. Default 3; 0 turns the stop off.
   * A whole number, else TypeError.
   */
  maxRepeatedCalls?: number;
  /**
   * The prompt's token budget: input and output of all its model steps (the backend's
   * figures where it reports them, else the estimate). Checked before a step's calls
   * run; past it the loop stops as onLimit says. Default 0: none. A whole number, else TypeError.
   */
  maxTokens?: number;
  parallel?: boolean;
  onLimit?: "error" | "answer";
  /**
   * Tool search (docs/small-windows.md): when the declarations would take more than
   * share of the context window (default 0.25, in (0, 1], else TypeError), the model is
   * offered the pinned tools and the built-in search_tools, and finds the others by
   * searching. false: every tool always offered. Default: on.
   */
  toolSearch?: boolean | ToolSearchOptions;
  /**
   * Resolve true or {allow: "once"} to run the call; false, or a reason string, to decline
   * it; {allow: "always"} to run it and every later call of this tool, unasked, while the
   * tool declares exactly what approve was shown (session.approvals). Any other object is
   * a TypeError, and the call is declined. The signal aborts when the prompt is aborted or the session destroyed.
   */
  approve?(call: LanguageModelToolCall, tool: (Tool | AgentTool) & { source: ToolSource }, context: { signal: AbortSignal; path?: LanguageModelToolCall[] }): ApproveAnswer | Promise<ApproveAnswer>;
  /**
   * How deep agent tools may nest under this session (its children are 1 deep). Default
   * 2. A declaration deeper is a TypeError at create(). A whole number, else TypeError.
   */
  maxDepth?: number;
  /**
   * The tool calls all agents under this session may run in one of its prompts, at any
   * depth; past it a call is not run and its child's model is told to answer. Default 64;
   * 0: no limit. A whole number, else TypeError.
   */
  maxTotalToolCalls?: number;
}

/** What approve resolves to (docs/security.md "Approvals remembered"). */
export type ApproveAnswer = boolean | string | { allow: "once" | "always" };

/** A decision remembered (session.approvals): the declaration approve was shown when it answered {allow: "always"}. */
export interface ApprovedTool {
  name: string;
  description: string;
  inputSchema: object;
  annotations: ToolAnnotations;
  source: ToolSource;
}

/** A tool of a session (session.listTools()): its declaration as approve is shown it, and whether the model is offered it now. */
export interface ListedTool extends ApprovedTool {
  /** False while tool search keeps it out of the tools offered (the model may find it); else true. */
  active: boolean;
}

export interface ToolSearchOptions {
  /** Of the context window the declarations may take; above it the model searches. */
  share?: number;
  /** Tool names always offered. A name that is not a tool of the session is skipped. */
  pinned?: string[];
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
  /** What the model thinks: never the answer; the reasoning event shows it. */
  | { type: "reasoning"; value: string }
  | { type: "tool-call"; value: { callID?: string; callId?: string; name: string; arguments?: Record<string, unknown> | string } }
  | { type: "usage"; value: { inputTokens?: number; outputTokens?: number; cachedTokens?: number } };

export type GenerateResult = GeneratePiece | GeneratePiece[] | AsyncIterable<GeneratePiece> | null | undefined;

export type Backend = OneBackend | ChainBackend;

/**
 * A chain of backends (docs/backends.md, "A chain of backends"): availability() is the best
 * of the members'; create() uses the first available one, and a step that fails before its
 * first token goes to the next member. The stepusage event's backend names the member.
 */
export interface ChainBackend {
  kind: "chain";
  /** In order of preference; chains do not nest. */
  backends: [OneBackend, ...OneBackend[]];
}

export type OneBackend =
  | {
      kind: "scripted";
      turns?: RecordedTurn[];
      rules?: { match: string; tool: string; arguments?: unknown }[];
      window?: number;
      /** true: a step whose request differs from its turn's recorded request rejects with DataError naming the first difference (docs/recordings.md). */
      strict?: boolean;
      version?: number;
    }
  | {
      kind: "record";
      /** The backend recorded; absent: install()'s default. session.recording() returns its steps. */
      backend?: Backend;
    }
  | {
      kind: "openai";
      /** e.g. "http://127.0.0.1:11434/v1" (Ollama); "/chat/completions" is appended. http://, https:// or a path on the page's origin. */
      baseURL: string;
      model: string;
      /** Sent as "Authorization: Bearer …" and nowhere else. */
      apiKey?: string;
      headers?: Record<string, string>;
      /**
       * Headers whose values are secrets beyond Authorization, Proxy-Authorization, Cookie,
       * X-API-Key and api-key: redacted, with apiKey, from everything the module shows
       * (values under 8 characters are not, and create() warns in the console).
       */
      secretHeaders?: string[];
      /**
       * baseURL's query parameters whose values are secrets beyond those whose names say so
       * (key, token, sig, secret, auth, password, code and their kin). A baseURL with
       * user-info (user:password@) is a TypeError: give the credential in apiKey or headers.
       */
      secretParams?: string[];
      /** false: tool use through the text protocol, for servers or models without native tool calling. Default true. */
      nativeTools?: boolean;
      /** true: the model's chat template opens <think> in the prompt (DeepSeek-R1's), so the reply starts inside it: what precedes its </think> is reasoning, never text nor a call. For a server or engine that does not send reasoning_content itself. Default false. */
      templateOpensThink?: boolean;
      contextWindow?: number;
    }
  | { kind: "browser"; nativeTools?: boolean; contextWindow?: number }
  | {
      kind: "custom";
      generate(request: GenerateRequest, context: { signal: AbortSignal }): GenerateResult | Promise<GenerateResult>;
      /** true: generate receives tools and yields {type: "tool-call"} pieces itself. Default false: the text protocol. */
      nativeTools?: boolean;
      /** true: the model's chat template opens <think> in the prompt (DeepSeek-R1's), so the reply starts inside it: what precedes its </think> is reasoning, never text nor a call. For a server or engine that does not send reasoning_content itself. Default false. */
      templateOpensThink?: boolean;
      contextWindow?: number;
    }
  | {
      kind: "engine";
      /** An engine the page created: a wllama instance (createChatCompletion), a WebLLM MLCEngine (chat.completions.create), or any object of either shape. */
      engine: ChatCompletionsEngine;
      /** The model named in each request; absent: the model the engine has loaded. */
      model?: string;
      /** false: tool use through the text protocol, for a model whose chat template has no tools. Default true. */
      nativeTools?: boolean;
      /** true: the model's chat template opens <think> in the prompt (DeepSeek-R1's), so the reply starts inside it: what precedes its </think> is reasoning, never text nor a call. For a server or engine that does not send reasoning_content itself. Default false. */
      templateOpensThink?: boolean;
      /** The model's context size in tokens. Absent: the engine's own where it tells it (wllama: the n_ctx its model was loaded with), else the module's default. */
      contextWindow?: number;
    }
  | {
      kind: "gguf";
      /** The GGUF model: its URL (downloaded once, kept in wllama's cache), a File or Blob, or the Blobs of a split model. */
      model: string | Blob | Blob[];
      /** The wllama module the page imported: import * as wllama from "@wllama/wllama". */
      wllama: { Wllama: new (paths: any, config?: any) => any; CacheManager: new (backends?: any[]) => any };
      /** new Wllama()'s first argument: where wllama's files are, {default: the URL of its wllama.wasm}. */
      paths: { default: string; [file: string]: string };
      /** Where @wllama/wllama-compat's files are, as setCompat() takes them (engines without JSPI or Memory64: WebKit). Absent: wllama's default (a CDN). */
      compat?: { wasm: string; worker: string };
      /** new Wllama()'s second argument (its cacheManager, when given, is the cache the module uses). */
      config?: object;
      /** loadModel()'s options, over {jinja: true, n_gpu_layers: 0, n_threads: 1 unless cross-origin isolated, n_ctx: the model's context length, at most 8192}. */
      load?: object;
      /** false: tool use through the text protocol, for a model whose chat template has no tools. Default true. */
      nativeTools?: boolean;
      /** true: the model's chat template opens <think> in the prompt (DeepSeek-R1's), so the reply starts inside it: what precedes its </think> is reasoning, never text nor a call. For a server or engine that does not send reasoning_content itself. Default false. */
      templateOpensThink?: boolean;
      /** Absent: the context the engine was loaded with. */
      contextWindow?: number;
    };

/** A Chat Completions request as the module sends it to an in-page engine (stream: true, with usage). */
export interface ChatCompletionsRequest {
  model?: string;
  messages: object[];
  stream: true;
  stream_options: { include_usage: true };
  tools?: { type: "function"; function: { name: string; description: string; parameters: object } }[];
  tool_choice?: "none" | "required" | { type: "function"; function: { name: string } };
  response_format?: { type: "json_schema"; json_schema: { name: string; schema: object } };
  temperature?: number;
}

/** A streamed Chat Completions chunk (or a whole completion from an engine that sends one). */
export type ChatCompletionsChunk = object;

/**
 * What {kind: "engine"} accepts: wllama's shape (abortSignal stops it) or WebLLM's
 * (interruptGenerate(), when present, stops it). Either resolves to an async iterable of
 * chunks, or to one completion. The call takes a ChatCompletionsRequest (plus abortSignal
 * for wllama); its parameter is typed loosely so that wllama's and WebLLM's own
 * declarations, each narrower in its own way, are accepted as they are.
 */
export type ChatCompletionsEngine =
  | {
      createChatCompletion(request: any): Promise<AsyncIterable<ChatCompletionsChunk> | ChatCompletionsChunk | void>;
    }
  | {
      chat: { completions: { create(request: any): Promise<AsyncIterable<ChatCompletionsChunk> | ChatCompletionsChunk> } };
      interruptGenerate?(): void;
    };

/**
 * The expected input and output types. Caller-supplied tool calls need "tool-call" in
 * expectedInputs, caller-supplied tool responses "tool-response" ("tool-result" is an
 * alias), as images need "image": the history → edit → initialPrompts flow declares both.
 * "tool-call" in expectedOutputs lets prompt() hand calls back to the page.
 */
export type ExpectedTypeName = "text" | "image" | "audio" | "tool-call" | "tool-response" | "tool-result";

export interface ExpectedType {
  type: ExpectedTypeName;
  /** BCP 47 language tags. */
  languages?: string[];
}

/** An ExpectedType other than "tool-call": the output of a session whose prompt() is a string. */
export interface TextExpectedType extends ExpectedType {
  type: Exclude<ExpectedTypeName, "tool-call">;
}

export interface CreateMonitorEventMap {
  downloadprogress: ProgressEvent;
}

/** The target create()'s monitor callback gets: downloadprogress events, loaded from 0 to 1. */
export interface CreateMonitor extends EventTarget {
  addEventListener<K extends keyof CreateMonitorEventMap>(type: K, listener: (this: CreateMonitor, ev: CreateMonitorEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof CreateMonitorEventMap>(type: K, listener: (this: CreateMonitor, ev: CreateMonitorEventMap[K]) => any, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** The spec's seven sampling modes (index.bs, 11 August 2026); any other value is a TypeError. */
export type SamplingMode = "most-predictable" | "predictable" | "slightly-predictable" | "balanced" | "slightly-creative" | "creative" | "most-creative";

/** What availability() reads (the spec's LanguageModelCreateCoreOptions, plus backend and tool use). */
export interface CreateCoreOptions {
  /**
   * Tool calls and tool responses the page writes itself (in initialPrompts, prompt(),
   * append()) need "tool-call" and "tool-response" here (NotSupportedError otherwise). A
   * response to a call this session's model made is taken without "tool-response" when
   * expectedOutputs has "tool-call"; Chrome asks for the declaration, so declare it.
   */
  expectedInputs?: ExpectedType[];
  expectedOutputs?: ExpectedType[];
  /** Experimental in the spec (extension and experimental contexts only); here in every page. */
  tools?: (Tool | AgentTool)[];
  toolUseConfig?: ToolUseConfig;
  /**
   * Experimental in the spec, which gives it no default; a session created without it (nor
   * topK, temperature) reports "balanced". Not together with topK or temperature (TypeError).
   */
  samplingMode?: SamplingMode;
  /**
   * @deprecated In the spec only in extension contexts: use samplingMode. Below 1: create()
   * rejects with RangeError, availability() answers "unavailable".
   */
  topK?: number;
  /**
   * @deprecated In the spec only in extension contexts: use samplingMode. Below 0: create()
   * rejects with RangeError, availability() answers "unavailable".
   */
  temperature?: number;
  backend?: Backend;
  /** The session's default; a TypeError if it names a tool the session does not declare. */
  toolChoice?: ToolChoice;
  /**
   * Keep what the model thinks in the history, as a {type: "reasoning"} part of its
   * assistant message, and send it back on later steps (beyond the spec; default false:
   * reasoning reaches the reasoning event only). TypeError unless a boolean.
   */
  keepReasoning?: boolean;
}

/** One server of create()'s mcpServers. */
export interface MCPServer {
  /**
   * The server's MCP endpoint: http://, https://, or a path of the page's origin. A URL
   * with user-info (user:password@) is a TypeError, which shows none of it: fetch refuses
   * such a URL; give the credential in headers (Authorization).
   */
  url: string;
  /** Sent with every request (Authorization, say); never shown in a message, event or error. */
  headers?: Record<string, string>;
  /**
   * Headers whose values are secrets beyond Authorization, Proxy-Authorization, Cookie,
   * X-API-Key and api-key: redacted, with the url's query values, from everything the
   * module shows (values under 8 characters are not, and create() warns in the console).
   */
  secretHeaders?: string[];
  /**
   * The url's query parameters whose values are secrets beyond those whose names say so
   * (key, token, sig, secret, auth, password, code and their kin); other query values
   * (api-version=…) are not redacted.
   */
  secretParams?: string[];
  /** Names the server's tools when their names collide; "mcp1", "mcp2"… by position when absent. */
  name?: string;
  /**
   * Milliseconds the server may stay silent in a request (no answer, no progress) before
   * the call fails with a tool error for the model; 60000 when absent.
   */
  timeout?: number;
  /**
   * Milliseconds one tools/call may take in all, however much progress the
   * server reports; 300000 when absent. Past it the call fails with a tool error and the
   * server is sent notifications/cancelled.
   */
  maxCallTime?: number;
  /**
   * How a tool that says neither readOnlyHint nor destructiveHint is read. "destructive"
   * (the default) as MCP defines it: it needs toolUseConfig.approve, and is refused
   * without one. "readOnly" when the page vouches that the server's unannotated tools
   * change nothing.
   */
  unannotated?: "destructive" | "readOnly";
  /**
   * true when the page vouches for the server's output. By default a server's tool output
   * (results, errors, timeouts) reaches the model framed as untrusted content, as a third
   * party's words (annotations.untrustedContentHint: true). Any other value than a boolean is a TypeError.
   */
  trusted?: boolean;
}

/** A tool as a WebMCP model context's getTools() describes it. */
export interface ModelContextTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: object | string;
  annotations?: { readOnlyHint?: boolean; untrustedContentHint?: boolean; consequentialHint?: boolean; destructiveHint?: boolean };
}

/**
 * A WebMCP model context: document.modelContext (Chromium with WebMCP), or a polyfill's
 * (@mcp-b/webmcp-polyfill). What create({modelContext}) uses of it.
 */
export interface ModelContext {
  getTools(): Promise<Iterable<ModelContextTool>> | Iterable<ModelContextTool>;
  /** Resolves to the tool's result as a string (an MCP CallToolResult's JSON text, or any text). */
  executeTool(tool: ModelContextTool, args: any, options?: { signal?: AbortSignal }): Promise<string>;
  addEventListener?(type: "toolchange", listener: (event: Event) => void): void;
  removeEventListener?(type: "toolchange", listener: (event: Event) => void): void;
}

export interface CreateOptions extends CreateCoreOptions {
  /**
   * The page's WebMCP tools as the session's, beside tools (a name in both is a TypeError):
   * a call runs through executeTool, after the module checked its arguments; tools
   * registered or unregistered later are offered from the next model step on.
   */
  modelContext?: ModelContext | null;
  /**
   * MCP servers (Streamable HTTP) whose tools join the session's: each is connected at
   * create() (NetworkError naming the URL when it cannot be reached). A server's tool whose
   * name another tool of the session has is named "<name>__<tool>". headers go to the
   * server and nowhere else. Not kept in a snapshot: give them to restore() again.
   */
  mcpServers?: MCPServer[];
  /**
   * Compact the history by these rules (true: the defaults) when it would outgrow the
   * context window, before older turns are evicted: once per overflow, each time a
   * contextoverflow event whose detail says so (CompactedOverflowDetail). Beyond the spec.
   */
  compactOnOverflow?: boolean | CompactOptions;
  initialPrompts?: Message[];
  /** Aborting it rejects create(), and later the session's in-flight and later calls, with its reason. */
  signal?: AbortSignal;
  monitor?(monitor: CreateMonitor): void;
}

/** create()'s options for a session whose prompt() is a string: no "tool-call" in expectedOutputs. */
export interface TextCreateOptions extends CreateOptions {
  expectedOutputs?: TextExpectedType[];
}

export interface PromptOptions {
  signal?: AbortSignal;
  responseConstraint?: object | RegExp;
  omitResponseConstraintInput?: boolean;
  /** Overrides the session's toolChoice for this prompt. */
  toolChoice?: ToolChoice;
  /** With tool search on, the tools offered from this prompt on (with the pinned and search_tools); searches add to them. */
  activeTools?: string[];
}

export interface ToolCallPart {
  type: "tool-call";
  value: LanguageModelToolCall;
}

/** What prompt() resolves to: a string, or, when expectedOutputs has "tool-call" and the session is not closed, an array of parts. */
export type PromptResult = string | ({ type: "text"; value: string } | ToolCallPart)[];
/** What promptStreaming() yields: text, and in open and hybrid sessions each tool call as its own chunk. */
export type StreamChunk = string | ToolCallPart;
/** The chunks of a session whose prompt() resolves to R. */
export type ChunkOf<R extends PromptResult> = R extends string ? string : StreamChunk;

export interface StreamIteratorOptions {
  /** true: leaving a for await early leaves the stream (and the prompt) running. */
  preventCancel?: boolean;
}

/**
 * promptStreaming()'s stream: a ReadableStream that is async-iterable in every engine
 * (WebKit's own are not), with the Streams standard's semantics: leaving a for await early
 * or cancelling the stream aborts the prompt as its signal would.
 */
export type LanguageModelStream<T> = ReadableStream<T> &
  AsyncIterable<T> & {
    [Symbol.asyncIterator](options?: StreamIteratorOptions): AsyncIterableIterator<T>;
    values(options?: StreamIteratorOptions): AsyncIterableIterator<T>;
  };

export interface ToolCallEventDetail extends AgentPathDetail {
  call: LanguageModelToolCall;
  annotations: ToolAnnotations | null;
  /** true for the engine's own tool (tool search's search_tools): approve never sees it. */
  builtin?: true;
}
export interface ToolProgressEventDetail extends AgentPathDetail {
  call: LanguageModelToolCall;
  value: unknown;
}
export interface ToolResultEventDetail extends AgentPathDetail {
  call: LanguageModelToolCall;
  /** true for the result of the engine's own tool (search_tools). */
  builtin?: true;
  result: LanguageModelToolSuccess | LanguageModelToolError;
  /** Milliseconds. */
  duration: number;
}

/**
 * Compaction's rules (session.compact(), compactOnOverflow; beyond the spec). A turn is a
 * message of the page's, or one model step with its calls and their results; the initial
 * prompts always stay, and a call is never parted from its result. docs/small-windows.md.
 */
export interface CompactOptions {
  /** The last turns kept whole. Default 2; a whole number, else TypeError. */
  keepTurns?: number;
  /** Before them, each tool result becomes a stub that says it was dropped. Default true. */
  dropToolResults?: boolean;
  /** Before them, the turns give way to a summary the session's model writes (one model step, counted in usage). Default false. */
  summarize?: boolean;
}

/** A contextoverflow event's detail when compactOnOverflow compacted (beyond the spec; a plain Event otherwise). */
export interface CompactedOverflowDetail {
  compacted: true;
  /** What the history would have needed, and what it holds after the compaction. */
  contextUsageBefore: number;
  contextUsageAfter: number;
  /** How many messages fewer. */
  evicted: number;
}

/**
 * The toolcalldelta event's detail: a tool call while the model is still writing it
 * (beyond the spec). Provisional: only toolcall (or the call in an open loop's answer)
 * says that a call happens, with the same callID; a call shown forming may come out
 * otherwise, or be dropped.
 */
export interface ToolCallDeltaEventDetail {
  /** The id the finished call will have. */
  callID: string;
  /** The tool, one offered this step. */
  name: string;
  /** The argument text so far, as the model wrote it. */
  argumentsText: string;
  /** argumentsText closed into an object (a string cut short is closed), or null. */
  arguments: Record<string, unknown> | null;
  /** true: the call will not come after all (its card goes). */
  dropped: boolean;
}

/** The stepusage event's detail: one model step (beyond the spec). */
export interface StepUsageEventDetail extends AgentPathDetail {
  /** The request, in tokens: the backend's figure, or the estimate (contextUsage's measure). */
  inputTokens: number;
  /** The reply, in tokens: the backend's figure, or the estimate. */
  outputTokens: number;
  /** true when the backend reported no figures and these are the estimate. */
  estimated: boolean;
  /**
   * Of inputTokens, those the backend found already processed in its prompt-prefix cache
   * (usage.prompt_tokens_details.cached_tokens of the openai and gguf backends: llama.cpp,
   * wllama, OpenAI; a custom backend's usage piece); absent where the backend does not report it.
   */
  cachedTokens?: number;
  /** How many tool calls the step made (0: it answered in text). */
  toolCalls: number;
  /** Milliseconds the step took. */
  duration: number;
  /** A chain's member that answered: its index in backends (absent for any other backend). */
  backend?: number;
}

/** The reasoning event's detail: a piece of what the model thinks, never part of the answer (beyond the spec). */
export interface ReasoningEventDetail {
  text: string;
}

/** session.usage: what a session's model steps have spent (beyond the spec). */
export interface LanguageModelUsage {
  inputTokens: number;
  outputTokens: number;
  steps: number;
  /** Of steps, those whose figures are the estimate (the backend reported none). */
  estimatedSteps: number;
  /** Of inputTokens, those the backends reported cached: the steps' stepusage cachedTokens, summed (0 where none reported them). */
  cachedTokens: number;
}

export interface LanguageModelEventMap {
  /** A CustomEvent<CompactedOverflowDetail> when compactOnOverflow compacted. */
  contextoverflow: Event | CustomEvent<CompactedOverflowDetail>;
  /** @deprecated contextoverflow; fires with it. */
  quotaoverflow: Event;
  toolcall: CustomEvent<ToolCallEventDetail>;
  toolprogress: CustomEvent<ToolProgressEventDetail>;
  toolresult: CustomEvent<ToolResultEventDetail>;
  stepusage: CustomEvent<StepUsageEventDetail>;
  reasoning: CustomEvent<ReasoningEventDetail>;
  toolcalldelta: CustomEvent<ToolCallDeltaEventDetail>;
}

export interface LanguageModelParams {
  defaultTopK: number;
  maxTopK: number;
  defaultTemperature: number;
  maxTemperature: number;
}

/** The options a snapshot keeps: create()'s options that are data (docs/snapshots.md). */
export interface SnapshotOptions {
  expectedInputs?: ExpectedType[];
  expectedOutputs?: ExpectedType[];
  tools?: { name: string; description: string; inputSchema: object; hasExecute: boolean; annotations?: object }[];
  /** approve: whether the session had one (a function cannot be saved). */
  toolUseConfig?: { enabled?: boolean; maxToolCalls?: number; maxRepeatedCalls?: number; maxTokens?: number; parallel?: boolean; onLimit?: "error" | "answer"; approve: boolean; toolSearch?: boolean | ToolSearchOptions };
  samplingMode?: SamplingMode;
  topK?: number;
  temperature?: number;
  toolChoice?: ToolChoice;
  compactOnOverflow?: CompactOptions;
}

/** One step of a scripted model: what a recording holds (docs/recordings.md). */
export interface RecordedTurn {
  /** What the session asked: messages (the draft-PR form), tools, toolChoice, responseConstraint, samplingMode. */
  request?: { messages: Message[]; tools?: { name: string; description: string; inputSchema: object }[]; [option: string]: unknown };
  text?: string;
  chunks?: string[];
  calls?: { callID?: string; name: string; arguments?: unknown }[];
  /** cachedTokens: where the backend reported them (stepusage's cachedTokens). */
  usage?: { inputTokens: number; outputTokens: number; cachedTokens?: number };
  error?: { name: string; message: string };
  hang?: boolean;
  /** A chain's member that answered: its index in backends. */
  backend?: number;
}

/** session.recording(): the steps of a {kind: "record"} backend, a scripted backend that replays them. */
export interface Recording {
  kind: "scripted";
  version: number;
  window: number;
  turns: RecordedTurn[];
}

/** session.snapshot(): a session saved as plain JSON, versioned (docs/snapshots.md). */
export interface Snapshot {
  version: number;
  options: SnapshotOptions;
  contextWindow: number;
  contextUsage: number;
  /** session.usage (version 2 on; a version 1 snapshot restores with none spent). */
  usage?: LanguageModelUsage;
  /** How many messages of history are initial prompts. */
  initial: number;
  /** The transcript in the draft-PR form, as session.history. */
  history: Message[];
  /** The callIDs of the calls still waiting for an answer. */
  pending: string[];
  /** Those whose execute was running: they cannot resume. */
  running: string[];
  /** Those waiting for approve: asked again after restore(). */
  approving: string[];
  /** The decisions remembered (version 3 on): restored only with restore()'s keepApprovals. */
  approvals?: ApprovedTool[];
  /**
   * Tool search's active set (version 4 on; absent when the session's tools fit): the
   * tool names offered, in order, those found by searches included; active again after
   * restore(), those that still fit the share.
   */
  activeTools?: string[];
}

/** LanguageModel.restore()'s options: what a snapshot cannot hold. */
export interface RestoreOptions {
  /** The snapshot's tools, with their execute: the same names, descriptions, schemas and annotations (TypeError otherwise). */
  tools?: (Tool | AgentTool)[];
  toolUseConfig?: Pick<ToolUseConfig, "approve" | "maxDepth" | "maxTotalToolCalls">;
  backend?: Backend;
  signal?: AbortSignal;
  monitor?(monitor: CreateMonitor): void;
  /** The session's MCP servers again: a snapshot does not keep them (their headers may hold secrets). */
  mcpServers?: MCPServer[];
  /**
   * Restore the snapshot's remembered approvals (default false): only for a snapshot the
   * page saved itself, in storage only it writes; a snapshot from elsewhere must grant
   * nothing. Each still binds to its declaration. Not a boolean: TypeError.
   */
  keepApprovals?: boolean;
}

/** The version session.snapshot() writes; restore() takes every version up to it. */
export const SNAPSHOT_VERSION: number;

/** snapshotStore(): snapshots kept in IndexedDB by key. */
export interface SnapshotStore {
  /** Saves a snapshot, or a session's snapshot taken now. */
  save(key: IDBValidKey, value: Snapshot | LanguageModel<any>): Promise<undefined>;
  load(key: IDBValidKey): Promise<Snapshot | undefined>;
  list(): Promise<IDBValidKey[]>;
  delete(key: IDBValidKey): Promise<undefined>;
  /** Saves session's snapshot now and after every step; the function returned stops it. */
  autosave(key: IDBValidKey, session: LanguageModel<any>, options?: { onerror?: (error: unknown) => void }): () => void;
}

/** Snapshots in the IndexedDB database name (default "language-model-snapshots"); NotSupportedError without IndexedDB. */
export function snapshotStore(name?: string): SnapshotStore;

/**
 * A session. R is what prompt() resolves to: string for a session created without
 * "tool-call" in expectedOutputs (as Chrome's types have it), PromptResult otherwise.
 */
export class LanguageModel<R extends PromptResult = PromptResult> extends EventTarget {
  private constructor();
  /** Without "tool-call" in expectedOutputs, prompt() is a string. */
  static create(options?: TextCreateOptions): Promise<LanguageModel<string>>;
  static create(options?: CreateOptions): Promise<LanguageModel>;
  static availability(options?: CreateCoreOptions): Promise<Availability>;
  /**
   * Continues a session that snapshot() saved (the object or its JSON text). Calls that
   * were running are answered as interrupted (closed loop) or left for the page (open,
   * hybrid); calls waiting for approval run at the next prompt, approve asked again.
   * DataError: not a snapshot; NotSupportedError: a later version; TypeError: other tools.
   */
  static restore(snapshot: Snapshot | string, options?: RestoreOptions): Promise<LanguageModel>;
  /** @deprecated In the spec only in extension contexts, with topK and temperature: use samplingMode. */
  static params(): Promise<LanguageModelParams>;

  /** A string, or an array of parts when expectedOutputs has tool-call and the session is not closed. */
  prompt(input: Prompt, options?: PromptOptions): Promise<R>;
  promptStreaming(input: Prompt, options?: PromptOptions): LanguageModelStream<ChunkOf<R>>;
  append(input: Prompt, options?: { signal?: AbortSignal }): Promise<undefined>;
  measureContextUsage(input: Prompt, options?: PromptOptions): Promise<number>;
  readonly contextUsage: number;
  readonly contextWindow: number;
  oncontextoverflow: ((this: LanguageModel<R>, ev: Event) => any) | null;
  ontoolcall: ((this: LanguageModel<R>, ev: CustomEvent<ToolCallEventDetail>) => any) | null;
  ontoolprogress: ((this: LanguageModel<R>, ev: CustomEvent<ToolProgressEventDetail>) => any) | null;
  ontoolresult: ((this: LanguageModel<R>, ev: CustomEvent<ToolResultEventDetail>) => any) | null;
  /** One event per model step: its tokens, time and calls (beyond the spec). Sent only once listened for. */
  onstepusage: ((this: LanguageModel<R>, ev: CustomEvent<StepUsageEventDetail>) => any) | null;
  /** Each piece of what the model thinks, as it comes (beyond the spec). Sent only once listened for. */
  onreasoning: ((this: LanguageModel<R>, ev: CustomEvent<ReasoningEventDetail>) => any) | null;
  /** A call as the model writes it: name, then arguments as they arrive (beyond the spec). Sent only once listened for. */
  ontoolcalldelta: ((this: LanguageModel<R>, ev: CustomEvent<ToolCallDeltaEventDetail>) => any) | null;
  /** What the session's model steps have spent so far, failed prompts' included (beyond the spec). */
  readonly usage: LanguageModelUsage;
  /** The samplingMode given (else "balanced"); null on a session created with topK or temperature. */
  readonly samplingMode: SamplingMode | null;
  clone(options?: { signal?: AbortSignal }): Promise<LanguageModel<R>>;
  /** A new session, as clone(), whose history is compacted by options' rules; this one is not changed (beyond the spec). */
  compact(options?: CompactOptions & { signal?: AbortSignal }): Promise<LanguageModel<R>>;
  destroy(): undefined;
  /** The whole transcript in the draft-PR form, a deep copy; edit it and pass it as initialPrompts. */
  readonly history: Message[];
  /** The session saved as plain JSON (beyond the spec): LanguageModel.restore() continues it. */
  snapshot(): Snapshot;
  /** The tools the user allowed always (approve answered {allow: "always"}), a copy; a clone starts with its original's (beyond the spec). */
  readonly approvals: ApprovedTool[];
  /** Forgets the decision about the tool named name, or all of them: approve is asked again. */
  revokeApproval(name?: string): undefined;
  /** The session's tools as its next step has them: the page's, its WebMCP ones and its MCP servers' (beyond the spec). */
  listTools(): Promise<ListedTool[]>;
  /** The model steps a {kind: "record"} backend ran, clones' included (beyond the spec); replay with backend {...recording, strict: true}. */
  recording(): Recording;

  /** @deprecated measureContextUsage */
  measureInputUsage(input: Prompt, options?: PromptOptions): Promise<number>;
  /** @deprecated contextUsage */
  readonly inputUsage: number;
  /** @deprecated contextWindow */
  readonly inputQuota: number;
  /** @deprecated oncontextoverflow */
  onquotaoverflow: ((this: LanguageModel<R>, ev: Event) => any) | null;
  /** @deprecated In the spec only in extension contexts: samplingMode. */
  readonly topK: number;
  /** @deprecated In the spec only in extension contexts: samplingMode. */
  readonly temperature: number;

  addEventListener<K extends keyof LanguageModelEventMap>(type: K, listener: (this: LanguageModel<R>, ev: LanguageModelEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof LanguageModelEventMap>(type: K, listener: (this: LanguageModel<R>, ev: LanguageModelEventMap[K]) => any, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
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
  /** The fetch that downloads the module and carries the engine's requests (the openai backend's, MCP servers'); default globalThis.fetch. The engine's requests ask `redirect: "manual"` and refuse a redirect: a fetch given here must honour `redirect`. */
  fetch?: typeof fetch;
  /**
   * Run the module in a dedicated Worker, so that it never holds the page's main thread;
   * tools' execute, approve and a custom backend's generate still run on the page, and the
   * API is the same. Default false. In Node (no Worker), install() rejects with NotSupportedError.
   */
  worker?: boolean;
}

export interface Installed {
  version: number;
  /** Whether the globals were defined. */
  globals: boolean;
  /** The browser's own LanguageModel, if it had one. */
  native: unknown;
  /**
   * What the browser's own LanguageModel answered when install() asked it (text in and out,
   * in English), so that a page need not ask again; undefined when install() did not ask
   * (no native model, or globals other than "auto").
   */
  nativeAvailability?: Availability;
}

export function install(config?: InstallConfig): Promise<Installed>;

// ---------------------------------------------------------------- the globals
//
// install() defines globalThis.LanguageModel (where the browser has none, or its own says
// "unavailable") and the three tool classes. They are declared here so that a page can use
// them without importing, in a form that coexists with @types/dom-chromium-ai installed
// beside this file, whose `declare abstract class LanguageModel` cannot be declared twice
// and whose statics no namespace may redeclare (RATIONALE.md, "Why are the globals
// declared that way in language-model.d.ts?"):
// - the instance type is an interface, which merges with Chrome's class: Chrome's members
//   with Chrome's exact types (a session with a text output, as Chrome's types know it),
//   plus this module's own (history, the tool events, samplingMode);
// - the statics are a namespace of aliases to this module's own statics. Under
//   @types/dom-chromium-ai each alias conflicts with the class's static of the same name
//   (TS2440), which the @ts-ignore above it silences: the class's statics stay, Chrome's
//   types as they are; without those types the aliases are the statics.

import * as self from "./language-model.js";

declare namespace statics {
  const create: typeof LanguageModel.create;
  const availability: typeof LanguageModel.availability;
  const params: typeof LanguageModel.params;
  const restore: typeof LanguageModel.restore;
}

declare global {
  interface LanguageModel extends EventTarget {
    prompt(input: self.Prompt, options?: self.PromptOptions): Promise<string>;
    promptStreaming(input: self.Prompt, options?: self.PromptOptions): self.LanguageModelStream<string>;
    append(input: self.Prompt, options?: { signal?: AbortSignal }): Promise<undefined>;
    measureContextUsage(input: self.Prompt, options?: self.PromptOptions): Promise<number>;
    /** @deprecated measureContextUsage */
    measureInputUsage(input: self.Prompt, options?: self.PromptOptions): Promise<number>;
    readonly contextUsage: number;
    /** @deprecated contextUsage */
    readonly inputUsage: number;
    readonly contextWindow: number;
    /** @deprecated contextWindow */
    readonly inputQuota: number;
    oncontextoverflow: ((this: LanguageModel, ev: Event) => any) | null;
    /** @deprecated oncontextoverflow */
    onquotaoverflow: ((this: LanguageModel, ev: Event) => any) | null;
    /** @deprecated */
    readonly topK: number;
    /** @deprecated */
    readonly temperature: number;
    clone(options?: { signal?: AbortSignal }): Promise<LanguageModel>;
    compact(options?: self.CompactOptions & { signal?: AbortSignal }): Promise<LanguageModel>;
    destroy(): undefined;
    addEventListener<K extends keyof LanguageModelEventMap>(type: K, listener: (this: LanguageModel, ev: LanguageModelEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void;
    addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
    removeEventListener<K extends keyof LanguageModelEventMap>(type: K, listener: (this: LanguageModel, ev: LanguageModelEventMap[K]) => any, options?: boolean | EventListenerOptions): void;
    removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;

    /** The whole transcript in the draft-PR form, a deep copy; edit it and pass it as initialPrompts. */
    readonly history: self.Message[];
    ontoolcall: ((this: LanguageModel, ev: CustomEvent<self.ToolCallEventDetail>) => any) | null;
    ontoolprogress: ((this: LanguageModel, ev: CustomEvent<self.ToolProgressEventDetail>) => any) | null;
    ontoolresult: ((this: LanguageModel, ev: CustomEvent<self.ToolResultEventDetail>) => any) | null;
    onstepusage: ((this: LanguageModel, ev: CustomEvent<self.StepUsageEventDetail>) => any) | null;
    onreasoning: ((this: LanguageModel, ev: CustomEvent<self.ReasoningEventDetail>) => any) | null;
    ontoolcalldelta: ((this: LanguageModel, ev: CustomEvent<self.ToolCallDeltaEventDetail>) => any) | null;
    readonly usage: self.LanguageModelUsage;
    /** The samplingMode given (else "balanced"); null on a session created with topK or temperature. */
    readonly samplingMode: self.SamplingMode | null;
    /** The session saved as plain JSON: LanguageModel.restore() continues it. */
    snapshot(): self.Snapshot;
    /** The model steps a {kind: "record"} backend ran. */
    recording(): self.Recording;
    /** The tools the user allowed always (approve answered {allow: "always"}). */
    readonly approvals: self.ApprovedTool[];
    /** Forgets the decision about the tool named name, or all of them. */
    revokeApproval(name?: string): undefined;
    /** The session's tools: the page's, its WebMCP ones and its MCP servers'. */
    listTools(): Promise<self.ListedTool[]>;
  }

  interface LanguageModelEventMap {
    contextoverflow: Event;
    /** @deprecated contextoverflow; fires with it. */
    quotaoverflow: Event;
    toolcall: CustomEvent<self.ToolCallEventDetail>;
    toolprogress: CustomEvent<self.ToolProgressEventDetail>;
    toolresult: CustomEvent<self.ToolResultEventDetail>;
    stepusage: CustomEvent<self.StepUsageEventDetail>;
    reasoning: CustomEvent<self.ReasoningEventDetail>;
    toolcalldelta: CustomEvent<self.ToolCallDeltaEventDetail>;
  }

  namespace LanguageModel {
    // @ts-ignore TS2440 beside @types/dom-chromium-ai: its class's create stays
    export import create = statics.create;
    // @ts-ignore TS2440 beside @types/dom-chromium-ai: its class's availability stays
    export import availability = statics.availability;
    // @ts-ignore TS2440 beside @types/dom-chromium-ai: its class's params stays
    export import params = statics.params;
    export import restore = statics.restore;
  }

  var LanguageModelToolCall: typeof self.LanguageModelToolCall;
  type LanguageModelToolCall = self.LanguageModelToolCall;
  var LanguageModelToolSuccess: typeof self.LanguageModelToolSuccess;
  type LanguageModelToolSuccess = self.LanguageModelToolSuccess;
  var LanguageModelToolError: typeof self.LanguageModelToolError;
  type LanguageModelToolError = self.LanguageModelToolError;
}
