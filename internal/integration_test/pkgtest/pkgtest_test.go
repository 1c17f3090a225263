//go:build !js

// Package pkgtest tests the npm package as its users use it: `make package` builds the
// tarball, each test starts a scratch app in a temporary folder as README's Node section
// says (npm init -y, "type": "module", npm install of the tarball), and the app is built
// the way its README section says (esbuild, vite build, vite dev, webpack, plain files
// with an import map, Node) and run: in headless Chromium for the pages, in node for
// Node. A page made of exactly the files README's plain-files step copies runs too, and
// the README the package ships is checked for links that cannot resolve in it. The
// apps' code is README.md's examples, read from README.md, so that what README shows is
// what runs. The bundlers are pinned in package.json here and installed by `make deps`
// (npm ci); bundle.mjs drives them through their own APIs.
package pkgtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/internal/testing/browsertest"
	"langmodel/wasm"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// tarball runs `make package` once per test binary and returns build/langmodel.tgz.
var tarball = sync.OnceValues(func() (string, error) {
	cmd := exec.Command("make", "-s", "-C", "../../..", "package")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("make package: %v\n%s", err, out)
	}
	return filepath.Abs("../../../build/langmodel.tgz")
})

// readme returns the fenced blocks of README.md whose "<!-- tested: … -->" line names
// test, in order, with their language.
func readme(t *testing.T, test string) (blocks []string, langs []string) {
	t.Helper()
	b, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	re := regexp.MustCompile("(?s)<!-- tested: ([^>]*) -->\n```(\\w+)\n(.*?)\n```")
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		for _, name := range strings.Split(m[1], ",") {
			if strings.TrimSpace(name) == test {
				blocks = append(blocks, m[3])
				langs = append(langs, m[2])
			}
		}
	}
	return blocks, langs
}

// examples are README's blocks for test, by language, checked to be what the tests
// below expect.
type examples struct {
	js   []string // the two page examples (closed, open); for TestPackage_Node, then the node:test file
	vite string   // vite.config.js
	sh   string   // esbuild's step
	html string   // the plain page's import map
}

func readExamples(t *testing.T, test string) examples {
	blocks, langs := readme(t, test)
	var ex examples
	for i, b := range blocks {
		switch langs[i] {
		case "js":
			if strings.HasPrefix(b, "export default") {
				ex.vite = b
			} else {
				ex.js = append(ex.js, b)
			}
		case "sh":
			ex.sh = b
		case "html":
			ex.html = b
		}
	}
	return ex
}

// npmApp makes a scratch app in a temporary folder as README's Node section says a user
// does (npm init -y, "type": "module", npm install of the tarball), and writes files into
// it.
func npmApp(t *testing.T, files map[string]string) string {
	t.Helper()
	tgz, err := tarball()
	require.NoError(t, err)
	dir := t.TempDir()
	setup := readExamples(t, "TestPackage_Node").sh
	require.Contains(t, setup, "npm init -y", "README's Node section starts the app")
	setup = strings.ReplaceAll(setup, "/path/to/langmodel/build/langmodel.tgz", tgz)
	// No registry here: npm is told so, and to skip the audit and funding calls.
	setup = strings.ReplaceAll(setup, "npm install ", "npm install --offline --no-audit --no-fund --loglevel=error ")
	run(t, dir, "bash", "-euc", setup)
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	return dir
}

// run runs a command in dir, with the pinned bundlers first on PATH, and returns its
// standard output; it fails the test with the command's output if it fails.
func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s %s in %s:\n%s%s", name, strings.Join(args, " "), dir, out, stderr.String())
	return string(out)
}

// bin is node_modules/.bin of the pinned bundlers.
func bin(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("node_modules/.bin")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "esbuild"))
	require.NoError(t, err, "the bundlers are missing: run make deps (npm ci in internal/integration_test/pkgtest)")
	return dir
}

// harness is imported first by the app: it records uncaught errors, which the test
// reports instead of waiting for an app that will never finish.
const harness = `globalThis.appErrors = [];
globalThis.addEventListener?.("error", (e) => appErrors.push(String(e.error ?? e.message)));
globalThis.addEventListener?.("unhandledrejection", (e) => appErrors.push(String(e.reason)));
`

// appMain is the app: README's closed and open examples, in one module.
func appMain(ex examples) string {
	return "import \"./harness.js\";\n" + ex.js[0] + "\n" + ex.js[1] + "\nglobalThis.appDone = true;\n"
}

