package loop

import (
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/session"
)

// AppendJSON appends the request as plain data, what the session asks of the model and
// never how a backend sends it (no API key, no header, no URL):
//
//	{"messages": [...], "tools": [{name, description, inputSchema}], "toolChoice": "auto",
//	 "responseConstraint": {...}, "samplingMode": "balanced"}
//
// messages are in the draft-PR form that session.history exports; tools,
// responseConstraint and samplingMode are omitted when absent; toolChoice is a string,
// or {"type": "tool", "name": …}. A page's generate receives it (loop/custom), a
// recording keeps it (loop/record), and the scripted backend's strict replay compares it
// with the recorded one.
func (r *Request) AppendJSON(b []byte) []byte {
	b = append(append(b, `{"messages":`...), session.MarshalMessages(r.Messages)...)
	if len(r.Tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i, t := range r.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonv.AppendString(append(b, `{"name":`...), t.Name)
			b = jsonv.AppendString(append(b, `,"description":`...), t.Description)
			b = append(append(b, `,"inputSchema":`...), t.InputSchema...)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"toolChoice":`...)
	switch r.ToolChoice.Mode {
	case "", "auto":
		b = append(b, `"auto"`...)
	case "tool":
		b = jsonv.AppendString(append(b, `{"type":"tool","name":`...), r.ToolChoice.Name)
		b = append(b, '}')
	default:
		b = jsonv.AppendString(b, r.ToolChoice.Mode)
	}
	if len(r.ResponseConstraint) > 0 {
		b = append(append(b, `,"responseConstraint":`...), r.ResponseConstraint...)
	}
	if r.SamplingMode != "" {
		b = jsonv.AppendString(append(b, `,"samplingMode":`...), r.SamplingMode)
	}
	return append(b, '}')
}

// AppendJSON appends u as {"inputTokens", "outputTokens"}, with "cachedTokens" when the
// backend reported them.
func (u Usage) AppendJSON(b []byte) []byte {
	b = strconv.AppendInt(append(b, `{"inputTokens":`...), int64(u.InputTokens), 10)
	b = strconv.AppendInt(append(b, `,"outputTokens":`...), int64(u.OutputTokens), 10)
	if u.Cached {
		b = strconv.AppendInt(append(b, `,"cachedTokens":`...), int64(u.CachedTokens), 10)
	}
	return append(b, '}')
}
