//go:build !js

package moduletest

// The hostile-server property test's configuration, which the wazero and browser suites
// share: the acts make test plays (HostileOn), and HOSTILE_ACTS, HOSTILE_SEED and HOSTILE_STEPS.

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/chaos"
)

// HostileConfig reads HOSTILE_ACTS (comma-separated; "all"; "each": every act alone, a
// run each; "none"), HOSTILE_SEED (seeds, comma-separated) and HOSTILE_STEPS. Without
// HOSTILE_SEED it plays seed 1 and one fresh seed, named in the failure.
func HostileConfig(t *testing.T) (sets [][]string, seeds []uint32, steps int) {
	sets = [][]string{hostileOn}
	switch env := os.Getenv("HOSTILE_ACTS"); env {
	case "":
	case "all":
		sets = [][]string{chaos.Acts}
	case "each":
		sets = nil
		for _, a := range chaos.Acts {
			sets = append(sets, []string{a})
		}
	case "none":
		sets = [][]string{{}}
	default:
		var acts []string
		for _, a := range strings.Split(env, ",") {
			a = strings.TrimSpace(a)
			require.Contains(t, chaos.Acts, a, "HOSTILE_ACTS")
			acts = append(acts, a)
		}
		sets = [][]string{acts}
	}
	steps = 12
	if s := os.Getenv("HOSTILE_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "HOSTILE_STEPS")
		steps = n
	}
	if env := os.Getenv("HOSTILE_SEED"); env != "" {
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
			require.NoError(t, err, "HOSTILE_SEED")
			seeds = append(seeds, uint32(n))
		}
		return sets, seeds, steps
	}
	return sets, []uint32{1, uint32(time.Now().UnixNano())}, steps
}

// hostileOn are the hostile acts (internal/testing/chaos/hostile.go) TestModule_Hostile plays
// unless HOSTILE_ACTS names others: those the module holds against, every one since
// the trust work's fixes (docs/security.md; they failed on e75d67b):
//
//	swap      approval: b's destructive wipe ran as b__wipe, approved as a's read-only one
//	flip      approval: a's note ran destructive under the yes given to it read-only
//	echo      secrets: a server's echo of a secret in results, descriptions, progress,
//	          errors, and the model's errors, reached the history, events, errors,
//	          snapshot, recording and model request bodies
//	query     secrets: a token in an MCP URL's query reached errors
//	flood     bounds: list_changed re-listed without bound
//	oversize  bounds: events and tools/list pages without a total bound; an event over
//	          the limit read to its end
//	redirect  origins: a 307 was followed to another origin
//	stall     (held already: a stalled server or model times out or is aborted)
//
// and those of the redactor's decoding, whole-output cleaning, MCP's consent defaults,
// names by position, server text as data and the bound on a whole call (they failed on
// edebb56):
//
//	reencode     secrets: an echo \u-escaped byte by byte, with \/, percent-encoded byte
//	             by byte, in MIME base64 or in JSON in a string reached the page and the model
//	idname       secrets: the apiKey as a call's id or tool name reached the history and
//	             snapshot()
//	unannotated  approval: a tool without annotations ran without approve
//	squat        names: b's a__note made create() fail (and, re-listed, took a's name)
//	forge        forge: a description made a tool_result block in the system prompt
//	endless      bounds: a tools/call answered by progress alone never ended
var hostileOn = chaos.Acts
