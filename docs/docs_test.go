// Package docs holds the documentation beyond README.md: the design as built, the
// backends in depth, testing, decisions. Its test checks what a reader of a clone
// follows: every link between the documents resolves inside the repository, none
// reaches outside it, and every example marked as tested names a test that exists.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// documents are the Markdown files a reader of the repository follows, relative to its
// root.
var documents = []string{"README.md", "RATIONALE.md", "docs/design.md", "docs/backends.md", "docs/testing.md", "docs/decisions.md", "docs/snapshots.md", "docs/recordings.md", "docs/security.md", "docs/chat-ui.md", "docs/reasoning.md", "docs/small-windows.md", "wasm/README.md", "demo/README.md"}

var (
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	tested = regexp.MustCompile("<!-- tested: ([^>]*) -->\n```")
)

// prose returns the lines of a Markdown file outside fenced code.
func prose(text string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			out = append(out, line)
		}
	}
	return out
}

// slug is a heading's anchor as GitHub makes it: lower case, spaces as hyphens,
// punctuation dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file's headings.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, line := range prose(string(raw)) {
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			out[slug(h)] = true
		}
	}
	return out
}

func TestDocs_Links(t *testing.T) {
	root := ".."
	for _, doc := range documents {
		t.Run(doc, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, doc))
			require.NoError(t, err)
			require.NotContains(t, string(raw), "../"+"shared", "a clone has nothing beside it")
			for _, line := range prose(string(raw)) {
				for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
					target := m[1]
					if strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "http://") {
						continue
					}
					file, anchor, _ := strings.Cut(target, "#")
					path := filepath.Join(root, filepath.Dir(doc), file)
					if file == "" {
						path = filepath.Join(root, doc)
					}
					rel, err := filepath.Rel(root, path)
					require.NoError(t, err)
					require.False(t, strings.HasPrefix(rel, ".."), "%s links %s, outside the repository", doc, target)
					_, err = os.Stat(path)
					require.NoError(t, err, "%s links %s", doc, target)
					if anchor != "" {
						require.True(t, anchors(t, path)[anchor], "%s links %s: no such heading", doc, target)
					}
				}
			}
		})
	}
}

// testFuncs returns the names of the repository's test functions.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	funcs := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	require.NoError(t, filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "build" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range decl.FindAllStringSubmatch(string(raw), -1) {
				funcs[m[1]] = true
			}
		}
		return nil
	}))
	return funcs
}

// TestDocs_TestedExamples: every example marked "<!-- tested: Name -->" names test
// functions that exist, so that a moved example is never left untested.
func TestDocs_TestedExamples(t *testing.T) {
	funcs := testFuncs(t)
	count := 0
	for _, doc := range documents {
		raw, err := os.ReadFile(filepath.Join("..", doc))
		require.NoError(t, err)
		for _, m := range tested.FindAllStringSubmatch(string(raw), -1) {
			for _, name := range strings.Split(m[1], ",") {
				count++
				require.True(t, funcs[strings.TrimSpace(name)], "%s: an example is tested by %s, which is no test", doc, name)
			}
		}
	}
	require.GreaterOrEqual(t, count, 12, "README.md and docs/backends.md mark their examples")
}

// TestDocs_SecurityPromises: docs/security.md holds each promise by naming its tests;
// every test it names exists, and every row of its promises table names one.
func TestDocs_SecurityPromises(t *testing.T) {
	funcs := testFuncs(t)
	raw, err := os.ReadFile("security.md")
	require.NoError(t, err)
	named := regexp.MustCompile("`(Test\\w+)")
	for _, m := range named.FindAllStringSubmatch(string(raw), -1) {
		require.True(t, funcs[m[1]], "docs/security.md names %s, which is no test", m[1])
	}
	_, table, ok := strings.Cut(string(raw), "## The promises")
	require.True(t, ok)
	table, _, _ = strings.Cut(table, "\n## ")
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| **") {
			rows++
			require.Regexp(t, "`Test\\w+", line, "a promise without a test: %s", line)
		}
	}
	require.GreaterOrEqual(t, rows, 6)
}

// TestDocs_NamesNothingOutside: no file of the repository (code, comments, docs, the
// Makefile) sends its reader to a tracker's numbered issue or to notes a clone does not
// hold; each names the docs section, RATIONALE.md question or behaviour it means.
func TestDocs_NamesNothingOutside(t *testing.T) {
	outside := regexp.MustCompile(`(?i)\bissues? #?[0-9]+\b|` + "FIELD" + `-NOTES`)
	root := ".."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".js", ".mjs", ".ts", ".html", ".sh", ".json", ".css", "":
		default:
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(raw), "\n") {
			require.False(t, outside.MatchString(line), "%s:%d names something outside the repository: %s", path, i+1, strings.TrimSpace(line))
		}
		return nil
	})
	require.NoError(t, err)
}
