// Command toygguf writes one of internal/testing/toygguf's models to a file, for pages
// that need a real llama.cpp model with no network (the demo's built-in
// offline choice):
//
//	go run ./internal/tools/toygguf -script weather -o build/toy.gguf
//
// Models are generated, never committed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"langmodel/internal/testing/toygguf"
)

// scripts are the models by name.
var scripts = map[string]toygguf.Script{
	"weather":           toygguf.Weather,
	"weather-with-text": toygguf.WeatherWithText,
	"always-calls":      toygguf.AlwaysCalls,
	"two-calls":         toygguf.TwoCalls,
	"hello":             toygguf.Hello,
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "toygguf:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("toygguf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("script", "weather", "the model: "+strings.Join(names(), ", "))
	out := fs.String("o", "-", "the file to write (- for standard output)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, ok := scripts[*name]
	if !ok {
		return fmt.Errorf("no script %q (known: %s)", *name, strings.Join(names(), ", "))
	}
	var b bytes.Buffer
	if err := toygguf.Write(&b, s); err != nil {
		return err
	}
	if *out == "-" {
		_, err := stdout.Write(b.Bytes())
		return err
	}
	return os.WriteFile(*out, b.Bytes(), 0o644)
}

func names() []string {
	var n []string
	for k := range scripts {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}
