package moduletest

// docs.go: the examples of docs/backends.md that suites run as written.

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// backendsDoc is the page whose examples these tests run: the backends in depth.
const backendsDoc = "../../../docs/backends.md" // from a suite's folder, internal/integration_test/<suite>

// DocBlocks returns the ```js blocks of docs/backends.md that follow a
// "<!-- tested: name -->" line, in order (STYLE.md practice 14: every snippet of the
// documentation has a test of what it shows).
func DocBlocks(t *testing.T, name string) []string {
	b, err := os.ReadFile(backendsDoc)
	require.NoError(t, err)
	var blocks []string
	rest := string(b)
	for {
		i := strings.Index(rest, "<!-- tested: "+name+" -->\n```js\n")
		if i < 0 {
			break
		}
		rest = rest[i+len("<!-- tested: "+name+" -->\n```js\n"):]
		end := strings.Index(rest, "\n```")
		require.GreaterOrEqual(t, end, 0, "unterminated block")
		blocks = append(blocks, rest[:end])
		rest = rest[end:]
	}
	require.NotEmpty(t, blocks, "%s has no block tested by %s", backendsDoc, name)
	return blocks
}

// Replace replaces old in s, which must contain it.
func Replace(t *testing.T, s, old, new string) string {
	t.Helper()
	require.Contains(t, s, old)
	return strings.Replace(s, old, new, 1)
}
