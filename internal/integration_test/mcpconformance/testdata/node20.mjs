// node --import ./node20.mjs: the conformance suite's CLI on Node 20. It imports
// globSync from "fs", which Node has from 22 on, and uses it once, to find the
// results' **/checks.json; this hook gives the CLI's modules an "fs" with a globSync
// for that one pattern (readdirSync, recursive), and leaves every other import alone.
import { register } from "node:module";

const fsWithGlob = "data:text/javascript," + encodeURIComponent(`
export * from "node:fs";
import fs from "node:fs";
import path from "node:path";
export default fs;
export const globSync = fs.globSync ?? ((pattern, { cwd = "." } = {}) => {
  if (!pattern.startsWith("**/") || pattern.slice(3).includes("/")) throw new Error("globSync on Node 20 (node20.mjs): only **/<file name>, not " + pattern);
  return fs.readdirSync(cwd, { recursive: true }).filter((p) => path.basename(p) === pattern.slice(3));
});`);

const hooks = `
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/"))
    return { url: ${JSON.stringify(fsWithGlob)}, shortCircuit: true };
  return next(specifier, context);
}`;
register("data:text/javascript," + encodeURIComponent(hooks));
