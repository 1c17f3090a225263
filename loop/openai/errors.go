package openai

import (
	"io"
	"strconv"
	"strings"

	"langmodel/loop/internal/fetchport"
	"langmodel/session"
)

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// statusError turns a non-2xx answer into an error the page can act on: the status and the
// server's own message (OpenAI's {"error":{"message"}}, Ollama's {"error":"…"}, or the text),
// with the API key redacted. 401 and 403 are NotAllowedError; the rest OperationError.
func (m *Model) statusError(resp *Response) error {
	body, _ := fetchport.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := serverMessage(body)
	if msg == "" {
		msg = "no details in the answer"
	}
	kind := session.KindOperation
	if resp.Status == 401 || resp.Status == 403 {
		kind = session.KindNotAllowed
	}
	return session.Errorf(kind, session.ErrModel, "the server answered %s: %s", strconv.Itoa(resp.Status), m.red.String(msg))
}

// serverMessage is the message in an error body, or the body's text (trimmed, cut at
// 300 bytes) when it carries none.
func serverMessage(body []byte) string {
	if msg := bodyMessage(body); msg != "" {
		return msg
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	return text
}

// bodyMessage reads the message of a JSON error body: error.message (OpenAI, vLLM,
// llama.cpp), error as a string (Ollama), message, or detail (FastAPI servers), in that
// order; "" when there is none. It reads the body as encoding/json's Unmarshal read it
// into struct{Error jsonv.RawMessage; Message, Detail string} before, so a body whose
// message or detail is not a string (FastAPI's validation errors: "detail": [...]) gives
// "" and its text is shown instead, as it was.
func bodyMessage(body []byte) string {
	var errValue []byte
	var message, detail string
	ok := readObject(body, func(r *reader, key memberKey, depth int) {
		switch {
		case key.Is("error"):
			errValue = r.Raw(depth)
		case key.Is("message"):
			r.stringField(&message, false, "", "message", depth)
		case key.Is("detail"):
			r.stringField(&detail, false, "", "detail", depth)
		default:
			r.Skip(depth)
		}
	})
	if !ok {
		return ""
	}
	if msg := errorMessage(errValue); msg != "" {
		return msg
	}
	if s, ok := readString(errValue); ok && s != "" {
		return s
	}
	if message != "" {
		return message
	}
	return detail
}

// errorMessage is the message of an "error" object ({"message": …}), or "" when the value
// is no such object (as encoding/json's Unmarshal into struct{Message string} failed).
func errorMessage(value []byte) string {
	var message string
	ok := readObject(value, func(r *reader, key memberKey, depth int) {
		if key.Is("message") {
			r.stringField(&message, false, "error", "message", depth)
		} else {
			r.Skip(depth)
		}
	})
	if !ok {
		return ""
	}
	return message
}
