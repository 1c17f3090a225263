// readme.mjs writes the npm package's README (make package): the repository's README.md,
// whose links to the repository's other files cannot resolve inside the package, with
// each such link turned into its text and a note saying where those files are. Links to
// headings of the README itself (#…) and absolute links stay. Usage: node readme.mjs in out
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
let inFence = false;
const lines = readFileSync(input, "utf8").split("\n").map((line) => {
  if (/^\s*```/.test(line)) inFence = !inFence;
  if (inFence) return line;
  // [text](target): a target that is neither absolute nor a heading of this file is a
  // file of the repository, which the package does not hold.
  return line.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (link, text, target) =>
    /^(https?:|#)/.test(target) ? link : text.startsWith("`") || text.includes("/") || text.includes(".") ? "`" + text.replace(/`/g, "") + "`" : text);
});
const note = [
  "",
  "> This is the README of the langmodel repository, as its npm package ships it: the files it",
  "> names (`docs/…`, `RATIONALE.md`, `demo/`, the Makefile's targets) are in the repository, not",
  "> in the package.",
];
lines.splice(1, 0, ...note);
writeFileSync(output, lines.join("\n"));
