//go:build !js

// Package demotest drives the demo page (demo/) in headless Chromium, Firefox and WebKit
// (internal/testing/browsertest; $BROWSERS picks): the real page, the
// real js/language-model.js and the real module, built once per test binary. Each test
// uses the page as a person would (types, clicks, reads what is on screen) and checks
// the session's history where the UI's claim needs proof. Screenshots go to
// $ARTIFACTS/demo (or the test's temporary directory) and are never committed.
package demotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// moduleWasm is the module, built by TestMain with the Go at hand and held in memory.
var moduleWasm []byte

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "langmodel-demo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := filepath.Join(dir, "langmodel.wasm")
	cmd := exec.Command("go", append(append([]string{"build"}, browsertest.ModuleBuildFlags()...), "-o", out, "langmodel/wasm/cmd/langmodel")...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	msg, err := cmd.CombinedOutput()
	if err == nil {
		moduleWasm, err = os.ReadFile(out)
	}
	os.RemoveAll(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the module: %v\n%s", err, msg)
		os.Exit(2)
	}
	browsertest.Main(m)
}

// serve serves the page as `make demo` does: demo/ under /demo/, js/ under /js/, and
// the module with Go's wasm_exec.js under /build/. extra handlers win.
func serve(t *testing.T, extra map[string]http.Handler) string {
	h := map[string]http.Handler{
		"/demo/": http.StripPrefix("/demo/", http.FileServer(http.Dir(".."))),
		"/js/":   http.StripPrefix("/js/", http.FileServer(http.Dir("../../js"))),
		"/build/langmodel.wasm": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.ServeContent(w, r, "langmodel.wasm", time.Time{}, bytes.NewReader(moduleWasm))
		}),
		"/build/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(t)),
	}
	maps.Copy(h, extra)
	return browsertest.Serve(t, "", h)
}

// helpers are defined in the page once it is ready: they type, click and wait as a
// user would. until gives up after 25 s, short of Eval's 30 s (browsertest.DefaultTimeout)
// so that its message names what it waited for: the thinking model's repair round in
// WebKit took 18 s on a loaded 2-core machine.
const helpers = `
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
globalThis.until = async (f, what, ms = 25000) => {
	const t0 = Date.now();
	for (;;) {
		const v = f();
		if (v) return v;
		if (Date.now() - t0 > ms) throw new Error("timed out waiting for " + what);
		await sleep(20);
	}
};
globalThis.$ = (sel) => document.querySelector(sel);
globalThis.$$ = (sel) => [...document.querySelectorAll(sel)];
// say types text and sends it; it returns once the page has taken it as a turn. That
// is a new user entry, not a busy page: WebKit drains microtasks after each event
// listener, even inside requestSubmit(), so a scripted turn with nothing to wait for
// has ended before requestSubmit() returns there.
globalThis.say = (text) => {
	const users = () => demo.state.entries.filter((e) => e.kind === "user").length;
	const before = users();
	$("#input").value = text;
	$("#composer").requestSubmit();
	if (users() !== before + 1) throw new Error("the page did not start the turn: " + text);
};
globalThis.idle = () => until(() => document.body.dataset.busy === "false", "the turn to end");
globalThis.choose = (name, value) => {
	const r = $("input[name=" + name + "][value=" + value + "]");
	r.checked = true;
	r.dispatchEvent(new Event("change", { bubbles: true }));
};
globalThis.setField = (sel, value) => {
	const e = $(sel);
	e.value = value;
	e.dispatchEvent(new Event("change", { bubbles: true }));
};
globalThis.button = (root, label) => {
	const b = [...root.querySelectorAll("button")].find((b) => b.textContent === label);
	if (!b) throw new Error("no button " + label);
	return b;
};
globalThis.cards = () => $$("#conversation .call").map((c) => ({
	tool: c.dataset.tool,
	state: [...c.classList].find((k) => k.startsWith("state-")).slice(6),
	status: c.querySelector(".call-status").textContent,
	result: c.querySelector(".call-result pre")?.textContent ?? c.querySelector(".call-error")?.textContent ?? "",
}));
globalThis.lastAssistant = () => $$("#conversation .msg.assistant").at(-1)?.textContent ?? "";
globalThis.toolResults = () => demo.session.history.filter((m) => m.role === "tool-result").map((m) => m.content[0].value);
`

