package wasm

import (
	"encoding/json"
	"strconv"

	"langmodel/loop"
	"langmodel/session"
)

// toolSearch reads toolUseConfig.toolSearch (loop.ToolSearch): absent or true, search
// at the default share when the tools do not fit it; false, never; {share, pinned}.
func toolSearch(raw json.RawMessage) (loop.ToolSearch, error) {
	var t loop.ToolSearch
	v, err := decodeOptional(raw)
	if err != nil || v == nil {
		return t, err
	}
	switch v := v.(type) {
	case bool:
		t.Off = !v
		return t, nil
	case map[string]any:
		if s, ok := v["share"]; ok && s != nil {
			n, _ := s.(json.Number)
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || !(f > 0 && f <= 1) {
				return t, session.Errorf(session.KindType, errBadOption, "toolUseConfig.toolSearch.share must be a number above 0 and at most 1")
			}
			t.Share = f
		}
		if p, ok := v["pinned"]; ok && p != nil {
			if t.Pinned, err = toolNames("toolUseConfig.toolSearch.pinned", p); err != nil {
				return t, err
			}
		}
		return t, nil
	}
	return t, session.Errorf(session.KindType, errBadOption, "toolUseConfig.toolSearch must be true, false or {share, pinned}")
}

// toolNames reads a list of tool names (toolSearch.pinned, prompt's activeTools); field
// names the option in the TypeError of anything else. v is decoded JSON.
func toolNames(field string, v any) ([]string, error) {
	list, ok := v.([]any)
	names := make([]string, 0, len(list))
	for _, n := range list {
		s, isStr := n.(string)
		ok = ok && isStr
		names = append(names, s)
	}
	if !ok {
		return nil, session.Errorf(session.KindType, errBadOption, "%s must be a list of tool names", field)
	}
	return names, nil
}
