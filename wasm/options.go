package wasm

import (
	"bytes"
	"encoding/json"
	"errors"

	"langmodel/loop"
	"langmodel/session"
)

// errBadOption is the rule an option of create() breaks when the engine below does not
// already check it (the enums of expectedInputs/Outputs and toolUseConfig).
var errBadOption = errors.New("invalid option")

// sessionOptions turns create()'s options into loop.Options for the session key. The
// binding only translates: the engine validates tools, prompts and windows.
func (h *Handler) sessionOptions(key int64, o CreateOptions) (loop.Options, *pageTools, error) {
	model, err := h.newModel(o.Backend)
	if err != nil {
		return loop.Options{}, nil, err
	}
	exp, toolOutput, err := expectations(o)
	if err != nil {
		return loop.Options{}, nil, err
	}
	toolsJSON, err := decodeOptional(o.Tools)
	if err != nil {
		return loop.Options{}, nil, err
	}
	tools, err := session.ParseTools(toolsJSON, toolOutput)
	if err != nil {
		return loop.Options{}, nil, err
	}
	initial, err := decodeOptional(o.InitialPrompts)
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
	opts := loop.Options{
		Model:          model,
		Tools:          tools,
		ToolUse:        use,
		Expected:       exp,
		InitialPrompts: initial,
		SamplingMode:   o.SamplingMode,
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
	opts.OnEvent = h.onEvent(pt.key)
	opts.ToolUse.Approve = nil
	if pt.approveFn > 0 {
		opts.ToolUse.Approve = pt.approve
	}
}

func expectations(o CreateOptions) (exp session.Expected, toolOutput bool, err error) {
	inputs, err := expectedTypes("expectedInputs", o.ExpectedInputs)
	if err != nil {
		return exp, false, err
	}
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
			return exp, false, session.Errorf(session.KindType, errBadOption, "expectedInputs: unknown type %q", t)
		}
	}
	outputs, err := expectedTypes("expectedOutputs", o.ExpectedOutputs)
	if err != nil {
		return exp, false, err
	}
	for _, t := range outputs {
		switch t {
		case "text":
		case "tool-call":
			toolOutput = true
		case "image", "audio", "tool-response", "tool-result":
			return exp, false, session.Errorf(session.KindNotSupported, errBadOption, "expectedOutputs: %s output is not supported", t)
		default:
			return exp, false, session.Errorf(session.KindType, errBadOption, "expectedOutputs: unknown type %q", t)
		}
	}
	return exp, toolOutput, nil
}

// expectedTypes reads the types of expectedInputs or expectedOutputs: [{type, languages}].
// Languages are not checked: the scripted model takes any.
func expectedTypes(option string, raw json.RawMessage) ([]string, error) {
	v, err := decodeOptional(raw)
	if err != nil || v == nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, session.Errorf(session.KindType, errBadOption, "%s must be an array", option)
	}
	types := make([]string, len(arr))
	for i, e := range arr {
		obj, _ := e.(map[string]any)
		t, ok := obj["type"].(string)
		if !ok {
			return nil, session.Errorf(session.KindType, errBadOption, "%s[%d].type must be a string", option, i)
		}
		types[i] = t
	}
	return types, nil
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

// toolChoice reads create()'s or prompt()'s toolChoice: "auto", "none", "required", or
// {type: "tool", name} ({name} alone too) naming one of tools. nil when absent.
func toolChoice(raw json.RawMessage, tools []session.Tool) (*loop.ToolChoice, error) {
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
		if n, ok := obj["execute"].(json.Number); ok {
			if id, err := n.Int64(); err == nil {
				ids[name] = id
			}
		}
	}
	return ids
}

// decodeOptional decodes a free-form option; absent or null is nil.
func decodeOptional(raw json.RawMessage) (any, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	return session.DecodeJSON(raw)
}