// open loads the demo page in b, waits until its session is ready and defines the
// helpers.
func open(t *testing.T, b *browsertest.Browser, base string) *browsertest.Page {
	t.Helper()
	p := b.Open(t, base+"/demo/")
	require.NoError(t, p.Eval(t.Context(), `
		for (let i = 0; !globalThis.demo; i++) {
			if (i > 500) throw new Error("app.js did not run");
			await new Promise((r) => setTimeout(r, 10));
		}
		await demo.ready;`+helpers, nil))
	return p
}

// eval runs body in the page and decodes its result into a fresh T.
func eval[T any](t *testing.T, p *browsertest.Page, body string) T {
	t.Helper()
	var v T
	require.NoError(t, p.Eval(t.Context(), body, &v))
	return v
}

// shot writes a screenshot to $ARTIFACTS/demo/<engine>-<name>.png, or into the
// test's temporary directory.
func shot(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	dir := t.TempDir()
	if a := os.Getenv("ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "demo")
	}
	path := filepath.Join(dir, string(p.Engine)+"-"+name+".png")
	require.NoError(t, p.Screenshot(path))
	t.Logf("screenshot: %s", path)
}

type card struct {
	Tool, State, Status, Result string
}

// TestDemo_Loads: the page fetches the module with progress, creates a session on the
// offline demo model and is ready for input.
func TestDemo_Loads(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoLoads)
}

func demoLoads(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	type page struct {
		Progress []float64
		Loading  bool
		Backend  string
		Mode     string
		Usage    string
		Send     bool
		Examples int
		Globals  bool
	}
	got := eval[page](t, p, `return {
		progress: demo.state.loadProgress, loading: !$("#loading").hidden,
		backend: $("#backend-label").textContent, mode: $("#mode-label").textContent,
		usage: $("#usage-text").textContent, send: !$("#send").disabled,
		examples: $$("#examples .chip").length, globals: typeof LanguageModel === "function"};`)
	require.GreaterOrEqual(t, len(got.Progress), 2, "download progress: %v", got.Progress)
	require.Equal(t, 1.0, got.Progress[len(got.Progress)-1], "download progress: %v", got.Progress)
	require.False(t, got.Loading)
	require.Equal(t, "Offline demo model", got.Backend)
	require.Equal(t, "closed loop", got.Mode)
	require.Regexp(t, `^\d[\d,]* / \d[\d,]*$`, got.Usage)
	require.True(t, got.Send)
	require.Positive(t, got.Examples)
	require.True(t, got.Globals, "install() defines LanguageModel where there is none, or Chromium's reports unavailable")
	shot(t, p, "loaded")
	require.NoError(t, p.Eval(t.Context(), `$("#settings-toggle").click(); await new Promise((r) => setTimeout(r, 300));`, nil))
	shot(t, p, "settings")
}

// TestDemo_ClosedLoop: questions produce tool cards that end in success, the model's
// answer streams in, and the transcript rendered from session.history looks exactly as
// the live view.
func TestDemo_ClosedLoop(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoClosedLoop)
}

