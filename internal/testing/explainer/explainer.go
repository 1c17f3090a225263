// Package explainer holds the tool-use examples of the Prompt API explainer
// (webmachinelearning/prompt-api, README.md § Tool use, pull request #162 "tool use without
// auto execution") as a page copies them, for the tests that run them in every engine
// (internal/integration_test: TestModule_Conformance and TestBrowser_Conformance) and under Node
// (internal/integration_test/pkgtest, TestPackage_NodeExplainer). They are the explainer's code with only
// what JavaScript itself rejects fixed (two missing closing braces in its append example)
// and what a test needs: the scripted backend among the options, the module's answer read
// as the array of parts it is (prompt() with tool-call among the outputs), the explainer's
// `expectedOutputs.push(["tool-call"])` written as the dictionary it means, and
// {type: "tool-call"} among the outputs of the session the few-shot history is appended
// to (its tools have no execute: create() refuses them otherwise, DESIGN.md §3).
package explainer

// Example is one of the explainer's examples: JS is the body of an async function that
// returns what Want holds (JSON). It may use LanguageModel, LanguageModelToolSuccess and
// script(...turns) (a scripted backend playing turns), which the runner defines.
type Example struct {
	Name, JS, Want string
}

// options are the explainer's session options (its system prompt and getWeather tool),
// with a scripted model that calls getWeather for Seattle and then answers.
const options = `
const options = {
  initialPrompts: [
    {
      role: "system",
      content: "You are a helpful assistant. You can use tools to help the user."
    }
  ],
  tools: [
    {
      name: "getWeather",
      description: "Get the weather in a location.",
      inputSchema: {
        type: "object",
        properties: {
          location: {
            type: "string",
            description: "The city to check for the weather condition.",
          },
        },
        required: ["location"],
      },
    }
  ],
  expectedOutputs: [{ type: "text" }],
  backend: script({ calls: [{ name: "getWeather", arguments: { location: "Seattle" } }] }, { text: "It is 55F in Seattle." }),
};
const getWeather = (location) => ({ temperature: "55F", humidity: "67%" });
`

// openLoop is the explainer's open loop up to the tool call; answer(result) is the
// statement that answers it.
func openLoop(answer string) string {
	return options + `
const sessionOptions = structuredClone(options);
sessionOptions.expectedOutputs.push({ type: "tool-call" });
const session = await LanguageModel.create(sessionOptions);

var [part] = await session.prompt("What is the weather in Seattle?");
var result = part.value;
if (part.type=="tool-call") {
  if (result.name == "getWeather") {
    const tool_result = getWeather(result.arguments.location);
    ` + answer + `
  }
} else{
  console.log(result)
}
return [await result, session.history.map((m) => m.role)];
`
}

const openLoopWant = `[[{"type":"text","value":"It is 55F in Seattle."}],["system","user","tool-call","tool-result","assistant"]]`