// wantLogs is what README's two examples print.
var wantLogs = []string{"get_time: It is 12:00 in Tokyo.", "get_time: It is 13:00 in Oslo."}

func TestPackage_Apps(t *testing.T) {
	ex := readExamples(t, "TestPackage_Apps")
	require.Len(t, ex.js, 2, "README's closed and open examples")
	require.NotEmpty(t, ex.vite, "README's vite.config.js")
	require.NotEmpty(t, ex.sh, "README's esbuild step")
	require.NotEmpty(t, ex.html, "README's import map")
	b := browsertest.Shared(t)
	for _, tc := range []struct {
		name string
		// build builds the app in dir and returns the folder to serve and the page.
		build func(t *testing.T, dir string) (root, page string)
		// serve, instead, serves the app itself and returns its page's URL.
		serve func(t *testing.T, dir string) string
		// viteConfig replaces README's vite.config.js; wantError is then the app's
		// uncaught error.
		viteConfig, wantError string
		// worker runs the app with install({worker: true}): the bundler must find
		// worker.js by its new URL("./worker.js", import.meta.url) and bundle it.
		worker bool
	}{
		{name: "plain files with an import map", build: func(t *testing.T, dir string) (string, string) {
			return dir, "/plain.html"
		}},
		{name: "esbuild", build: func(t *testing.T, dir string) (string, string) {
			// README's step as written; npx runs the pinned esbuild from PATH.
			run(t, dir, "bash", "-euc", "npx() { \"$@\"; }\n"+ex.sh)
			return dir, "/esbuild.html"
		}},
		{name: "vite build", build: func(t *testing.T, dir string) (string, string) {
			run(t, dir, "node", bundleMJS(t), "vite-build", dir)
			return filepath.Join(dir, "dist"), "/"
		}},
		{name: "vite dev", serve: func(t *testing.T, dir string) string {
			return viteDev(t, dir)
		}},
		{name: "vite dev without optimizeDeps.exclude: the error says what to do", serve: func(t *testing.T, dir string) string {
			return viteDev(t, dir)
		}, viteConfig: "export default {};", wantError: `/node_modules/.vite/deps/langmodel.wasm is not a WebAssembly module (it starts with "<!do"): ` +
			`serve langmodel.wasm there, or pass install({wasm}); a bundler must keep it beside the code (Vite's dev server: optimizeDeps.exclude).`},
		{name: "webpack", build: func(t *testing.T, dir string) (string, string) {
			run(t, dir, "node", bundleMJS(t), "webpack", dir)
			return dir, "/webpack.html"
		}},
		{name: "worker mode: plain files with an import map", worker: true, build: func(t *testing.T, dir string) (string, string) {
			return dir, "/plain.html"
		}},
		{name: "worker mode: vite build", worker: true, build: func(t *testing.T, dir string) (string, string) {
			run(t, dir, "node", bundleMJS(t), "vite-build", dir)
			return filepath.Join(dir, "dist"), "/"
		}},
		{name: "worker mode: vite dev", worker: true, serve: func(t *testing.T, dir string) string {
			return viteDev(t, dir)
		}},
		{name: "worker mode: webpack", worker: true, build: func(t *testing.T, dir string) (string, string) {
			run(t, dir, "node", bundleMJS(t), "webpack", dir)
			return dir, "/webpack.html"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vite := ex.vite
			if tc.viteConfig != "" {
				vite = tc.viteConfig
			}
			main := appMain(ex)
			if tc.worker {
				require.Contains(t, main, "await install({ ")
				main = strings.Replace(main, "await install({ ", "await install({ worker: true, ", 1)
			}
			dir := npmApp(t, map[string]string{
				"harness.js":     harness,
				"main.js":        main,
				"vite.config.js": vite + "\n",
				"index.html":     "<!doctype html>\n<meta charset=utf-8>\n<link rel=icon href=\"data:,\">\n<title>scratch app</title>\n<script type=\"module\" src=\"/main.js\"></script>\n",
				"plain.html":     "<!doctype html>\n<meta charset=utf-8>\n<link rel=icon href=\"data:,\">\n<title>scratch app</title>\n" + ex.html + "\n",
				"esbuild.html":   "<!doctype html>\n<meta charset=utf-8>\n<link rel=icon href=\"data:,\">\n<script type=\"module\" src=\"./dist/main.js\"></script>\n",
				"webpack.html":   "<!doctype html>\n<meta charset=utf-8>\n<link rel=icon href=\"data:,\">\n<script src=\"./dist/main.js\"></script>\n",
			})
			var url string
			if tc.serve != nil {
				url = tc.serve(t, dir)
			} else {
				root, page := tc.build(t, dir)
				url = browsertest.Serve(t, root, nil) + page
			}
			p := b.Open(t, url)
			var errs []string
			require.NoError(t, p.Eval(t.Context(), `
				while (!globalThis.appDone && !globalThis.appErrors?.length) await new Promise((r) => setTimeout(r, 20));
				return globalThis.appErrors;`, &errs))
			if tc.wantError != "" {
				require.Len(t, errs, 1)
				require.Regexp(t, `^NetworkError: http://127\.0\.0\.1:\d+`+regexp.QuoteMeta(tc.wantError)+`$`, errs[0])
				return
			}
			require.Empty(t, errs)
			var logs []string
			for _, line := range p.Console() {
				if after, ok := strings.CutPrefix(line, "log: "); ok {
					logs = append(logs, after)
				}
				require.False(t, strings.HasPrefix(line, "exception:") || strings.HasPrefix(line, "error:"), line)
			}
			require.Equal(t, wantLogs, logs)
		})
	}
}