func demoClosedLoop(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	require.NoError(t, p.Eval(t.Context(), `
		say("Show me the world clock"); await idle();
		say("Calculate (17 + 25) * 3 / 2"); await idle();`, nil))
	shot(t, p, "closed-loop")
	got := eval[[]card](t, p, `
		say("Read file planets"); await idle();
		return cards();`)
	require.Len(t, got, 5)
	for i, c := range got {
		require.Equal(t, "success", c.State, "card %d: %+v", i, c)
		require.Regexp(t, `^done · [\d.]+ ms$`, c.Status, "card %d", i)
	}
	require.Equal(t, "get_current_time", got[0].Tool)
	require.Contains(t, got[0].Result, "Asia/Tokyo")
	require.Contains(t, got[2].Result, "America/New_York")
	require.Equal(t, "(17 + 25) * 3 / 2 = 63", got[3].Result)
	require.Contains(t, got[4].Result, `"Neptune"`)

	type view struct {
		Groups  []string
		Titles  []string
		Answer  string
		Same    bool
		Live    string
		History string
	}
	v := eval[view](t, p, `
		const live = $("#conversation").cloneNode(true);
		live.querySelectorAll(".notice").forEach((n) => n.remove());
		const hist = demo.renderHistory();
		return {
			groups: $$("#conversation .call-group").map((g) => g.dataset.tool + " " + g.querySelector(".count").textContent),
			titles: $$("#conversation .call-title").map((e) => e.textContent),
			answer: lastAssistant(),
			same: live.innerHTML === hist.innerHTML, live: live.innerHTML, history: hist.innerHTML,
		};`)
	require.Equal(t, []string{"get_current_time ×3"}, v.Groups, "repeated calls of one tool share one card")
	require.Equal(t, []string{"Get current time", "Calculator", "Read a data file"}, v.Titles, "titles from annotations.title, else from the name")
	require.Contains(t, v.Answer, "read_data_file:{\n  \"planets\": [", "the data file's JSON, pretty-printed")
	require.True(t, v.Same, "the transcript from session.history must render as the live view:\nlive:    %s\nhistory: %s", v.Live, v.History)

	require.NoError(t, p.Eval(t.Context(), `
		choose("display", "inline");
		const conv = $("#conversation");
		if (!conv.classList.contains("inline")) throw new Error("the display did not switch");
		$$("#conversation .call-result").forEach((d) => d.closest(".msg").scrollIntoView());
		$$("#conversation .msg.tools")[0].scrollIntoView();`, nil))
	shot(t, p, "closed-loop-inline")
}

// TestDemo_Progress: a running tool shows the progress it reports; Stop aborts the
// prompt, says so, and keeps the conversation on screen while the history is unchanged.
func TestDemo_ProgressAndStop(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoProgressAndStop)
}

func demoProgressAndStop(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	type result struct {
		Progress    string
		Status      string
		Notice      string
		Failed      int
		HistoryLen  int
		HistoryWas  int
		UserBubbles int
		NextAnswer  string
	}
	require.NoError(t, p.Eval(t.Context(), `
		say("Calculate 2^10"); await idle();
		globalThis.before = demo.session.history.length;
		say("Wait a moment");
		await until(() => $("#conversation .call.state-running .call-progress progress") && $("#conversation .call-progress span")?.textContent.startsWith("1."), "progress");
		globalThis.progress = $("#conversation .call-progress span").textContent;`, nil))
	// The progress is read when it is first seen: the screenshot can take longer than
	// the tool's next report, which would move it to "2.0 s".
	shot(t, p, "progress")
	got := eval[result](t, p, `
		$("#stop").click();
		await idle();
		const r = {
			progress, status: cards().at(-1).status,
			notice: $$("#conversation .notice").at(-1).textContent,
			failed: $$("#conversation .failed").length,
			historyLen: demo.session.history.length, historyWas: before,
			userBubbles: $$("#conversation .msg.user").length,
		};
		say("Calculate 6 * 7"); await idle();
		r.nextAnswer = lastAssistant();
		return r;`)
	require.Regexp(t, `^1\.\d s of 5 s$`, got.Progress)
	require.Equal(t, "stopped", got.Status)
	require.Contains(t, got.Notice, "Stopped")
	require.Equal(t, got.HistoryWas, got.HistoryLen, "an aborted prompt leaves the history as it was")
	require.Equal(t, 2, got.UserBubbles, "the stopped turn stays on screen")
	require.Positive(t, got.Failed)
	require.Equal(t, "calculate: 6 * 7 = 42", got.NextAnswer, "the session goes on after a stop")
	shot(t, p, "stopped")
}

// TestDemo_OpenLoop: in the open loop the page runs each call itself; paused, the test
// drives each call with "Run this call" or "Refuse", and the results reach the model.
func TestDemo_OpenLoop(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoOpenLoop)
}

