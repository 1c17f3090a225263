// A dependency of main.js: one of each export form LoadModule supports.
export const answer = 42, { left, right: [first, ...others] } = { left: "L", right: [1, 2, 3] };
export let counter = 0;
export function bump() { counter++; return counter; }
export async function later(v) { await null; return v; }
export class Greeter {
	#name;
	constructor(name) { this.#name = name; }
	greet() { return `hello, ${this.#name}`; }
}
const hidden = "h";
export { hidden as renamed };
export default function makeGreeter(name) { return new Greeter(name); }
