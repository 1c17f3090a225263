//go:build !js

package node

import (
	"context"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
	"langmodel/internal/testing/replay"
)

// TestNode_Scenarios plays the whole scenario table under Node (20 or later), through
// js/language-model.node.js and the real module, as the wazero host and the browsers
// play it: the package's node export must do what a page's does, for every feature the
// table holds (tool search, compaction, forming calls, reasoning, approvals, chains,
// sessions as tools…), the two rows of the DOM's media types aside. Each row runs in a
// Node of its own (a row's setup runs before install(), as in a page), against one
// replay server for the openai rows.
func TestNode_Scenarios(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	wasmExec := browsertest.WasmExecJS(t)
	llm := httptest.NewServer(&replay.Server{Split: 64, Pause: time.Millisecond})
	t.Cleanup(llm.Close)
	dom := 0
	for _, sc := range moduletest.AllScenarios() {
		if sc.DOM {
			dom++ // the browsers play it: Node has no document nor AudioBuffer
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", `
				const [face, wasm, wasmExec, llm] = process.argv.slice(1);
				globalThis.LLM = llm;
				globalThis.lm = await import(face);
				`+sc.Setup+`
				await lm.install({ wasm, wasmExec });
				console.log(JSON.stringify(await (async () => {`+moduletest.Common+sc.JS+`})()));
				process.exit(0);`, "file://"+face, moduletest.ModuleWasm, wasmExec, llm.URL)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			moduletest.RequireJSON(t, sc.Want, decodeLast(t, out))
		})
	}
	require.Equal(t, 2, dom, "the rows only a browser plays (a new one: is it really the DOM's?)")
}
