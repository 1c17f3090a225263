// The channel between js/language-model.js and the engine. It is written down twice, here
// and in js/protocol.js, under this same paragraph; change both together.
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

package wasm

import (
	"langmodel/internal/jsonv"
	"langmodel/loop"
)

//go:generate sh -c "go run github.com/mailru/easyjson/easyjson@v0.9.2 -gen_build_flags=-tags=easyjson_generate -output_filename protocol_easyjson.go protocol.go && sed -i -e '/easyjson \"github.com\\/mailru\\/easyjson\"$/d' -e '/_ easyjson.Marshaler$/d' -e 's,jwriter \"github.com/mailru/easyjson/jwriter\",jwriter \"langmodel/wasm/internal/jsonw\",' protocol_easyjson.go"
//go:generate go run ./internal/trimjson -neither envelope,HelloRequest,CreateRequest,CreateOptions,ToolUseConfig,PromptRequest,InputRequest,CloneRequest,AbortMessage,PageReturn,ToolProgress -out Reply,PageCall,Event,SessionInfo,Usage,PromptResult,WireError,ErrorExtra protocol_easyjson.go

// ProtocolVersion is exchanged by hello. Bump it whenever a message changes shape.
const ProtocolVersion = 10

// Message types, page → engine.
const (
	TypeHello         = "hello"
	TypeCreate        = "create"
	TypeAvailability  = "availability"
	TypePrompt        = "prompt"
	TypeAppend        = "append"
	TypeMeasure       = "measure"
	TypeClone         = "clone"
	TypeDestroy       = "destroy"
	TypeHistory       = "history"
	TypeUsage         = "usage"
	TypeToolList      = "tool-list" // session.listTools(): the session's tools (toollist.go)
	TypeAbort         = "abort"
	TypeToolReturn    = "tool-return"
	TypeToolProgress  = "tool-progress"
	TypeListen        = "listen"
	TypeTools         = "tools"
	TypeApprovals     = "approvals"
	TypeFetchResponse = "fetch-response"
	TypeFetchChunk    = "fetch-chunk"
	TypeFetchEnd      = "fetch-end"
	TypeGeneratePiece = "generate-piece"
	TypeGenerateEnd   = "generate-end"
)

// FetchWindow is the pace of a fetch's body (fetch-more): the page is at most two of them,
// and one chunk of its fetch, ahead of what the engine has read. js/pagecalls.js has it too.
const FetchWindow = 1 << 20

// Message types, engine → page.
const (
	TypeReply         = "reply"
	TypeToolExecute   = "tool-execute"
	TypeToolApprove   = "tool-approve"
	TypeToolAbort     = "tool-abort"
	TypeFetch         = "fetch"
	TypeFetchAbort    = "fetch-abort"
	TypeFetchMore     = "fetch-more"
	TypeGenerate      = "generate"
	TypeGenerateAbort = "generate-abort"
	TypeChunk         = "chunk"
	// TypeWarning is an Event the page writes to its console (console.warn): its detail
	// is the text (a secret too short to redact, Handler.secrets).
	TypeWarning = "warning"
	// Session events use the event's own name as type: toolcall, toolprogress,
	// toolresult, contextoverflow (loop.EventType).
)

// envelope is what every message is read as first: its type and id.
//
//easyjson:json
type envelope struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

// HelloRequest opens the channel. Reply value: {"version": ProtocolVersion}.
//
//easyjson:json
type HelloRequest struct {
	Type    string `json:"type"`
	ID      int64  `json:"id"`
	Version int    `json:"version"`
}