func demoOpenLoop(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	require.NoError(t, p.Eval(t.Context(), `
		choose("loop", "open");
		await until(() => $("#mode-label").textContent === "open loop", "open mode");
		$("#pause").checked = true; $("#pause").dispatchEvent(new Event("change"));
		say("Show me the world clock");
		await until(() => $$("#conversation .call.state-paused").length === 1, "the first call to pause");`, nil))
	shot(t, p, "open-loop-paused")
	type step struct {
		Paused  []string
		Cards   []card
		Step    string
		Results []map[string]any
		Answer  string
	}
	got := eval[step](t, p, `
		const steps = [];
		const drive = async (label) => {
			const c = await until(() => $("#conversation .call.state-paused"), "a paused call");
			steps.push(c.querySelector(".call-brief").textContent);
			button(c, label).click();
			await until(() => !c.isConnected || !c.classList.contains("state-paused"), "the call to leave pause");
		};
		const stepText = $("#step").textContent;
		await drive("Run this call");
		await drive("Run this call");
		await drive("Refuse");
		await idle();
		return { paused: steps, cards: cards(), step: stepText, results: toolResults(), answer: lastAssistant() };`)
	require.Equal(t, []string{`"Asia/Tokyo"`, `"Europe/London"`, `"America/New_York"`}, got.Paused, "one call at a time, in order")
	require.Contains(t, got.Step, "the model asked for 3 tool calls")
	require.Equal(t, "success", got.Cards[0].State)
	require.Equal(t, "success", got.Cards[1].State)
	require.Equal(t, "error", got.Cards[2].State)
	require.Equal(t, "declined", got.Cards[2].Status)
	require.Len(t, got.Results, 3)
	require.Equal(t, "the user refused to run this tool call", got.Results[2]["errorMessage"])
	require.Contains(t, got.Answer, "get_current_time failed: the user refused to run this tool call")
	require.Contains(t, got.Answer, "Asia/Tokyo")

	// Unpaused, the page runs the calls at once, and the views still agree.
	same := eval[bool](t, p, `
		$("#pause").checked = false; $("#pause").dispatchEvent(new Event("change"));
		say("Calculate 1 / 0"); await idle();
		const c = cards().at(-1);
		if (c.state !== "error" || c.result !== "division by zero") throw new Error(JSON.stringify(c));
		const live = $("#conversation").cloneNode(true);
		live.querySelectorAll(".notice").forEach((n) => n.remove());
		return live.innerHTML === demo.renderHistory().innerHTML;`)
	require.True(t, same, "open loop: the transcript from session.history renders as the live view")
	shot(t, p, "open-loop")

	// Stopped while a call waits: the call stays in the history without a result, and
	// both views say "not run".
	type stopped struct {
		Card    card
		Notice  string
		Same    bool
		Pending bool
	}
	s := eval[stopped](t, p, `
		$("#pause").checked = true; $("#pause").dispatchEvent(new Event("change"));
		say("Read file planets");
		await until(() => $("#conversation .call.state-paused"), "the paused call");
		$("#stop").click(); await idle();
		const live = $("#conversation").cloneNode(true);
		live.querySelectorAll(".notice").forEach((n) => n.remove());
		const h = demo.session.history;
		return { card: cards().at(-1), notice: $$("#conversation .notice").at(-1).textContent,
			same: live.innerHTML === demo.renderHistory().innerHTML, pending: h.at(-1).role === "tool-call" };`)
	require.Equal(t, card{Tool: "read_data_file", State: "unanswered", Status: "not run"}, s.Card)
	require.Contains(t, s.Notice, "The calls stay in the session's history without results")
	require.True(t, s.Pending)
	require.True(t, s.Same)
}

// TestDemo_DeclinedApproval: a destructive tool asks first; declined, the model gets a
// tool error and the notes stay; approved, it runs.
func TestDemo_DeclinedApproval(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoDeclinedApproval)
}

