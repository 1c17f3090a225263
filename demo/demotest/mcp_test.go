//go:build !js

package demotest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/mcptest"
)

// token is the MCP server's bearer token in these tests.
const token = "demo-mcp-token-1234"

// connectMCP fills the settings' MCP server fields and connects.
func connectMCP(url, tok string) string {
	return `
		$("#mcp-url").value = "` + url + `";
		$("#mcp-name").value = "weather-server";
		$("#mcp-token").value = "` + tok + `";
		$("#mcp-connect").click();
		await until(() => /ok|error/.test($("#mcp-result").className), "the connection");
	`
}

// TestDemo_MCPServer: the settings connect an MCP server (URL, name, token): the session
// is created again with it, the result says so, the server's tools are listed
// (session.listTools()), and the offline model's "/weather {…}" calls the server's tool,
// a card titled by the server's annotations that ends in success with its result;
// disconnecting empties the list.
func TestDemo_MCPServer(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		srv := mcptest.Start(mcptest.Options{Token: token})
		defer srv.Close()
		p := open(t, b, serve(t, nil))
		type page struct {
			Result, Title string
			Cards         []card
			Disconnect    bool
			Tools, After  []string
		}
		got := eval[page](t, p, connectMCP(srv.URL, token)+`
			const listed = () => $("#mcp-tools").hidden ? [] : [...document.querySelectorAll("#mcp-tools li")].map((li) => li.textContent);
			const result = $("#mcp-result").textContent, tools = listed();
			say('/weather {"city": "Paris"}'); await idle();
			const title = $("#conversation .call .call-title").textContent, disconnect = !$("#mcp-disconnect").hidden;
			$("#mcp-disconnect").click();
			await until(() => $("#mcp-result").textContent === "Disconnected.", "the disconnection");
			return { result, cards: cards(), title, disconnect, tools, after: listed() };`)
		require.Regexp(t, `^Connected to weather-server: its tools' declarations take [\d,]+ tokens of context \(contextUsage [\d,]+ → [\d,]+\)\.$`, got.Result)
		require.Len(t, got.Cards, 1)
		require.Equal(t, card{Tool: "weather", State: "success", Status: got.Cards[0].Status, Result: got.Cards[0].Result}, got.Cards[0])
		require.Contains(t, got.Cards[0].Result, "Sunny in Paris")
		require.Equal(t, "Weather", got.Title)
		require.True(t, got.Disconnect)
		require.Equal(t, []string{"add_news Adds the news tool", "crash Drops every connection", "delete_file Deletes a file",
			"forecast Forecast for a city", "hang Runs until cancelled", "plain A tool with no annotations", "slow A slow job that reports progress",
			"weather Weather: Weather in a city"}, got.Tools, "the server's tools are listed once connected, titled by their annotations")
		require.Empty(t, got.After, "disconnecting empties the list")
		shot(t, p, "mcp-server")
	})
}

// TestDemo_MCPTokenNotSaved: the MCP server's token stays in the page: neither the saved
// conversation (IndexedDB) nor the saved settings (localStorage) hold it, and after a
// reload the session has no server.
func TestDemo_MCPTokenNotSaved(t *testing.T) {
	t.Parallel()
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		srv := mcptest.Start(mcptest.Options{Token: token})
		defer srv.Close()
		p := open(t, b, serve(t, nil))
		type saved struct {
			Snapshot, Config string
			Calls            int
		}
		got := eval[saved](t, p, connectMCP(srv.URL, token)+`
			say('/weather {"city": "Paris"}'); await idle();
			const { snapshotStore } = await import("/js/language-model.js");
			const store = snapshotStore("langmodel-demo");
			await until(() => /Sunny in Paris/.test(globalThis.savedJSON ?? "") || (store.load("chat").then((s) => (globalThis.savedJSON = JSON.stringify(s))), false), "the conversation saved");
			return { snapshot: savedJSON, config: Object.keys(localStorage).map((k) => k + "=" + localStorage.getItem(k)).join("\n"), calls: cards().length };`)
		require.Equal(t, 1, got.Calls)
		require.Contains(t, got.Snapshot, "Sunny in Paris")
		require.NotContains(t, got.Snapshot, token)
		require.NotContains(t, got.Config, token)
		reload(t, p)
		after := eval[string](t, p, `say('/weather {"city": "Oslo"}'); await idle(); return lastAssistant();`)
		require.Contains(t, after, "You said", "after a reload the server is gone: its tool is not offered")
	})
}