// CreateRequest creates a session under the page's key Session. Reply value: SessionInfo.
// InitialPrompts travels beside the options, not inside them: a history passed back can
// hold thousands of messages, and the engine then finds it without scanning past it
// again to read the options.
//
//easyjson:json
type CreateRequest struct {
	Type           string           `json:"type"`
	ID             int64            `json:"id"`
	Session        int64            `json:"session"`
	Options        CreateOptions    `json:"options"`
	InitialPrompts jsonv.RawMessage `json:"initialPrompts,omitempty"`
	// TextPrompts, when not 0, says the initial prompts came instead packed after the
	// message (its attachment, packed.go): that many messages, text or JSON, TextUnits
	// UTF-16 code units long in all.
	TextPrompts int `json:"textPrompts,omitempty"`
	TextUnits   int `json:"textUnits,omitempty"`
	// Restore, when present, makes the initial prompts a saved transcript to continue
	// (LanguageModel.restore(), snapshot.go).
	Restore *RestoreInfo `json:"restore,omitempty"`
}

// AvailabilityRequest asks whether create(options) could succeed. It is a CreateRequest
// without a session (an alias: one decoder for both, for the size budget). Reply value:
// "available" or "unavailable".
type AvailabilityRequest = CreateRequest

// CreateOptions are create()'s options as data. Free-form pieces stay raw JSON and go
// to the engine as it expects them.
//
//easyjson:json
type CreateOptions struct {
	// Backend is {kind, ...} with generate replaced by its stash id; absent means the
	// default scripted demo model. See backend.go for the kinds and their fields.
	Backend jsonv.RawMessage `json:"backend,omitempty"`
	// ExpectedInputs and ExpectedOutputs are [{type, languages}].
	ExpectedInputs  jsonv.RawMessage `json:"expectedInputs,omitempty"`
	ExpectedOutputs jsonv.RawMessage `json:"expectedOutputs,omitempty"`
	// Tools are the declarations with execute replaced by hasExecute and an integer
	// execute id: [{name, description, inputSchema, annotations, hasExecute, execute}].
	Tools         jsonv.RawMessage `json:"tools,omitempty"`
	ToolUseConfig *ToolUseConfig   `json:"toolUseConfig,omitempty"`
	SamplingMode  string           `json:"samplingMode,omitempty"`
	// Temperature and TopK are the legacy sampling options as the page gave them (a
	// number; absent when not given): the engine checks them against samplingMode.
	Temperature jsonv.RawMessage `json:"temperature,omitempty"`
	TopK        jsonv.RawMessage `json:"topK,omitempty"`
	// ToolChoice is "auto", "none", "required", or {type: "tool", name} ({name} too).
	ToolChoice jsonv.RawMessage `json:"toolChoice,omitempty"`
	// MCPServers are [{url, headers, name}]: MCP servers whose tools join the session's
	// (mcp.go). The headers may hold secrets: never echoed.
	MCPServers jsonv.RawMessage `json:"mcpServers,omitempty"`
	// KeepReasoning keeps the model's reasoning in the history, sent back on later steps
	// (loop.Options.KeepReasoning); js/ has checked it is a boolean.
	KeepReasoning bool `json:"keepReasoning,omitempty"`
	// CompactOnOverflow, when present, compacts the history by its rules when it would
	// outgrow the context window (loop.Options.CompactOnOverflow).
	CompactOnOverflow *CompactConfig `json:"compactOnOverflow,omitempty"`
}

// CompactConfig is session.compact()'s rules, and compactOnOverflow's (loop.Compaction):
// keepTurns (absent: 2), dropToolResults (absent: true), summarize (absent: false). Read
// by decode.go only: the engine never writes it.
type CompactConfig loop.Compaction

// ToolUseConfig is toolUseConfig with approve replaced by its stash id.
//
//easyjson:json
type ToolUseConfig struct {
	Enabled      *bool `json:"enabled,omitempty"`
	MaxToolCalls int   `json:"maxToolCalls,omitempty"`
	// MaxRepeatedCalls is nil when absent (the default, 3); 0 turns the stop off.
	MaxRepeatedCalls *int   `json:"maxRepeatedCalls,omitempty"`
	MaxTokens        int    `json:"maxTokens,omitempty"`
	Parallel         *bool  `json:"parallel,omitempty"`
	OnLimit          string `json:"onLimit,omitempty"`
	Approve          int64  `json:"approve,omitempty"` // stash id; ≤ 0 for none
	// ToolSearch is false, true or {share, pinned} (loop.ToolSearch); absent: on, at the
	// default share.
	ToolSearch jsonv.RawMessage `json:"toolSearch,omitempty"`
}

