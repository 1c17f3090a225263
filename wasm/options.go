package wasm

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// errBadOption is the rule an option of create() breaks when the engine below does not
// already check it (the enums of expectedInputs/Outputs and toolUseConfig).
var errBadOption = errors.New("invalid option")

// errSamplingRange is the rule a temperature below 0 or a topK below 1 breaks: a
// RangeError in create(), "unavailable" in availability(), as Chrome's tests expect (the
// spec's "custom out-of-range handling", not the IDL layer's).
var errSamplingRange = errors.New("invalid option")

// errUnsupportedLanguage is the rule an expected language the backend cannot serve
// breaks: NotSupportedError in create(), "unavailable" in availability().
var errUnsupportedLanguage = errors.New("unsupported language")

// sessionOptions turns create()'s options into loop.Options for the session key. The
// binding only translates: the engine validates tools, prompts and windows.
//
// The order follows the spec's create(): the options are validated and canonicalized
// first (language tags: RangeError; samplingMode with temperature or topK: TypeError),
// then their availability is computed (a type or language the backend cannot serve:
// NotSupportedError, which availability() answers as "unavailable").
func (h *Handler) sessionOptions(key int64, o CreateOptions) (loop.Options, *pageTools, error) {
	exp, toolOutput, langs, err := expectations(o)
	if err != nil {
		return loop.Options{}, nil, err
	}
	if err := sampling(o); err != nil {
		return loop.Options{}, nil, err
	}
	model, err := h.newModel(o.Backend)
	if err != nil {
		return loop.Options{}, nil, err
	}
	if err := served(model, langs); err != nil {
		return loop.Options{}, nil, err
	}
	h.recording(model, key)
	toolsJSON, err := decodeOptional(o.Tools)
	if err != nil {
		return loop.Options{}, nil, err
	}
	tools, err := session.ParseTools(toolsJSON, toolOutput)
	if err != nil {
		return loop.Options{}, nil, err
	}

	use, approveFn, err := toolUse(o.ToolUseConfig)
	if err != nil {
		return loop.Options{}, nil, err
	}
	choice, err := toolChoice(o.ToolChoice, tools)
	if err != nil {
		return loop.Options{}, nil, err
	}
	pt := &pageTools{h: h, key: key, fns: executeIDs(toolsJSON), approveFn: approveFn}
	sourced(tools, pt.fns)
	opts := loop.Options{
		Model:         model,
		Tools:         tools,
		ToolUse:       use,
		Expected:      exp,
		SamplingMode:  o.SamplingMode,
		KeepReasoning: o.KeepReasoning,

		CompactOnOverflow: (*loop.Compaction)(o.CompactOnOverflow),
	}
	if choice != nil {
		opts.ToolChoice = *choice
	}
	h.bind(&opts, pt)
	return opts, pt, nil
}

// bind points a session's hooks at its key: events, tool runs and approvals.
func (h *Handler) bind(opts *loop.Options, pt *pageTools) {
	opts.Runner = pt
	opts.OnEvent = h.onEvent(pt)
	opts.Listens = pt.listensFor
	opts.Release = h.red.Release // a secret split over two reasoning or toolcalldelta events
	opts.OnChange = pt.changed
	opts.ToolUse.Approve = nil
	if pt.approveFn > 0 {
		opts.ToolUse.Approve = pt.approve
	}
}

// expectedLanguages are the canonical language tags of one expectedInputs or
// expectedOutputs entry, with where they came from for messages.
type expectedLanguages struct {
	where string // e.g. "expectedInputs[0].languages"
	tags  []string
}

func expectations(o CreateOptions) (exp session.Expected, toolOutput bool, langs []expectedLanguages, err error) {
	inputs, inLangs, err := expectedTypes("expectedInputs", o.ExpectedInputs)
	if err != nil {
		return exp, false, nil, err
	}
	outputs, outLangs, err := expectedTypes("expectedOutputs", o.ExpectedOutputs)
	if err != nil {
		return exp, false, nil, err
	}
	langs = append(inLangs, outLangs...)
	for _, t := range inputs {
		switch t {
		case "text":
		case "image":
			exp.Image = true
		case "audio":
			exp.Audio = true
		case "tool-call":
			exp.ToolCall = true
		case "tool-response", "tool-result":
			exp.ToolResponse = true
		default:
			return exp, false, nil, session.Errorf(session.KindType, errBadOption, "expectedInputs: unknown type %q", t)
		}
	}
	for _, t := range outputs {
		switch t {
		case "text":
		case "tool-call":
			toolOutput = true
		case "image", "audio", "tool-response", "tool-result":
			return exp, false, nil, session.Errorf(session.KindNotSupported, errBadOption, "expectedOutputs: %s output is not supported", t)
		default:
			return exp, false, nil, session.Errorf(session.KindType, errBadOption, "expectedOutputs: unknown type %q", t)
		}
	}
	exp.OwnCallResponses = toolOutput
	return exp, toolOutput, langs, nil
}

