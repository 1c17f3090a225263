// The channel between js/language-model.js and the engine. It is written down twice, here
// and in wasm/protocol.go, under this same paragraph; change both together.
//
// Every message is one JSON object with a literal kebab-case "type". The page numbers its
// requests ("id" ≥ 1) and the engine answers each with exactly one "reply" carrying the
// same id: {id, ok: true, value} or {id, error: {name, message, fields}}. The engine
// numbers its own calls to the page (tool-execute, tool-approve, fetch, generate) in a
// separate id space. The page answers a tool call with one "tool-return"; a fetch with
// "fetch-response" (status, headers), then the body as "fetch-chunk"s of text, then one
// "fetch-end"; a generate with "generate-piece"s, then one "generate-end". When the
// engine stops waiting it says so (tool-abort, fetch-abort, generate-abort) and the page
// aborts the call's signal. A fetch's body is paced: the engine says fetch-more at each
// FetchWindow of text it has read, and the page reads on only while it has sent less
// than two windows beyond what it was told (the engine, not the page, decides how much of
// a body it takes). Notifications (abort, tool-progress, listen, the aborts,
// events, chunks) have no reply; the engine sends a session's events only once the page
// has said it listens for them (listen). The first request is "hello", whose reply
// carries the protocol version; a mismatch rejects install(). Functions never cross:
// execute, approve and generate stay in a JS stash and travel as integer ids (-1 for
// none). The page's messages go to the engine one at a time; the engine's come to the
// page in batches, one JSON array of messages per run of the module (js/port.js).
//
// Requests carry the page's session key. A late message for a destroyed key (a
// tool-return, a tool-progress, an abort racing a reply) is dropped on purpose: the page
// has already rejected everything of that session, and answering would only race it.
// A request for a destroyed key is answered with InvalidStateError.

/** Exchanged by hello; bump it whenever a message changes shape (ProtocolVersion in Go). */
export const PROTOCOL_VERSION = 10;

/** The pace of a fetch's body in UTF-16 units (FetchWindow in Go): see FetchMore. */
export const FETCH_WINDOW = 1 << 20;

// ---- page → engine: requests (each answered by one Reply) ----

/** @typedef {{type: "hello", id: number, version: number}} HelloRequest  reply value: {version} */
/** @typedef {{type: "create", id: number, session: number, options: CreateOptions, initialPrompts?: unknown, textPrompts?: number, textUnits?: number, restore?: RestoreInfo}} CreateRequest  reply value: SessionInfo; initialPrompts beside the options, so that the engine reads a long history once; or, for a history (any array), textPrompts messages packed after the message (its attachment, pack.js: texts as they are, any other message as JSON), textUnits UTF-16 code units long; with restore, the initial prompts are a saved transcript to continue (LanguageModel.restore(), snapshot.js) */
/** @typedef {{initial: number, usage: number, running?: Object<string, true>}} RestoreInfo  how many messages were initial prompts, the saved contextUsage, and the calls whose execute was running, as an object's keys */
/** @typedef {{type: "availability", id: number, options: CreateOptions}} AvailabilityRequest  reply value: "available" | "unavailable" */
/**
 * @typedef {object} CreateOptions
 * @property {WireBackend} [backend]     absent: the offline demo model
 * @property {{type: string, languages?: string[]}[]} [expectedInputs]
 * @property {{type: string, languages?: string[]}[]} [expectedOutputs]
 * @property {WireTool[]} [tools]
 * @property {{enabled?: boolean, maxToolCalls?: number, maxRepeatedCalls?: number, maxTokens?: number, parallel?: boolean, onLimit?: "error"|"answer", approve?: number, toolSearch?: boolean | {share?: number, pinned?: string[]}}} [toolUseConfig]  approve: stash id
 * @property {string} [samplingMode]
 * @property {WireToolChoice} [toolChoice]
 * @property {boolean} [keepReasoning]  reasoning kept in the history and sent back (docs/reasoning.md)
 * @property {CompactRules} [compactOnOverflow]  compact the history by these rules when it would outgrow the window
 */