// PromptRequest submits a prompt. With Stream, chunks for this request id arrive before
// the reply. Reply value: PromptResult.
//
//easyjson:json
type PromptRequest struct {
	Type    string           `json:"type"`
	ID      int64            `json:"id"`
	Session int64            `json:"session"`
	Input   jsonv.RawMessage `json:"input"`
	Stream  bool             `json:"stream,omitempty"`
	// ResponseConstraint is a JSON Schema, or a RegExp as {"pattern": source} (an object
	// with that one member; session.ConstraintPattern).
	ResponseConstraint          jsonv.RawMessage `json:"responseConstraint,omitempty"`
	OmitResponseConstraintInput bool             `json:"omitResponseConstraintInput,omitempty"`
	// ToolChoice overrides the session's for this prompt (as in CreateOptions).
	ToolChoice jsonv.RawMessage `json:"toolChoice,omitempty"`
	// ActiveTools are the tool names offered from this prompt on, when the session
	// searches for its tools (loop.PromptOptions.ActiveTools).
	ActiveTools jsonv.RawMessage `json:"activeTools,omitempty"`
}

// InputRequest is append and measure: a session and an input. Reply value: SessionInfo
// for append, a number for measure.
//
//easyjson:json
type InputRequest struct {
	Type    string           `json:"type"`
	ID      int64            `json:"id"`
	Session int64            `json:"session"`
	Input   jsonv.RawMessage `json:"input"`
	// Packed asks a synchronous history query (Handler.Query) for the history packed
	// (packed_out.go packHistory) instead of as a JSON array.
	Packed bool `json:"packed,omitempty"`
}

// CloneRequest clones Session into the new key Clone, after the operations before it;
// with Compact, the copy's history is compacted by its rules (session.compact()). Reply
// value: SessionInfo of the clone.
//
//easyjson:json
type CloneRequest struct {
	Type    string         `json:"type"`
	ID      int64          `json:"id"`
	Session int64          `json:"session"`
	Clone   int64          `json:"clone"`
	Compact *CompactConfig `json:"compact,omitempty"`
}

// SessionRequest is destroy, history, usage and tool-list: a session alone (an
// InputRequest without input). Reply value: null for destroy, the transcript (draft-PR
// form) for history, SessionInfo for usage, the tools (toolList) for tool-list. history and usage may also be asked synchronously
// (Handler.Query).
type SessionRequest = InputRequest

// AbortMessage aborts the request Target (prompt, append, clone, measure). No reply of
// its own: the target's reply is an AbortError, unless it had already finished.
//
//easyjson:json
type AbortMessage struct {
	Type   string `json:"type"`
	Target int64  `json:"target"`
}

// PageReturn is the page's answer to an engine → page call with the same id. Six
// messages share it:
//
//	tool-return    {id, value | error}      answers tool-execute (what execute returned,
//	                                        or error: it threw) or tool-approve (true,
//	                                        false or a reason string)
//	fetch-response {id, status, headers}    the fetch's response arrived; headers have
//	                                        lower-case names; the body follows
//	fetch-chunk    {id, data}               the next piece of the body, as text (decoded
//	                                        as UTF-8 across chunk boundaries)
//	fetch-end      {id, error?}             the body is complete, or the fetch failed
//	                                        (before or after its response)
//	generate-piece {id, value}              one piece generate produced: a string, or
//	                                        {type: "text"|"tool-call"|"usage", value}
//	generate-end   {id, error?}             generate is done, or threw (name, message)
//
// (One Go type for all keeps the generated decoders small: DESIGN.md §5's size budget.
// js/protocol.js declares them one by one.)
//
//easyjson:json
type PageReturn struct {
	Type    string            `json:"type"`
	ID      int64             `json:"id"`
	Value   jsonv.RawMessage  `json:"value,omitempty"`
	Error   *WireError        `json:"error,omitempty"`
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Data    string            `json:"data,omitempty"`
}

