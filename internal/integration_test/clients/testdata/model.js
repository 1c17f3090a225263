// A deterministic stand-in for a model, as a custom backend's generate (nativeTools: true,
// so the module passes text through untouched): the answer depends only on the last
// message, and the providers' own tool protocol (```tool_call / ```tool_result fences) is
// spoken by hand. Every request is logged for the test.

export const requests = [];
export const state = { aborted: false };

const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.value : "")).join(""));

export async function* generate(request, { signal }) {
  requests.push(request);
  signal.addEventListener("abort", () => (state.aborted = true));
  const last = textOf(request.messages.at(-1)).trim();
  const result = /```tool_result\s*\n(\{.*\})\s*\n```$/.exec(last);
  const question = last.split("\n").at(-1);
  if (request.responseConstraint) {
    yield JSON.stringify({ city: "Paris", temperature: 21 });
  } else if (result) {
    yield `It is ${JSON.parse(result[1]).result}.`;
  } else if (question.startsWith("TOOL")) {
    yield "Let me check.\n```tool_call\n";
    yield JSON.stringify({ name: "get_weather", arguments: { city: "Paris" } });
    yield "\n```";
  } else if (question.startsWith("SLOW")) {
    for (let i = 0; i < 1000 && !signal.aborted; i++) {
      yield `tick ${i} `;
      await new Promise((r) => setTimeout(r, 10));
    }
  } else {
    for (const word of `You said: ${question}`.split(/(?= )/)) yield word;
  }
}