func bundleMJS(t *testing.T) string {
	p, err := filepath.Abs("bundle.mjs")
	require.NoError(t, err)
	return p
}

// viteDev starts Vite's dev server on the app (bundle.mjs vite-dev), stops it when the
// test ends, and returns its URL.
func viteDev(t *testing.T, dir string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", bundleMJS(t), "vite-dev", dir, fmt.Sprint(port))
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			if strings.HasPrefix(s.Text(), "http") {
				lines <- s.Text()
				return
			}
		}
		close(lines)
	}()
	select {
	case url, ok := <-lines:
		require.True(t, ok, "vite dev exited: %s", stderr.String())
		return url
	case <-time.After(60 * time.Second):
		t.Fatalf("vite dev did not start in 60 s: %s", stderr.String())
		return ""
	}
}

// TestPackage_Node runs README's examples in Node: the two page examples as a
// program, and the node:test file with `node --test`.
func TestPackage_Node(t *testing.T) {
	ex := readExamples(t, "TestPackage_Node")
	require.Len(t, ex.js, 3, "README's closed, open and node:test examples")
	dir := npmApp(t, map[string]string{
		"harness.js":   harness,
		"main.js":      appMain(ex),
		"tool.test.js": ex.js[2] + "\n",
	})
	require.Equal(t, strings.Join(wantLogs, "\n")+"\n", run(t, dir, "node", "main.js"))
	out := run(t, dir, "node", "--test", "--test-reporter=tap", "tool.test.js")
	require.Contains(t, out, "\n# pass 2\n", out)
	require.Contains(t, out, "\n# fail 0\n", out)
}

// TestPackage_PlainFiles: a page given exactly the files README's plain-files step
// copies out of the package (and nothing of npm) runs README's two examples, with the
// module on the page and in a Worker.
func TestPackage_PlainFiles(t *testing.T) {
	blocks, langs := readme(t, "TestPackage_PlainFiles")
	require.Equal(t, []string{"sh"}, langs, "README's copy step")
	ex := readExamples(t, "TestPackage_Apps")
	require.Len(t, ex.js, 2, "README's closed and open examples")
	tgz, err := tarball()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "build"), 0o755))
	run(t, filepath.Join(dir, "build"), "tar", "xzf", tgz) // build/package, as make package leaves it
	run(t, dir, "bash", "-euc", blocks[0])
	site := filepath.Join(dir, "site")
	copied, err := os.ReadDir(site)
	require.NoError(t, err)
	for _, f := range copied {
		require.False(t, f.IsDir(), "the step copies files only: %s", f.Name())
	}
	importMap := strings.Replace(ex.html, "./node_modules/langmodel/language-model.js", "./language-model.js", 1)
	require.NotEqual(t, ex.html, importMap, "README's import map names the face")
	main := appMain(ex)
	require.Contains(t, main, "await install({ ")
	files := map[string]string{
		"harness.js":     harness,
		"main.js":        main,
		"main-worker.js": strings.Replace(main, "await install({ ", "await install({ worker: true, ", 1),
		"index.html":     "<!doctype html>\n<meta charset=utf-8>\n<link rel=icon href=\"data:,\">\n" + importMap + "\n",
		"worker.html":    "<!doctype html>\n<meta charset=utf-8>\n<link rel=icon href=\"data:,\">\n" + strings.Replace(importMap, "./main.js", "./main-worker.js", 1) + "\n",
	}
	for name, data := range files {
		_, err := os.Stat(filepath.Join(site, name))
		require.True(t, os.IsNotExist(err), "the page's own %s is not one of the package's files", name)
		require.NoError(t, os.WriteFile(filepath.Join(site, name), []byte(data), 0o644))
	}
	base := browsertest.Serve(t, site, nil)
	b := browsertest.Shared(t)
	for _, page := range []string{"/index.html", "/worker.html"} {
		t.Run(page, func(t *testing.T) {
			p := b.Open(t, base+page)
			var errs []string
			require.NoError(t, p.Eval(t.Context(), `
				while (!globalThis.appDone && !globalThis.appErrors?.length) await new Promise((r) => setTimeout(r, 20));
				return globalThis.appErrors;`, &errs))
			require.Empty(t, errs)
			var logs []string
			for _, line := range p.Console() {
				if after, ok := strings.CutPrefix(line, "log: "); ok {
					logs = append(logs, after)
				}
				require.False(t, strings.HasPrefix(line, "exception:") || strings.HasPrefix(line, "error:"), line)
			}
			require.Equal(t, wantLogs, logs)
		})
	}
}