/** @typedef {{keepTurns?: number, dropToolResults?: boolean, summarize?: boolean}} CompactRules  session.compact()'s rules (absent: 2, true, false) */
/**
 * @typedef {{kind?: "scripted", turns?: object[], rules?: object[], window?: number}
 *   | {kind: "openai", baseURL: string, model: string, apiKey?: string, headers?: Record<string, string>, nativeTools?: boolean, contextWindow?: number, templateOpensThink?: boolean}
 *   | {kind: "custom", generate: number, nativeTools?: boolean, contextWindow?: number, templateOpensThink?: boolean}
 *   | {kind: "browser", generate?: number, contextWindow?: number}} WireBackend
 *   generate: stash id (for "browser", js/'s driver of the native LanguageModel; absent when the browser has none)
 */
/** @typedef {"auto" | "none" | "required" | {type?: "tool", name: string}} WireToolChoice */
/** @typedef {{name: string, description: string, inputSchema: object, annotations?: object, hasExecute: boolean, execute: number}} WireTool  execute: stash id or -1 */
/** @typedef {{type: "prompt", id: number, session: number, input: unknown, stream?: boolean, responseConstraint?: unknown, omitResponseConstraintInput?: boolean, toolChoice?: WireToolChoice, activeTools?: string[]}} PromptRequest  reply value: PromptResult; with stream, Chunks first */
/** @typedef {{type: "append" | "measure", id: number, session: number, input: unknown}} InputRequest  reply value: SessionInfo (append), number (measure) */
/** @typedef {{type: "clone", id: number, session: number, clone: number, compact?: CompactRules}} CloneRequest  reply value: SessionInfo of the new key `clone`; with compact, its history compacted by those rules (session.compact()) */
/** @typedef {{type: "destroy" | "history" | "usage" | "tool-list", id: number, session: number, packed?: boolean}} SessionRequest  reply value: null, the transcript, SessionInfo, ListedTool[] (tool-list: session.listTools()); history and usage also answer synchronously through channel.query; a synchronous history query with packed: true is answered packed (pack.js unpackHistory) */

// ---- page → engine: notifications ----

/** @typedef {{type: "abort", target: number}} AbortMessage  aborts the request `target` */
/** @typedef {{type: "tool-return", id: number, value?: unknown, error?: {message: string}}} ToolReturn  answers tool-execute / tool-approve `id` */
/** @typedef {{type: "tool-progress", id: number, value?: unknown}} ToolProgress  a running execute's progress(value) */
/** @typedef {{type: "listen", session: number, event: "toolcall" | "toolprogress" | "toolresult" | "contextoverflow" | "stepusage" | "reasoning" | "toolcalldelta"}} ListenMessage  from now on, send this session's events of this type */
/** @typedef {{type: "tools", session: number, tools: object[]}} ToolsMessage  the session's tools from its next model step on (create({modelContext}), js/webmcp.js) */
/** @typedef {{type: "approvals", session: number, tools: object[]}} ApprovalsMessage  the session's remembered decisions, whole: each the toolInfo approve was shown when it answered {allow: "always"}; a call runs unasked while its tool declares exactly one of them (js/approvals.js, loop/approvals.go) */
/** @typedef {{type: "fetch-response", id: number, status: number, headers: Record<string, string>}} FetchResponse  the fetch `id` has its response (lower-case header names); the body follows */
/** @typedef {{type: "fetch-chunk", id: number, data: string}} FetchChunk  the next piece of the body, decoded as UTF-8 across chunk boundaries */
/** @typedef {{type: "fetch-end", id: number, error?: {message: string}}} FetchEnd  the body is complete, or the fetch failed (before or after its response) */
/** @typedef {{type: "generate-piece", id: number, value: string | {type: "text" | "tool-call" | "usage", value: unknown}}} GeneratePiece  one piece the generate `id` produced */
/** @typedef {{type: "generate-end", id: number, error?: {name?: string, message: string}}} GenerateEnd  generate is done, or threw */

