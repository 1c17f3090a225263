//go:build !js

package demotest

// The many-tools mode's examples, and what the offline models read: with 300 generated
// tools more, tool search takes over, and every example chip must still do what it does
// without them, with each offline model; a repair round's message is never what a model
// takes for the person's words.

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// chipCard is a call card as a person sees it: its tool, state, arguments (each "key:
// value", as the card lists them), result, and the cards of the calls it led to.
type chipCard struct {
	Tool, State, Result string
	Args                []string
	Children            []chipCard
}

// chipTurn is what one turn showed: its cards and the answer.
type chipTurn struct {
	Cards  []chipCard
	Answer string
}

// turnOf defines chipCards (the cards under parent, a card or null for the top level,
// each with its own) and clickChip, which clicks the example chip whose text it is given,
// approves a call that asks, and returns the turn's top-level cards and the answer.
const turnOf = `
globalThis.chipCards = (parent) => $$("#conversation .call").filter((c) => c.parentElement.closest(".call") === parent).map((c) => ({
	tool: c.dataset.tool,
	state: [...c.classList].find((k) => k.startsWith("state-")).slice(6),
	args: [...c.querySelectorAll(":scope > .call-body > .call-args dt")].map((d) => d.textContent + ": " + d.nextElementSibling.textContent),
	result: c.querySelector(":scope > .call-body .call-result pre")?.textContent ?? c.querySelector(":scope > .call-body .call-error")?.textContent ?? "",
	children: chipCards(c),
}));
globalThis.turn = async (start) => {
	const before = chipCards(null).length;
	const users = demo.state.entries.filter((e) => e.kind === "user").length;
	start();
	await until(() => demo.state.entries.filter((e) => e.kind === "user").length === users + 1, "the turn");
	await until(() => document.body.dataset.busy === "false" || $("#conversation .call.state-approval"), "the turn to end or ask");
	const ask = $("#conversation .call.state-approval");
	if (ask) { button(ask, "Approve").click(); await idle(); }
	return { cards: chipCards(null).slice(before), answer: lastAssistant() };
};
globalThis.clickChip = (chip) => turn(() => $$("#examples .chip").find((b) => b.textContent === chip).click());
globalThis.offline = async (model) => {
	if (model === "thinking") { demo.state.thinkingDelay = 1; await useThinking(); }
};
`

// wantCard is a card as it must look: Result and the answer are regular expressions.
type wantCard struct {
	Tool, State, Result string
	Args                []string
	Children            []wantCard
}

func requireCards(t *testing.T, want []wantCard, got []chipCard, where string) {
	t.Helper()
	require.Len(t, got, len(want), "%s: %+v", where, got)
	for i, w := range want {
		g := got[i]
		require.Equal(t, w.Tool, g.Tool, "%s: card %d", where, i)
		require.Equal(t, w.State, g.State, "%s: card %d: %+v", where, i, g)
		if len(w.Args)+len(g.Args) > 0 {
			require.Equal(t, w.Args, g.Args, "%s: card %d", where, i)
		}
		require.Regexp(t, regexp.MustCompile(w.Result), g.Result, "%s: card %d", where, i)
		requireCards(t, w.Children, g.Children, where+" / "+w.Tool)
	}
}

