package schema

import "langmodel/internal/order"

// kind is the JSON type of a decoded value.
type kind uint8

const (
	kInvalid kind = iota // not a JSON value (an unexpected Go type, NaN, ±Inf)
	kNull
	kBool
	kNumber
	kString
	kArray
	kObject
)

var kindNames = [...]string{"an unsupported Go value", "null", "boolean", "number", "string", "array", "object"}

func kindOf(v any) kind {
	switch v.(type) {
	case nil:
		return kNull
	case bool:
		return kBool
	case string:
		return kString
	case []any:
		return kArray
	case map[string]any:
		return kObject
	}
	if _, ok := numText(v); ok {
		return kNumber
	}
	return kInvalid
}

// equal is JSON equality: numbers by value (1 == 1.0), objects regardless of
// key order.
func equal(a, b any) bool {
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		return false
	}
	switch ka {
	case kNull:
		return true
	case kBool:
		return a.(bool) == b.(bool)
	case kString:
		return a.(string) == b.(string)
	case kNumber:
		sa, _ := numText(a)
		sb, _ := numText(b)
		return numEqual(sa, sb)
	case kArray:
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case kObject:
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// firstDuplicate returns the first j with an equal earlier item i (smallest
// such i), or -1, -1.
func firstDuplicate(items []any) (int, int) {
	if len(items) <= 16 {
		for j := 1; j < len(items); j++ {
			for i := 0; i < j; i++ {
				if equal(items[i], items[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string]int, len(items))
	var b []byte
	for j, it := range items {
		b = appendValue(b[:0], it, true, 0)
		k := string(b)
		if i, ok := seen[k]; ok {
			return i, j
		}
		seen[k] = j
	}
	return -1, -1
}

func sortedKeys[V any](m map[string]V) []string {
	return sortKeysInto(make([]string, 0, len(m)), m)
}

// sortKeysInto returns the keys of m sorted, in buf's storage when it
// fits (buf's contents are discarded). Small sets are insertion-sorted in
// place (no allocation, so a caller's stack buffer stays on the stack);
// larger ones are copied and sorted with order.Sort (not slices.Sort, whose
// pdqsort costs the module 17 KB of code per element type: make size).
func sortKeysInto[V any](buf []string, m map[string]V) []string {
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	if len(m) > 12 {
		big := append([]string(nil), keys...)
		order.Sort(big)
		return big
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
