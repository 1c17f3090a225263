//go:build !js

package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// engineRow is one line of README's browser table: a body run in each engine after
// common, and what it must return. Where an engine differs on purpose, want holds its
// answer under its name, and cell says how the table words it.
type engineRow struct {
	what string
	js   string
	want map[browsertest.Engine]string // JSON, by engine; "" for every engine
	cell func(got string) string       // the table's words for an answer; nil: "yes"
}

func (r engineRow) wantFor(e browsertest.Engine) string {
	if w, ok := r.want[e]; ok {
		return w
	}
	return r.want[""]
}

func every(want string) map[browsertest.Engine]string { return map[browsertest.Engine]string{"": want} }

// media prompts with one image or audio value that make() returns, and reports how it
// crossed: the MIME type, the format by its first bytes, and a PNG's size.
const media = `
const media = async (type, make) => {
	const s = await LanguageModel.create({ backend: script({ text: "ok" }), expectedInputs: [{ type }] });
	await s.prompt([{ role: "user", content: [{ type, value: await make() }] }]);
	const v = s.history[0].content[0].value;
	const bytes = Uint8Array.from(atob(v.base64), (c) => c.charCodeAt(0));
	const magic = String.fromCharCode(...bytes.slice(0, 4)).replace(/[^A-Z]/g, "");
	const size = magic === "PNG" && bytes.length >= 24 ? " " + new DataView(bytes.buffer).getUint32(16) + "x" + new DataView(bytes.buffer).getUint32(20) : "";
	return (v.mimeType ?? "no type") + " " + magic + size;
};
const canvas = () => {
	const c = document.createElement("canvas");
	c.width = 4; c.height = 3;
	const g = c.getContext("2d");
	g.fillStyle = "red"; g.fillRect(0, 0, 4, 3);
	return c;
};
`

var tableRows = []engineRow{
	{what: "import, `install()`, `availability()`", js: `return await LanguageModel.availability();`, want: every(`"available"`)},
	{what: "closed loop: a tool with `execute`, events, history", js: `
		const events = [];
		const s = await LanguageModel.create({ backend: script({ calls: [{ name: "weather", arguments: { city: "Oslo" } }] }, { text: "Sunny." }), tools: [weather(({ city }) => "sun in " + city)] });
		for (const name of ["toolcall", "toolresult"]) s.addEventListener(name, (e) => events.push(name));
		const answer = await s.prompt("weather?");
		return { answer, events, roles: s.history.map((m) => m.role) };`,
		want: every(`{"answer":"Sunny.","events":["toolcall","toolresult"],"roles":["user","tool-call","tool-result","assistant"]}`)},
	{what: "open loop: calls returned, results sent back", js: `
		const s = await LanguageModel.create({
			backend: script({ calls: [{ callID: "c1", name: "weather", arguments: { city: "Oslo" } }] }, { text: "Sunny." }),
			expectedInputs: [{ type: "text" }, { type: "tool-response" }],
			expectedOutputs: [{ type: "tool-call" }], tools: [weather(undefined)],
		});
		const [call] = await s.prompt("weather?");
		const r = await s.prompt([{ role: "tool-result", content: [{ type: "tool-result", value: { callID: call.value.callID, name: "weather", result: [{ type: "text", value: "sun" }] } }] }]);
		return [call.value.name, r];`,
		want: every(`["weather",[{"type":"text","value":"Sunny."}]]`)},
	{what: "`promptStreaming()` read with `getReader()`", js: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["Hel", "lo"] }) });
		return await read(s.promptStreaming("hi"));`,
		want: every(`["Hel","lo"]`)},
	{what: "`promptStreaming()` read with `for await`", js: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["Hel", "lo"] }) });
		const out = [];
		for await (const chunk of s.promptStreaming("hi")) out.push(chunk);
		return out;`,
		want: every(`["Hel","lo"]`)},
	{what: "abort before, mid-prompt (in a tool) and mid-stream; history unchanged", js: `
		const s = await LanguageModel.create({
			backend: script({ calls: [{ name: "weather", arguments: { city: "A" } }] }, { chunks: ["a"], hang: true }),
			tools: [weather((args, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => resolve("stopped"))))],
		});
		const before = new AbortController();
		before.abort(new Error("mine"));
		const early = await s.prompt("x", { signal: before.signal }).catch((e) => e.message);
		const mid = new AbortController();
		const p = s.prompt("x", { signal: mid.signal });
		await sleep(20);
		mid.abort();
		const inTool = await caught(p);
		const stream = new AbortController();
		const reader = s.promptStreaming("x", { signal: stream.signal }).getReader();
		await reader.read();
		stream.abort();
		return [early, inTool, await caught(reader.read()), s.history.length];`,
		want: every(`["mine","AbortError","AbortError",0]`)},
	{what: "the browser's own model (`backend: {kind: \"browser\"}`)", js: `
		return [typeof installResult.native, await LanguageModel.availability({ backend: { kind: "browser" } })];`,
		want: map[browsertest.Engine]string{
			browsertest.Chromium: `["function","unavailable"]`,
			browsertest.Firefox:  `["undefined","unavailable"]`,
			browsertest.WebKit:   `["undefined","unavailable"]`,
		},
		cell: func(got string) string {
			if strings.HasPrefix(got, `["function"`) {
				return "a `LanguageModel` with no model behind it: unavailable"
			}
			return "no `LanguageModel`: unavailable"
		}},
	{what: "an in-page engine (`backend: {kind: \"engine\"}`): wllama 3.13.0, a toy GGUF, a closed loop", js: `
		const { newWllama } = await import("/wllama-harness.js");
		const engine = await newWllama("/weather.gguf");
		try {
			const s = await LanguageModel.create({ backend: { kind: "engine", engine }, tools: [getWeather((a) => "sunny in " + a.city)] });
			return [await s.prompt("What is the weather in Paris?"), s.history.length];
		} finally {
			await engine.exit(); // its worker and memory: the rows after it run in the same page
		}`, want: every(`["It is sunny in Paris.",4]`)},
	{what: "an in-page engine: `responseConstraint` held by llama.cpp's grammar while decoding", js: `
		const { newWllama } = await import("/wllama-harness.js");
		const engine = await newWllama("/hello.gguf"); // it answers "Hello from llama.cpp." to anything
		try {
			const s = await LanguageModel.create({ backend: { kind: "engine", engine } });
			const answer = JSON.parse(await s.prompt("Hi", { responseConstraint: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false } }));
			return [Object.keys(answer), typeof answer.ok];
		} finally {
			await engine.exit();
		}`, want: every(`[["ok"],"boolean"]`)},
}

