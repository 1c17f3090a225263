//go:build !js

package node

// install({worker: true}) under Node, which has no Worker.

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorker_Node: Node has no Worker, and install({worker: true}) says so.
func TestWorker_Node(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	cmd := exec.Command(node, "--input-type=module", "-e", `
		const { install } = await import(process.argv[1]);
		const r = await install({ worker: true }).then(() => "installed", (e) => e.name + ": " + e.message);
		console.log(r);`, "file://"+face)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "NotSupportedError: install({worker: true}) needs the Worker API, which this environment does not have (in Node, install() without worker).\n", string(out))
}
