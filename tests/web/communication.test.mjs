// communication.html against `napkin allreduce --json` and `napkin crossover --json`:
// the ring/tree sweep over GPU counts, message sizes and two networks, the
// flat/hierarchical comparison over gradients, GPU counts, node sizes,
// oversubscription and NIC sharing, all set through the page's controls; the
// lab's quoted numbers worked out by hand; bad input; both colour schemes.
import {readFileSync, statSync} from "node:fs";
import {join} from "node:path";

// How the page rounds, written out here from the spec of the display: times in
// µs below 1 ms, ms below 1 s (two decimals), else s (three decimals); sizes in
// the largest binary unit they reach, two decimals; the speed-up with two.
const shown = {
  time(s) {
    if (s === 0) return "0 s";
    if (s < 1e-3) return `${(s * 1e6).toFixed(2)} µs`;
    if (s < 1) return `${(s * 1e3).toFixed(2)} ms`;
    return `${s.toFixed(3)} s`;
  },
  size(b) {
    for (const [unit, f] of [["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]])
      if (b >= f) return `${(b / f).toFixed(2)} ${unit}`;
    return `${b.toFixed(0)} B`;
  },
  speedup: (x) => `${x.toFixed(2)}×`,
};

function read(page, ids) {
  return page.evaluate((list) => Object.fromEntries(list.map((id) => {
    const el = document.getElementById(id);
    return [id, [el.textContent, el.dataset.value]];
  })), ids);
}

// Compares {id: [expected text, expected raw]} with the page; returns the mismatches.
function compare(display, expected, sameNumber) {
  const problems = [];
  for (const [id, [text, raw]] of Object.entries(expected)) {
    const [shownText, shownRaw] = display[id];
    if (shownText !== text) problems.push(`${id} shows "${shownText}", expected "${text}"`);
    const ok = typeof raw === "number" ? sameNumber(Number(shownRaw), raw) : shownRaw === String(raw);
    if (!ok) problems.push(`${id} data-value ${shownRaw}, library ${raw}`);
  }
  return problems;
}

function timeTriple(prefix, r) {
  return {
    [`${prefix}-time`]: [shown.time(r.time_s), r.time_s],
    [`${prefix}-latency`]: [shown.time(r.latency_s), r.latency_s],
    [`${prefix}-bandwidth`]: [shown.time(r.bandwidth_s), r.bandwidth_s],
  };
}

async function setSize(page, exponent) {
  const slider = page.locator("#size");
  await slider.focus();
  await slider.press("Home");
  for (let k = 10; k < exponent; ++k) await slider.press("ArrowRight");
}

async function setNetwork(page, bandwidth, latency) {
  await page.fill("#bandwidth", String(bandwidth));
  await page.fill("#latency", String(latency));
}

const SWEEP_IDS = ["size-value", "ring-time", "ring-latency", "ring-bandwidth", "tree-time", "tree-latency",
                   "tree-bandwidth", "winner", "crossover"];
const HIER_IDS = ["flat-time", "flat-latency", "flat-bandwidth", "hier-time", "hier-latency", "hier-bandwidth",
                  "nodes", "speedup"];

export async function run(t, env) {
  const page = await env.open(t, "communication.html");
  const cli = (args) => env.napkinJson(args);

  // --- opening numbers, by hand (IB NDR: B = 50 GB/s, α = 5 µs; 256 GPUs, 1 MiB) ---
  let d = await read(page, [...SWEEP_IDS, ...HIER_IDS]);
  t.equal(d["ring-latency"][0], "2.55 ms", "ring on 256 GPUs: 2·255 steps × 5 µs = 2.55 ms of latency");
  t.equal(d["tree-latency"][0], "80.00 µs", "tree on 256 GPUs: 2·⌈log₂ 256⌉ = 16 steps × 5 µs = 80 µs");
  t.equal(d["ring-bandwidth"][0], "41.78 µs", "ring sends 2·255/256 × 1 MiB at 50 GB/s = 41.78 µs");
  t.equal(d["tree-bandwidth"][0], "335.54 µs", "tree sends 16 × 1 MiB at 50 GB/s = 335.54 µs");
  t.equal(d.winner[0], "Tree", "the tree wins a 1 MB all-reduce on 256 GPUs (the lab's Part B answer)");
  t.equal(d.crossover[0], "8.41 MiB",
          "crossover α·B·(n−1−L)/(L−(n−1)/n) = 250,000 B × 247 / 7.0039 = 8,816,509 B = 8.41 MiB");
  t.equal(d["flat-time"][0], "5.513 s", "flat ring, 140 GB on 64 GPUs: 2·63/64 × 140 GB / 50 GB/s + 126 × 5 µs");
  t.equal(d["hier-time"][0], "884.80 ms",
          "hierarchical, 8 per node: 2 × 7/8 × 140 GB / 900 GB/s + 2·7/8 × 17.5 GB / 50 GB/s + 78.4 µs");
  t.equal(d.speedup[0], "6.23×", "hierarchical is 6.23× faster than the flat ring (lab: about 5-6×)");
  await page.screenshot({path: join(env.artifacts, "communication-light.png"), fullPage: true});

  // --- ring or tree: GPUs x sizes x two networks ---------------------------------
  let settings = 0;
  t.quiet = true;
  for (const [bandwidth, latency] of [[50, 5], [25, 2.5]]) {
    await setNetwork(page, bandwidth, latency);
    for (const gpus of [8, 16, 64, 256, 1024]) {
      await page.check(`#sweep input[name=gpus][value="${gpus}"]`);
      const net = ["--gpus", String(gpus), "--bandwidth-gbps", String(bandwidth), "--latency-us", String(latency)];
      const cross = cli(["crossover", ...net]).bytes;
      for (const k of [10, 16, 20, 24, 30, 34]) {
        await setSize(page, k);
        const bytes = 2 ** k;
        const ring = cli(["allreduce", "--algorithm", "ring", "--bytes", String(bytes), ...net]);
        const tree = cli(["allreduce", "--algorithm", "tree", "--bytes", String(bytes), ...net]);
        const winner = ring.time_s < tree.time_s ? "Ring" : tree.time_s < ring.time_s ? "Tree" : "Tie";
        const expected = {
          "size-value": [shown.size(bytes), bytes],
          ...timeTriple("ring", ring), ...timeTriple("tree", tree),
          winner: [winner, winner],
          crossover: [cross === null ? "none (the ring always wins)" : shown.size(cross), cross],
        };
        const problems = compare(await read(page, SWEEP_IDS), expected, env.sameNumber);
        const line = await page.locator("#crossover-line").getAttribute("data-bytes").catch(() => null);
        if (cross !== null && cross >= 1024 && cross <= 2 ** 34 && !env.sameNumber(Number(line), cross))
          problems.push(`crossover line at ${line}, library ${cross}`);
        t.ok(problems.length === 0,
             `ring/tree, ${gpus} GPUs, 2^${k} B, ${bandwidth} GB/s, ${latency} µs equals napkin allreduce/crossover`,
             problems.join("; "));
        ++settings;
      }
    }
  }
  t.quiet = false;
  t.equal(settings, 60, "compared 60 ring/tree settings with napkin allreduce --json and napkin crossover --json");

  // --- flat or hierarchical ------------------------------------------------------------
  await setNetwork(page, 50, 5);
  settings = 0;
  t.quiet = true;
  for (const message of [140e9, 280e9, 16e9]) {
    await page.check(`#hierarchy input[name=message][value="${message}"]`);
    for (const gpus of [16, 64, 256]) {
      await page.check(`#hierarchy input[name=total][value="${gpus}"]`);
      for (const g of [1, 2, 4, 8]) {
        await page.check(`#hierarchy input[name=per-node][value="${g}"]`);
        for (const r of [1, 2, 4]) {
          await page.check(`#hierarchy input[name=oversubscription][value="${r}"]`);
          for (const nic of ["per-gpu", "shared"]) {
            await page.check(`#hierarchy input[name=nic][value="${nic}"]`);
            const common = ["--bytes", String(message), "--gpus", String(gpus)];
            // The flat ring's slowest hop crosses the fabric: B / r.
            const flat = cli(["allreduce", "--algorithm", "ring", ...common, "--bandwidth-gbps", String(50 / r),
                              "--latency-us", "5"]);
            const hier = cli(["allreduce", "--algorithm", "hierarchical", ...common, "--gpus-per-node", String(g),
                              "--intra-bandwidth-gbps", "900", "--intra-latency-us", "0.6",
                              "--inter-bandwidth-gbps", "50", "--inter-latency-us", "5",
                              "--oversubscription", String(r), "--nic", nic]);
            const expected = {
              ...timeTriple("flat", flat), ...timeTriple("hier", hier),
              nodes: [String(gpus / g), gpus / g],
              speedup: [shown.speedup(flat.time_s / hier.time_s), flat.time_s / hier.time_s],
            };
            const problems = compare(await read(page, HIER_IDS), expected, env.sameNumber);
            t.ok(problems.length === 0,
                 `hierarchical, ${message / 1e9} GB, ${gpus} GPUs, ${g} per node, ${r}:1, NIC ${nic} equals napkin allreduce`,
                 problems.join("; "));
            ++settings;
          }
        }
      }
    }
  }
  t.quiet = false;
  t.equal(settings, 216, "compared 216 flat/hierarchical settings with napkin allreduce --json");

  // The lab's headline: 70B FP32 gradients, 64 GPUs, IB NDR, about 11 s per ring all-reduce.
  await page.check('#hierarchy input[name=message][value="280000000000"]');
  await page.check('#hierarchy input[name=total][value="64"]');
  await page.check('#hierarchy input[name=oversubscription][value="1"]');
  d = await read(page, HIER_IDS);
  t.equal(d["flat-time"][0], "11.026 s", "70B FP32 on 64 GPUs, IB NDR: 2·63/64 × 280 GB / 50 GB/s + 630 µs = 11.026 s (lab: about 11 s)");

  // --- keyboard, bad input ---------------------------------------------------------------
  await page.check('#sweep input[name=gpus][value="256"]');
  await setSize(page, 20);
  await page.locator("#size").press("ArrowRight");
  t.equal((await read(page, ["size-value"]))["size-value"][0], "2.00 MiB", "ArrowRight on the size slider doubles the message");
  await page.locator('#sweep input[name=gpus][value="256"]').focus();
  await page.keyboard.press("ArrowRight");
  t.ok(await page.locator('#sweep input[name=gpus][value="1024"]').isChecked(), "an arrow key moves the GPU choice");
  await page.fill("#bandwidth", "0");
  const error = await page.textContent("#error");
  t.ok(/bandwidth_gbps = 0: must be positive/.test(error) && await page.locator("#error").isVisible(),
       "a bandwidth of 0 shows napkin's message naming the argument", error);
  await page.fill("#bandwidth", "50");
  t.ok(!(await page.locator("#error").isVisible()), "a valid bandwidth clears the message");

  // --- colour schemes, errors, size -------------------------------------------------------
  await page.emulateMedia({colorScheme: "dark"});
  const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({colorScheme: "light"});
  const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  t.ok(light !== dark, "the dark colour scheme changes the page's colours", `${light} vs ${dark}`);
  await page.emulateMedia({colorScheme: "dark"});
  await page.screenshot({path: join(env.artifacts, "communication-dark.png"), fullPage: true});
  await page.emulateMedia({colorScheme: null});
  // The error above is the page's own message, not a console error.
  t.ok(page.errors.length === 0, "no console errors", page.errors.join("\n"));
  await page.close();

  const html = readFileSync(join(env.site, "communication.html"), "utf8");
  t.ok(!/(src|href)=["']?(https?:)?\/\//i.test(html) && !/@import|url\(\s*["']?https?:/i.test(html),
       "communication.html names no other host (no CDN, no web fonts)");
  const bytes = ["communication.html", "napkin.js", "napkin-web.js", "napkin-web.wasm"]
    .reduce((sum, f) => sum + statSync(join(env.site, f)).size, 0);
  t.ok(bytes < 300 * 1024, `communication.html + loader + wasm is under 300 KiB (${(bytes / 1024).toFixed(1)} KiB)`);
}
