package mcp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// Names are resolved strictly by position: an earlier source's names, its own or renamed,
// are never taken by a later one; a later colliding name is renamed again,
// deterministically. Server a's x, renamed a__x beside the page's x, keeps a__x whatever
// b lists (a server listing "a__x" squats on nothing).
func TestTools_NamesByPosition(t *testing.T) {
	tests := []struct {
		name   string
		own    []string
		a, b   []string
		want   []string // declared names, in order
		routes []string // server/ref of each server tool, in order
	}{
		{"no collision: own names", nil, []string{"x"}, []string{"y"}, []string{"x", "y"}, []string{"a/x", "b/y"}},
		{"a collision renames every server's tool of that name", []string{"x"}, []string{"x"}, []string{"x"},
			[]string{"x", "a__x", "b__x"}, []string{"a/x", "b/x"}},
		{"b squatting on a's renamed name is renamed again", []string{"x"}, []string{"x"}, []string{"a__x"},
			[]string{"x", "a__x", "b__a__x"}, []string{"a/x", "b/a__x"}},
		{"b squatting on a's own name is renamed", nil, []string{"a__x"}, []string{"a__x"},
			[]string{"a__a__x", "b__a__x"}, []string{"a/a__x", "b/a__x"}},
		{"the page's tool named like a renamed one keeps it; a's is renamed again", []string{"x", "a__x"}, []string{"x"}, nil,
			[]string{"x", "a__x", "a__a__x"}, []string{"a/x"}},
		{"renamed again until free", []string{"x", "a__x", "a__a__x"}, []string{"x"}, nil,
			[]string{"x", "a__x", "a__a__x", "a__a__x_2"}, []string{"a/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list := func(names []string) []string {
				var out []string
				for _, n := range names {
					out = append(out, tool(n, `{"readOnlyHint":true}`))
				}
				return out
			}
			s := connectFakes(t, &fake{tools: list(tc.a)}, &fake{tools: list(tc.b)})
			var own []session.Tool
			for _, n := range tc.own {
				own = append(own, session.Tool{Name: n, Description: n})
			}
			for range 2 { // the same every time the tools are put together
				tools, err := s.Tools(own)
				require.NoError(t, err)
				var names, routes []string
				for _, tl := range tools {
					names = append(names, tl.Name)
					if tl.Source.Kind == session.SourceMCP {
						routes = append(routes, tl.Source.Server+"/"+tl.Source.Ref)
					}
				}
				require.Equal(t, tc.want, names)
				require.Equal(t, tc.routes, routes)
			}
		})
	}
}
