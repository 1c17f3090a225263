// The entry Node resolves (package.json "exports" → "node"): the same face as
// language-model.js, with the module's files read from disk, since Node's fetch takes no
// file: URLs. install() then needs no URL: langmodel.wasm and wasm_exec.js are found
// beside this file. What differs from a page: no "browser" backend (Node has no model of
// its own) and no DOM media inputs (Blob, ArrayBuffer and typed arrays still work).

import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { assets } from "./load.js";

assets.readFile = (url) => readFile(url);
assets.cwd = () => pathToFileURL(`${process.cwd()}/`).href;

export * from "./language-model.js";
