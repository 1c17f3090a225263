// A page served with `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'`
// (csp_test.go): it loads the face and the module as any page would, runs a closed loop
// on the scripted model and a prompt against an OpenAI-compatible server on its own
// origin, and records every CSP violation the browser reports.
const out = { violations: [] };
document.addEventListener("securitypolicyviolation", (e) => out.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
globalThis.cspResult = (async () => {
  const lm = await import("/js/language-model.js");
  await lm.install({ wasm: "/langmodel.wasm" });
  const s = await LanguageModel.create({
    backend: { kind: "scripted", turns: [{ calls: [{ name: "echo", arguments: { q: "x" } }] }, { text: "done" }] },
    tools: [{ name: "echo", description: "Echoes", inputSchema: { type: "object" }, execute: (a) => a.q }],
  });
  out.scripted = await s.prompt("hi");
  out.history = s.history.map((m) => m.role);
  const o = await LanguageModel.create({ backend: { kind: "openai", baseURL: "/r/csp/vllm.sse", model: "m" } });
  out.openai = await o.prompt("hi");
  const chunks = [];
  const r = o.promptStreaming("again").getReader();
  for (;;) { const { done, value } = await r.read(); if (done) break; chunks.push(value); }
  out.streamed = chunks.join("");
  return out;
})().catch((e) => ({ ...out, error: `${e.name}: ${e.message}` }));
