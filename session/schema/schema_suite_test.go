package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"langmodel/internal/jsonv"
)

// The official JSON Schema Test Suite (draft 2020-12) measures this package
// keyword by keyword. Each group whose schema Compile rejects with
// ErrUnsupported counts as unsupported (a feature rejected on purpose: remote
// refs, unevaluated*, $dynamicRef, $anchor, nested $id, custom meta-schemas);
// every other case must pass unless listed in knownFailures.

const suiteEnv = "JSON_SCHEMA_TEST_SUITE"

// knownFailures lists cases that fail for a known reason, keyed
// "file/group description/test description".
var knownFailures = map[string]string{}

type suiteGroup struct {
	Description string           `json:"description"`
	Schema      jsonv.RawMessage `json:"schema"`
	Tests       []struct {
		Description string           `json:"description"`
		Data        jsonv.RawMessage `json:"data"`
		Valid       bool             `json:"valid"`
	} `json:"tests"`
}

type fileResult struct {
	file                        string
	passed, failed, unsupported int
	unsupportedReasons          map[string]bool
}

// suiteDir is draft2020-12 of the suite: $JSON_SCHEMA_TEST_SUITE (either the
// suite folder or its draft2020-12 subfolder) when set, to measure another
// release, else the copy kept in testdata/ (MIT, its LICENSE beside it), so a
// clone tests itself with nothing outside it.
func suiteDir(t *testing.T) string {
	if env := os.Getenv(suiteEnv); env != "" {
		for _, d := range []string{filepath.Join(env, "draft2020-12"), env} {
			if isDir(d) && hasJSON(d) {
				return d
			}
		}
		t.Fatalf("%s=%q does not contain the draft2020-12 test files", suiteEnv, env)
	}
	dir := filepath.Join("testdata", "json-schema-test-suite", "draft2020-12")
	if !isDir(dir) || !hasJSON(dir) {
		t.Fatalf("JSON Schema Test Suite not found in %s (it is part of the repository)", dir)
	}
	return dir
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func hasJSON(d string) bool {
	m, _ := filepath.Glob(filepath.Join(d, "*.json"))
	return len(m) > 0
}

func TestJSONSchemaTestSuite(t *testing.T) {
	dir := suiteDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s", dir)
	}
	sort.Strings(files)
	usedKnown := map[string]bool{}
	var results []fileResult
	for _, path := range files {
		file := filepath.Base(path)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(raw, &groups); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		r := fileResult{file: file, unsupportedReasons: map[string]bool{}}
		for _, g := range groups {
			s, cerr := CompileJSON(g.Schema)
			if errors.Is(cerr, ErrUnsupported) {
				r.unsupported += len(g.Tests)
				r.unsupportedReasons[unsupportedWhat(cerr)] = true
				continue
			}
			for _, tc := range g.Tests {
				key := file + "/" + g.Description + "/" + tc.Description
				var got bool
				var verr error
				if cerr == nil {
					verr = s.ValidateJSON(tc.Data)
					got = verr == nil
				}
				if cerr == nil && got == tc.Valid {
					r.passed++
					if _, ok := knownFailures[key]; ok {
						usedKnown[key] = true
						t.Errorf("%s: listed in knownFailures but passes; remove it", key)
					}
					continue
				}
				r.failed++
				if _, ok := knownFailures[key]; ok {
					usedKnown[key] = true
					continue
				}
				switch {
				case cerr != nil:
					t.Errorf("%s: Compile: %v", key, cerr)
				case tc.Valid:
					t.Errorf("%s: want valid, got %v (data %s)", key, verr, tc.Data)
				default:
					t.Errorf("%s: want invalid, got valid (data %s, schema %s)", key, tc.Data, g.Schema)
				}
			}
		}
		results = append(results, r)
	}
	for key := range knownFailures {
		if !usedKnown[key] {
			t.Errorf("knownFailures entry %q matches no case", key)
		}
	}
	report := suiteReport(dir, results)
	t.Log("\n" + report)
	if out := os.Getenv("SCHEMA_SUITE_REPORT"); out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			t.Errorf("writing %s: %v", out, err)
		}
	}
}

// unsupportedWhat returns the feature an ErrUnsupported error names.
func unsupportedWhat(err error) string {
	var se *schemaError
	if errors.As(err, &se) && se.feature != "" {
		return se.feature
	}
	return err.Error()
}

func suiteReport(dir string, results []fileResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "JSON Schema Test Suite, draft 2020-12 (%s); the optional/ folder is out of scope and not run.\n\n", filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir))
	b.WriteString("| file | passed | failed | unsupported | pass rate (supported) | unsupported because |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|\n")
	var tp, tf, tu int
	for _, r := range results {
		rate := "n/a"
		if r.passed+r.failed > 0 {
			rate = fmt.Sprintf("%.1f%%", 100*float64(r.passed)/float64(r.passed+r.failed))
		}
		why := make([]string, 0, len(r.unsupportedReasons))
		for k := range r.unsupportedReasons {
			why = append(why, k)
		}
		sort.Strings(why)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s |\n", strings.TrimSuffix(r.file, ".json"), r.passed, r.failed, r.unsupported, rate, strings.Join(why, ", "))
		tp += r.passed
		tf += r.failed
		tu += r.unsupported
	}
	fmt.Fprintf(&b, "| **total** | %d | %d | %d | %.1f%% | |\n", tp, tf, tu, 100*float64(tp)/float64(max(1, tp+tf)))
	return b.String()
}
