// Command wasmsize prints where the bytes of a GOOS=js module go, for `make size`: the
// code of each package (function bodies, named by the module's name section, so the
// module must be built without -s), the Go runtime's share apart, and the data; each
// with its estimated share of the module's brotli size. go tool nm does not read wasm.
//
//	go run ./internal/tools/wasmsize [-top 25] -pkg ./wasm/cmd/langmodel unstripped.wasm stripped.wasm
//
// The linker writes function names with every character but letters, digits, _ and .
// replaced by _ ("langmodel_loop.__Session_.Prompt"); the packages of -pkg (go list
// -deps) map them back.
//
// The brotli share of a part is its bytes compressed alone, scaled so that the parts add
// up to the stripped module's brotli size: an estimate, since brotli finds repeats across
// parts too, but good enough to aim a cut.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

func main() {
	top := flag.Int("top", 25, "packages to list by name; the rest are summed by kind")
	funcs := flag.String("funcs", "", "a package whose functions to list by code size, largest first (where a package's bytes go)")
	pkg := flag.String("pkg", "./wasm/cmd/langmodel", "the main package the module was built from")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-top n] [-pkg path] unstripped.wasm stripped.wasm")
		os.Exit(2)
	}
	if *funcs != "" {
		if err := listFuncs(flag.Arg(0), *funcs, *top); err != nil {
			fmt.Fprintln(os.Stderr, "wasmsize:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*pkg, flag.Arg(0), flag.Arg(1), *top); err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

// The brotli share of a part is its bytes compressed alone at quality 9, scaled so that
// the parts add up to the stripped module's size at quality 11.

// part is a package's code, or the data, and its bytes.
type part struct {
	name   string
	kind   string // runtime, std, project, third-party, data
	bytes  []byte
	brotli float64
}

func run(mainPkg, unstripped, stripped string, top int) error {
	cmd := exec.Command("go", "list", "-deps", mainPkg)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	list, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list -deps %s: %w", mainPkg, err)
	}
	mangled := map[string]string{} // the linker's form of a package path → the path
	for _, p := range strings.Fields(string(list)) {
		mangled[unword.ReplaceAllString(p, "_")] = p
	}
	mangled["main"] = mainPkg
	m, err := parseFile(unstripped)
	if err != nil {
		return err
	}
	if len(m.names) == 0 {
		return errors.New(unstripped + " has no name section: build it without -ldflags=-s")
	}
	byPkg := map[string]*part{}
	for i, body := range m.bodies {
		pkg := packageOf(m.names[uint32(m.imports+i)], mangled)
		p := byPkg[pkg]
		if p == nil {
			p = &part{name: pkg, kind: kindOf(pkg)}
			byPkg[pkg] = p
		}
		p.bytes = append(p.bytes, body...)
	}
	parts := []*part{{name: "data (strings, type descriptors, pclntab, tables)", kind: "data", bytes: m.data}}
	for _, p := range byPkg {
		parts = append(parts, p)
	}
	total, err := brotli(mustRead(stripped), "11")
	if err != nil {
		return err
	}
	var sum float64
	for _, p := range parts {
		n, err := brotli(p.bytes, "9") // faster than 11; only the proportions matter
		if err != nil {
			return err
		}
		p.brotli = float64(n)
		sum += p.brotli
	}
	for _, p := range parts {
		p.brotli *= float64(total) / sum
	}
	slices.SortFunc(parts, func(a, b *part) int { return len(b.bytes) - len(a.bytes) })

	fmt.Printf("%s: %d bytes brotli -q 11; code %d bytes in %d functions, data %d bytes\n\n",
		stripped, total, m.codeBytes, len(m.bodies), len(m.data))
	fmt.Printf("%-44s %10s %10s %6s\n", "package (code) / data", "raw", "~brotli", "share")
	kinds := map[string][2]float64{}
	shown := 0
	for _, p := range parts {
		k := kinds[p.kind]
		kinds[p.kind] = [2]float64{k[0] + float64(len(p.bytes)), k[1] + p.brotli}
		if shown < top || p.kind == "data" {
			fmt.Printf("%-44s %10d %10.0f %5.1f%%\n", p.name, len(p.bytes), p.brotli, 100*p.brotli/float64(total))
			shown++
		}
	}
	fmt.Printf("\nby kind (runtime: runtime, internal/*, sync, syscall and the other packages every Go program links)\n")
	for _, k := range []string{"runtime", "std", "third-party", "project", "data"} {
		fmt.Printf("%-44s %10.0f %10.0f %5.1f%%\n", k, kinds[k][0], kinds[k][1], 100*kinds[k][1]/float64(total))
	}
	return nil
}

// listFuncs prints the top largest functions of package pkg (an import path:
// langmodel/internal/redact) in the unstripped module, with their code bytes.
func listFuncs(unstripped, pkg string, top int) error {
	m, err := parseFile(unstripped)
	if err != nil {
		return err
	}
	type fn struct {
		name string
		size int
	}
	var fns []fn
	total := 0
	pkg = unword.ReplaceAllString(pkg, "_") // as the linker writes it in the name section
	for i, body := range m.bodies {
		name := m.names[uint32(m.imports+i)]
		if rest, ok := strings.CutPrefix(name, pkg); ok && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "_")) { // the package, and those under it
			fns = append(fns, fn{name, len(body)})
			total += len(body)
		}
	}
	slices.SortFunc(fns, func(a, b fn) int { return b.size - a.size })
	fmt.Printf("%s: %d functions, %d bytes of code\n", pkg, len(fns), total)
	for i, f := range fns {
		if i == top {
			break
		}
		fmt.Printf("%8d  %s\n", f.size, f.name)
	}
	return nil
}

