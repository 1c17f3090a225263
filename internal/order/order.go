// Package order sorts strings and ints, and a map's keys, for output that is the same
// byte for byte every time. It exists for size: slices.Sort instantiates pdqsort for each
// element type, about 17 KB of code apiece in the module, where this is about 1 KB
// (RATIONALE.md "How does the module stay within its size budget?"). Like slices.Sort it is not
// stable, which two equal strings or ints cannot tell.
package order

// Sort sorts s in increasing order: by insertion when it is short, by heapsort beyond,
// so that any length costs O(n log n).
func Sort[T ~string | ~int](s []T) {
	if len(s) <= 12 {
		for i := 1; i < len(s); i++ {
			for j := i; j > 0 && s[j] < s[j-1]; j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
		return
	}
	for i := len(s)/2 - 1; i >= 0; i-- {
		siftDown(s, i, len(s))
	}
	for end := len(s) - 1; end > 0; end-- {
		s[0], s[end] = s[end], s[0]
		siftDown(s, 0, end)
	}
}

// siftDown restores the max-heap below root in s[:end].
func siftDown[T ~string | ~int](s []T, root, end int) {
	for {
		child := 2*root + 1
		if child >= end {
			return
		}
		if child+1 < end && s[child] < s[child+1] {
			child++
		}
		if s[root] >= s[child] {
			return
		}
		s[root], s[child] = s[child], s[root]
		root = child
	}
}

// Keys returns m's keys, sorted.
func Keys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	Sort(keys)
	return keys
}
