// bundle.mjs builds or serves a scratch app with the bundlers pinned in this folder's
// package.json, through their own APIs (no CLI packages), with no configuration but the
// app's own files: node bundle.mjs <vite-build | webpack> <app dir>, or
// node bundle.mjs vite-dev <app dir> <port>, which prints the server's URL on a line of
// its own and serves until it is killed.

import path from "node:path";

const [how, dir, port] = process.argv.slice(2);
const root = path.resolve(dir);

switch (how) {
  case "vite-build": {
    const { build } = await import("vite");
    await build({ root, logLevel: "warn" }); // reads root/vite.config.js, as `npx vite build` does
    break;
  }
  case "vite-dev": {
    const { createServer } = await import("vite");
    const server = await createServer({ root, logLevel: "warn", server: { host: "127.0.0.1", port: Number(port), strictPort: true } });
    await server.listen();
    console.log(server.resolvedUrls.local[0]);
    break;
  }
  case "webpack": {
    const { default: webpack } = await import("webpack");
    // What `npx webpack --entry ./main.js` does with no webpack.config.js.
    const stats = await new Promise((resolve, reject) =>
      webpack({ mode: "production", context: root, entry: "./main.js", output: { path: path.join(root, "dist") } }, (err, s) => (err ? reject(err) : resolve(s))),
    );
    if (stats.hasErrors() || stats.hasWarnings()) {
      console.error(stats.toString({ all: false, errors: true, warnings: true }));
      if (stats.hasErrors()) process.exit(1);
    }
    break;
  }
  default:
    console.error(`bundle.mjs: unknown ${how}`);
    process.exit(2);
}