// TestDemo_ManyToolsExamples: with "Many tools" on, the page pins its own tools and the
// researcher (the active set lists them), so every example chip works as it does without
// the 300, with the offline demo model and with the thinking demo model (text protocol):
// the call cards it shows, their arguments from the person's words, their results, and the
// answer. Without the pins, no rule's tool was offered, and the thinking model wrote the
// repair message into its calls' arguments. Chromium plays every chip; Firefox and
// WebKit one per kind of card (everyEngine).
func TestDemo_ManyToolsExamples(t *testing.T) {
	t.Parallel()
	tokyo := wantCard{Tool: "get_current_time", State: "success", Args: []string{`timeZone: "Tokyo"`}, Result: `^\w+day, .* in Asia/Tokyo \(GMT\+9\)$`}
	// The offsets change with summer time and are written as each engine writes them.
	zone := func(z string) wantCard {
		return wantCard{Tool: "get_current_time", State: "success", Result: `^\w+day, .* in ` + z + ` \(GMT[^)]*\)$`}
	}
	planets := `(?s)^\{\s*"planets": \[.*"Neptune".*\}$`
	rows := []struct {
		chip   string
		model  string // "" for both
		cards  []wantCard
		answer string
		// everyEngine: played in Firefox and WebKit too, one row per kind of card (a
		// call, several, an error, nested calls, none); the other chips differ only in
		// the demo's rules and tools, the same JS in every engine, and play in Chromium.
		everyEngine bool
	}{
		{chip: "What's the time in Tokyo?", everyEngine: true, cards: []wantCard{tokyo}, answer: `^get_current_time: \w+day, .* in Asia/Tokyo \(GMT\+9\)\s*$`},
		// The offline model makes a call for each rule that matches; the thinking model, for the first.
		{chip: "Show me the world clock", model: "scripted", everyEngine: true, cards: []wantCard{zone("Asia/Tokyo"), zone("Europe/London"), zone("America/New_York")},
			answer: `(?s)^get_current_time: .* in Asia/Tokyo .*get_current_time: .* in Europe/London .*get_current_time: .* in America/New_York \(GMT[^)]*\)\s*$`},
		{chip: "Show me the world clock", model: "thinking", everyEngine: true, cards: []wantCard{{Tool: "get_current_time", State: "success", Args: []string{`timeZone: "Asia/Tokyo"`}, Result: `^\w+day, .* in Asia/Tokyo \(GMT\+9\)$`}},
			answer: `^get_current_time: \w+day, .* in Asia/Tokyo \(GMT\+9\)\s*$`},
		{chip: "Calculate (17 + 25) * 3 / 2", cards: []wantCard{{Tool: "calculate", State: "success", Args: []string{`expression: "(17 + 25) * 3 / 2"`}, Result: `^\(17 \+ 25\) \* 3 / 2 = 63$`}},
			answer: `^calculate: \(17 \+ 25\) \* 3 / 2 = 63\s*$`},
		{chip: "Calculate 1 / 0", everyEngine: true, cards: []wantCard{{Tool: "calculate", State: "error", Args: []string{`expression: "1 / 0"`}, Result: `^division by zero$`}},
			answer: `^calculate failed: division by zero\s*$`},
		{chip: "List files", cards: []wantCard{{Tool: "read_data_file", State: "success", Args: []string{`file: "index"`}, Result: `(?s)^\{\s*"files": \[.*"name": "planets".*\}$`}},
			answer: `(?s)^read_data_file:\s*\{\s*"files": \[.*"name": "team"`},
		{chip: "Read file planets", cards: []wantCard{{Tool: "read_data_file", State: "success", Args: []string{`file: "planets"`}, Result: planets}},
			answer: `(?s)^read_data_file:\s*\{\s*"planets": \[.*"Neptune"`},
		{chip: "Remember: buy oat milk", cards: []wantCard{{Tool: "add_note", State: "success", Args: []string{`text: "buy oat milk"`}, Result: `^Saved note 1: buy oat milk$`}},
			answer: `^add_note: Saved note 1: buy oat milk\s*$`},
		{chip: "Clear notes", cards: []wantCard{{Tool: "clear_notes", State: "success", Result: `^Cleared 1 note\.$`}},
			answer: `^clear_notes: Cleared 1 note\.\s*$`},
		{chip: "Wait a moment", cards: []wantCard{{Tool: "wait_seconds", State: "success", Args: []string{"seconds: 5"}, Result: `^Waited 5 seconds\.$`}},
			answer: `^wait_seconds: Waited 5 seconds\.\s*$`},
		{chip: "Research: look up planets", everyEngine: true, cards: []wantCard{{Tool: "research", State: "success", Args: []string{`task: "look up planets"`}, Result: planets,
			Children: []wantCard{{Tool: "look_up_data_file", State: "success", Args: []string{`file: "planets"`}, Result: planets}}}},
			answer: `(?s)^research: look_up_data_file:\s*\{\s*"planets": \[.*"Neptune"`},
		{chip: "Tell me a **joke**", everyEngine: true, cards: []wantCard{}, answer: `^You said: Tell me a joke`},
	}
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		for _, model := range []string{"scripted", "thinking"} {
			t.Run(model, func(t *testing.T) {
				t.Parallel()
				p := open(t, b, serve(t, nil))
				type setup struct {
					Chips  []string
					Active string
				}
				s := eval[setup](t, p, watchCards+turnOf+`
					await offline(`+jsString(model)+`);
					$("#many-tools").click();
					await until(() => demo.state.config.manyTools, "the many-tools session");
					return { chips: $$("#examples .chip").map((b) => b.textContent), active: $("#active-set").textContent };`)
				require.Equal(t, "Active set: search_tools · pinned: get_current_time, calculate, read_data_file, add_note, clear_notes, wait_seconds, research · found: nothing yet · 300 more tools by search", s.Active)
				var chips []string
				for _, r := range rows {
					if r.model == "" || r.model == model {
						chips = append(chips, r.chip)
					}
				}
				require.Equal(t, chips, s.Chips, "a row for every example chip, in order")
				for _, r := range rows {
					if r.model != "" && r.model != model || b.Engine != browsertest.Chromium && !r.everyEngine {
						continue
					}
					got := eval[chipTurn](t, p, `return await clickChip(`+jsString(r.chip)+`);`)
					requireCards(t, r.cards, got.Cards, r.chip)
					require.Regexp(t, regexp.MustCompile(r.answer), got.Answer, r.chip)
				}
				shot(t, p, "many-tools-examples-"+model)
			})
		}
	})
}

