// Written for Chrome's built-in Prompt API (developer.chrome.com/docs/ai/prompt-api), as
// a page would be: nothing here knows about language-model.js, except for waiting for
// installed, which stands in for the page's own start-up.
await globalThis.installed;

const log = [];
const availability = await LanguageModel.availability();
log.push(`availability ${availability}`);

const params = await LanguageModel.params();
log.push(`topK ${params.defaultTopK}`);

const session = await LanguageModel.create({
  initialPrompts: [{ role: "system", content: "You are a helpful and friendly assistant." }],
  monitor(m) {
    m.addEventListener("downloadprogress", (e) => log.push(`Downloaded ${e.loaded * 100}%`));
  },
});

const result = await session.prompt("Write me a poem!");
log.push(`prompt ${result.split("\n")[0]}`);

let streamed = "";
for await (const chunk of session.promptStreaming("Write me an extra-long poem!")) {
  streamed += chunk;
}
log.push(`stream ${streamed.split("\n")[0]}`);

log.push(`usage ${session.contextUsage > 0} of ${session.contextWindow}`);
log.push(`measure ${(await session.measureContextUsage("How many tokens?")) > 0}`);

await session.append([{ role: "user", content: "Remember this." }]);
const controller = new AbortController();
const aborted = session.prompt("Never mind.", { signal: controller.signal });
controller.abort();
try {
  await aborted;
} catch (e) {
  log.push(`abort ${e.name}`);
}

const clone = await session.clone();
log.push(`clone ${(await clone.prompt("Hi")).split("\n")[0]}`);
session.destroy();
try {
  await session.prompt("Anyone there?");
} catch (e) {
  log.push(`destroyed ${e.name}`);
}

globalThis.chromeResult = log;
