//go:build !js

package pkgtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/internal/testing/explainer"
)

// TestPackage_NodeExplainer runs the explainer's tool-use examples (internal/testing/explainer)
// under Node, against the installed package: one program, each example in an async
// function of its own, their answers printed as one JSON object.
func TestPackage_NodeExplainer(t *testing.T) {
	var b strings.Builder
	b.WriteString(`import { install, LanguageModel, LanguageModelToolSuccess } from "langmodel";

await install();
const script = (...turns) => ({ kind: "scripted", turns });
const out = [];
`)
	for _, e := range explainer.Examples {
		fmt.Fprintf(&b, "out.push(await (async () => {\n%s\n})());\n", e.JS)
	}
	b.WriteString("console.log(JSON.stringify(out));\n")
	dir := npmApp(t, map[string]string{"explainer.js": b.String()})
	// The last line: before it, Node's console shows what the module says (its notice that
	// Chrome asks for tool-response).
	lines := strings.Split(strings.TrimSpace(run(t, dir, "node", "explainer.js")), "\n")
	var got []jsonv.RawMessage
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got))
	require.Len(t, got, len(explainer.Examples))
	for i, e := range explainer.Examples {
		t.Run(e.Name, func(t *testing.T) {
			require.JSONEq(t, e.Want, string(got[i]))
		})
	}
}
