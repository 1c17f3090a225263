package order

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSort_AsSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		ints []int
	}{
		{"empty", nil},
		{"one", []int{7}},
		{"short, reversed", []int{5, 4, 3, 2, 1}},
		{"twelve, the last by insertion", []int{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{"thirteen, the first by heapsort", []int{13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{"sorted already", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
		{"all equal", slices.Repeat([]int{3}, 40)},
		{"duplicates and negatives", []int{3, -1, 3, 0, -7, 3, 2, 2, -1, 9, 0, 0, 5, -7, 1, 4}},
		{"1,000 random", func() []int {
			s := make([]int, 1000)
			for i := range s {
				s[i] = r.IntN(300) - 150
			}
			return s
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := slices.Clone(tc.ints)
			slices.Sort(want)
			got := slices.Clone(tc.ints)
			Sort(got)
			require.Equal(t, want, got)

			strs := make([]string, len(tc.ints)) // strings order otherwise: "10" < "9"
			for i, n := range tc.ints {
				strs[i] = strconv.Itoa(n)
			}
			wantS := slices.Clone(strs)
			slices.Sort(wantS)
			Sort(strs)
			require.Equal(t, wantS, strs)
		})
	}
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    map[string]int
		want []string
	}{
		{"nil map", nil, []string{}},
		{"keys by byte order", map[string]int{"b": 1, "a": 2, "B": 3, "é": 4, "": 5}, []string{"", "B", "a", "b", "é"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Keys(tc.m))
		})
	}
}

// BenchmarkSort: a tool's schema keys (8), a large object's keys (1,000).
func BenchmarkSort(b *testing.B) {
	for _, n := range []int{8, 1000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = "key" + strconv.Itoa(i*7919%n)
		}
		buf := make([]string, n)
		b.Run("order/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				copy(buf, keys)
				Sort(buf)
			}
		})
		b.Run("slices/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				copy(buf, keys)
				slices.Sort(buf)
			}
		})
	}
}
