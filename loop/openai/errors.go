package openai

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"langmodel/session"
)

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// statusError turns a non-2xx answer into an error the page can act on: the status and the
// server's own message (OpenAI's {"error":{"message"}}, Ollama's {"error":"…"}, or the text),
// with the API key redacted. 401 and 403 are NotAllowedError; the rest OperationError.
func (m *Model) statusError(resp *Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := serverMessage(body)
	if msg == "" {
		msg = "no details in the answer"
	}
	kind := session.KindOperation
	if resp.Status == 401 || resp.Status == 403 {
		kind = session.KindNotAllowed
	}
	return session.Errorf(kind, session.ErrModel, "the server answered %s: %s", strconv.Itoa(resp.Status), m.redact(msg))
}

func serverMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case v.Detail != "":
			return v.Detail
		}
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	return text
}

// redact removes the API key from text a server or transport produced. Servers echo keys
// in "incorrect API key" messages; the page's error must not carry it.
func (m *Model) redact(text string) string {
	key := m.cfg.APIKey
	if len(key) < 4 {
		return text
	}
	text = strings.ReplaceAll(text, key, "[redacted]")
	// Masked echoes ("sk-abc1****wxyz") keep a prefix of the key: drop those too.
	if len(key) >= 12 {
		text = strings.ReplaceAll(text, key[:8], "[redacted]")
		text = strings.ReplaceAll(text, "*"+key[len(key)-4:], "*[redacted]")
	}
	return text
}
