// A tiny static file server for the lesson pages, on the loopback interface only.
//   node tests/web/serve.mjs build/wasm/web [port]    then open http://127.0.0.1:<port>/split.html
// The browser tests import serve() from here.
import {createServer} from "node:http";
import {readFile, stat} from "node:fs/promises";
import {extname, join, normalize, resolve, sep} from "node:path";
import {pathToFileURL} from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

export function serve(directory, port = 0) {
  const root = resolve(directory);
  const server = createServer(async (request, response) => {
    try {
      const path = decodeURIComponent(new URL(request.url, "http://127.0.0.1").pathname);
      const file = normalize(join(root, path.endsWith("/") ? path + "index.html" : path));
      if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error("outside"), {code: "ENOENT"});
      if (!(await stat(file)).isFile()) throw Object.assign(new Error("not a file"), {code: "ENOENT"});
      const body = await readFile(file);
      response.writeHead(200, {"Content-Type": TYPES[extname(file)] || "application/octet-stream",
                               "Cache-Control": "no-store"});
      response.end(body);
    } catch (e) {
      response.writeHead(e.code === "ENOENT" ? 404 : 500, {"Content-Type": "text/plain"});
      response.end(e.code === "ENOENT" ? "not found\n" : "error\n");
    }
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      done({url, close: () => new Promise((closed) => server.close(closed))});
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [directory = "build/wasm/web", port = "8000"] = process.argv.slice(2);
  const {url} = await serve(directory, Number(port));
  console.log(`serving ${resolve(directory)} at ${url} (split.html, communication.html); Ctrl-C stops`);
}
