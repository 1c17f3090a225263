// What the benchmark page loads of the AI SDK: its loop, and the mock model it tests with.
export { generateText, tool, stepCountIs } from "ai";
export { MockLanguageModelV3 } from "ai/test";
export { z } from "zod";