// TestDemo_RepairNotArguments: the thinking demo model writes its calls as text (the
// text protocol), and a call the module cannot use gets a repair round: the model's reply
// goes back to it with a message of the module's, naming the problem (and the tool). The
// model goes by the person's message, never by that one: a call that fails validation is
// made again with the person's words, and the card shows those and the tool's error; a
// "required" call the rules do not give is answered in text, with the person's words.
// Chromium plays it: no engine changes the repair round or the thinking model.
func TestDemo_RepairNotArguments(t *testing.T) {
	t.Parallel()
	long := "1" + strings.Repeat(" + 1", 150) // 601 characters: calculate takes at most 500
	rows := []struct {
		name, setup, say string
		cards            []wantCard
		answer           string
	}{
		{name: "a call that fails validation is made again with the person's words",
			say:    "Calculate " + long,
			cards:  []wantCard{{Tool: "calculate", State: "error", Args: []string{`expression: "` + long + `"`}, Result: `500`}},
			answer: `^calculate failed: .*500`},
		{name: "toolChoice required without a rule for the message is answered with the person's words",
			setup:  `setField("#tool-choice", "required"); await until(() => demo.state.config.toolChoice === "required", "the required session");`,
			say:    "Tell me a joke",
			cards:  []wantCard{},
			answer: `^You said: Tell me a joke$`},
	}
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		if b.Engine != browsertest.Chromium {
			t.Skip("the repair round is the module's and the thinking model the demo's JS, the same in every engine: Chromium plays it (the cards and the text protocol's calls play in every engine in TestDemo_ManyToolsExamples)")
		}
		for _, r := range rows {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				p := open(t, b, serve(t, nil))
				require.NoError(t, p.Eval(t.Context(), watchCards+turnOf+`await offline("thinking");`+r.setup, nil))
				got := eval[chipTurn](t, p, `return await turn(() => say(`+jsString(r.say)+`));`)
				requireCards(t, r.cards, got.Cards, r.name)
				require.Regexp(t, regexp.MustCompile(r.answer), got.Answer)
				history := eval[string](t, p, `return JSON.stringify(demo.session.history);`)
				require.NotContains(t, history, "could not be used", "no repair message in the history")
				require.NotContains(t, history, "You must call", "no repair message in the history")
			})
		}
	})
}