// ---- engine → page ----

/** @typedef {{type: "reply", id: number, ok?: true, value?: unknown, error?: WireError}} Reply */
/** @typedef {{name: string, message: string, fields?: {requested?: number, quota?: number, transcript?: object[]}}} WireError */
/** @typedef {{type: "tool-execute", id: number, session: number, fn: number, call: WireCall}} ToolExecute  the page runs stash[fn](call.arguments, …) */
/** @typedef {{type: "tool-approve", id: number, session: number, fn: number, call: WireCall, tool: string, toolInfo: {name: string, description: string, inputSchema: object, annotations: object, source: {kind: "page"|"webmcp"|"mcp", name?: string, origin?: string}}}} ToolApprove  the page answers true, false or a reason; toolInfo is the declaration that will run */
/** @typedef {{type: "fetch", id: number, request: {method: string, url: string, headers: Record<string, string>, body: string}}} Fetch  the page runs fetch(url, {method, headers, body, signal, redirect: "manual"}) and refuses a redirect (fetch-end with an error); the headers may hold the API key and go to fetch only */
/** @typedef {{type: "generate", id: number, fn: number, request: object, live?: boolean}} Generate  the page runs stash[fn](request, {signal, live}); live: an engine's driver passes tool-call fragments on at once */
/** @typedef {{type: "fetch-more", id: number}} FetchMore  the engine has read one more FETCH_WINDOW of the fetch's body (in UTF-8 bytes, never fewer than the page's UTF-16 units): the page reads on while it has sent less than FETCH_WINDOW × (fetch-mores + 2) */
/** @typedef {{type: "tool-abort" | "fetch-abort" | "generate-abort", id: number}} CallAbort  the call `id` is no longer awaited: abort its signal; later answers are dropped */
/** @typedef {{type: "toolcall" | "toolprogress" | "toolresult" | "contextoverflow" | "stepusage" | "reasoning" | "toolcalldelta", session: number, detail: object}} SessionEvent  stepusage detail: {inputTokens, outputTokens, estimated, toolCalls, duration}; reasoning: {text}; contextoverflow: {evicted} and, when compactOnOverflow compacted, {compacted: true, contextUsageBefore, contextUsageAfter} */
/** @typedef {{type: "warning", detail: string}} Warning  a line for the console (console.warn): a secret too short to redact */
/** @typedef {{type: "modelstep", session: number, detail: object}} ModelStep  one step of a record backend's model (loop/record, js/record.js) */
/** @typedef {{type: "chunk", session: number, id: number, detail: string | {type: "tool-call", value: WireCall}}} Chunk */
/** @typedef {{callID: string, callId: string, name: string, arguments: object}} WireCall */
/** @typedef {{mode?: "none"|"open"|"closed"|"hybrid", contextUsage: number, contextWindow: number, initial?: number, usage?: Usage}} SessionInfo  initial (create and clone; absent when 0): how many messages are initial prompts; usage: session.usage, absent before the first model step */
/** @typedef {{inputTokens: number, outputTokens: number, steps: number, estimatedSteps: number, cachedTokens: number}} Usage  what a session's model steps have spent (session.usage) */
/** @typedef {{text: string, calls?: WireCall[], contextUsage: number}} PromptResult */
/** @typedef {{name: string, description: string, inputSchema: object, annotations: object, source: {kind: "page"|"webmcp"|"mcp", name?: string, origin?: string}, active: boolean}} ListedTool  a tool-list entry: the toolInfo of a tool-approve, and whether the model is offered it now (tool search) */

/** The messages that are session events, dispatched on the LanguageModel of `session`. */
export const EVENT_TYPES = ["toolcall", "toolprogress", "toolresult", "contextoverflow", "stepusage", "reasoning", "toolcalldelta"];