// expectedTypes reads expectedInputs or expectedOutputs: [{type, languages}]. Each
// language tag is validated and canonicalized as BCP 47 (the spec's "validate and
// canonicalize language tags": RangeError for an invalid one), duplicates dropped.
func expectedTypes(option string, raw jsonv.RawMessage) ([]string, []expectedLanguages, error) {
	v, err := decodeOptional(raw)
	if err != nil || v == nil {
		return nil, nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, nil, session.Errorf(session.KindType, errBadOption, "%s must be an array", option)
	}
	types := make([]string, len(arr))
	var langs []expectedLanguages
	for i, e := range arr {
		obj, _ := e.(map[string]any)
		t, ok := obj["type"].(string)
		if !ok {
			return nil, nil, session.Errorf(session.KindType, errBadOption, "%s[%d].type must be a string", option, i)
		}
		types[i] = t
		l, present := obj["languages"]
		if !present || l == nil {
			continue
		}
		list, ok := l.([]any)
		if !ok {
			return nil, nil, session.Errorf(session.KindType, errBadOption, "%s[%d].languages must be an array of strings", option, i)
		}
		el := expectedLanguages{where: option + "[" + strconv.Itoa(i) + "].languages"}
		for _, x := range list {
			tag, ok := x.(string)
			if !ok {
				return nil, nil, session.Errorf(session.KindType, errBadOption, "%s must be an array of strings", el.where)
			}
			c, err := session.CanonicalLanguageTag(tag)
			if err != nil {
				return nil, nil, err
			}
			if !slices.Contains(el.tags, c) {
				el.tags = append(el.tags, c)
			}
		}
		langs = append(langs, el)
	}
	return types, langs, nil
}

// served checks the expected languages against what model serves (loop.Linguist, or
// session.CommonLanguage for a model that does not say): the spec's "compute language
// availability", where a language the model cannot serve makes the options unavailable.
func served(model loop.Model, langs []expectedLanguages) error {
	serves := session.CommonLanguage
	if l, ok := model.(loop.Linguist); ok {
		serves = l.ServesLanguage
	}
	for _, el := range langs {
		for _, tag := range el.tags {
			if !serves(tag) {
				return session.Errorf(session.KindNotSupported, errUnsupportedLanguage, "%s: %q is not a language this backend serves", el.where, tag)
			}
		}
	}
	return nil
}

// samplingModes are the explainer's values, plus the two earlier drafts had (still mapped
// by the OpenAI-compatible backend). "" is absent: the session reports "balanced".
var samplingModes = []string{"", "most-predictable", "predictable", "slightly-predictable", "balanced", "slightly-creative", "creative", "most-creative"}

// sampling checks samplingMode (a WebIDL enum: TypeError for another value) and the
// legacy temperature and topK: given together with samplingMode they are a TypeError
// (the explainer, "Legacy: Configuration of per-session raw parameters"); a temperature
// below 0 or a topK below 1 is a RangeError, as the explainer says for contexts where
// the legacy parameters are active (this module reports them).
func sampling(o CreateOptions) error {
	if !slices.Contains(samplingModes, o.SamplingMode) {
		return session.Errorf(session.KindType, errBadOption, "samplingMode: %q is not a sampling mode", o.SamplingMode)
	}
	temperature, err := legacyNumber("temperature", o.Temperature)
	if err != nil {
		return err
	}
	topK, err := legacyNumber("topK", o.TopK)
	if err != nil {
		return err
	}
	if o.SamplingMode != "" && (temperature != nil || topK != nil) {
		return session.Errorf(session.KindType, errBadOption, "samplingMode cannot be given together with temperature or topK")
	}
	if temperature != nil && *temperature < 0 {
		return session.Errorf(session.KindRange, errSamplingRange, "temperature must not be negative")
	}
	if topK != nil && *topK < 1 {
		return session.Errorf(session.KindRange, errSamplingRange, "topK must be at least 1")
	}
	return nil
}

// legacyNumber reads temperature or topK: absent is nil. The face converts them as WebIDL
// unrestricted doubles (+Infinity crosses as a large number, so only finite values come).
func legacyNumber(name string, raw jsonv.RawMessage) (*float64, error) {
	v, err := decodeOptional(raw)
	if err != nil || v == nil {
		return nil, err
	}
	n, ok := v.(jsonv.Number)
	if !ok {
		return nil, session.Errorf(session.KindType, errBadOption, "%s must be a number", name)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, session.Errorf(session.KindType, errBadOption, "%s must be a number", name)
	}
	return &f, nil
}