func demoDeclinedApproval(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	require.NoError(t, p.Eval(t.Context(), `
		say("Remember: buy oat milk"); await idle();
		say("Clear notes");
		await until(() => $("#conversation .call.state-approval"), "the approval");`, nil))
	shot(t, p, "approval")
	type result struct {
		Card        card
		Result      map[string]any
		Notes       []string
		Answer      string
		Approved    card
		NotesAfter  int
		ResultAfter map[string]any
	}
	got := eval[result](t, p, `
		const c = $("#conversation .call.state-approval");
		button(c, "Decline").click();
		await idle();
		const r = { card: cards().at(-1), result: toolResults().at(-1), notes: $$("#notes li").map((l) => l.textContent), answer: lastAssistant() };
		say("Clear notes");
		await until(() => $("#conversation .call.state-approval"), "the second approval");
		button($("#conversation .call.state-approval"), "Approve").click();
		await idle();
		r.approved = cards().at(-1);
		r.notesAfter = $$("#notes li").length;
		r.resultAfter = toolResults().at(-1);
		return r;`)
	require.Equal(t, card{Tool: "clear_notes", State: "error", Status: "declined", Result: "the user declined this tool call"}, got.Card)
	require.Equal(t, "the user declined this tool call", got.Result["errorMessage"], "the model gets a tool error")
	require.Equal(t, []string{"buy oat milk"}, got.Notes)
	require.Equal(t, "clear_notes failed: the user declined this tool call", got.Answer)
	require.Equal(t, "success", got.Approved.State)
	require.Equal(t, 0, got.NotesAfter)
	require.Equal(t, []any{map[string]any{"type": "text", "value": "Cleared 1 note."}}, got.ResultAfter["result"])
}

// TestDemo_HistoryRecreate: summarising tool results in the history panel and
// recreating the session from it lowers contextUsage, and the new session goes on.
func TestDemo_HistoryRecreate(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoHistoryRecreate)
}

func demoHistoryRecreate(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	require.NoError(t, p.Eval(t.Context(), `
		say("Read file planets"); await idle();
		say("Calculate 2 + 2"); await idle();
		$("#history-open").click();
		await until(() => $("#history-dialog").open, "the history panel");
		button($("#history-dialog"), "Summarise all tool results").click();`, nil))
	shot(t, p, "history-panel")
	type result struct {
		Before, After int
		Usage         int
		Message       string
		Summary       string
		Preview       string
		Live          string
		Next          string
	}
	got := eval[result](t, p, `
		const preview = $("#history-preview .call-result pre").textContent;
		$("#recreate").click();
		await until(() => $("#recreate-result").classList.contains("ok") || $("#recreate-result").classList.contains("error"), "recreate");
		const out = $("#recreate-result");
		const r = { before: +out.dataset.before, after: +out.dataset.after, usage: demo.session.contextUsage, message: out.textContent,
			summary: toolResults()[0].result[0].value, preview, live: $("#conversation .call-result pre").textContent };
		$("#history-close").click();
		say("Calculate 3 * 3"); await idle();
		r.next = lastAssistant();
		return r;`)
	require.Positive(t, got.Before)
	require.Less(t, got.After, got.Before, "%s", got.Message)
	require.Equal(t, got.After, got.Usage)
	require.Contains(t, got.Message, fmt.Sprintf("contextUsage %s → %s", commas(got.Before), commas(got.After)))
	require.Equal(t, "[summarised: an object with 3 keys: planets, source, units]", got.Summary)
	require.Equal(t, got.Summary, got.Preview, "the panel's transcript shows the edit")
	require.Equal(t, got.Summary, got.Live, "the conversation is rebuilt from the new history")
	require.Equal(t, "calculate: 3 * 3 = 9", got.Next)
}

func commas(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// evil is a data file whose strings are markup and script: the tool result and the
// model's summary of it must stay text.
const evil = `{"name": "<img src=x onerror=window.__xss=1>", "link": "[click](javascript:window.__xss=2)",
 "script": "<script>window.__xss=3</script>", "ok": "[fine](https://example.com/a)"}`

// TestDemo_XSSInert: markup and javascript: links in a tool result and in model text stay
// inert text; only http(s) links become links, with rel=noopener.
func TestDemo_XSSInert(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoXSSInert)
}

