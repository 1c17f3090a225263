// The browser globals that wasm_exec.js and the js/ face need and goja lacks.
// Test infrastructure: small, and correct for what it covers; what it leaves out
// is listed at each class. shims.go runs this file once per Host, calling it with
// `native`, the Go half (write, encode, decode, random, now, timeOrigin, report).
// Timers (setTimeout, ...) are Go globals on the virtual clock (loop.go).
(function (native) {
	"use strict";
	const g = globalThis;
	const hidden = (obj, name, value) =>
		Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });

	if (!Symbol.asyncIterator) {
		// goja has no async iteration; jshost desugars `for await` into calls on this symbol.
		Object.defineProperty(Symbol, "asyncIterator", { value: Symbol("Symbol.asyncIterator") });
	}
	if (!Promise.withResolvers) {
		hidden(Promise, "withResolvers", function () {
			let resolve, reject;
			const promise = new this((res, rej) => { resolve = res; reject = rej; });
			return { promise, resolve, reject };
		});
	}

	// ---- console -----------------------------------------------------------
	const inspect = (v, depth, seen) => {
		switch (typeof v) {
			case "string": return depth === 0 ? v : JSON.stringify(v);
			case "function": return `[Function: ${v.name || "(anonymous)"}]`;
			case "symbol": case "bigint": case "number": case "boolean": case "undefined": return String(v);
		}
		if (v === null) return "null";
		if (v instanceof Error) return typeof v.stack === "string" && v.stack ? v.stack : `${v.name}: ${v.message}`;
		if (seen.has(v)) return "[Circular]";
		if (depth > 3) return Array.isArray(v) ? "[Array]" : "[Object]";
		seen.add(v);
		try {
			if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.length}) [${Array.prototype.slice.call(v, 0, 64).join(", ")}${v.length > 64 ? ", ..." : ""}]`;
			if (Array.isArray(v)) return `[${v.map((x) => inspect(x, depth + 1, seen)).join(", ")}]`;
			if (v instanceof Map) return `Map(${v.size}) {${[...v].map(([k, x]) => `${inspect(k, depth + 1, seen)} => ${inspect(x, depth + 1, seen)}`).join(", ")}}`;
			if (v instanceof Set) return `Set(${v.size}) {${[...v].map((x) => inspect(x, depth + 1, seen)).join(", ")}}`;
			if (v instanceof Promise) return "Promise {}";
			const name = v.constructor && v.constructor !== Object ? v.constructor.name + " " : "";
			const keys = Object.keys(v);
			return `${name}{${keys.map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${inspect(v[k], depth + 1, seen)}`).join(", ")}}`;
		} finally {
			seen.delete(v);
		}
	};
	const format = (args) => Array.prototype.map.call(args, (a) => inspect(a, 0, new Set())).join(" ") + "\n";
	const out = (...a) => { native.write(1, format(a)); };
	const err = (...a) => { native.write(2, format(a)); };
	hidden(g, "console", { log: out, info: out, debug: out, warn: err, error: err, trace: err });

	const reportError = (e) => native.report(e);
	hidden(g, "reportError", reportError);

	// ---- microtasks, cloning ------------------------------------------------
	hidden(g, "queueMicrotask", (fn) => {
		if (typeof fn !== "function") throw new TypeError("queueMicrotask: argument is not a function");
		Promise.resolve().then(() => { try { fn(); } catch (e) { reportError(e); } });
	});
	// JSON-based: plain data only (no Map, Date, typed arrays, cycles).
	hidden(g, "structuredClone", (v) => {
		if (typeof v === "function" || typeof v === "symbol") {
			throw new DOMException(`${String(v)} could not be cloned.`, "DataCloneError");
		}
		return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
	});

	// ---- encoding, crypto, performance --------------------------------------
	class TextEncoder {
		get encoding() { return "utf-8"; }
		encode(s = "") { return new Uint8Array(native.encode(String(s))); }
		encodeInto(s, dest) {
			const [read, written] = native.encodeInto(String(s), dest);
			return { read, written };
		}
	}
	const emptyBytes = new Uint8Array(0);
	class TextDecoder {
		#fatal; #ignoreBOM; #pending = null; #bomSeen = false;
		constructor(label = "utf-8", options = {}) {
			const l = String(label).trim().toLowerCase();
			if (l !== "utf-8" && l !== "utf8" && l !== "unicode-1-1-utf-8") {
				throw new RangeError(`TextDecoder: encoding "${label}" is not supported (jshost has utf-8 only)`);
			}
			this.#fatal = !!(options && options.fatal);
			this.#ignoreBOM = !!(options && options.ignoreBOM);
		}
		get encoding() { return "utf-8"; }
		get fatal() { return this.#fatal; }
		get ignoreBOM() { return this.#ignoreBOM; }
		decode(input, options) {
			const stream = !!(options && options.stream);
			if (!stream && this.#pending === null) {
				const s = native.decode(input === undefined ? emptyBytes : input, this.#fatal, !this.#ignoreBOM && !this.#bomSeen);
				this.#bomSeen = false;
				return s;
			}
			let bytes = input === undefined ? emptyBytes
				: ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
				: new Uint8Array(input);
			if (this.#pending !== null) {
				const joined = new Uint8Array(this.#pending.length + bytes.length);
				joined.set(this.#pending);
				joined.set(bytes, this.#pending.length);
				bytes = joined;
				this.#pending = null;
			}
			if (stream) {
				const n = native.utf8Tail(bytes);
				if (n > 0) {
					this.#pending = bytes.slice(bytes.length - n);
					bytes = bytes.subarray(0, bytes.length - n);
				}
			}
			const s = native.decode(bytes, this.#fatal, !this.#ignoreBOM && !this.#bomSeen);
			this.#bomSeen = stream && (this.#bomSeen || s.length > 0 || bytes.length > 0);
			return s;
		}
	}
	hidden(g, "TextEncoder", TextEncoder);
	hidden(g, "TextDecoder", TextDecoder);

	hidden(g, "crypto", {
		// A PRNG with a fixed seed: deterministic, and not secure.
		getRandomValues(view) {
			if (!ArrayBuffer.isView(view) || view instanceof DataView || view instanceof Float32Array || view instanceof Float64Array) {
				throw new TypeError("crypto.getRandomValues: argument is not an integer typed array");
			}
			if (view.byteLength > 65536) {
				throw new DOMException(`The ArrayBufferView's byte length (${view.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, "QuotaExceededError");
			}
			native.random(view);
			return view;
		},
		randomUUID() {
			const b = this.getRandomValues(new Uint8Array(16));
			b[6] = (b[6] & 0x0f) | 0x40;
			b[8] = (b[8] & 0x3f) | 0x80;
			const h = Array.prototype.map.call(b, (x) => x.toString(16).padStart(2, "0")).join("");
			return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
		},
	});
	hidden(g, "performance", { now: native.now, timeOrigin: native.timeOrigin });

	// wasm_exec.js checks `instance instanceof WebAssembly.Instance`; jshost makes
	// the instance itself (jshost.go), so the constructor refuses to be called.
	hidden(g, "WebAssembly", {
		Instance: function Instance() { throw new TypeError("WebAssembly.Instance: not available in jshost; the Host runs the module"); },
	});

	// Go's os package writes through fs: it must answer synchronously, or
	// fmt.Println inside a js.FuncOf callback deadlocks.
	const enosys = (what) => {
		const e = new Error(`${what}: not implemented`);
		e.code = "ENOSYS";
		return e;
	};
	const fs = {
		// Linux numbers; wasm_exec.js's own fallback has -1, which Go misreads.
		constants: { O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_TRUNC: 512, O_APPEND: 1024, O_EXCL: 128, O_DIRECTORY: 65536 },
		writeSync(fd, buf) { return native.write(fd, buf); },
		write(fd, buf, offset, length, position, callback) {
			if (position !== null && position !== undefined) {
				callback(enosys("fs.write at a position"));
				return;
			}
			let n;
			try {
				n = native.write(fd, buf.subarray(offset, offset + length));
			} catch (e) {
				callback(e);
				return;
			}
			callback(null, n);
		},
		fsync(fd, callback) { callback(null); },
	};
	for (const name of ["chmod", "chown", "close", "fchmod", "fchown", "fstat", "ftruncate", "lchown", "link", "lstat",
		"mkdir", "open", "read", "readdir", "readlink", "rename", "rmdir", "stat", "symlink", "truncate", "unlink", "utimes"]) {
		fs[name] = (...args) => args[args.length - 1](enosys(`fs.${name}`));
	}
	hidden(g, "fs", fs);

	// ---- DOMException ---------------------------------------------------------
	// Legacy codes, by index; the constant names are the spec's.
	const legacy = ["", "IndexSizeError", "DOMStringSizeError", "HierarchyRequestError", "WrongDocumentError",
		"InvalidCharacterError", "NoDataAllowedError", "NoModificationAllowedError", "NotFoundError", "NotSupportedError",
		"InUseAttributeError", "InvalidStateError", "SyntaxError", "InvalidModificationError", "NamespaceError",
		"InvalidAccessError", "ValidationError", "TypeMismatchError", "SecurityError", "NetworkError", "AbortError",
		"URLMismatchError", "QuotaExceededError", "TimeoutError", "InvalidNodeTypeError", "DataCloneError"];
	const constNames = ["", "INDEX_SIZE_ERR", "DOMSTRING_SIZE_ERR", "HIERARCHY_REQUEST_ERR", "WRONG_DOCUMENT_ERR",
		"INVALID_CHARACTER_ERR", "NO_DATA_ALLOWED_ERR", "NO_MODIFICATION_ALLOWED_ERR", "NOT_FOUND_ERR", "NOT_SUPPORTED_ERR",
		"INUSE_ATTRIBUTE_ERR", "INVALID_STATE_ERR", "SYNTAX_ERR", "INVALID_MODIFICATION_ERR", "NAMESPACE_ERR",
		"INVALID_ACCESS_ERR", "VALIDATION_ERR", "TYPE_MISMATCH_ERR", "SECURITY_ERR", "NETWORK_ERR", "ABORT_ERR",
		"URL_MISMATCH_ERR", "QUOTA_EXCEEDED_ERR", "TIMEOUT_ERR", "INVALID_NODE_TYPE_ERR", "DATA_CLONE_ERR"];
	const codeOf = (name) => {
		const i = legacy.indexOf(name);
		return i > 0 && name !== "DOMStringSizeError" && name !== "NoDataAllowedError" && name !== "ValidationError" ? i : 0;
	};
	class DOMException extends Error {
		#name;
		constructor(message = "", options = "Error") {
			super(String(message));
			let name = options;
			if (options !== null && typeof options === "object") {
				name = "name" in options ? options.name : "Error";
				if ("cause" in options) hidden(this, "cause", options.cause);
			}
			this.#name = String(name);
		}
		get name() { return this.#name; }
		get code() { return codeOf(this.#name); }
	}
	constNames.forEach((n, i) => {
		if (n) {
			Object.defineProperty(DOMException, n, { value: i, enumerable: true });
			Object.defineProperty(DOMException.prototype, n, { value: i, enumerable: true });
		}
	});
	hidden(g, "DOMException", DOMException);

	// ---- Event, EventTarget -------------------------------------------------------
	// No capture or bubbling phases (there is no tree): listeners run in the order
	// they were added, at the target. A listener that throws is reported and the
	// others still run.
	const EV = new WeakMap();
	const ev = (e) => {
		const s = EV.get(e);
		if (!s) throw new TypeError("Illegal invocation");
		return s;
	};
	class Event {
		constructor(type, init = {}) {
			if (arguments.length === 0) throw new TypeError("Event: 1 argument required, but only 0 present.");
			init = init || {};
			EV.set(this, {
				type: String(type), bubbles: !!init.bubbles, cancelable: !!init.cancelable, composed: !!init.composed,
				canceled: false, stop: false, stopNow: false, target: null, current: null, phase: 0,
				dispatching: false, passive: false, timeStamp: performance.now(),
			});
		}
		get type() { return ev(this).type; }
		get bubbles() { return ev(this).bubbles; }
		get cancelable() { return ev(this).cancelable; }
		get composed() { return ev(this).composed; }
		get defaultPrevented() { return ev(this).canceled; }
		get target() { return ev(this).target; }
		get srcElement() { return ev(this).target; }
		get currentTarget() { return ev(this).current; }
		get eventPhase() { return ev(this).phase; }
		get timeStamp() { return ev(this).timeStamp; }
		get isTrusted() { return false; }
		get cancelBubble() { return ev(this).stop; }
		set cancelBubble(v) { if (v) ev(this).stop = true; }
		get returnValue() { return !ev(this).canceled; }
		set returnValue(v) { if (!v) this.preventDefault(); }
		preventDefault() {
			const s = ev(this);
			if (s.cancelable && !s.passive) s.canceled = true;
		}
		stopPropagation() { ev(this).stop = true; }
		stopImmediatePropagation() { const s = ev(this); s.stop = true; s.stopNow = true; }
		composedPath() { const s = ev(this); return s.current ? [s.current] : []; }
	}
	Object.assign(Event, { NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 });

	class CustomEvent extends Event {
		#detail;
		constructor(type, init = {}) {
			super(type, init);
			this.#detail = init && init.detail !== undefined ? init.detail : null;
		}
		get detail() { return this.#detail; }
	}
	class ProgressEvent extends Event {
		#p;
		constructor(type, init = {}) {
			super(type, init);
			init = init || {};
			this.#p = { lengthComputable: !!init.lengthComputable, loaded: Number(init.loaded || 0), total: Number(init.total || 0) };
		}
		get lengthComputable() { return this.#p.lengthComputable; }
		get loaded() { return this.#p.loaded; }
		get total() { return this.#p.total; }
	}

	const LS = new WeakMap();
	const listenersOf = (t) => {
		let m = LS.get(t);
		if (!m) LS.set(t, (m = new Map()));
		return m;
	};
	const captureOf = (o) => (typeof o === "boolean" ? o : !!(o && o.capture));
	class EventTarget {
		constructor() { LS.set(this, new Map()); }
		addEventListener(type, callback, options) {
			if (callback === null || callback === undefined) return;
			const o = typeof options === "object" && options !== null ? options : {};
			const capture = captureOf(options);
			if (o.signal && o.signal.aborted) return;
			type = String(type);
			const m = listenersOf(this);
			let list = m.get(type);
			if (!list) m.set(type, (list = []));
			if (list.some((l) => l.callback === callback && l.capture === capture)) return;
			list.push({ callback, capture, once: !!o.once, passive: !!o.passive, removed: false });
			if (o.signal) o.signal.addEventListener("abort", () => this.removeEventListener(type, callback, { capture }));
		}
		removeEventListener(type, callback, options) {
			const list = listenersOf(this).get(String(type));
			if (!list) return;
			const capture = captureOf(options);
			const i = list.findIndex((l) => l.callback === callback && l.capture === capture);
			if (i >= 0) {
				list[i].removed = true;
				list.splice(i, 1);
			}
		}
		dispatchEvent(event) {
			if (!(event instanceof Event)) throw new TypeError("dispatchEvent: parameter 1 is not of type 'Event'.");
			const s = ev(event);
			if (s.dispatching) throw new DOMException("The event is already being dispatched.", "InvalidStateError");
			s.dispatching = true;
			s.target = this;
			s.current = this;
			s.phase = Event.AT_TARGET;
			const list = listenersOf(this).get(s.type);
			for (const l of list ? list.slice() : []) {
				if (l.removed) continue;
				if (l.once) this.removeEventListener(s.type, l.callback, { capture: l.capture });
				s.passive = l.passive;
				try {
					if (typeof l.callback === "function") l.callback.call(this, event);
					else if (l.callback && typeof l.callback.handleEvent === "function") l.callback.handleEvent(event);
				} catch (e) {
					reportError(e);
				}
				s.passive = false;
				if (s.stopNow) break;
			}
			s.dispatching = false;
			s.current = null;
			s.phase = Event.NONE;
			return !s.canceled;
		}
	}
	// defineEventHandler adds an `on<type>` attribute to proto: a handler set to a
	// function runs among the listeners at the place where it was first set.
	const defineEventHandler = (proto, type) => {
		const slot = Symbol(`on${type}`);
		Object.defineProperty(proto, `on${type}`, {
			configurable: true,
			enumerable: true,
			get() { return this[slot] ? this[slot].handler : null; },
			set(fn) {
				const handler = typeof fn === "function" || (fn !== null && typeof fn === "object") ? fn : null;
				if (!this[slot]) {
					if (handler === null) return;
					const state = { handler };
					hidden(this, slot, state);
					this.addEventListener(type, function (e) {
						const h = state.handler;
						if (typeof h === "function" && h.call(this, e) === false) e.preventDefault();
					});
					return;
				}
				this[slot].handler = handler;
			},
		});
	};
	hidden(g, "Event", Event);
	hidden(g, "CustomEvent", CustomEvent);
	hidden(g, "ProgressEvent", ProgressEvent);
	hidden(g, "EventTarget", EventTarget);

	// ---- AbortController, AbortSignal ---------------------------------------------
	const SIG = new WeakMap();
	let mayConstruct = false;
	const newSignal = () => {
		mayConstruct = true;
		try {
			return new AbortSignal();
		} finally {
			mayConstruct = false;
		}
	};
	const signalAbort = (signal, reason) => {
		const s = SIG.get(signal);
		if (s.aborted) return;
		s.aborted = true;
		s.reason = reason !== undefined ? reason : new DOMException("signal is aborted without reason", "AbortError");
		signal.dispatchEvent(new Event("abort"));
	};
	class AbortSignal extends EventTarget {
		constructor() {
			if (!mayConstruct) throw new TypeError("Illegal constructor");
			super();
			SIG.set(this, { aborted: false, reason: undefined });
		}
		get aborted() { return SIG.get(this).aborted; }
		get reason() { return SIG.get(this).reason; }
		throwIfAborted() {
			const s = SIG.get(this);
			if (s.aborted) throw s.reason;
		}
		static abort(reason) {
			const signal = newSignal();
			signalAbort(signal, reason);
			return signal;
		}
		// On the virtual clock: AbortSignal.timeout(10_000) fires as soon as the loop is idle.
		static timeout(ms) {
			const signal = newSignal();
			setTimeout(() => signalAbort(signal, new DOMException("signal timed out", "TimeoutError")), ms);
			return signal;
		}
		static any(signals) {
			const signal = newSignal();
			const list = [...signals];
			const first = list.find((s) => s.aborted);
			if (first) {
				signalAbort(signal, first.reason);
				return signal;
			}
			for (const s of list) s.addEventListener("abort", () => signalAbort(signal, s.reason), { once: true });
			return signal;
		}
	}
	defineEventHandler(AbortSignal.prototype, "abort");
	class AbortController {
		#signal = newSignal();
		get signal() { return this.#signal; }
		abort(reason) { signalAbort(this.#signal, reason); }
	}
	hidden(g, "AbortSignal", AbortSignal);
	hidden(g, "AbortController", AbortController);

	// ---- ReadableStream -----------------------------------------------------------
	// The default (not byte) stream of the WHATWG spec: an underlying source with
	// start/pull/cancel, a queuing strategy (highWaterMark, size), one reader at a
	// time, read/releaseLock/cancel/closed, and async iteration. Left out: byte
	// streams and BYOB readers, tee, pipeTo, pipeThrough, ReadableStream.from.
	const RS = new WeakMap();
	const resolved = (value, done) => Promise.resolve({ value, done });
	const rsClose = (st) => {
		st.state = "closed";
		for (const r of st.requests.splice(0)) r.resolve({ value: undefined, done: true });
		if (st.reader) st.reader.resolveClosed();
	};
	const rsError = (st, e) => {
		if (st.state !== "readable") return;
		st.state = "errored";
		st.storedError = e;
		st.queue = [];
		st.queueSize = 0;
		for (const r of st.requests.splice(0)) r.reject(e);
		if (st.reader) st.reader.rejectClosed(e);
	};
	const rsDesiredSize = (st) => (st.state === "errored" ? null : st.state === "closed" ? 0 : st.hwm - st.queueSize);
	const rsPullIfNeeded = (st) => {
		if (!st.started || st.state !== "readable" || st.closeRequested) return;
		if (st.requests.length === 0 && rsDesiredSize(st) <= 0) return;
		if (st.pulling) {
			st.pullAgain = true;
			return;
		}
		st.pulling = true;
		let p;
		try {
			p = Promise.resolve(st.source.pull ? st.source.pull.call(st.source, st.controller) : undefined);
		} catch (e) {
			p = Promise.reject(e);
		}
		p.then(() => {
			st.pulling = false;
			if (st.pullAgain) {
				st.pullAgain = false;
				rsPullIfNeeded(st);
			}
		}, (e) => rsError(st, e));
	};
	const rsCancel = (st, reason) => {
		st.disturbed = true;
		if (st.state === "closed") return Promise.resolve();
		if (st.state === "errored") return Promise.reject(st.storedError);
		st.queue = [];
		st.queueSize = 0;
		rsClose(st);
		try {
			return Promise.resolve(st.source.cancel ? st.source.cancel.call(st.source, reason) : undefined).then(() => undefined);
		} catch (e) {
			return Promise.reject(e);
		}
	};
	class ReadableStreamDefaultController {
		constructor() { throw new TypeError("Illegal constructor"); }
	}
	class ReadableStream {
		constructor(source = {}, strategy = {}) {
			source = source || {};
			strategy = strategy || {};
			if (source.type !== undefined) {
				throw new TypeError(`ReadableStream: type "${source.type}" is not supported by jshost (default streams only)`);
			}
			const hwm = strategy.highWaterMark === undefined ? 1 : Number(strategy.highWaterMark);
			if (Number.isNaN(hwm) || hwm < 0) throw new RangeError("ReadableStream: invalid highWaterMark");
			const st = {
				state: "readable", queue: [], queueSize: 0, hwm, size: strategy.size, requests: [], reader: null,
				storedError: undefined, started: false, pulling: false, pullAgain: false, closeRequested: false,
				disturbed: false, source, controller: null,
			};
			RS.set(this, st);
			const controller = Object.create(ReadableStreamDefaultController.prototype);
			Object.defineProperties(controller, {
				desiredSize: { get: () => rsDesiredSize(st) },
				enqueue: {
					value(chunk) {
						if (st.closeRequested || st.state !== "readable") throw new TypeError("ReadableStream: cannot enqueue to a closed or errored stream");
						if (st.requests.length > 0) {
							st.requests.shift().resolve({ value: chunk, done: false });
						} else {
							let n = 1;
							if (st.size) {
								try {
									n = Number(st.size(chunk));
								} catch (e) {
									rsError(st, e);
									throw e;
								}
							}
							st.queue.push({ chunk, n });
							st.queueSize += n;
						}
						rsPullIfNeeded(st);
					},
				},
				close: {
					value() {
						if (st.closeRequested || st.state !== "readable") throw new TypeError("ReadableStream: the stream is already closing or closed");
						st.closeRequested = true;
						if (st.queue.length === 0) rsClose(st);
					},
				},
				error: { value(e) { rsError(st, e); } },
			});
			st.controller = controller;
			const r = source.start ? source.start.call(source, controller) : undefined;
			Promise.resolve(r).then(() => {
				st.started = true;
				rsPullIfNeeded(st);
			}, (e) => rsError(st, e));
		}
		get locked() { return RS.get(this).reader !== null; }
		getReader(options) {
			if (options && options.mode !== undefined) throw new TypeError(`ReadableStream: reader mode "${options.mode}" is not supported by jshost`);
			return new ReadableStreamDefaultReader(this);
		}
		cancel(reason) {
			const st = RS.get(this);
			if (st.reader) return Promise.reject(new TypeError("ReadableStream: cannot cancel a locked stream"));
			return rsCancel(st, reason);
		}
		values(options) {
			const reader = this.getReader();
			const preventCancel = !!(options && options.preventCancel);
			let finished = false;
			const finish = () => {
				finished = true;
				reader.releaseLock();
			};
			return {
				next() {
					if (finished) return resolved(undefined, true);
					return reader.read().then((r) => {
						if (r.done) finish();
						return r;
					}, (e) => {
						finish();
						throw e;
					});
				},
				return(value) {
					if (finished) return resolved(value, true);
					const p = preventCancel ? Promise.resolve() : reader.cancel(value);
					finish();
					return p.then(() => ({ value, done: true }));
				},
				[Symbol.asyncIterator]() { return this; },
			};
		}
		[Symbol.asyncIterator](options) { return this.values(options); }
	}
	class ReadableStreamDefaultReader {
		#st = null;
		#closed;
		constructor(stream) {
			const st = RS.get(stream);
			if (!st) throw new TypeError("ReadableStreamDefaultReader: argument is not a ReadableStream");
			if (st.reader) throw new TypeError("ReadableStream: already locked to a reader");
			this.#st = st;
			let resolve, reject;
			this.#closed = new Promise((res, rej) => { resolve = res; reject = rej; });
			this.#closed.catch(() => {});
			st.reader = { resolveClosed: () => resolve(), rejectClosed: (e) => reject(e), owner: this };
			if (st.state === "closed") resolve();
			else if (st.state === "errored") reject(st.storedError);
		}
		get closed() { return this.#closed; }
		read() {
			const st = this.#st;
			if (!st) return Promise.reject(new TypeError("ReadableStreamDefaultReader: the reader has been released"));
			st.disturbed = true;
			if (st.state === "closed") return resolved(undefined, true);
			if (st.state === "errored") return Promise.reject(st.storedError);
			if (st.queue.length > 0) {
				const { chunk, n } = st.queue.shift();
				st.queueSize -= n;
				if (st.closeRequested && st.queue.length === 0) rsClose(st);
				else rsPullIfNeeded(st);
				return resolved(chunk, false);
			}
			const p = new Promise((resolve, reject) => st.requests.push({ resolve, reject }));
			rsPullIfNeeded(st);
			return p;
		}
		releaseLock() {
			const st = this.#st;
			if (!st) return;
			const e = new TypeError("ReadableStreamDefaultReader: the reader has been released");
			for (const r of st.requests.splice(0)) r.reject(e);
			if (st.state === "readable") st.reader.rejectClosed(e);
			this.#closed = Promise.reject(e);
			this.#closed.catch(() => {});
			st.reader = null;
			this.#st = null;
		}
		cancel(reason) {
			const st = this.#st;
			if (!st) return Promise.reject(new TypeError("ReadableStreamDefaultReader: the reader has been released"));
			return rsCancel(st, reason);
		}
	}
	hidden(g, "ReadableStream", ReadableStream);
	hidden(g, "ReadableStreamDefaultReader", ReadableStreamDefaultReader);
	hidden(g, "ReadableStreamDefaultController", ReadableStreamDefaultController);

	// __jshostAsyncIterator is what desugared `for await` loops call (transform.go).
	hidden(g, "__jshostAsyncIterator", (x) => {
		if (x === null || x === undefined) throw new TypeError(`${x} is not async iterable`);
		const m = x[Symbol.asyncIterator];
		if (typeof m === "function") return m.call(x);
		const s = x[Symbol.iterator];
		if (typeof s !== "function") throw new TypeError("object is not async iterable");
		const it = s.call(x);
		return {
			next: () => {
				const r = it.next();
				return Promise.resolve(r.value).then((value) => ({ value, done: r.done }));
			},
			return: typeof it.return === "function" ? (v) => Promise.resolve(it.return(v)) : undefined,
		};
	});
});
