package docs

// The layout table of docs/design.md ("The layout") checked against the tree: a newcomer
// reads the table to find where a thing lives, so every Go package has a row, and every
// folder a row names is there.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layoutFolders returns the folders named in the first cell of each row of the table
// under "The layout" in design.md, relative to the repository's root and without a
// trailing slash. A folder written `x/...` covers x and every folder below it (trees);
// any other covers that folder alone (exact).
func layoutFolders(t *testing.T, design string) (exact, trees []string) {
	t.Helper()
	_, section, ok := strings.Cut(design, "\n## The layout\n")
	require.True(t, ok, "design.md has a section The layout")
	section, _, _ = strings.Cut(section, "\n## ")
	cell := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			if tree, ok := strings.CutSuffix(m[1], "/..."); ok {
				trees = append(trees, tree)
			} else {
				exact = append(exact, strings.TrimSuffix(m[1], "/"))
			}
		}
	}
	return exact, trees
}

// goPackageDirs returns the folders under root holding a Go package, as go list ./...
// sees them: testdata, node_modules, build and folders whose names start with . or _
// are not walked.
func goPackageDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || name == "build" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); !slices.Contains(dirs, rel) {
				dirs = append(dirs, rel)
			}
		}
		return nil
	}))
	return dirs
}

// uncovered returns the package folders no row names: neither the folder itself nor a
// tree above it.
func uncovered(packages, exact, trees []string) []string {
	var out []string
	for _, p := range packages {
		covered := slices.Contains(exact, p)
		for _, tree := range trees {
			covered = covered || p == tree || strings.HasPrefix(p, tree+"/")
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

func TestDocs_Layout(t *testing.T) {
	raw, err := os.ReadFile("design.md")
	require.NoError(t, err)
	exact, trees := layoutFolders(t, string(raw))
	require.NotEmpty(t, exact)

	t.Run("every Go package has a row", func(t *testing.T) {
		packages := goPackageDirs(t, "..")
		require.Contains(t, packages, "wasm/cmd/langmodel", "the walk finds the module's main package")
		require.Empty(t, uncovered(packages, exact, trees), "Go packages with no row in docs/design.md's layout table (The layout): add one, or name a folder above them as `folder/...`")
	})
	t.Run("every folder a row names exists", func(t *testing.T) {
		for _, folder := range append(slices.Clone(exact), trees...) {
			info, err := os.Stat(filepath.Join("..", folder))
			require.NoError(t, err, "docs/design.md's layout table names %s", folder)
			require.True(t, info.IsDir(), "docs/design.md's layout table names %s, which is no folder", folder)
		}
	})
}

// TestDocs_LayoutRules: the check's own rules, on a table of its own.
func TestDocs_LayoutRules(t *testing.T) {
	design := "# D\n\n## The layout\n\n| folder | what | may import |\n|---|---|---|\n" +
		"| `loop/`, `loop/openai` | a | b |\n| `loop/internal/...` | c | d |\n| `js/` | e | — |\n\n## Next\n\n| `ignored/` | f | g |\n"
	exact, trees := layoutFolders(t, design)
	require.Equal(t, []string{"loop", "loop/openai", "js"}, exact)
	require.Equal(t, []string{"loop/internal"}, trees)
	for _, tc := range []struct {
		name     string
		packages []string
		want     []string
	}{
		{"a folder named exactly", []string{"loop", "loop/openai"}, nil},
		{"a folder under a tree", []string{"loop/internal", "loop/internal/sse", "loop/internal/sse/deeper"}, nil},
		{"a folder under an exact row is not covered", []string{"loop/scripted"}, []string{"loop/scripted"}},
		{"a folder that only shares a tree's prefix is not covered", []string{"loop/internalx"}, []string{"loop/internalx"}},
		{"a folder of a later section is not a row", []string{"ignored"}, []string{"ignored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, uncovered(tc.packages, exact, trees))
		})
	}
}
