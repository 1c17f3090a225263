// The channel between js/language-model.js and the engine. It is written down twice, here
// and in wasm/protocol.go, under this same paragraph; change both together.
//
// Every message is one JSON object with a literal kebab-case "type". The page numbers its
// requests ("id" ≥ 1) and the engine answers each with exactly one "reply" carrying the
// same id: {id, ok: true, value} or {id, error: {name, message, fields}}. The engine
// numbers its own calls to the page (tool-execute, tool-approve) in a separate id space,
// and the page answers each with one "tool-return". Notifications (abort, tool-progress,
// tool-abort, events, chunks) have no reply. The first request is "hello", whose reply
// carries the protocol version; a mismatch rejects install(). Functions never cross:
// execute and approve stay in a JS stash and travel as integer ids (-1 for none).
//
// Requests carry the page's session key. A late message for a destroyed key (a
// tool-return, a tool-progress, an abort racing a reply) is dropped on purpose: the page
// has already rejected everything of that session, and answering would only race it.
// A request for a destroyed key is answered with InvalidStateError.

/** Exchanged by hello; bump it whenever a message changes shape (ProtocolVersion in Go). */
export const PROTOCOL_VERSION = 1;

// ---- page → engine: requests (each answered by one Reply) ----

/** @typedef {{type: "hello", id: number, version: number}} HelloRequest  reply value: {version} */
/** @typedef {{type: "create", id: number, session: number, options: CreateOptions}} CreateRequest  reply value: SessionInfo */
/** @typedef {{type: "availability", id: number, options: CreateOptions}} AvailabilityRequest  reply value: "available" | "unavailable" */
/**
 * @typedef {object} CreateOptions
 * @property {object} [backend]          {kind, ...}; absent: the offline demo model
 * @property {unknown} [initialPrompts]
 * @property {{type: string, languages?: string[]}[]} [expectedInputs]
 * @property {{type: string, languages?: string[]}[]} [expectedOutputs]
 * @property {WireTool[]} [tools]
 * @property {{enabled?: boolean, maxToolCalls?: number, parallel?: boolean, onLimit?: "error"|"answer", approve?: number}} [toolUseConfig]  approve: stash id
 * @property {string} [samplingMode]
 */
/** @typedef {{name: string, description: string, inputSchema: object, annotations?: object, hasExecute: boolean, execute: number}} WireTool  execute: stash id or -1 */
/** @typedef {{type: "prompt", id: number, session: number, input: unknown, stream?: boolean, responseConstraint?: unknown, omitResponseConstraintInput?: boolean}} PromptRequest  reply value: PromptResult; with stream, Chunks first */
/** @typedef {{type: "append" | "measure", id: number, session: number, input: unknown}} InputRequest  reply value: SessionInfo (append), number (measure) */
/** @typedef {{type: "clone", id: number, session: number, clone: number}} CloneRequest  reply value: SessionInfo of the new key `clone` */
/** @typedef {{type: "destroy" | "history" | "usage", id: number, session: number}} SessionRequest  reply value: null, the transcript, SessionInfo; history and usage also answer synchronously through channel.query */

// ---- page → engine: notifications ----

/** @typedef {{type: "abort", target: number}} AbortMessage  aborts the request `target` */
/** @typedef {{type: "tool-return", id: number, value?: unknown, error?: {message: string}}} ToolReturn  answers tool-execute / tool-approve `id` */
/** @typedef {{type: "tool-progress", id: number, value?: unknown}} ToolProgress  a running execute's progress(value) */

// ---- engine → page ----

/** @typedef {{type: "reply", id: number, ok?: true, value?: unknown, error?: WireError}} Reply */
/** @typedef {{name: string, message: string, fields?: {requested?: number, quota?: number, transcript?: object[]}}} WireError */
/** @typedef {{type: "tool-execute", id: number, session: number, fn: number, call: WireCall}} ToolExecute  the page runs stash[fn](call.arguments, …) */
/** @typedef {{type: "tool-approve", id: number, session: number, fn: number, call: WireCall, tool: string}} ToolApprove  the page answers true, false or a reason */
/** @typedef {{type: "tool-abort", id: number}} ToolAbort  the call `id` is no longer awaited: abort its signal */
/** @typedef {{type: "toolcall" | "toolprogress" | "toolresult" | "contextoverflow", session: number, detail: object}} SessionEvent */
/** @typedef {{type: "chunk", session: number, id: number, detail: string | {type: "tool-call", value: WireCall}}} Chunk */
/** @typedef {{callID: string, callId: string, name: string, arguments: object}} WireCall */
/** @typedef {{mode?: "none"|"open"|"closed"|"hybrid", contextUsage: number, contextWindow: number}} SessionInfo */
/** @typedef {{text: string, calls?: WireCall[], contextUsage: number}} PromptResult */

/** The messages that are session events, dispatched on the LanguageModel of `session`. */
export const EVENT_TYPES = ["toolcall", "toolprogress", "toolresult", "contextoverflow"];
