package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
)

// TestEventDetail_StepUsageCachedTokens: a stepusage event's detail has cachedTokens when
// the backend reported the prompt tokens it had cached (none included), and not otherwise.
func TestEventDetail_StepUsageCachedTokens(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    loop.StepUsage
		want string
	}{
		{"reported", loop.StepUsage{InputTokens: 228, OutputTokens: 4, CachedTokens: 179, Cached: true, ToolCalls: 1},
			`{"inputTokens":228,"outputTokens":4,"estimated":false,"cachedTokens":179,"toolCalls":1,"duration":0}`},
		{"reported as none", loop.StepUsage{InputTokens: 179, OutputTokens: 4, Cached: true},
			`{"inputTokens":179,"outputTokens":4,"estimated":false,"cachedTokens":0,"toolCalls":0,"duration":0}`},
		{"not reported", loop.StepUsage{InputTokens: 179, OutputTokens: 4},
			`{"inputTokens":179,"outputTokens":4,"estimated":false,"toolCalls":0,"duration":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, string(eventDetail(loop.Event{Type: loop.EventStepUsage, Step: &tc.u})))
		})
	}
}
