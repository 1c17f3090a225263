//go:build !js

package demotest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// reload reloads the page and waits for the new document's session, as open does.
func reload(t *testing.T, p *browsertest.Page) {
	t.Helper()
	require.NoError(t, p.Eval(t.Context(), `globalThis.beforeReload = true; setTimeout(() => location.reload(), 0);`, nil))
	for {
		var fresh bool
		err := p.Eval(t.Context(), `return document.readyState === "complete" && !globalThis.beforeReload && !!globalThis.demo;`, &fresh)
		if err == nil && fresh {
			break
		}
		require.NoError(t, t.Context().Err())
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, p.Eval(t.Context(), `await demo.ready;`+helpers, nil))
}

// TestDemo_ReloadAndContinue: the conversation survives a reload (snapshotStore's
// autosave), shown as it was (the cards with their durations), with the loop settings;
// the history editor works on the restored session, and the conversation goes on.
func TestDemo_ReloadAndContinue(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		type page struct {
			History []any
			Users   []string
			Last    string
			Max     string
			Notice  string
			Cards   []string
		}
		const read = `return { history: demo.session.history, users: $$("#conversation .msg.user").map((e) => e.textContent), last: lastAssistant(),
			max: $("#max-calls").value, notice: $$("#conversation .notice").map((e) => e.textContent).join(" | "), cards: cards().map((c) => c.status) };`
		before := eval[page](t, p, `
			setField("#max-calls", "5");
			await until(() => demo.state.config.maxToolCalls === 5, "the new settings");
			say("Read file planets"); await idle();
			say("Calculate 2 + 2"); await idle();
			const { snapshotStore } = await import("/js/language-model.js");
			const store = snapshotStore("langmodel-demo");
			await until(() => globalThis.savedLength === demo.session.history.length || (store.load("chat").then((s) => (globalThis.savedLength = s?.history.length)), false), "the last save");
		`+read)
		require.Len(t, before.History, 8)
		reload(t, p)
		after := eval[page](t, p, read)
		shot(t, p, "restored")
		require.Equal(t, before.History, after.History)
		require.Equal(t, []string{"Read file planets", "Calculate 2 + 2"}, after.Users)
		require.Equal(t, "calculate: 2 + 2 = 4", after.Last)
		require.Equal(t, "5", after.Max)
		require.Contains(t, after.Notice, "Conversation restored")
		require.Contains(t, after.Notice, "8 messages")
		require.Len(t, before.Cards, 2)
		for _, s := range before.Cards {
			require.Regexp(t, `^done · [\d.]+ ms$`, s)
		}
		require.Equal(t, before.Cards, after.Cards, "each card shows its call's duration again after a reload")

		type edited struct{ Summary, Next string }
		got := eval[edited](t, p, `
			$("#history-open").click();
			await until(() => $("#history-dialog").open, "the history panel");
			button($("#history-dialog"), "Summarise all tool results").click();
			$("#recreate").click();
			await until(() => $("#recreate-result").classList.contains("ok"), "recreate");
			$("#history-close").click();
			say("Calculate 3 * 3"); await idle();
			return { summary: toolResults()[0].result[0].value, next: lastAssistant() };`)
		require.Equal(t, "[summarised: an object with 3 keys: planets, source, units]", got.Summary)
		require.Equal(t, "calculate: 3 * 3 = 9", got.Next)

		// New conversation starts over, and nothing comes back after the next reload.
		require.NoError(t, p.Eval(t.Context(), `
			await demo.newConversation();
			const { snapshotStore } = await import("/js/language-model.js");
			const store = snapshotStore("langmodel-demo");
			await until(() => globalThis.emptySaved || (store.load("chat").then((s) => (globalThis.emptySaved = s?.history.length === 0)), false), "the empty save");`, nil))
		reload(t, p)
		require.Equal(t, 0, eval[int](t, p, `return demo.session.history.length + $$("#conversation .msg").length;`))
	})
}

// TestDemo_LoadRecording: "Download recording" gives the conversation as a recording;
// loaded back ("Load recording…"), it replays through the scripted backend: the user's
// messages are sent again and answered as recorded (an answer edited in the file shows
// that the answer is the recording's), then the conversation goes on with the model the
// page had. A file that is not a recording is refused with a notice.
func TestDemo_LoadRecording(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		p := open(t, b, serve(t, nil))
		type result struct {
			File    string
			Turns   int
			Users   []string
			Cards   []card
			Last    string
			Backend string
			Next    string
			Refused string
		}
		got := eval[result](t, p, `
			say("Calculate 6 * 7"); await idle();
			let blob, file;
			const create = URL.createObjectURL;
			URL.createObjectURL = (b) => { blob = b; return create.call(URL, b); };
			const click = HTMLAnchorElement.prototype.click;
			HTMLAnchorElement.prototype.click = function () { file = this.download; };
			$("#recording-download").click();
			URL.createObjectURL = create;
			HTMLAnchorElement.prototype.click = click;
			const recording = JSON.parse(await blob.text());
			recording.turns.at(-1).chunks = ["Recorded: ", "forty-two."];
			await demo.newConversation();
			const load = (text) => {
				const dt = new DataTransfer();
				dt.items.add(new File([text], "conversation.recording.json", { type: "application/json" }));
				$("#recording-file").files = dt.files;
				$("#recording-file").dispatchEvent(new Event("change"));
			};
			load(JSON.stringify(recording));
			await until(() => $$("#conversation .notice").some((n) => n.textContent.includes("Recording replayed")), "the replay");
			const r = { file, turns: recording.turns.length, users: $$("#conversation .msg.user").map((e) => e.textContent), cards: cards(), last: lastAssistant(), backend: demo.state.config.backend.rules ? "rules" : "other" };
			say("Calculate 1 + 1"); await idle();
			r.next = lastAssistant();
			load("{}");
			await until(() => $$("#conversation .notice").some((n) => n.textContent.includes("could not be replayed")), "the refusal");
			r.refused = $$("#conversation .notice").at(-1).textContent;
			return r;`)
		require.Equal(t, "conversation.recording.json", got.File)
		require.Equal(t, 2, got.Turns)
		require.Equal(t, []string{"Calculate 6 * 7"}, got.Users)
		require.Len(t, got.Cards, 1)
		require.Equal(t, "calculate", got.Cards[0].Tool)
		require.Equal(t, "success", got.Cards[0].State)
		require.Equal(t, "Recorded: forty-two.", got.Last)
		require.Equal(t, "rules", got.Backend, "the offline model again after the replay")
		require.Equal(t, "calculate: 1 + 1 = 2", got.Next)
		require.Contains(t, got.Refused, "This file is not a recording")
	})
}
