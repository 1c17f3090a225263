//go:build !js

package moduletest

// The chaos suite's configuration, which the wazero and browser suites share: the seeds
// (fixed, fresh and CHAOS_SEED's), how many steps each plays, and what chaos.js reports.

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

const ChaosKey = "sk-chaos-7f3a9c1e5b2d4086"

// ChaosConfig reads CHAOS_SEED (comma-separated seeds, or "random"), CHAOS_RUNS (how many
// random seeds) and CHAOS_STEPS. Without CHAOS_SEED it plays the fixed seeds (chaosFixed)
// and the fresh ones make test draws (CHAOS_FRESH, comma-separated), so that every run also
// looks where no run has looked (that is how the worker-mode races were found); fresh is how many of seeds those are.
func ChaosConfig(t *testing.T) (seeds []uint32, steps, fresh int) {
	steps = 40
	if s := os.Getenv("CHAOS_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "CHAOS_STEPS")
		steps = n
	}
	switch env := os.Getenv("CHAOS_SEED"); env {
	case "":
		for _, f := range chaosFixed {
			seeds = append(seeds, f.seed)
		}
		for _, f := range strings.Split(os.Getenv("CHAOS_FRESH"), ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			n, err := strconv.ParseUint(f, 10, 32)
			require.NoError(t, err, "CHAOS_FRESH")
			seeds = append(seeds, uint32(n))
			fresh++
		}
		return seeds, steps, fresh
	case "random":
		runs := 8
		if s := os.Getenv("CHAOS_RUNS"); s != "" {
			n, err := strconv.Atoi(s)
			require.NoError(t, err, "CHAOS_RUNS")
			runs = n
		}
		base := uint32(time.Now().UnixNano())
		for i := range runs {
			seeds = append(seeds, base+uint32(i)*2654435761)
		}
		return seeds, steps, 0
	default:
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
			require.NoError(t, err, "CHAOS_SEED")
			seeds = append(seeds, uint32(n))
		}
		return seeds, steps, 0
	}
}

// ChaosReport is what chaos.js's run() returns.
type ChaosReport struct {
	Violations []string       `json:"violations"`
	Counts     map[string]any `json:"counts"`
	// Sequence is, in worker mode, the order in which the page saw the module's messages
	// (sequence.js): what CHAOS_REPLAY reads back.
	Sequence jsonv.RawMessage `json:"sequence"`
	// Diverged says where a replay could not follow its recording (a step that went
	// otherwise): those steps ran free.
	Diverged string `json:"diverged"`
}

// chaosFixed are the seeds every run plays without CHAOS_SEED, each with the steps it
// needs at least: 1 and 2, and 3795455276, whose step 54 (closed loop, text protocol,
// maxToolCalls 3: call:nosuch|502ra+502ra+503+dup2:ok|text) made the server answer the
// text protocol's repair round with the next step of the plan, so the loop saw four
// calls where the page counted three; and 4007065555, whose step 9 (closed,
// onLimit "error": call2:slow|dup2:slow|text) asks for one call four times, which
// maxRepeatedCalls' default stops, where the page expected an answer.
var chaosFixed = []struct {
	seed  uint32
	steps int
}{{1, 0}, {2, 0}, {3795455276, 55}, {4007065555, 0}}

// ChaosSteps is how many steps seed plays: steps, or more for a fixed seed that needs them.
func ChaosSteps(seed uint32, steps int) int {
	for _, f := range chaosFixed {
		if f.seed == seed {
			return max(steps, f.steps)
		}
	}
	return steps
}