func demoXSSInert(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]http.Handler{
		"/demo/data/evil.json": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, evil)
		}),
	})
	p := open(t, b, base)
	type result struct {
		XSS       any
		Elements  int
		Links     []string
		Rels      []string
		Card      card
		Text      string
		Answer    string
		Bold      string
		InHistory bool
	}
	got := eval[result](t, p, `
		say("Read file evil"); await idle();
		say("[click me](javascript:window.__xss=4) <img src=x onerror=window.__xss=5> <script>window.__xss=6</script> **bold** [fine](https://example.com/a)"); await idle();
		$("#history-open").click();
		await until(() => $("#history-preview .call"), "the history preview");
		await new Promise((r) => setTimeout(r, 300)); // time for an onerror to fire
		const bad = "img, script, iframe, object, embed, svg, [onerror], [onclick], [href^='javascript' i], [src]";
		return {
			xss: window.__xss ?? null,
			elements: document.querySelectorAll("#conversation :is(" + bad + "), #history-dialog :is(" + bad + ")").length,
			links: $$("#conversation a, #history-dialog a").map((a) => a.href),
			rels: $$("#conversation a").map((a) => a.rel),
			card: cards()[0],
			text: $("#conversation").textContent,
			answer: lastAssistant(),
			bold: $$("#conversation .msg.assistant strong").map((e) => e.textContent).join(),
			inHistory: JSON.stringify(demo.session.history).includes("onerror=window.__xss=1"),
		};`)
	require.Nil(t, got.XSS)
	require.Zero(t, got.Elements, "no element from model or tool content")
	// The tool's JSON is shown as a code block, its link as text; the model's reply has one.
	require.Equal(t, []string{"https://example.com/a", "https://example.com/a"}, got.Links, "the live view and the history panel's transcript")
	require.Equal(t, []string{"noopener noreferrer"}, got.Rels)
	require.Equal(t, "success", got.Card.State)
	require.Contains(t, got.Card.Result, `"<img src=x onerror=window.__xss=1>"`)
	require.Contains(t, got.Text, "<img src=x onerror=window.__xss=5>", "markup shows as text")
	require.Contains(t, got.Answer, "[click me](javascript:window.__xss=4)", "a javascript: link stays literal text")
	require.Equal(t, "bold", got.Bold)
	require.True(t, got.InHistory)
	shot(t, p, "xss-inert")
}

// TestDemo_Failures: a backend that is down, a backend the browser lacks, and a tool call
// limit are shown clearly, and the conversation goes on.
func TestDemo_Failures(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoFailures)
}

func demoFailures(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	type result struct {
		Down     string
		Switched string
		Kept     int
		Browser  string
		Label    string
		Limit    string
		Calls    int
		Answer   string
		Messages int
	}
	got := eval[result](t, p, `
		say("Calculate 1 + 1"); await idle();
		const messages = demo.session.history.length;
		// An OpenAI-compatible server that is not there: port 9 on loopback (discard) refuses.
		setField("#backend-kind", "openai");
		setField("#openai-url", "http://127.0.0.1:9/v1");
		setField("#openai-model", "none");
		$("#backend-apply").click();
		await until(() => $("#backend-result").classList.contains("ok"), "the switch");
		const r = { switched: $("#backend-result").textContent };
		say("Hello?"); await idle();
		r.down = $$("#conversation .notice").at(-1).textContent;
		r.kept = demo.session.history.length - messages;
		// Back to the offline model, with the conversation.
		setField("#backend-kind", "scripted");
		$("#backend-apply").click();
		await until(() => $("#backend-result").textContent.includes("Offline"), "the way back");
		// The browser's own model: Chromium 156 has none behind its LanguageModel, Firefox and WebKit no LanguageModel.
		const native = await LanguageModel.availability({ backend: { kind: "browser" } });
		r.browser = native;
		r.label = $("#backend-label").textContent;
		setField("#max-calls", "2");
		await until(() => demo.state.config.maxToolCalls === 2, "the new limit");
		say("Show me the world clock"); await idle();
		r.limit = $$("#conversation .notice").at(-1).textContent;
		r.calls = cards().length;
		say("Calculate 2 + 2"); await idle();
		r.answer = lastAssistant();
		r.messages = demo.session.history.length - messages;
		return r;`)
	require.Contains(t, got.Switched, "Now using: OpenAI-compatible")
	require.Contains(t, got.Down, "NetworkError", "the backend being down is shown as such: %s", got.Down)
	require.Zero(t, got.Kept, "the failed prompt left no trace in the history")
	require.Equal(t, "unavailable", got.Browser)
	require.Equal(t, "Offline demo model", got.Label)
	require.Contains(t, got.Limit, "Tool call limit reached")
	require.Contains(t, got.Limit, "maxToolCalls is 2 and the model asked for call 3 (get_current_time)")
	require.Equal(t, 1, got.Calls, "the over-limit prompt ran no call")
	require.Equal(t, "calculate: 2 + 2 = 4", got.Answer)
	require.Equal(t, 4, got.Messages, "the failed prompts left no trace in the history")
	shot(t, p, "failures")
}

