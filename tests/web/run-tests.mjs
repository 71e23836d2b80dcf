// Browser tests for the lesson pages: headless Chromium (Debian's /usr/bin/chromium)
// driven by playwright-core, against the pages served on 127.0.0.1. Every
// request that is not to the local server is blocked and counted as a failure.
//
//   node tests/web/run-tests.mjs --site build/wasm/web --cli build/web-cli/examples/napkin \
//        --artifacts build/wasm/web-test-artifacts [--only split|communication]
//
// Prints one line per check and ends with "N passed, M failed"; exits 1 on any failure.
import {chromium} from "playwright-core";
import {execFileSync} from "node:child_process";
import {mkdirSync, mkdtempSync, readdirSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";
import {parseArgs} from "node:util";
import {serve} from "./serve.mjs";

const {values: options} = parseArgs({
  options: {
    site: {type: "string", default: "build/wasm/web"},
    cli: {type: "string", default: process.env.NAPKIN_CLI || "build/web-cli/examples/napkin"},
    artifacts: {type: "string", default: "build/wasm/web-test-artifacts"},
    chromium: {type: "string", default: process.env.CHROMIUM || "/usr/bin/chromium"},
    only: {type: "string", multiple: true},
  },
});

let passed = 0;
let failed = 0;
const log = (line) => process.stdout.write(line + "\n");

// A group of checks that share one page; `fn(t)` records checks with t.ok / t.equal.
function makeChecker(group) {
  const t = {
    ok(condition, name, detail = "") {
      if (condition) {
        ++passed;
        if (!t.quiet) log(`ok    ${group}: ${name}`);
      } else {
        ++failed;
        log(`FAIL  ${group}: ${name}${detail ? "\n        " + detail : ""}`);
      }
      return condition;
    },
    equal(actual, expected, name) {
      return t.ok(Object.is(actual, expected) || actual === expected, name,
                  `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
    },
    quiet: false,
  };
  return t;
}

// Runs the napkin command and parses its --json output.
export function napkinJson(args) {
  return JSON.parse(execFileSync(options.cli, [...args, "--json"], {encoding: "utf8"}));
}

// Raw values: equal to the library's double, or within 1e-12 relative.
export function sameNumber(actual, expected) {
  if (actual === expected) return true;
  return Math.abs(actual - expected) <= 1e-12 * Math.max(Math.abs(actual), Math.abs(expected));
}

// Every tests/web/<page>.test.mjs checks one page; its run(t, env) does the work.
const HERE = dirname(fileURLToPath(import.meta.url));
const suites = Object.fromEntries(readdirSync(HERE).filter((f) => f.endsWith(".test.mjs")).sort()
  .map((f) => [f.replace(/\.test\.mjs$/, ""), () => import(pathToFileURL(join(HERE, f)).href)]));

async function main() {
  const artifacts = resolve(options.artifacts);
  mkdirSync(artifacts, {recursive: true});
  const server = await serve(options.site);
  const profile = mkdtempSync(join(tmpdir(), "napkin-chromium-"));
  // A fresh profile, no background traffic of the browser's own.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: options.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
    viewport: {width: 1200, height: 900},
  });
  const foreign = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.protocol === "data:") return route.continue();
    foreign.push(url.href);
    return route.abort("blockedbyclient");
  });

  const env = {
    base: server.url,
    site: resolve(options.site),
    artifacts,
    context,
    napkinJson,
    sameNumber,
    // Opens a page, failing the check on any console error or uncaught exception.
    async open(t, path) {
      const page = await context.newPage();
      page.errors = [];
      page.on("console", (message) => {
        if (message.type() === "error") page.errors.push(message.text());
      });
      page.on("pageerror", (error) => page.errors.push(String(error)));
      await page.goto(server.url + path);
      await page.waitForSelector("body[data-ready=true]", {timeout: 15000});
      return page;
    },
  };

  const chosen = options.only?.length ? options.only : Object.keys(suites);
  try {
    for (const name of chosen) {
      const t = makeChecker(name);
      try {
        if (!suites[name]) throw new Error(`no tests/web/${name}.test.mjs`);
        const suite = await suites[name]();
        await suite.run(t, env);
      } catch (error) {
        t.ok(false, "ran to the end", error.stack || String(error));
      }
    }
    const t = makeChecker("network");
    t.ok(foreign.length === 0, "no request left 127.0.0.1", foreign.join(", "));
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, {recursive: true, force: true});
  }
  log(`screenshots in ${artifacts}`);
  log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
}

await main();