// mediaRows: each kind of image and audio value a page may pass, as it crosses.
var mediaRows = []struct{ what, make, want string }{
	{"image: `Blob`", `new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: "image/png" })`, "image/png PNG"},
	{"image: `ArrayBuffer`", `new Uint8Array([0x89, 0x50, 0x4e, 0x47]).buffer`, "no type PNG"},
	{"image: `<canvas>`", `canvas()`, "image/png PNG 4x3"},
	{"image: `ImageData`", `canvas().getContext("2d").getImageData(0, 0, 4, 3)`, "image/png PNG 4x3"},
	{"image: `ImageBitmap`", `createImageBitmap(canvas())`, "image/png PNG 4x3"},
	{"image: `OffscreenCanvas`", `(() => { const o = new OffscreenCanvas(4, 3); o.getContext("2d").fillRect(0, 0, 4, 3); return o; })()`, "image/png PNG 4x3"},
	{"image: `<img>`", `(async () => { const i = new Image(); i.src = canvas().toDataURL(); await i.decode(); return i; })()`, "image/png PNG 4x3"},
	{"image: `VideoFrame`", `new VideoFrame(canvas(), { timestamp: 0 })`, "image/png PNG 4x3"},
	{"audio: `AudioBuffer`", `new AudioBuffer({ length: 8, numberOfChannels: 1, sampleRate: 8000 })`, "audio/wav RIFF"},
	{"audio: `Blob`", `new Blob([new TextEncoder().encode("RIFF")], { type: "audio/wav" })`, "audio/wav RIFF"},
}

func allEngineRows() []engineRow {
	rows := append([]engineRow(nil), tableRows...)
	for _, m := range mediaRows {
		kind, _, _ := strings.Cut(m.what, ":")
		rows = append(rows, engineRow{what: m.what, js: media + `return await media("` + kind + `", async () => ` + m.make + `);`, want: every(jsonString(m.want))})
	}
	return rows
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestBrowser_Engines plays README's browser table in each engine: what works, what
// differs, which media values cross. With $BROWSER_TABLE set it writes the table there
// as Markdown (`make browser-table` puts it into README.md).
func TestBrowser_Engines(t *testing.T) {
	rows := allEngineRows()
	var engines []*browsertest.Browser
	cells := map[browsertest.Engine][]string{}
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		engines = append(engines, b)
		p := b.Open(t, moduletest.ServeWllama(t)+"/") // serve's, and wllama with the toy models
		require.NoError(t, p.Eval(t.Context(), moduletest.BrowserPrelude, nil))
		for _, row := range rows {
			var cell string
			t.Run(row.what, func(t *testing.T) {
				var got any
				err := p.Eval(t.Context(), moduletest.Common+row.js, &got)
				raw, _ := json.Marshal(got)
				want := row.wantFor(b.Engine)
				switch {
				case err != nil:
					cell = "no: " + errText(err, "")
				case !jsonEqual(want, string(raw)):
					cell = "no: got " + string(raw)
				case row.cell != nil:
					cell = row.cell(string(raw))
				default:
					cell = "yes"
				}
				require.NoError(t, err)
				moduletest.RequireJSON(t, want, got)
			})
			cells[b.Engine] = append(cells[b.Engine], cell)
		}
	})
	if path := os.Getenv("BROWSER_TABLE"); path != "" {
		require.NoError(t, os.WriteFile(path, []byte(engineTable(rows, engines, cells)), 0o644))
		t.Logf("browser table: %s", path)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

func errText(err error, got string) string {
	if err == nil {
		return "got " + got
	}
	s := strings.TrimPrefix(err.Error(), "js: ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

// engineTable renders the rows as a Markdown table, one column per engine.
func engineTable(rows []engineRow, engines []*browsertest.Browser, cells map[browsertest.Engine][]string) string {
	var b strings.Builder
	b.WriteString("| |")
	names := map[browsertest.Engine]string{browsertest.Chromium: "Chromium", browsertest.Firefox: "Firefox ESR", browsertest.WebKit: "WebKitGTK"}
	for _, e := range engines {
		_, version, _ := strings.Cut(e.Version, "/")
		fmt.Fprintf(&b, " %s %s |", names[e.Engine], version)
	}
	b.WriteString("\n|---|")
	for range engines {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, r := range rows {
		fmt.Fprintf(&b, "| %s |", r.what)
		for _, e := range engines {
			c := "(did not run)"
			if i < len(cells[e.Engine]) {
				c = cells[e.Engine][i]
			}
			fmt.Fprintf(&b, " %s |", c)
		}
		b.WriteString("\n")
	}
	return b.String()
}