// parseFile reads and parses the module at path.
func parseFile(path string) (*module, error) {
	mod, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(mod)
}

func mustRead(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
	return b
}

func brotli(b []byte, quality string) (int, error) {
	cmd := exec.Command("brotli", "-q", quality, "-c")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("brotli (make deps installs it): %w", err)
	}
	return len(out), nil
}

// unword is what the linker replaces by _ in function names (cmd/link/internal/wasm).
var unword = regexp.MustCompile(`[^\w.]`)

// packageOf is the import path of a function's name as the linker writes it:
// "langmodel_loop.__Session_.Prompt" → "langmodel/loop", "type_.eq.langmodel_session.
// Message" → "langmodel/session"; what names no package is the runtime's.
func packageOf(sym string, mangled map[string]string) string {
	sym = strings.TrimPrefix(sym, "type_.eq.")
	// A package path has no dot but in its first element (a domain): try each dot.
	for i := 0; i < len(sym); i++ {
		if sym[i] == '.' {
			if p, ok := mangled[sym[:i]]; ok {
				return p
			}
		}
	}
	return "runtime"
}

// runtimePkgs are linked into every GOOS=js program, whatever it does.
// (syscall/js is counted by its prefix: make check-imports greps for its quoted path.)
var runtimePkgs = []string{"runtime", "sync", "errors", "unsafe", "io", "os", "time"}

func kindOf(pkg string) string {
	switch {
	case slices.Contains(runtimePkgs, pkg), strings.HasPrefix(pkg, "runtime/"), strings.HasPrefix(pkg, "internal/"), strings.HasPrefix(pkg, "sync/"), strings.HasPrefix(pkg, "syscall"):
		return "runtime"
	case strings.HasPrefix(pkg, "langmodel"), strings.HasPrefix(pkg, "./"):
		return "project"
	case strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
		return "third-party"
	}
	return "std"
}

// module is what wasmsize reads of a wasm binary.
type module struct {
	imports   int               // imported functions: function indices start after them
	bodies    [][]byte          // each defined function's body
	codeBytes int               // the code section's size
	data      []byte            // every data segment's bytes
	names     map[uint32]string // function index → name, from the name section
}

func parse(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm module")
	}
	m := &module{names: map[uint32]string{}}
	r := &reader{b: b[8:]}
	for !r.done() {
		id := r.byte()
		size := r.u32()
		sec := &reader{b: r.take(int(size))}
		switch id {
		case 0: // custom
			if sec.name() == "name" {
				for !sec.done() {
					sub := sec.byte()
					s := &reader{b: sec.take(int(sec.u32()))}
					if sub != 1 {
						continue
					}
					for n := s.u32(); n > 0; n-- {
						idx := s.u32()
						m.names[idx] = s.name()
					}
				}
			}
		case 2: // imports
			for n := sec.u32(); n > 0; n-- {
				sec.name()
				sec.name()
				switch kind := sec.byte(); kind {
				case 0:
					sec.u32()
					m.imports++
				case 1: // table: reftype, limits
					sec.byte()
					sec.limits()
				case 2:
					sec.limits()
				case 3: // global: valtype, mut
					sec.byte()
					sec.byte()
				}
			}
		case 10: // code
			m.codeBytes = int(size)
			for n := sec.u32(); n > 0; n-- {
				m.bodies = append(m.bodies, sec.take(int(sec.u32())))
			}
		case 11: // data
			m.data = append(m.data, sec.b...)
		}
		if r.err != nil || sec.err != nil {
			return nil, errors.Join(r.err, sec.err)
		}
	}
	return m, r.err
}

// reader reads LEB128 integers and names; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) done() bool { return len(r.b) == 0 || r.err != nil }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = errors.New("unexpected end")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) u32() uint32 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad LEB128")
		return 0
	}
	r.b = r.b[n:]
	return uint32(v)
}

func (r *reader) take(n int) []byte {
	if n > len(r.b) {
		r.err = errors.New("section runs past the end")
		n = len(r.b)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) name() string { return string(r.take(int(r.u32()))) }

func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.u32()
	}
	r.u32()
}
