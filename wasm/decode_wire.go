package wasm

import (
	"errors"

	"langmodel/session"
)

// The fields of each message type the page sends (protocol.go), one switch per type
// (fields.field): the type and id every message has (head), then the type's own; fields a
// type does not know are skipped, as encoding/json skips them.

// typeName reads a message's type: one of the protocol's own names costs no copy.
func (v value) typeName(into *string) error {
	if len(v) >= 2 && v[0] == '"' {
		if t, ok := typeNames[string(v[1:len(v)-1])]; ok {
			*into = t
			return nil
		}
	}
	return v.str(into)
}

// typeNames maps each message type the page sends to itself, so that reading one
// returns the constant.
var typeNames = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{TypeHello, TypeCreate, TypeAvailability, TypePrompt, TypeAppend, TypeMeasure, TypeClone,
		TypeDestroy, TypeHistory, TypeUsage, TypeAbort, TypeToolReturn, TypeToolProgress, TypeListen, TypeTools, TypeApprovals,
		TypeFetchResponse, TypeFetchChunk, TypeFetchEnd, TypeGeneratePiece, TypeGenerateEnd} {
		m[t] = t
	}
	return m
}()

// envelope reads the message's type and id, as into(&env) would without the interface
// call, which would move env to the heap.
func (m *message) envelope(env *envelope) error {
	for i := range m.n {
		f := m.at(i)
		if err := head(f.key, f.v, &env.Type, &env.ID); err != nil {
			return errors.New(f.key + ": " + err.Error())
		}
	}
	return nil
}

// head reads the type and id every message has.
func head(key string, v value, typ *string, id *int64) error {
	switch key {
	case "type":
		return v.typeName(typ)
	case "id":
		return v.int64(id)
	}
	return nil
}

func (m *envelope) field(key string, v value) error { return head(key, v, &m.Type, &m.ID) }

func (m *HelloRequest) field(key string, v value) error {
	if key == "version" {
		return v.int(&m.Version)
	}
	return head(key, v, &m.Type, &m.ID)
}

func (m *CreateRequest) field(key string, v value) error {
	switch key {
	case "session":
		return v.int64(&m.Session)
	case "options":
		return v.object(&m.Options)
	case "initialPrompts":
		return v.raw(&m.InitialPrompts)
	case "textPrompts":
		return v.int(&m.TextPrompts)
	case "textUnits":
		return v.int(&m.TextUnits)
	case "restore":
		if v.null() {
			return nil
		}
		m.Restore = new(RestoreInfo)
		return v.object(m.Restore)
	}
	return head(key, v, &m.Type, &m.ID)
}

func (m *CreateOptions) field(key string, v value) error {
	switch key {
	case "backend":
		return v.raw(&m.Backend)
	case "expectedInputs":
		return v.raw(&m.ExpectedInputs)
	case "expectedOutputs":
		return v.raw(&m.ExpectedOutputs)
	case "tools":
		return v.raw(&m.Tools)
	case "toolUseConfig":
		if v.null() {
			m.ToolUseConfig = nil
			return nil
		}
		m.ToolUseConfig = new(ToolUseConfig)
		return v.object(m.ToolUseConfig)
	case "samplingMode":
		return v.str(&m.SamplingMode)
	case "temperature":
		return v.raw(&m.Temperature)
	case "topK":
		return v.raw(&m.TopK)
	case "toolChoice":
		return v.raw(&m.ToolChoice)
	case "mcpServers":
		return v.raw(&m.MCPServers)
	case "keepReasoning":
		return v.bool(&m.KeepReasoning)
	case "compactOnOverflow":
		return compactConfig(v, &m.CompactOnOverflow, "compactOnOverflow")
	}
	return nil
}

// compactConfig reads compaction's rules with their defaults; null leaves them absent.
// A negative keepTurns is a TypeError naming where it was given (what).
func compactConfig(v value, into **CompactConfig, what string) error {
	if v.null() {
		return nil
	}
	c := &CompactConfig{KeepTurns: DefaultKeepTurns, DropResults: true}
	*into = c
	if err := v.object(c); err != nil {
		return err
	}
	if c.KeepTurns < 0 {
		return session.Errorf(session.KindType, errBadOption, "%s.keepTurns must not be negative", what)
	}
	return nil
}