// ToolProgress is a running tool's progress(value), for the tool-execute with this id.
//
//easyjson:json
type ToolProgress struct {
	Type  string           `json:"type"`
	ID    int64            `json:"id"`
	Value jsonv.RawMessage `json:"value,omitempty"`
}

// ListenMessage says that the page listens for the session event Event (toolcall,
// toolprogress, toolresult, contextoverflow) of the session key Session: the engine sends
// each type only once the page has asked for it, since a session nobody listens to would
// pay for encoding, sending and dispatching events on every step (RATIONALE.md "Why are
// events sent only to sessions that listen?"). It has no reply; read by hand (decode.go).
type ListenMessage struct {
	Type    string `json:"type"`
	Session int64  `json:"session"`
	Event   string `json:"event"`
}

// ToolsMessage gives the session key Session a new set of tools, as create()'s tools
// option (WebMCP's toolchange, js/webmcp.js): the engine offers them from the session's
// next model step on (loop/toolset.go). It has no reply; a set the engine refuses is
// dropped and the session keeps its tools. Read by hand (decode.go).
//
// An approvals message ({type: "approvals", session, tools}) has the same shape: tools
// are the session's remembered decisions, whole, each the declaration approve was shown
// (tool-approve's toolInfo), which the loop answers without asking while the tool that
// runs declares exactly that (wasm/toolset.go, loop/approvals.go). No reply.
type ToolsMessage struct {
	Type    string           `json:"type"`
	Session int64            `json:"session"`
	Tools   jsonv.RawMessage `json:"tools"`
}

// Reply answers the page's request ID.
//
//easyjson:json
type Reply struct {
	Type  string           `json:"type"`
	ID    int64            `json:"id"`
	OK    bool             `json:"ok,omitempty"`
	Value jsonv.RawMessage `json:"value,omitempty"`
	Error *WireError       `json:"error,omitempty"`
}

// WireError is an error as data; only js/ turns it into an exception. Name is a
// DOMException name or "TypeError".
//
//easyjson:json
type WireError struct {
	Name    string      `json:"name,omitempty"`
	Message string      `json:"message"`
	Fields  *ErrorExtra `json:"fields,omitempty"`
}

// ErrorExtra are the extras js/ attaches to the exception.
//
//easyjson:json
type ErrorExtra struct {
	Requested int `json:"requested,omitempty"` // QuotaExceededError
	Quota     int `json:"quota,omitempty"`     // QuotaExceededError
	// Transcript is what a failed prompt had added before it failed (draft-PR form).
	Transcript jsonv.RawMessage `json:"transcript,omitempty"`
}

// PageCall is an engine → page call, or the end of one. Seven messages share it:
//
//	tool-execute {id, session, fn, call}        run the execute with stash id fn for call
//	                                            ({callID, callId, name, arguments}); the
//	                                            page answers tool-return with the same id
//	tool-approve {id, session, fn, call, tool}  ask the approve with stash id fn about call
//	                                            to the tool named tool; the page answers
//	                                            tool-return with true, false or a reason
//	fetch        {id, request}                  run fetch(request.url, {method, headers,
//	                                            body, signal}) with request = {method,
//	                                            url, headers, body (text)}; the page
//	                                            answers fetch-response, fetch-chunks,
//	                                            fetch-end. The headers may hold the API
//	                                            key: the page passes them to fetch only
//	generate     {id, fn, request, live?}       run the generate with stash id fn on
//	                                            request (custom.RenderRequest's object);
//	                                            the page answers generate-pieces, then
//	                                            generate-end. live: an engine's driver
//	                                            passes tool-call fragments on at once
//	fetch-more   {id}                           the engine has read one more FetchWindow
//	                                            of the fetch's body (counted in UTF-8
//	                                            bytes of its text: never fewer than the
//	                                            page's UTF-16 units); the page may read
//	                                            on while it has sent less than two
//	                                            windows beyond FetchWindow × fetch-mores
//	tool-abort, fetch-abort, generate-abort {id}
//	                                            the call id is no longer awaited (the
//	                                            prompt was aborted, the session destroyed,
//	                                            the body closed): abort its signal; what
//	                                            the page sends for it later is dropped
//
// (One Go type for all keeps the generated encoders small: DESIGN.md §5's size budget.
// js/protocol.js declares them one by one.)
//
//easyjson:json
type PageCall struct {
	Type    string           `json:"type"`
	ID      int64            `json:"id"`
	Session int64            `json:"session,omitempty"`
	Fn      int64            `json:"fn,omitempty"`
	Call    jsonv.RawMessage `json:"call,omitempty"`
	Tool    string           `json:"tool,omitempty"`
	Request jsonv.RawMessage `json:"request,omitempty"`
	// ToolInfo is a tool-approve's tool, the declaration that will run: {name,
	// description, inputSchema, annotations, source} (toolInfo).
	ToolInfo jsonv.RawMessage `json:"toolInfo,omitempty"`
	// Live asks a generate to pass a tool call's fragments on as they come (a page
	// listens for toolcalldelta: openai.LiveEngine).
	Live bool `json:"live,omitempty"`
}

