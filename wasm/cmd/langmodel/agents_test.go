//go:build !js

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/browsertest"
)

// TestNode_SessionsAsTools plays the scenario rows of sessions as tools (js/agents.js)
// under Node, through js/language-model.node.js and the real module: the face composes
// sessions with nothing of a browser's.
func TestNode_SessionsAsTools(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	n := 0
	for _, sc := range scenarios {
		if !strings.HasPrefix(sc.name, "sessions as tools:") {
			continue
		}
		n++
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", `
				const [face, wasm, wasmExec] = process.argv.slice(1);
				globalThis.lm = await import(face);
				globalThis.LLM = "http://127.0.0.1:9"; // no replay server: these rows use none
				await lm.install({ wasm, wasmExec });
				console.log(JSON.stringify(await (async () => {`+common+sc.js+`})()));
				process.exit(0);`, "file://"+face, moduleWasm, browsertest.WasmExecJS(t))
			cmd.Env = os.Environ()
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			requireJSON(t, sc.want, decodeLast(t, out))
		})
	}
	require.Equal(t, 10, n, "the rows of sessions as tools")
}