// mdLink is a Markdown link's target, outside code.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestPackage_Readme: the README the package ships has no link that cannot resolve
// inside the package (links into the repository are plain text there; links to its own
// headings find them), and its examples are README.md's, which the tests above run.
func TestPackage_Readme(t *testing.T) {
	dir := npmApp(t, map[string]string{})
	raw, err := os.ReadFile(filepath.Join(dir, "node_modules", "langmodel", "README.md"))
	require.NoError(t, err)
	shipped := string(raw)
	headings := map[string]bool{}
	var anchors []string
	inFence := false
	for _, line := range strings.Split(shipped, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			headings["#"+slug(h)] = true
		}
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			switch {
			case strings.HasPrefix(target, "https://"), strings.HasPrefix(target, "http://"):
			case strings.HasPrefix(target, "#"):
				anchors = append(anchors, target)
			default:
				t.Errorf("the package's README links %s, which is not in the package", target)
			}
		}
	}
	require.NotEmpty(t, anchors)
	for _, a := range anchors {
		require.True(t, headings[a], "the link %s finds no heading in the package's README", a)
	}
	repo, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)<!-- tested: [^>]* -->\n```\\w+\n.*?\n```")
	require.Equal(t, block.FindAllString(string(repo), -1), block.FindAllString(shipped, -1), "the shipped README's tested examples are README.md's")
}

// slug is a heading's anchor as GitHub and npm make it: lower case, spaces as hyphens,
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

// TestPackage_Contents: the tarball holds what a page needs and nothing of the
// repository's tests, and package.json's exports name files that are in it.
func TestPackage_Contents(t *testing.T) {
	tgz, err := tarball()
	require.NoError(t, err)
	out, err := exec.Command("tar", "tzf", tgz).Output()
	require.NoError(t, err)
	files := strings.Fields(string(out))
	require.ElementsMatch(t, []string{
		"package/LICENSE-go", "package/agents.js", "package/approvals.js", "package/chain.js", "package/channel.js", "package/engine.js", "package/gguf.js", "package/errors.js", "package/install.js", "package/load.js",
		"package/language-model.d.ts", "package/language-model.js", "package/language-model.node.js",
		"package/langmodel.wasm", "package/media.js", "package/mirror.js", "package/native.js", "package/pack.js", "package/pagecalls.js", "package/package.json", "package/port.js",
		"package/protocol.js", "package/record.js", "package/runtime.js", "package/session.js", "package/snapshot.js", "package/stash.js", "package/microtask.js",
		"package/stream.js", "package/tools.js", "package/wasm_exec.js", "package/webidl.js", "package/webmcp.js",
		"package/worker.js", "package/README.md",
	}, files)
	var pkg struct {
		Type         string                      `json:"type"`
		Exports      map[string]jsonv.RawMessage `json:"exports"`
		Dependencies map[string]string           `json:"dependencies"`
		Engines      map[string]string           `json:"engines"`
	}
	raw, err := os.ReadFile("../../../build/package/package.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &pkg))
	require.Equal(t, "module", pkg.Type)
	require.Empty(t, pkg.Dependencies)
	require.Equal(t, ">=20", pkg.Engines["node"])
	var root map[string]string
	require.NoError(t, json.Unmarshal(pkg.Exports["."], &root))
	require.Equal(t, map[string]string{"types": "./language-model.d.ts", "node": "./language-model.node.js", "browser": "./language-model.js", "default": "./language-model.js"}, root)
	require.Contains(t, string(raw), `"exports": {
    ".": {
      "types"`, "types first: TypeScript takes the first condition that matches")
}

// TestPackage_Types: TypeScript finds the package's types through its exports, under
// both module resolutions an app uses (nodenext for Node, bundler for Vite, webpack and
// esbuild), and they type what README's first example does.
func TestPackage_Types(t *testing.T) {
	dir := npmApp(t, map[string]string{"app.ts": `import { install, LanguageModel, type InstallConfig } from "langmodel";

const config: InstallConfig = { backend: { kind: "scripted", rules: [{ match: "time in", tool: "get_time", arguments: { city: "{{text}}" } }] } };
const version: number = (await install(config)).version;
const session = await LanguageModel.create({ tools: [{ name: "get_time", description: "The time in a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } } }, execute: ({ city }) => ` + "`It is 12:00 in ${city}.`" + ` }] });
const text: string = await session.prompt("What is the time in Tokyo?");
// @ts-expect-error: not an option of install()
await install({ wasmURL: "langmodel.wasm" });
console.log(version, text);
`})
	tsc := filepath.Join(bin(t), "tsc")
	for _, resolution := range []string{"--module nodenext --moduleResolution nodenext", "--module esnext --moduleResolution bundler"} {
		t.Run(resolution, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--noEmit", "--strict", "--target", "es2022", "--lib", "es2022,dom"}, strings.Fields(resolution)...)
			run(t, dir, tsc, append(args, "app.ts")...)
		})
	}
}

