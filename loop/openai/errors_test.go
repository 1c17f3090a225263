package openai

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The message shown for an error body: error.message, error as a string, message, or
// detail, keys in any case, the last of a repeated one; a body with none of them as a
// string shows its text, trimmed and cut at 300 bytes.
func TestServerMessage(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"OpenAI: error.message", `{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, `Incorrect API key`},
		{"Ollama: error as a string", `{"error":"model \"llama9\" not found"}`, `model "llama9" not found`},
		{"a top-level message", `{"message":"nope"}`, `nope`},
		{"AWS's capitalised Message", `{"Message":"User is not authorized"}`, `User is not authorized`},
		{"FastAPI's detail string", `{"detail":"Not Found"}`, `Not Found`},
		{"FastAPI's validation detail, an array: the text", `{"detail":[{"loc":["body","model"],"msg":"field required","type":"value_error.missing"}]}`, `{"detail":[{"loc":["body","model"],"msg":"field required","type":"value_error.missing"}]}`},
		{"a message that is not a string: the text", `{"error":{"message":"x"},"message":5}`, `{"error":{"message":"x"},"message":5}`},
		{"an error message that is a number", `{"error":{"message":5},"message":"top"}`, `top`},
		{"an error that is an object without message", `{"error":{"code":5},"detail":"d"}`, `d`},
		{"an empty error message", `{"error":{"message":""},"message":"top"}`, `top`},
		{"an error that is null", `{"error":null,"detail":"d"}`, `d`},
		{"an error that is an array", `{"error":[1],"message":"m"}`, `m`},
		{"keys in capitals match", `{"ERROR":{"MESSAGE":"caps"}}`, `caps`},
		{"a repeated message: the last", `{"message":"a","Message":"b"}`, `b`},
		{"a repeated error: the last", `{"error":{"message":"a"},"error":"b"}`, `b`},
		{"null: the text", `null`, `null`},
		{"a JSON string: the text", `"just text"`, `"just text"`},
		{"plain text, trimmed", "upstream exploded\n", `upstream exploded`},
		{"HTML: the text", `<html><body>502 Bad Gateway</body></html>`, `<html><body>502 Bad Gateway</body></html>`},
		{"empty: nothing", ``, ``},
		{"long text is cut at 300 bytes", strings.Repeat("é", 200), strings.Repeat("é", 150) + "…"},
		{"broken JSON: the text", `{"error":{"message":"x"}`, `{"error":{"message":"x"}`},
		{"escapes read", `{"error":{"message":"a\u00e9\n\"b\""}}`, "aé\n\"b\""},
		{"invalid UTF-8 replaced", "{\"error\":\"a\xffb\"}", "a�b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, serverMessage([]byte(tc.body)))
		})
	}
}