func toolUse(c *ToolUseConfig) (loop.ToolUse, int64, error) {
	if c == nil {
		return loop.ToolUse{}, 0, nil
	}
	u := loop.ToolUse{
		Disabled:     c.Enabled != nil && !*c.Enabled,
		MaxToolCalls: c.MaxToolCalls,
		Sequential:   c.Parallel != nil && !*c.Parallel,
	}
	if c.MaxToolCalls < 0 {
		return u, 0, session.Errorf(session.KindType, errBadOption, "toolUseConfig.maxToolCalls must not be negative")
	}
	if r := c.MaxRepeatedCalls; r != nil {
		if *r < 0 {
			return u, 0, session.Errorf(session.KindType, errBadOption, "toolUseConfig.maxRepeatedCalls must not be negative")
		}
		u.MaxRepeatedCalls = *r
		if *r == 0 {
			u.MaxRepeatedCalls = -1 // 0 turns the stop off (loop.ToolUse: below 0)
		}
	}
	if c.MaxTokens < 0 {
		return u, 0, session.Errorf(session.KindType, errBadOption, "toolUseConfig.maxTokens must not be negative")
	}
	u.MaxTokens = c.MaxTokens
	u.Search = toolSearch(c.ToolSearch)
	switch c.OnLimit {
	case "", "error":
		u.OnLimit = loop.LimitError
	case "answer":
		u.OnLimit = loop.LimitAnswer
	default:
		return u, 0, session.Errorf(session.KindType, errBadOption, `toolUseConfig.onLimit must be "error" or "answer", not %q`, c.OnLimit)
	}
	return u, c.Approve, nil
}

// DefaultKeepTurns is keepTurns when the page gives none: the last step and the one
// before it (its calls and their results) stay whole.
const DefaultKeepTurns = 2

// toolChoice reads create()'s or prompt()'s toolChoice: "auto", "none", "required", or
// {type: "tool", name} ({name} alone too) naming one of tools. nil when absent.
func toolChoice(raw jsonv.RawMessage, tools []session.Tool) (*loop.ToolChoice, error) {
	v, err := decodeOptional(raw)
	if err != nil || v == nil {
		return nil, err
	}
	bad := func(format string, args ...any) (*loop.ToolChoice, error) {
		return nil, session.Errorf(session.KindType, errBadOption, "toolChoice "+format, args...)
	}
	switch c := v.(type) {
	case string:
		switch c {
		case "auto", "none":
			return &loop.ToolChoice{Mode: c}, nil
		case "required":
			if len(tools) == 0 {
				return bad(`"required" needs at least one tool`)
			}
			return &loop.ToolChoice{Mode: c}, nil
		}
		return bad(`must be "auto", "none", "required" or {type: "tool", name}, not %q`, c)
	case map[string]any:
		if t, ok := c["type"]; ok && t != "tool" {
			return bad(`{type, name}: type must be "tool"`)
		}
		name, _ := c["name"].(string)
		if name == "" {
			return bad(`{type: "tool", name}: name must be a non-empty string`)
		}
		for i := range tools {
			if tools[i].Name == name {
				return &loop.ToolChoice{Mode: "tool", Name: name}, nil
			}
		}
		return bad("names the tool %q, which the session does not declare", name)
	}
	return bad(`must be "auto", "none", "required" or {type: "tool", name}`)
}

// executeIDs reads the stash id of each tool's execute from the tools option that
// ParseTools has accepted.
func executeIDs(tools any) map[string]int64 {
	ids := make(map[string]int64)
	arr, _ := tools.([]any)
	for _, raw := range arr {
		obj, _ := raw.(map[string]any)
		name, _ := obj["name"].(string)
		if n, ok := obj["execute"].(jsonv.Number); ok {
			if id, err := n.Int64(); err == nil {
				ids[name] = id
			}
		}
	}
	return ids
}

// sourced sets the Source of the page's tools: WebMCP's (the face marks them mcpResult:
// their execute is executeTool's) or the page's own, and the execute each call runs
// (fns: name → stash id), fixed with the declaration (session.Source).
func sourced(tools []session.Tool, fns map[string]int64) {
	for i := range tools {
		kind := session.SourcePage
		if tools[i].MCPResult {
			kind = session.SourceWebMCP
		}
		tools[i].Source = session.Source{Kind: kind, Fn: fns[tools[i].Name]}
	}
}

// decodeOptional decodes a free-form option; absent or null is nil.
func decodeOptional(raw jsonv.RawMessage) (any, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	return session.DecodeJSON(raw)
}
