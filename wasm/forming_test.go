package wasm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
)

// TestFormingDetail: whatever the model wrote, the toolcalldelta detail is JSON the page
// can read, and arguments is an object or null.
func TestFormingDetail(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    loop.Forming
		want string
	}{
		{"arguments cut short are closed", loop.Forming{CallID: "c1", Name: "get_weather", Arguments: `{"city": "Par`},
			`{"callID":"c1","name":"get_weather","argumentsText":"{\"city\": \"Par","arguments":{"city":"Par"},"dropped":false}`},
		{"no text yet is null", loop.Forming{CallID: "c1", Name: "t"},
			`{"callID":"c1","name":"t","argumentsText":"","arguments":null,"dropped":false}`},
		{"text that is no object is null", loop.Forming{CallID: "c1", Name: "t", Arguments: `"{\"a\":1}"`},
			`{"callID":"c1","name":"t","argumentsText":"\"{\\\"a\\\":1}\"","arguments":null,"dropped":false}`},
		{"hostile text stays text", loop.Forming{CallID: "\"}", Name: "t", Arguments: "{\"a\": \"\u2028</script>\xff"},
			`{"callID":"\"}","name":"t","argumentsText":"{\"a\": \"\u2028</script>\ufffd","arguments":{"a":"\u2028</script>\ufffd"},"dropped":false}`},
		{"a drop", loop.Forming{CallID: "c1", Name: "t", Dropped: true},
			`{"callID":"c1","name":"t","argumentsText":"","arguments":null,"dropped":true}`},
		{"text past the bound is not closed", loop.Forming{CallID: "c1", Name: "t", Arguments: `{"a": "` + strings.Repeat("x", maxPartialArguments)},
			`{"callID":"c1","name":"t","argumentsText":"{\"a\": \"` + strings.Repeat("x", maxPartialArguments) + `","arguments":null,"dropped":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := eventDetail(loop.Event{Type: loop.EventToolCallDelta, Forming: &tc.f})
			require.True(t, json.Valid(got), "%s", got)
			require.JSONEq(t, tc.want, string(got))
		})
	}
}
