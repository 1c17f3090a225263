// Command testtimes reads `go test -json` output on stdin and prints where the time went,
// as Markdown tables: each package's seconds, then the slowest top-level tests with their
// seconds in each browser engine (their subtests named chromium, firefox, webkit).
// `make test-times` runs the whole suite through it.
//
//	go test -json ./... | go run ./internal/tools/testtimes -top 30
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is the part of a test2json event this reads.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

var engines = []string{"chromium", "firefox", "webkit"}

func main() {
	top := flag.Int("top", 30, "how many of the slowest tests to list")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *top); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
}

type key struct{ pkg, test string }

func run(in io.Reader, out io.Writer, top int) error {
	pkgs := map[string]float64{}
	tests := map[key]float64{}
	perEngine := map[key]map[string]float64{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // make's own lines between the packages' events
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("reading %.80s: %w", line, err)
		}
		if e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			continue
		}
		if e.Test == "" {
			pkgs[e.Package] += e.Elapsed // a package tested twice (race, GOOS=js) adds up
			continue
		}
		name, sub, _ := strings.Cut(e.Test, "/")
		k := key{e.Package, name}
		switch {
		case sub == "":
			tests[k] += e.Elapsed
		case isEngine(sub):
			if perEngine[k] == nil {
				perEngine[k] = map[string]float64{}
			}
			perEngine[k][sub] += e.Elapsed
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Fprintln(out, "| package | s |\n|---|---:|")
	for _, p := range sorted(pkgs) {
		fmt.Fprintf(out, "| %s | %.0f |\n", p, pkgs[p])
	}
	fmt.Fprintln(out, "\n| test | package | s | chromium | firefox | webkit |\n|---|---|---:|---:|---:|---:|")
	keys := make([]key, 0, len(tests))
	for k := range tests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return tests[keys[i]] > tests[keys[j]] })
	for i, k := range keys {
		if i == top {
			break
		}
		cells := make([]string, len(engines))
		for j, eng := range engines {
			if s, ok := perEngine[k][eng]; ok {
				cells[j] = fmt.Sprintf("%.0f", s)
			}
		}
		fmt.Fprintf(out, "| %s | %s | %.0f | %s |\n", k.test, strings.TrimPrefix(k.pkg, "langmodel/"), tests[k], strings.Join(cells, " | "))
	}
	return nil
}

func isEngine(s string) bool {
	for _, e := range engines {
		if s == e {
			return true
		}
	}
	return false
}

// sorted returns m's keys, the largest value first.
func sorted(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return m[ks[i]] > m[ks[j]] })
	return ks
}