// TestPackage_InstallErrors: what install() says when the package's files are not where
// it looks, in a page and in Node; each failure leaves install() ready to be retried.
func TestPackage_InstallErrors(t *testing.T) {
	dir := npmApp(t, map[string]string{"page.html": "<!doctype html>\n<meta charset=utf-8>\n<link rel=icon href=\"data:,\">\n"})
	base := browsertest.Serve(t, dir, nil)
	p := browsertest.Shared(t).Open(t, base+"/page.html")
	var got []string
	require.NoError(t, p.Eval(t.Context(), `
		const { install } = await import("/node_modules/langmodel/language-model.js");
		const out = [];
		for (const config of [
			{ wasm: "/nowhere/langmodel.wasm" },
			{ wasm: "/page.html", wasmExec: "/node_modules/langmodel/wasm_exec.js" },
			{},
		]) {
			try { out.push("version " + (await install(config)).version); } catch (e) { out.push(e.name + ": " + e.message.replaceAll(location.origin, "")); }
		}
		return out;`, &got))
	require.Equal(t, []string{
		"NetworkError: Could not load /nowhere/wasm_exec.js: Failed to fetch dynamically imported module: /nowhere/wasm_exec.js",
		`NetworkError: /page.html is not a WebAssembly module (it starts with "<!do"): serve langmodel.wasm there, or pass install({wasm}); a bundler must keep it beside the code (Vite's dev server: optimizeDeps.exclude).`,
		fmt.Sprintf("version %d", wasm.ProtocolVersion),
	}, got)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "errors.js"), []byte(`import { install } from "langmodel";
const wasmExec = "node_modules/langmodel/wasm_exec.js";
for (const config of [{ wasm: "nowhere.wasm" }, { wasm: "nowhere.wasm", wasmExec }, { wasm: "page.html", wasmExec }, { wasm: "node_modules/langmodel/langmodel.wasm" }]) {
  try { console.log("version " + (await install(config)).version); } catch (e) { console.log(e.name + ": " + e.message.replaceAll(process.cwd(), ".")); }
}
`), 0o644))
	require.Equal(t, `NetworkError: Could not load file://./wasm_exec.js: Cannot find module './wasm_exec.js' imported from ./node_modules/langmodel/load.js
NetworkError: Could not read file://./nowhere.wasm: ENOENT: no such file or directory, open './nowhere.wasm'
NetworkError: file://./page.html is not a WebAssembly module (it starts with "<!do"): serve langmodel.wasm there, or pass install({wasm}); a bundler must keep it beside the code (Vite's dev server: optimizeDeps.exclude).
version `+strconv.Itoa(wasm.ProtocolVersion)+`
`, run(t, dir, "node", "errors.js"))
}
