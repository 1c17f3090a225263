//go:build !js

// Package mcpconformance holds the module's MCP client to the official MCP conformance
// suite (@modelcontextprotocol/conformance, pinned in internal/npm): every client
// scenario, the module under Node through the package's node export, against a
// baseline of the scenarios it does not pass yet (testdata/baseline.yml).
package mcpconformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// TestMain builds the module once for the suite (moduletest.Main).
func TestMain(m *testing.M) { moduletest.Main(m) }

// suite is the conformance CLI, installed by make deps.
const suite = "../../npm/node_modules/@modelcontextprotocol/conformance/dist/index.js"

// TestMCPConformance_Client runs every client scenario of the official suite, side by
// side, each against the module in a Node process of its own (testdata/client.mjs). The
// suite itself fails the run when a scenario fails that testdata/baseline.yml does not
// list, or passes although the baseline lists it (the baseline only shrinks). The
// scenarios' results are logged, a line each.
func TestMCPConformance_Client(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 or later is needed for the tests")
	_, err = os.Stat(suite)
	require.NoError(t, err, "the conformance suite is not installed: run make deps")
	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	out := t.TempDir()
	// --import node20.mjs: the CLI wants Node 22's fs.globSync (testdata/node20.mjs).
	cmd := exec.CommandContext(t.Context(), node, "--import", "./node20.mjs", "../"+suite,
		"client", "--suite", "all", "--command", "node client.mjs", "--timeout", "30000",
		"--expected-failures", "baseline.yml", "--output-dir", out)
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "FACE="+face, "WASM="+moduletest.ModuleWasm, "WASM_EXEC="+browsertest.WasmExecJS(t))
	report, err := cmd.CombinedOutput()
	results := scenarioResults(t, out)
	for _, r := range results {
		t.Logf("%-50s %s", r.name, r.verdict)
	}
	require.NoError(t, err, "the conformance suite (its report: %s)", report)
	require.GreaterOrEqual(t, len(results), 26, "every client scenario ran: %s", report)
}

type result struct{ name, verdict string }

// scenarioResults reads each scenario's checks.json under dir: a scenario passes when
// none of its checks failed and at least one succeeded (as the suite counts it).
func scenarioResults(t *testing.T, dir string) []result {
	t.Helper()
	var out []result
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var checks []struct {
			ID, Status, ErrorMessage string
		}
		if err := json.Unmarshal(data, &checks); err != nil {
			return err
		}
		passed, failed := 0, []string{}
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				passed++
			case "FAILURE":
				failed = append(failed, strings.TrimSuffix(c.ID+": "+c.ErrorMessage, ": "))
			}
		}
		verdict := "pass"
		if len(failed) > 0 || passed == 0 {
			verdict = "fail " + strings.Join(failed, "; ")
		}
		// The suite names a scenario's folder <scenario>-<ISO time, ':' and '.' as '-'>.
		name, _ := filepath.Rel(dir, filepath.Dir(path))
		if at := strings.LastIndex(name, "-20"); at > 0 {
			name = name[:at]
		}
		out = append(out, result{filepath.ToSlash(name), verdict})
		return nil
	})
	require.NoError(t, err)
	slices.SortFunc(out, func(a, b result) int { return strings.Compare(a.name, b.name) })
	return out
}
