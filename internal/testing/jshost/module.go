package jshost

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/dop251/goja"
)

type module struct {
	ns *goja.Object // nil while the module is loading
}

// defineExports is the define(namespace, getters, stars) a module's code
// calls last (transform.go): one enumerable getter per export, names from
// `export *` modules that are not exported already, then the namespace is
// sealed like an ES module namespace object.
const defineExports = `(function (ns, getters, stars) {
	for (const m of stars) {
		for (const k of Object.keys(m)) {
			if (k !== "default" && !Object.prototype.hasOwnProperty.call(getters, k) && !Object.prototype.hasOwnProperty.call(ns, k)) {
				Object.defineProperty(ns, k, { enumerable: true, get: () => m[k] });
			}
		}
	}
	for (const k of Object.keys(getters)) Object.defineProperty(ns, k, { enumerable: true, get: getters[k] });
	Object.defineProperty(ns, Symbol.toStringTag, { value: "Module" });
	Object.preventExtensions(ns);
})`

// LoadModule loads the ES module file at path (relative to the working
// directory) and the modules it imports, runs them on the loop, and returns
// its namespace object, whose properties are live getters of the exports.
// Modules are cached by absolute path, so loading one twice returns the same
// namespace. Pass the namespace to Set, or use it inside Post, never touch it
// on another goroutine. For example:
//
//	ns, err := h.LoadModule("../../../js/language-model.js")
//	h.Set("lm", ns)
//	h.Eval(ctx, `return await lm.LanguageModel.availability()`)
//
// goja has no module loader, so the source is rewritten into a function (see
// transform.go). The subset it supports:
//
//   - import "./x.js"; import d from "./x.js"; import * as ns from "./x.js";
//     import { a, b as c, default as d } from "./x.js"; import d, { a } from …;
//     import d, * as ns from …
//   - export const|let|var (with destructuring), export function, export
//     async function, export function*, export class
//   - export default <expression>; export default function|class [name]
//   - export { a, b as c }; export { a, b as c } from "./x.js";
//     export * from "./x.js"; export * as ns from "./x.js"
//
// Specifiers are relative ("./", "../") or absolute file paths. Dependencies
// run first, in import order, as in ES modules. Imported names are checked to
// exist, and are constants holding the value the export had when the
// dependency finished running (not live bindings). Anything else gives an
// error naming the file and line: top-level await, import attributes, bare specifiers ("lodash"), string export names,
// import cycles. Modules run in strict mode, with `this` undefined. As in
// Eval, `for await` loops are rewritten (goja has no async iteration) and
// async generators do not compile.
func (h *Host) LoadModule(path string) (goja.Value, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("jshost: module %s: %w", path, err)
	}
	var ns goja.Value
	if callErr := h.call(func() {
		var o *goja.Object
		if o, err = h.loadModule(abs, nil); err == nil {
			ns = o
		}
	}); callErr != nil {
		return nil, callErr
	}
	return ns, err
}

func (h *Host) loadModule(path string, chain []string) (*goja.Object, error) {
	if m, ok := h.modules[path]; ok {
		if m.ns == nil {
			return nil, fmt.Errorf("jshost: import cycle: %s", strings.Join(append(chain, path), " → "))
		}
		return m.ns, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("jshost: module %w", err)
	}
	ms, err := transformModule(path, string(src))
	if err != nil {
		return nil, fmt.Errorf("jshost: module %s: %w", path, err)
	}
	m := &module{}
	h.modules[path] = m
	ok := false
	defer func() {
		if !ok {
			delete(h.modules, path)
		}
	}()

	deps := map[string]*goja.Object{}
	for _, spec := range ms.deps {
		dep := filepath.FromSlash(spec)
		if !filepath.IsAbs(dep) {
			dep = filepath.Join(filepath.Dir(path), dep)
		}
		ns, err := h.loadModule(filepath.Clean(dep), append(chain, path))
		if err != nil {
			return nil, err
		}
		deps[spec] = ns
	}

	if h.modHelper == nil {
		v, err := h.vm.RunString(defineExports)
		if err != nil {
			return nil, fmt.Errorf("jshost: module loader: %w", err)
		}
		h.modHelper = v.ToObject(h.vm)
	}
	prog, err := goja.Compile(path, ms.code, true)
	if err != nil {
		return nil, fmt.Errorf("jshost: module %s: %w", path, err)
	}
	fnv, err := h.vm.RunProgram(prog)
	if err != nil {
		return nil, fmt.Errorf("jshost: module %s: %w", path, h.asError(err))
	}
	fn, _ := goja.AssertFunction(fnv)
	importer := func(c goja.FunctionCall) goja.Value {
		spec := c.Argument(0).String()
		if len(c.Arguments) == 1 {
			return h.importDynamic(path, spec, chain)
		}
		ns := deps[spec]
		var names []string
		_ = h.vm.ExportTo(c.Argument(1), &names)
		for _, name := range names {
			if !hasOwn(ns, name) {
				msg := fmt.Sprintf("The requested module '%s' does not provide an export named '%s'", spec, name)
				e, _ := h.vm.New(h.vm.Get("SyntaxError"), h.vm.ToValue(msg))
				panic(e)
			}
		}
		return ns
	}
	imp := h.vm.ToValue(importer).ToObject(h.vm)
	meta := h.vm.NewObject()
	_ = meta.Set("url", (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String())
	_ = imp.Set("meta", meta)
	ns := h.vm.CreateObject(nil)
	if _, err := fn(goja.Undefined(), ns, imp, h.modHelper); err != nil {
		return nil, fmt.Errorf("jshost: module %s: %w", path, h.asError(err))
	}
	m.ns = ns
	ok = true
	return ns, nil
}

// importDynamic is import(spec) in the module at path: spec is relative, an
// absolute path or a file: URL; the module loads now, and the promise settles
// with its namespace or its error.
func (h *Host) importDynamic(path, spec string, chain []string) goja.Value {
	p, resolve, reject := h.vm.NewPromise()
	dep := spec
	if u, err := url.Parse(spec); err == nil && u.Scheme == "file" {
		dep = filepath.FromSlash(u.Path)
	} else if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && !filepath.IsAbs(spec) {
		e, _ := h.vm.New(h.vm.Get("TypeError"), h.vm.ToValue(fmt.Sprintf("jshost: import(%q): only relative (./, ../) and absolute paths and file: URLs are supported", spec)))
		_ = reject(e)
		return h.vm.ToValue(p)
	}
	if !filepath.IsAbs(dep) {
		dep = filepath.Join(filepath.Dir(path), filepath.FromSlash(dep))
	}
	ns, err := h.loadModule(filepath.Clean(dep), chain)
	if err != nil {
		e, _ := h.vm.New(h.vm.Get("Error"), h.vm.ToValue(err.Error()))
		_ = reject(e)
	} else {
		_ = resolve(ns)
	}
	return h.vm.ToValue(p)
}

func hasOwn(o *goja.Object, name string) bool {
	for _, k := range o.Keys() {
		if k == name {
			return true
		}
	}
	return false
}
