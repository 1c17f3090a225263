package scripted

import (
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/internal/order"
)

// Diff compares two decoded JSON values (session.DecodeJSON), a recorded one and the one
// a step sent, and describes the first difference, depth first, object keys in sorted
// order: `messages[0].content[0].value: recorded "You are…", got "You were…"`. It is ""
// when they are equal. Numbers compare as written.
func Diff(recorded, got any) string { return diff("", recorded, got) }

func diff(path string, rec, got any) string {
	switch r := rec.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		var keys []string
		for k := range r {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := r[k]; !ok {
				keys = append(keys, k)
			}
		}
		order.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			rv, rok := r[k]
			gv, gok := g[k]
			if !rok || !gok {
				return p + ": recorded " + show(rv, rok) + ", got " + show(gv, gok)
			}
			if d := diff(p, rv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(r) || i < len(g); i++ {
			p := path + "[" + strconv.Itoa(i) + "]"
			if i >= len(r) || i >= len(g) {
				return p + ": recorded " + show(at(r, i)) + ", got " + show(at(g, i))
			}
			if d := diff(p, r[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	default:
		if rec == got {
			return ""
		}
	}
	if path == "" {
		path = "the request"
	}
	return path + ": recorded " + show(rec, true) + ", got " + show(got, true)
}

func at(a []any, i int) (any, bool) {
	if i < len(a) {
		return a[i], true
	}
	return nil, false
}

// show writes v as compact JSON, cut to 40 characters; "nothing" when it is absent.
func show(v any, there bool) string {
	if !there {
		return "nothing"
	}
	b, _ := jsonv.Marshal(v)
	if r := []rune(string(b)); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return string(b)
}
