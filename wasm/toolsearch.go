package wasm

import (
	"langmodel/internal/jsonv"
	"strconv"

	"langmodel/loop"
)

// toolSearch reads toolUseConfig.toolSearch (loop.ToolSearch) as the face sends it,
// checked already (js/webidl.js: a bad value is a TypeError naming the field there):
// false turns search off, {share, pinned} sets them; anything else is the default.
func toolSearch(raw jsonv.RawMessage) loop.ToolSearch {
	var t loop.ToolSearch
	v, _ := decodeOptional(raw)
	switch v := v.(type) {
	case bool:
		t.Off = !v
	case map[string]any:
		n, _ := v["share"].(jsonv.Number)
		if f, err := strconv.ParseFloat(string(n), 64); err == nil && f > 0 && f <= 1 {
			t.Share = f
		}
		t.Pinned = toolNames(v["pinned"])
	}
	return t
}

// toolNames reads a list of tool names (toolSearch.pinned, prompt's activeTools) from
// decoded JSON; what is not a string is skipped. Never nil.
func toolNames(v any) []string {
	list, _ := v.([]any)
	names := make([]string, 0, len(list))
	for _, n := range list {
		if s, ok := n.(string); ok {
			names = append(names, s)
		}
	}
	return names
}
