//go:build !js

package wazero

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/moduletest"
)

func TestModule_Recording(t *testing.T) {
	moduletest.RequireJSON(t, moduletest.RecordWant, moduletest.PlayModule(t, "", moduletest.RecordJS))
}

// TestModule_RecordingVersions replays, strictly, every recording the project has kept,
// one per version of the format (testdata/recordings: a closed-loop turn recorded
// against the openai test server), in the real module under wazero: a recording made
// by one version must replay in every later one.
func TestModule_RecordingVersions(t *testing.T) {
	files, err := filepath.Glob("testdata/recordings/v*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rec, err := os.ReadFile(f)
			require.NoError(t, err)
			h := moduletest.NewHost(t)
			h.Set("REC", string(rec))
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			v, err := h.Eval(ctx, `
				const s = await lm.LanguageModel.create({ initialPrompts: [{ role: "system", content: "You are brief." }],
					tools: [{ name: "get_weather", description: "Weather in a city", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, execute: async (a) => "21°C in " + a.city }],
					backend: { ...JSON.parse(REC), strict: true } });
				return [await s.prompt("Weather in Paris?"), s.contextUsage];`)
			require.NoError(t, err)
			moduletest.RequireJSON(t, `["Sunny in Paris, 21°C.",53]`, v)
		})
	}
}

// TestModule_RecordingBackends: record wraps any backend given as data or with the
// page's functions (a custom generate), the default when it names none, and refuses
// what it cannot send (a gguf model's wllama module); a recording of a later version is
// refused by the scripted backend.
func TestModule_RecordingBackends(t *testing.T) {
	moduletest.RequireJSON(t, `{"default":["You said: hi",1],"custom":["from custom",[["from custom"]]],
		"gguf":"TypeError: a function cannot be sent to the language model",
		"v2":"TypeError: invalid backend: scripted backend: version must be 1 (a recording this module reads)"}`, moduletest.PlayModule(t, "", `
		const { LanguageModel } = lm;
		const caught = (p) => p.then(() => "created", (e) => e.name + ": " + e.message);
		const d = await LanguageModel.create({ backend: { kind: "record" } });
		const c = await LanguageModel.create({ backend: { kind: "record", backend: { kind: "custom", generate: () => "from custom" } } });
		return {
			default: [(await d.prompt("hi")).split("\n")[0], d.recording().turns.length],
			custom: [await c.prompt("hi"), c.recording().turns.map((t) => t.chunks)],
			gguf: await caught(LanguageModel.create({ backend: { kind: "record", backend: { kind: "gguf", model: "x.gguf", wllama: { Wllama: function () {}, CacheManager: function () {} }, paths: { default: "x" } } } })),
			v2: await caught(LanguageModel.create({ backend: { kind: "scripted", version: 2, turns: [] } })),
		};`))
}
