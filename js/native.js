// The browser's own LanguageModel: captured at load, before install() may replace it, and
// driven as a generate function for the "browser" backend. Chromium 156 ships one that reports "unavailable" (no model). Its tool
// classes too: a browser that has LanguageModelToolCall has native tool use, and the
// browser backend then hands tools to it instead of going through the text protocol.
export const nativeAtLoad = globalThis.LanguageModel;
export const nativeToolsAtLoad = {
  call: globalThis.LanguageModelToolCall,
  success: globalThis.LanguageModelToolSuccess,
  error: globalThis.LanguageModelToolError,
};

// browserGenerate drives the browser's native LanguageModel as a generate function (the
// "browser" backend). Each step is one native session: system messages become its
// initialPrompts, the rest its prompt input, and the session is destroyed when the step
// ends or is abandoned. Without native tool use (no tool classes), the engine has already
// rendered tools, calls and results as text through its text protocol, and
// promptStreaming's chunks come back as text pieces. With it (classes given), the step's
// tools are declared to the native session, calls and results cross in Chrome's form
// (tool-call parts of assistant messages, tool-response parts of user messages, as the
// browser's own classes), and prompt()'s answer comes back as text and tool-call pieces.
export function browserGenerate(native, classes) {
  return async (request, { signal }) => {
    const system = [];
    const input = [];
    const add = (role, part) => {
      const last = input.at(-1);
      if (last && last.role === role && Array.isArray(last.content) && part.type !== "text") last.content.push(part);
      else input.push({ role, content: [part] });
    };
    for (const m of request.messages) {
      if (classes && m.role === "tool-call") {
        const c = m.content[0].value;
        add("assistant", { type: "tool-call", value: new classes.call({ callId: c.callID, name: c.name, arguments: c.arguments }) });
        continue;
      }
      if (classes && m.role === "tool-result") {
        const r = m.content[0].value;
        const value = "errorMessage" in r
          ? new classes.error({ callId: r.callID, name: r.name, errorMessage: r.errorMessage })
          : new classes.success({ callId: r.callID, name: r.name, result: r.result });
        add("user", { type: "tool-response", value });
        continue;
      }
      const content = m.content
        .filter((p) => p.type !== "reasoning") // kept under keepReasoning: Chrome's model takes none
        .map((p) => {
          if (p.type !== "text") throw new DOMException(`The browser backend sends text only, not ${p.type}.`, "NotSupportedError");
          return p.value;
        })
        .join("");
      if (m.role === "system") system.push(content);
      else input.push(m.prefix ? { role: m.role, content, prefix: true } : { role: m.role, content });
    }
    const options = { signal };
    if (system.length > 0) options.initialPrompts = [{ role: "system", content: system.join("\n\n") }];
    const tools = classes ? request.tools ?? [] : [];
    if (classes) {
      // The spec: tool calls and responses given as input need their types declared, as
      // images and audio do (assistant messages here carry the model's earlier calls).
      const given = new Set(input.flatMap((m) => (Array.isArray(m.content) ? m.content.map((p) => p.type) : [])));
      options.expectedInputs = [{ type: "text" }, ...["tool-call", "tool-response"].filter((t) => given.has(t)).map((type) => ({ type }))];
      options.expectedOutputs = [{ type: "text" }, { type: "tool-call" }];
      if (tools.length > 0) options.tools = tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    }
    const session = await native.create(options);
    const done = () => {
      try {
        session.destroy();
      } catch {
        // already gone
      }
    };
    const promptOptions = { signal };
    if (request.responseConstraint !== undefined) promptOptions.responseConstraint = nativeConstraint(request.responseConstraint);
    if (classes) {
      try {
        const out = await session.prompt(input, promptOptions);
        return (Array.isArray(out) ? out : [out]).map((p) => {
          if (typeof p === "string") return p;
          if (p.type === "tool-call") return { type: "tool-call", value: { callID: p.value.callID ?? p.value.callId, name: p.value.name, arguments: p.value.arguments ?? {} } };
          return { type: "text", value: String(p.value) };
        });
      } finally {
        done();
      }
    }
    let reader;
    try {
      reader = session.promptStreaming(input, promptOptions).getReader();
    } catch (e) {
      done();
      throw e;
    }
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      async next() {
        try {
          const r = await reader.read();
          if (r.done) done();
          return r;
        } catch (e) {
          done();
          throw e;
        }
      },
      async return() {
        reader.cancel().catch(() => {});
        done();
        return { done: true, value: undefined };
      },
    };
  };
}

// nativeConstraint is a responseConstraint as the native model takes it: a RegExp, which
// crosses the channel as {pattern: source} (an object with that one member), becomes a
// RegExp again, in Unicode mode, as the module checks it; a JSON Schema stays as it is.
function nativeConstraint(rc) {
  if (rc === null || typeof rc !== "object" || Array.isArray(rc)) return rc;
  const keys = Object.keys(rc);
  if (keys.length !== 1 || keys[0] !== "pattern" || typeof rc.pattern !== "string") return rc;
  try {
    return new RegExp(rc.pattern, "u");
  } catch {
    return new RegExp(rc.pattern);
  }
}

// probeOptions are what the module asks the browser's own model when it only needs to
// know whether there is one (install()'s globals, the browser backend): text in and out,
// in English, the language every shipped model serves. Chromium warns in the console of
// any availability() or create() that names no output language, so one is named.
const probeOptions = Object.freeze({
  expectedInputs: [{ type: "text", languages: ["en"] }],
  expectedOutputs: [{ type: "text", languages: ["en"] }],
});

export async function nativeAvailability(native, options = probeOptions) {
  if (!native) return "unavailable";
  try {
    return await native.availability(options);
  } catch {
    return "unavailable";
  }
}
