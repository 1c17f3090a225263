//go:build !js

package moduletest

import "langmodel/internal/testing/explainer"

// explainerRows are the explainer's tool-use examples (internal/testing/explainer) as conformance
// rows: they run through the real module and face under wazero and in every browser, on
// the page and in a Worker. Each is a block of its own, where its names (getWeather)
// shadow the prelude's.
func explainerRows() []conformRow {
	rows := make([]conformRow, 0, len(explainer.Examples))
	for _, e := range explainer.Examples {
		rows = append(rows, conformRow{Name: e.Name, Section: "explainer § Tool use (webmachinelearning/prompt-api#162); DESIGN.md §3 Messages", JS: "{\n" + e.JS + "\n}", Want: e.Want})
	}
	return rows
}
