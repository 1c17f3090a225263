// What a page using the AI SDK's closed loop ships (the transfer-size row): no mock.
export { generateText, tool, stepCountIs } from "ai";
export { z } from "zod";
