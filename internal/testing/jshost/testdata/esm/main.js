// Imports util.js every way LoadModule supports, and re-exports.
import makeGreeter, { answer, bump, later as eventually, Greeter } from "./util.js";
import * as util from "./util.js";
import doubled from "./extra.js";

export { first, others } from "./util.js";
export * from "./extra.js";
export * as utilNS from "./util.js";

export const greeting = makeGreeter("esm").greet();
export const sum = answer + util.first;
export async function run() {
	bump();
	bump();
	let total = "";
	for await (const chunk of new ReadableStream({
		start(c) { c.enqueue("a"); c.enqueue("b"); c.close(); },
	})) {
		total += chunk;
	}
	return { counter: util.counter, later: await eventually(total), isGreeter: makeGreeter("x") instanceof Greeter };
}
export default class Main {}
export { answer, doubled };
