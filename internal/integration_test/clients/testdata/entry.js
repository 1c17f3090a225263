// The bundle's entry (esbuild, at test time): the AI SDK and the two Prompt-API providers
// that users drive LanguageModel with, exposed to the test page as globalThis.clients.
import { generateText, streamText, Output, jsonSchema, tool, stepCountIs } from "ai";
import { browserAI } from "@browser-ai/core";
import { builtInAI } from "@built-in-ai/core";

globalThis.clients = { generateText, streamText, Output, jsonSchema, tool, stepCountIs, browserAI, builtInAI };
