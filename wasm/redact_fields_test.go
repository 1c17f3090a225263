//go:build !js

package wasm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// Every field of every wire type that leaves the engine, today's and any added later, is
// cleaned: the tests below find the fields by reflection and plant a secret in each, one
// at a time, so that a field nobody listed is covered as soon as it exists.

const plantedSecret = "sk-planted-Z9y8X7w6V5u4"

// planted is a value of a wire type with the secret in one of its fields (path).
type planted struct {
	path string
	v    reflect.Value
}

// plant returns, for each string and raw JSON field reachable from base (through structs,
// pointers, slices and maps; an empty one is given one zero element), a copy of base with
// the secret in that field alone: as it is in a string, \u-escaped byte by byte inside a
// JSON string in a raw JSON field. Fields named in skip are left as they are.
func plant(base reflect.Value, path string, skip map[string]bool) []planted {
	t := base.Type()
	switch {
	case t.Kind() == reflect.String:
		v := reflect.New(t).Elem()
		v.SetString(plantedSecret)
		return []planted{{path, v}}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8: // raw JSON
		var esc strings.Builder
		for i := 0; i < len(plantedSecret); i++ {
			fmt.Fprintf(&esc, `\u%04x`, plantedSecret[i])
		}
		v := reflect.New(t).Elem()
		v.SetBytes([]byte(`{"x":"` + esc.String() + `"}`))
		return []planted{{path, v}}
	case t.Kind() == reflect.Pointer:
		elem := reflect.New(t.Elem()).Elem()
		if !base.IsNil() {
			elem = base.Elem()
		}
		var out []planted
		for _, p := range plant(elem, path, skip) {
			v := reflect.New(t.Elem())
			v.Elem().Set(p.v)
			out = append(out, planted{p.path, v})
		}
		return out
	case t.Kind() == reflect.Slice:
		if base.Len() == 0 {
			base = reflect.MakeSlice(t, 1, 1)
		}
		var out []planted
		for i := 0; i < base.Len(); i++ {
			for _, p := range plant(base.Index(i), fmt.Sprintf("%s[%d]", path, i), skip) {
				v := reflect.MakeSlice(t, base.Len(), base.Len())
				reflect.Copy(v, base)
				v.Index(i).Set(p.v)
				out = append(out, planted{p.path, v})
			}
		}
		return out
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		var out []planted
		for _, p := range plant(reflect.New(t.Elem()).Elem(), path+"[key]", skip) {
			v := reflect.MakeMap(t)
			k := reflect.New(t.Key()).Elem()
			k.SetString(plantedSecret)
			v.SetMapIndex(k, p.v)
			out = append(out, planted{p.path, v})
		}
		return out
	case t.Kind() == reflect.Struct:
		var out []planted
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || skip[f.Name] {
				continue
			}
			for _, p := range plant(base.Field(i), path+"."+f.Name, skip) {
				v := reflect.New(t).Elem()
				v.Set(base)
				v.Field(i).Set(p.v)
				out = append(out, planted{p.path, v})
			}
		}
		return out
	}
	return nil // numbers, booleans: no text
}

// requireClean requires that out holds the planted secret in no form a reader could
// decode back: raw, JSON-escaped at any depth, percent-encoded, base64.
func requireClean(t *testing.T, out, path string) {
	t.Helper()
	for _, f := range secretForms(plantedSecret) {
		require.NotContains(t, out, f, "%s leaked", path)
	}
	// Each JSON string decoded, as deep as it goes.
	s := out
	for range 4 {
		s = strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(s)
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			var r rune
			if strings.HasPrefix(s[i:], `\u`) && i+6 <= len(s) {
				if _, err := fmt.Sscanf(s[i+2:i+6], "%04x", &r); err == nil {
					b.WriteRune(r)
					i += 5
					continue
				}
			}
			b.WriteByte(s[i])
		}
		s = b.String()
		require.NotContains(t, s, plantedSecret, "%s leaked: %s", path, out)
	}
}

func TestRedact_EveryWireField(t *testing.T) {
	wire := []marshaler{&Reply{}, &PageCall{}, &Event{}, &SessionInfo{}, &PromptResult{}}
	count := 0
	for _, m := range wire {
		typ := reflect.TypeOf(m).Elem()
		for _, p := range plant(reflect.New(typ).Elem(), typ.Name(), nil) {
			count++
			t.Run(p.path, func(t *testing.T) {
				pg := newPage(t)
				require.True(t, pg.h.red.Add(plantedSecret))
				v := reflect.New(typ)
				v.Elem().Set(p.v)
				msg, ok := v.Interface().(marshaler)
				if !ok {
					t.Skipf("%s is not written alone", typ) // not reached: the list is of marshalers
				}
				pg.h.write(msg)
				out := pg.written()
				require.Len(t, out, 1)
				requireClean(t, out[0], p.path)
			})
		}
	}
	require.Greater(t, count, 15, "the wire types' fields were found")
}

// Every field of a message, in each form the history leaves in: a JSON history query, a
// packed one (session.history, snapshot()), and worker mode's mirrored copy.
func TestRedact_EveryHistoryField(t *testing.T) {
	// One message of each kind, as a history holds them; the kinds (Role, Type) are the
	// engine's own words, not text from outside.
	call := session.ToolCall{CallID: "call_1", Name: "lookup", Arguments: []byte(`{"q":"x"}`)}
	bases := []session.Message{
		session.TextMessage(session.RoleUser, "hello"),
		{Role: session.RoleAssistant, Parts: []session.Part{{Type: session.PartReasoning, Text: "hm"}, {Type: session.PartText, Text: "a"}, {Type: session.PartText, Text: "b"}}},
		{Role: session.RoleUser, Parts: []session.Part{{Type: session.PartText, Text: "see"}, {Type: session.PartImage, Media: []byte(`{"type":"image","data":"AAAA"}`)}}},
		session.CallMessage(call),
		session.ResultMessage(session.ToolResult{CallID: "call_1", Name: "lookup", Parts: []session.ResultPart{{Type: "text", Text: "t"}, {Type: "object", Value: []byte(`{"k":1}`)}}}),
		session.ResultMessage(session.ToolResult{CallID: "call_1", Name: "lookup", Failed: true, Error: "failed"}),
	}
	var fields []planted
	for i, b := range bases {
		fields = append(fields, plant(reflect.ValueOf(b), fmt.Sprintf("Message%d", i), map[string]bool{"Role": true, "Type": true})...)
	}
	require.Greater(t, len(fields), 15)
	for _, p := range fields {
		t.Run(p.path, func(t *testing.T) {
			pg := newPage(t)
			h := pg.h
			require.True(t, h.red.Add(plantedSecret))
			msgs := []session.Message{p.v.Interface().(session.Message)}
			// As Handler.Query answers a JSON history, a packed one, and as the Mirror adds one.
			asJSON := string(h.red.JSON(marshal(&Reply{Type: TypeReply, OK: true, Value: session.MarshalMessages(h.redactMessages(msgs))})))
			packed := string(packHistory(0, h.redactMessages(msgs), &h.red))
			var mirrored bytes.Buffer
			writePacked(&mirrored, h.redactMessages(msgs), nil, true, &h.red)
			for name, out := range map[string]string{"JSON": asJSON, "packed": packed, "mirrored": mirrored.String()} {
				requireClean(t, out, name+" "+p.path)
				if name != "mirrored" {
					line, _, _ := strings.Cut(out, "\n")
					require.True(t, json.Valid([]byte(line)), "%s: %s", name, line)
				}
			}
		})
	}
}
