// Compile-time test of language-model.d.ts (`make test-types`): docs/backends.md's
// global-LanguageModel example, which must compile both with and without
// @types/dom-chromium-ai beside the module's types. Not shipped; nothing runs it.

import { install } from "./language-model.js";

await install({
  wasm: "langmodel.wasm",
  backend: { kind: "openai", baseURL: "http://127.0.0.1:11434/v1", model: "qwen2.5:7b" },
});

const session = await LanguageModel.create({
  tools: [{
    name: "get_weather",
    description: "The current weather in a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    async execute({ city }) {
      return `21°C and sunny in ${city}`; // call a real API here
    },
  }],
});
session.ontoolcall = (e) => console.log("calling", e.detail.call.name, e.detail.call.arguments);
console.log(await session.prompt("What is the weather in Paris?"));