// TestDemo_Markdown: the page's markdown renderer, case by case, as the HTML it builds.
func TestDemo_Markdown(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoMarkdown)
}

func demoMarkdown(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	require.NoError(t, p.Eval(t.Context(), `
		const { renderMarkdown } = await import("/demo/markdown.js");
		globalThis.md = (text) => { const d = document.createElement("div"); d.append(renderMarkdown(text)); return d.innerHTML; };`, nil))
	for _, tc := range []struct{ in, want string }{
		{"plain", "<p>plain</p>"},
		{"line one\nline two\n\nnext", "<p>line one<br>line two</p><p>next</p>"},
		{"**bold** and *it* and _it_ and `code`", "<p><strong>bold</strong> and <em>it</em> and <em>it</em> and <code>code</code></p>"},
		{"get_current_time and __init__ stay", "<p>get_current_time and <strong>init</strong> stay</p>"},
		{"window.__xss=1 and window.__xss=2", "<p>window.__xss=1 and window.__xss=2</p>"},
		{"- a\n- b\n\n1. c\n2. d", "<ul><li>a</li><li>b</li></ul><ol><li>c</li><li>d</li></ol>"},
		{"```js\nlet x = 1 < 2;\n```", `<pre><code data-lang="js">let x = 1 &lt; 2;</code></pre>`},
		{"## Title", `<h4 class="md-h">Title</h4>`},
		{"> quoted", "<blockquote>quoted</blockquote>"},
		{"[ok](https://example.com/x?a=1&b=2)", `<p><a href="https://example.com/x?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">ok</a></p>`},
		{"see https://example.com/a.", `<p>see <a href="https://example.com/a" rel="noopener noreferrer" target="_blank">https://example.com/a</a>.</p>`},
		{"[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>"},
		{"[x](JaVaScRiPt:alert(1)) [y](data:text/html,hi) [z](/relative)", "<p>[x](JaVaScRiPt:alert(1)) [y](data:text/html,hi) [z](/relative)</p>"},
		{`<img src=x onerror="window.__xss=1"> <b>b</b>`, `<p>&lt;img src=x onerror="window.__xss=1"&gt; &lt;b&gt;b&lt;/b&gt;</p>`},
		{`**[x](https://a.example/" onclick="y)**`, `<p><strong><a href="https://a.example/%22%20onclick=%22y" rel="noopener noreferrer" target="_blank">x</a></strong></p>`},
		{`\*not italic\*`, "<p>*not italic*</p>"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			require.Equal(t, tc.want, eval[string](t, p, "return md("+jsString(tc.in)+");"))
		})
	}
	require.Nil(t, eval[any](t, p, "return window.__xss ?? null;"))
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestDemo_DownloadProgress: on a slow connection the page shows the module's download
// progress as create()'s monitor reports it.
func TestDemo_DownloadProgress(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoDownloadProgress)
}

func demoDownloadProgress(t *testing.T, b *browsertest.Browser) {
	const chunks = 60
	base := serve(t, map[string]http.Handler{
		"/build/langmodel.wasm": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/wasm")
			w.Header().Set("Content-Length", fmt.Sprint(len(moduleWasm)))
			n := len(moduleWasm)/chunks + 1
			for b := moduleWasm; len(b) > 0; b = b[min(n, len(b)):] {
				if _, err := w.Write(b[:min(n, len(b))]); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				time.Sleep(40 * time.Millisecond)
			}
		}),
	})
	p := b.Open(t, base+"/demo/")
	text := eval[string](t, p, `
		for (;;) {
			const s = document.getElementById("loading-text")?.textContent ?? "";
			const m = /(\d+)%/.exec(s);
			if (m && +m[1] >= 20 && +m[1] < 95) return s;
			if (demo.state.session) throw new Error("loaded before the test saw the progress: " + demo.state.loadProgress);
			await new Promise((r) => setTimeout(r, 10));
		}`)
	require.Regexp(t, `^Downloading the language model module… \d+%$`, text)
	shot(t, p, "loading")
	progress := eval[[]float64](t, p, `await demo.ready; return demo.state.loadProgress;`)
	require.Greater(t, len(progress), 10, "%v", progress)
	for i := 1; i < len(progress); i++ {
		require.GreaterOrEqual(t, progress[i], progress[i-1], "progress only grows: %v", progress)
	}
	require.Equal(t, 1.0, progress[len(progress)-1])
}