// Examples are the explainer's tool-use examples.
var Examples = []Example{
	{Name: "the explainer's open loop: the answer's content one object, callId", JS: openLoop(
		`result = session.prompt([{role:"tool-result", content: {type: "tool-result", value: {callId: result.callID, name: result.name, result: [{type:"object", value: tool_result}]}}}])`),
		Want: openLoopWant},
	{Name: "the explainer's open loop: the answer's content an array", JS: openLoop(
		`result = session.prompt([{role:"tool-result", content: [{type: "tool-result", value: {callId: result.callID, name: result.name, result: [{type:"object", value: tool_result}]}}]}])`),
		Want: openLoopWant},
	{Name: "the explainer's open loop: the answer in Chrome's form (a user message, a tool-response part, the class)", JS: openLoop(
		`result = session.prompt([{role:"user", content: [{type: "tool-response", value: new LanguageModelToolSuccess({callID: result.callID, name: result.name, result: [{type:"object", value: tool_result}]})}]}])`),
		Want: openLoopWant},
	{Name: "the explainer's open loop: the answer by append, role tool-result with a tool-response part", JS: openLoop(
		`await session.append([{role:"tool-result", content: {type: "tool-response", value: {callID: result.callID, name: result.name, result: [{type:"object", value: tool_result}]}}}]);
    result = session.prompt("So?")`),
		Want: `[[{"type":"text","value":"It is 55F in Seattle."}],["system","user","tool-call","tool-result","user","assistant"]]`},
	{Name: "the explainer's few-shot append, with tool-call and tool-response declared", JS: options + `
const session = await LanguageModel.create({ ...options, expectedInputs: [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }], backend: script({ text: "It is 48F in Tokyo." }) });
await session.append([
    {role: "user", content: "What is the weather in Seattle?"},
    {role: "tool-call", content: {type: "tool-call", value: {callID:" get_weather_1", name: "get_weather", arguments: {location:"Seattle"}}}},
    {role: "tool-result", content:  {type: "tool-response", value: {callID: "get_weather_1", name: "get_weather", result: [{type:"object", value: {temperature: "55F", humidity: "67%"}}]}}},
    {role: "assistant", content: "The temperature in Seattle is 55F and humidity is 67%"},
]);
const answer = await session.prompt("And in Tokyo?");
return [answer, session.history.map((m) => m.role + (m.role.startsWith("tool") ? " " + JSON.stringify(m.content[0].value.callID) : ""))];`,
		// The explainer's call id has a leading space its result's lacks: the result
		// answers no call, and the call, unanswered when the conversation goes on, gets
		// the module's tool error (DESIGN.md §3, nothing dangling).
		Want: `[[{"type":"text","value":"It is 48F in Tokyo."}],["system","user","tool-call \" get_weather_1\"","tool-result \"get_weather_1\"","tool-result \" get_weather_1\"","assistant","user","assistant"]]`},
	{Name: "the explainer's few-shot append without tool-call declared names the option to add", JS: options + `
const session = await LanguageModel.create({ ...options, expectedOutputs: [{ type: "text" }, { type: "tool-call" }] });
let error;
try {
  await session.append([
    {role: "user", content: "What is the weather in Seattle?"},
    {role: "tool-call", content: {type: "tool-call", value: {callID: "get_weather_1", name: "getWeather", arguments: {location:"Seattle"}}}},
  ]);
} catch (e) {
  error = e;
}
return [error.name, error.message, session.history.length];`,
		Want: `["NotSupportedError","content type not declared in expectedInputs: message 1 part 0: tool-call (declare {type: \"tool-call\"} in expectedInputs)",1]`},
	{Name: "a response to a call the model never made still needs tool-response declared", JS: openLoop(
		`result = session.prompt([{role:"tool-result", content: {type: "tool-result", value: {callId: "made_up", name: result.name, result: [{type:"object", value: tool_result}]}}}]).catch((e) => [e.name, e.message])`),
		Want: `[["NotSupportedError","content type not declared in expectedInputs: message 0 part 0: tool-response (callID \"made_up\" answers no call this session's model made; declare {type: \"tool-response\"} in expectedInputs)"],["system","user","tool-call"]]`},
	{Name: "the module says once per session that Chrome asks for tool-response", JS: options + `
const said = [];
const info = console.info;
console.info = (...args) => said.push(args.join(" "));
try {
  const run = async (expectedInputs) => {
    const session = await LanguageModel.create({ ...options, expectedInputs, expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
      backend: script({ calls: [{ name: "getWeather", arguments: { location: "Seattle" } }] }, { text: "55F." }, { calls: [{ name: "getWeather", arguments: { location: "Oslo" } }] }, { text: "40F." }) });
    for (const city of ["Seattle", "Oslo"]) {
      const [part] = await session.prompt("Weather in " + city + "?");
      await session.prompt([{ role: "tool-result", content: { type: "tool-result", value: { callId: part.value.callID, name: "getWeather", result: [{ type: "object", value: getWeather(city) }] } } }]);
    }
    return said.splice(0).map((s) => s.includes('{type: "tool-response"}'));
  };
  return [await run(undefined), await run([{ type: "text" }, { type: "tool-response" }])];
} finally {
  console.info = info;
}`,
		Want: `[[true],[]]`},
}