func (m *CompactConfig) field(key string, v value) error {
	b := &m.Summarize
	switch key {
	case "keepTurns":
		return v.int(&m.KeepTurns)
	case "dropToolResults":
		b = &m.DropResults
	case "summarize":
	default:
		return nil
	}
	return v.bool(b)
}

func (m *ToolUseConfig) field(key string, v value) error {
	switch key {
	case "enabled":
		return v.boolPtr(&m.Enabled)
	case "maxToolCalls":
		return v.int(&m.MaxToolCalls)
	case "maxRepeatedCalls":
		if v.null() {
			return nil
		}
		m.MaxRepeatedCalls = new(int)
		return v.int(m.MaxRepeatedCalls)
	case "maxTokens":
		return v.int(&m.MaxTokens)
	case "parallel":
		return v.boolPtr(&m.Parallel)
	case "onLimit":
		return v.str(&m.OnLimit)
	case "approve":
		return v.int64(&m.Approve)
	case "toolSearch":
		return v.raw(&m.ToolSearch)
	}
	return nil
}

func (m *PromptRequest) field(key string, v value) error {
	switch key {
	case "session":
		return v.int64(&m.Session)
	case "input":
		return v.raw(&m.Input)
	case "stream":
		return v.bool(&m.Stream)
	case "responseConstraint":
		return v.raw(&m.ResponseConstraint)
	case "omitResponseConstraintInput":
		return v.bool(&m.OmitResponseConstraintInput)
	case "toolChoice":
		return v.raw(&m.ToolChoice)
	case "activeTools":
		return v.raw(&m.ActiveTools)
	}
	return head(key, v, &m.Type, &m.ID)
}

func (m *InputRequest) field(key string, v value) error {
	switch key {
	case "session":
		return v.int64(&m.Session)
	case "input":
		return v.raw(&m.Input)
	case "packed":
		return v.bool(&m.Packed)
	}
	return head(key, v, &m.Type, &m.ID)
}

func (m *CloneRequest) field(key string, v value) error {
	switch key {
	case "session":
		return v.int64(&m.Session)
	case "clone":
		return v.int64(&m.Clone)
	case "compact":
		return compactConfig(v, &m.Compact, "compact")
	}
	return head(key, v, &m.Type, &m.ID)
}

func (m *AbortMessage) field(key string, v value) error {
	switch key {
	case "type":
		return v.str(&m.Type)
	case "target":
		return v.int64(&m.Target)
	}
	return nil
}

func (m *PageReturn) field(key string, v value) error {
	switch key {
	case "value":
		return v.raw(&m.Value)
	case "error":
		if v.null() {
			m.Error = nil
			return nil
		}
		m.Error = new(WireError)
		return v.object(m.Error)
	case "status":
		return v.int(&m.Status)
	case "headers":
		if v.null() {
			return nil
		}
		m.Headers = map[string]string{}
		return v.object(headers(m.Headers))
	case "data":
		return v.str(&m.Data)
	}
	return head(key, v, &m.Type, &m.ID)
}

// headers reads an object of strings.
type headers map[string]string

func (h headers) field(key string, v value) error {
	var s string
	if err := v.str(&s); err != nil {
		return err
	}
	h[key] = s
	return nil
}

func (m *WireError) field(key string, v value) error {
	switch key {
	case "name":
		return v.str(&m.Name)
	case "message":
		return v.str(&m.Message)
	case "fields":
		if v.null() {
			m.Fields = nil
			return nil
		}
		m.Fields = new(ErrorExtra)
		return v.object(m.Fields)
	}
	return nil
}

func (m *ErrorExtra) field(key string, v value) error {
	switch key {
	case "requested":
		return v.int(&m.Requested)
	case "quota":
		return v.int(&m.Quota)
	case "transcript":
		return v.raw(&m.Transcript)
	}
	return nil
}

func (m *ToolProgress) field(key string, v value) error {
	if key == "value" {
		return v.raw(&m.Value)
	}
	return head(key, v, &m.Type, &m.ID)
}

func (m *ListenMessage) field(key string, v value) error {
	switch key {
	case "type":
		return v.str(&m.Type)
	case "session":
		return v.int64(&m.Session)
	case "event":
		return v.str(&m.Event)
	}
	return nil
}
