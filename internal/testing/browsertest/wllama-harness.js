// The page side of browsertest.WllamaHandlers: a loaded wllama engine in
// Chromium, Firefox and WebKit alike, from the files the test server serves.
import { Wllama, CacheManager } from "/wllama/index.js";

// MemoryBackend is a wllama storage backend in memory, for engines without
// OPFS (WebKit), where new Wllama() otherwise throws "No supported storage
// backend found".
class MemoryBackend {
	files = new Map();
	isSupported() { return true; }
	async read(key) { return this.files.get(key) ?? null; }
	async write(key, stream) { this.files.set(key, await new Response(stream).blob()); }
	async getSize(key) { return this.files.get(key)?.size ?? -1; }
	async list() { return [...this.files].map(([key, b]) => ({ key, size: b.size })); }
	async delete(key) { this.files.delete(key); }
}

// loadOptions are the load options known to work in all three engines:
// one thread (no cross-origin isolation), CPU, llama.cpp's Jinja templates.
export const loadOptions = { n_ctx: 2048, n_threads: 1, n_gpu_layers: 0, jinja: true };

// newWllama returns a wllama engine with model (a URL or a Blob) loaded.
export async function newWllama(model, options = {}) {
	const paths = { default: new URL("/wllama/wasm/wllama.wasm", location.href).href };
	const config = { suppressNativeLog: true, ...options.config };
	let w;
	try {
		w = new Wllama(paths, config);
	} catch (e) {
		if (!/storage backend/.test(String(e && e.message))) throw e;
		w = new Wllama(paths, { ...config, cacheManager: new CacheManager([new MemoryBackend()]) });
	}
	// The compat build, served beside the page (wllama fetches it from a CDN by
	// default); only engines without JSPI or Memory64 use it.
	w.setCompat({
		wasm: new URL("/wllama-compat/wllama.wasm", location.href).href,
		worker: new URL("/wllama-compat/wllama.js", location.href).href,
	});
	const blob = typeof model === "string" ? await fetchBlob(model) : model;
	await w.loadModel([blob], { ...loadOptions, ...options.load });
	return w;
}

async function fetchBlob(url) {
	const r = await fetch(url);
	if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
	return r.blob();
}