// Event is a session event or a chunk. For an event, Type is its name (toolcall,
// toolprogress, toolresult, contextoverflow) and Detail its detail:
//
//	toolcall        {call, annotations}
//	toolprogress    {call, value}
//	toolresult      {call, result, duration (ms)}
//	contextoverflow {evicted}
//	reasoning       {text}: a piece of what the model thinks (loop.EventReasoning)
//	toolcalldelta   {callID, name, argumentsText, arguments, dropped}: a call still
//	                being written (loop.Forming); arguments is argumentsText closed
//	                into an object (jsonv.Complete), or null
//	modelstep       a recorded model step (loop/record), sent whether listened for or
//	                not, to a session whose backend is {kind: "record"}
//
// A chunk (type "chunk") is one piece of the streamed answer to the prompt request ID:
// a string, or {"type": "tool-call", "value": call} for a call handed back to the page.
//
//easyjson:json
type Event struct {
	Type    string           `json:"type"`
	Session int64            `json:"session"`
	ID      int64            `json:"id,omitempty"` // chunk only
	Detail  jsonv.RawMessage `json:"detail"`
}

// SessionInfo describes a session after create, clone, append, prompt and usage.
//
//easyjson:json
type SessionInfo struct {
	Mode string `json:"mode,omitempty"`
	// SamplingMode is the session's samplingMode: the one given, else "balanced"
	// (create and clone only).
	SamplingMode  string `json:"samplingMode,omitempty"`
	ContextUsage  int    `json:"contextUsage"`
	ContextWindow int    `json:"contextWindow"`
	// Initial is how many messages of the history are initial prompts (create and
	// clone only; absent when none): a snapshot saves it (js/snapshot.js).
	Initial int `json:"initial,omitempty"`
	// Usage is what the session's model steps have spent (session.usage); absent
	// before the first step.
	Usage *Usage `json:"usage,omitempty"`
	// ActiveTools names tool search's active set (loop.Session.ActiveTools), which a
	// snapshot keeps; absent when the session does not search.
	ActiveTools []string `json:"activeTools,omitempty"`
}

// Usage is session.usage: what a session's model steps have spent, in tokens (the
// backend's figures where it reported them, else the estimate), and how many steps
// there were, and of them how many had only the estimate, and of the input tokens how
// many the backends reported cached (loop.Totals).
//
//easyjson:json
type Usage struct {
	InputTokens    int `json:"inputTokens"`
	OutputTokens   int `json:"outputTokens"`
	Steps          int `json:"steps"`
	EstimatedSteps int `json:"estimatedSteps"`
	CachedTokens   int `json:"cachedTokens"`
}

// PromptResult is a prompt's answer: the text, the calls handed back to the page
// (open and hybrid sessions), and the usage afterwards.
//
//easyjson:json
type PromptResult struct {
	Text         string             `json:"text"`
	Calls        []jsonv.RawMessage `json:"calls,omitempty"`
	ContextUsage int                `json:"contextUsage"`
}