// TestDemo_ModuleMissing: when the module cannot be fetched the page says so and offers
// to retry.
func TestDemo_ModuleMissing(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoModuleMissing)
}

func demoModuleMissing(t *testing.T, b *browsertest.Browser) {
	base := serve(t, map[string]http.Handler{"/build/langmodel.wasm": http.NotFoundHandler()})
	p := b.Open(t, base+"/demo/")
	type result struct {
		Shown bool
		Text  string
		Send  bool
	}
	got := eval[result](t, p, `
		for (let i = 0; !globalThis.demo; i++) await new Promise((r) => setTimeout(r, 10));
		try { await demo.ready; } catch {}
		const e = document.getElementById("boot-error");
		return { shown: !e.hidden, text: e.textContent.replace(/\s+/g, " ").trim(), send: !document.getElementById("send").disabled };`)
	require.True(t, got.Shown)
	require.Regexp(t, `^The module did not start NetworkError: Could not fetch http://127\.0\.0\.1:\d+/build/langmodel\.wasm: HTTP 404\. Is the module built\? .* Retry$`, got.Text)
	require.False(t, got.Send)
	shot(t, p, "module-missing")
}

// TestDemo_ToolChoiceNone: toolChoice "none" turns tool use off: the model gets no tools.
func TestDemo_ToolChoiceNone(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoToolChoiceNone)
}

func demoToolChoiceNone(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	type result struct {
		Cards  int
		Answer string
	}
	got := eval[result](t, p, `
		say("Calculate 2 + 2"); await idle();
		setField("#tool-choice", "none");
		await until(() => demo.state.config.toolChoice === "none", "the new session");
		say("Calculate 1 + 1"); await idle();
		return { cards: cards().length, answer: lastAssistant() };`)
	require.Equal(t, 1, got.Cards, "the conversation, tool call included, carries over to the new session")
	require.True(t, strings.HasPrefix(got.Answer, "You said: Calculate 1 + 1"), got.Answer)
}

// TestDemo_AllowAlways: "Allow always" on the approval card runs the destructive tool and
// every later call of it unasked (approve answers {allow: "always"}), the session lists
// the decision, and revoking it asks again.
func TestDemo_AllowAlways(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, demoAllowAlways)
}

func demoAllowAlways(t *testing.T, b *browsertest.Browser) {
	p := open(t, b, serve(t, nil))
	type result struct {
		First    card
		Second   card
		Approval bool // a card asked again after the revoke
		Listed   []string
	}
	got := eval[result](t, p, `
		say("Remember: buy oat milk"); await idle();
		say("Clear notes");
		await until(() => $("#conversation .call.state-approval"), "the approval");
		button($("#conversation .call.state-approval"), "Allow always").click();
		await idle();
		const r = { first: cards().at(-1) };
		say("Remember: buy bread"); await idle();
		say("Clear notes"); await idle(); // unasked
		r.second = cards().at(-1);
		r.listed = demo.session.approvals.map((t) => t.name);
		demo.session.revokeApproval();
		say("Clear notes");
		await until(() => $("#conversation .call.state-approval"), "the approval after the revoke");
		r.approval = true;
		button($("#conversation .call.state-approval"), "Decline").click();
		await idle();
		return r;`)
	require.Equal(t, "success", got.First.State)
	require.Equal(t, "success", got.Second.State, "the second call ran unasked")
	require.Equal(t, []string{"clear_notes"}, got.Listed)
	require.True(t, got.Approval)
}
