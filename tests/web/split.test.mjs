// split.html against `napkin split --json`: the lesson's quoted numbers, all 180
// lesson settings (3 models x GPUs 1,2,4,8,16 x 2 links x 2 splits x tokens
// 1,16,64) set through the page's own controls, the chart's 16 bars, a pasted
// config.json, keyboard use, both colour schemes.
import {readFileSync, statSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {dirname, join} from "node:path";

const HERE = dirname(fileURLToPath(import.meta.url));
const GPU = "a100-80gb-sxm";
const MODELS = ["llama3.1-8b", "llama3.1-70b", "llama3.1-405b"];
const LINKS = ["nvlink-a100", "pcie-gen4"];
const SPLITS = ["tensor", "pipeline"];
const TOKENS = [1, 16, 64];
const LESSON_COUNTS = [1, 2, 4, 8, 16];
const ALL_COUNTS = Array.from({length: 16}, (_, i) => i + 1);

// How the page rounds, written out here from the spec of the display:
// GiB and ms with two decimals, the waiting share in percent with one decimal
// (two under 1%), tokens per second with one decimal. A count that does not fit
// shows a dash instead of its times.
const GiB = 1024 ** 3;
const shown = {
  gib: (bytes) => `${(bytes / GiB).toFixed(2)} GiB`,
  ms: (s) => `${(s * 1000).toFixed(2)} ms`,
  share: (x) => `${(100 * x < 1 ? (100 * x).toFixed(2) : (100 * x).toFixed(1))}%`,
  rate: (r) => `${r.toFixed(1)} tokens/s`,
};

function expectedDisplay(row) {
  const time = (text) => (row.fits ? text : "–");
  return {
    "memory-total": [shown.gib(row.memory.total), row.memory.total],
    "memory-usable": [shown.gib(row.memory.usable), row.memory.usable],
    "memory-weights": [shown.gib(row.memory.weights), row.memory.weights],
    "memory-kv-cache": [shown.gib(row.memory.kv_cache), row.memory.kv_cache],
    "memory-working": [shown.gib(row.memory.working), row.memory.working],
    "time-total": [time(shown.ms(row.total_s)), row.total_s],
    "time-read": [time(shown.ms(row.read_s)), row.read_s],
    "time-transfer": [time(shown.ms(row.transfer_s)), row.transfer_s],
    "waiting-share": [time(shown.share(row.waiting_share)), row.waiting_share],
    "user-rate": [time(shown.rate(row.user_tokens_per_s)), row.user_tokens_per_s],
    "fit": [row.fits ? "Fits" : "Does not fit", row.fits],
  };
}

// Everything the page shows, in one round trip.
function readDisplay(page) {
  return page.evaluate(() => {
    const ids = ["memory-total", "memory-usable", "memory-weights", "memory-kv-cache", "memory-working",
                 "time-total", "time-read", "time-transfer", "waiting-share", "user-rate", "fit"];
    const shownNow = {};
    for (const id of ids) {
      const el = document.getElementById(id);
      shownNow[id] = [el.textContent, el.dataset.value];
    }
    shownNow.bars = [...document.querySelectorAll("#chart g.col")].map((g) => ({
      gpus: Number(g.dataset.gpus), total: g.dataset.total, fits: g.dataset.fits,
      now: g.classList.contains("now")}));
    shownNow.gpusOutput = document.getElementById("gpus-value").textContent;
    return shownNow;
  });
}

// Compares one setting's display with the CLI's row; returns the mismatches.
function compare(display, row, sameNumber) {
  const problems = [];
  for (const [id, [text, raw]] of Object.entries(expectedDisplay(row))) {
    const [shownText, shownRaw] = display[id];
    if (shownText !== text) problems.push(`${id} shows "${shownText}", expected "${text}"`);
    const ok = typeof raw === "boolean" ? shownRaw === String(raw) : sameNumber(Number(shownRaw), raw);
    if (!ok) problems.push(`${id} data-value ${shownRaw}, library ${raw}`);
  }
  return problems;
}

// Moves the GPU slider with the keyboard, as a reader would.
async function chooseGpus(page, n) {
  const slider = page.locator("#gpus");
  await slider.focus();
  await slider.press("Home");
  for (let i = 1; i < n; ++i) await slider.press("ArrowRight");
}

export async function run(t, env) {
  const page = await env.open(t, "split.html");

  // --- the lesson's opening numbers (the lesson text, not the CLI) -----------
  let display = await readDisplay(page);
  t.equal(display["memory-total"][0], "34.93 GiB", "opens on 70B, 4 GPUs, fast link: 34.93 GiB per GPU (lesson)");
  t.equal(display["time-total"][0], "18.94 ms", "opens on 18.94 ms per token (lesson)");
  t.equal(display["waiting-share"][0], "8.7%", "opens on 8.7% waiting (lesson)");
  t.equal(display["memory-usable"][0], "73.60 GiB", "usable memory is 92% of 80 GiB = 73.60 GiB (lesson)");
  // 70B on 4 GPUs by hand (lesson): 35,276,853,248 + 671,088,640 + 1,560,281,088 bytes.
  t.equal(Number(display["memory-total"][1]), 35276853248 + 671088640 + 1560281088,
          "raw memory total is the lesson's hand sum, 37,508,222,976 bytes");
  t.equal(display.gpusOutput, "4", "the GPU count reads 4");
  await page.screenshot({path: join(env.artifacts, "split-light.png"), fullPage: true});

  // --- 405B on 1 GPU: "Does not fit" --------------------------------------------
  await page.check('input[name=model][value="llama3.1-405b"]');
  await chooseGpus(page, 1);
  display = await readDisplay(page);
  t.equal(display.fit[0], "Does not fit", "405B on 1 GPU says \"Does not fit\"");
  t.equal(display["time-total"][0], "–", "405B on 1 GPU shows no time per token");
  t.ok(display.bars.slice(0, 10).every((b) => b.fits === "false") && display.bars[10].fits === "true",
       "the chart marks 1-10 GPUs as not fitting and 11 as fitting (the lesson's fewest: 11)");
  await page.screenshot({path: join(env.artifacts, "split-405b-1gpu.png"), fullPage: true});

  // --- all 180 lesson settings through the controls -----------------------------
  let settings = 0;
  let exact = 0;
  let chartsChecked = 0;
  t.quiet = true;
  for (const model of MODELS) {
    await page.check(`input[name=model][value="${model}"]`);
    for (const link of LINKS) {
      await page.check(`input[name=link][value="${link}"]`);
      for (const split of SPLITS) {
        await page.check(`input[name=split][value="${split}"]`);
        for (const tokens of TOKENS) {
          await page.check(`input[name=tokens][value="${tokens}"]`);
          const cli = env.napkinJson(["split", "--model", model, "--gpu", GPU, "--link", link,
                                      "--gpus", ALL_COUNTS.join(","), "--split", split, "--tokens", String(tokens)]);
          for (const n of LESSON_COUNTS) {
            await chooseGpus(page, n);
            display = await readDisplay(page);
            const row = cli.rows.find((r) => r.gpus === n);
            const problems = compare(display, row, env.sameNumber);
            const name = `${model}, ${n} GPUs, ${link}, ${split}, ${tokens} tokens`;
            t.ok(problems.length === 0, `${name}: display equals napkin split --json`, problems.join("; "));
            ++settings;
            exact += Object.entries(expectedDisplay(row)).every(
                ([id, [, raw]]) => typeof raw === "boolean" || Number(display[id][1]) === raw) ? 1 : 0;
            if (n === 1) {
              // The chart's 16 bars, against the CLI's rows for 1..16.
              const bad = display.bars.filter((b, i) => b.gpus !== i + 1 || b.fits !== String(cli.rows[i].fits) ||
                                                       !env.sameNumber(Number(b.total), cli.rows[i].total_s));
              t.ok(display.bars.length === 16 && bad.length === 0, `${name}: chart bars 1-16 equal the CLI`,
                   JSON.stringify(bad.slice(0, 3)));
              ++chartsChecked;
            }
          }
        }
      }
    }
  }
  t.quiet = false;
  t.equal(settings, 180, "compared all 180 lesson settings with napkin split --json");
  t.equal(exact, 180, "raw values equal the CLI's doubles exactly in all 180 settings");
  t.equal(chartsChecked, 36, "compared the chart for all 36 model/link/split/tokens combinations");

  // --- any count 1-16, and the chart's bars are buttons too ---------------------
  await page.check('input[name=model][value="llama3.1-70b"]');
  await page.check('input[name=link][value="nvlink-a100"]');
  await page.check('input[name=split][value="tensor"]');
  await page.check('input[name=tokens][value="1"]');
  await chooseGpus(page, 13);
  display = await readDisplay(page);
  const row13 = env.napkinJson(["split", "--model", "llama3.1-70b", "--gpu", GPU, "--link", "nvlink-a100",
                                "--gpus", "13"]).rows[0];
  t.ok(compare(display, row13, env.sameNumber).length === 0, "13 GPUs (not a lesson count) equals the CLI",
       compare(display, row13, env.sameNumber).join("; "));
  await page.locator('#chart g.col[data-gpus="8"]').click();
  display = await readDisplay(page);
  t.equal(display.gpusOutput, "8", "clicking the chart's 8-GPU bar chooses 8 GPUs");
  t.equal(display["time-total"][0], "11.06 ms", "70B on 8 GPUs, fast link: 11.06 ms per token (lesson)");

  // --- keyboard only --------------------------------------------------------------
  const slider = page.locator("#gpus");
  await slider.focus();
  await page.keyboard.press("End");
  t.equal((await readDisplay(page)).gpusOutput, "16", "End on the GPU slider goes to 16");
  await page.keyboard.press("ArrowLeft");
  t.equal((await readDisplay(page)).gpusOutput, "15", "ArrowLeft on the slider goes to 15");
  await page.locator('input[name=link][value="nvlink-a100"]').focus();
  await page.keyboard.press("ArrowRight");
  t.ok(await page.locator('input[name=link][value="pcie-gen4"]').isChecked(),
       "an arrow key moves the link choice to the slow link");
  await chooseGpus(page, 8);
  t.equal((await readDisplay(page))["time-total"][0], "12.02 ms", "70B on 8 GPUs, slow link: 12.02 ms (lesson)");
  const tabStops = await page.evaluate(() => {
    const names = new Set();
    for (const el of document.querySelectorAll("#controls input, #controls button, #controls summary"))
      if (el.tabIndex >= 0 && !el.disabled) names.add(el.name || el.id || el.tagName);
    return [...names];
  });
  t.ok(["model", "gpus", "link", "split", "tokens", "SUMMARY"].every((n) => tabStops.includes(n)),
       "every control is reachable with Tab", JSON.stringify(tabStops));

  // --- a pasted config.json ---------------------------------------------------------
  await page.locator("details summary").click();
  await page.fill("#config-text", '{"hidden_size": 4096, "num_hidden_layers": 32}');
  await page.click("#config-load");
  const status = await page.textContent("#config-status");
  t.ok(/num_attention_heads/.test(status), "a config.json missing a field names the field", status);
  t.ok(await page.locator("#model-custom").isDisabled(), "a rejected config.json does not become a choice");
  const fixture = join(HERE, "fixtures", "llama3.1-8b-config.json");
  await page.fill("#config-text", readFileSync(fixture, "utf8"));
  await page.click("#config-load");
  t.ok(await page.locator("#model-custom").isChecked(), "a valid config.json becomes the chosen model");
  await page.check('input[name=split][value="tensor"]');
  await page.check('input[name=link][value="nvlink-a100"]');
  await chooseGpus(page, 2);
  display = await readDisplay(page);
  const pasted = env.napkinJson(["split", "--model", fixture, "--gpu", GPU, "--link", "nvlink-a100", "--gpus", "2"]);
  t.ok(compare(display, pasted.rows[0], env.sameNumber).length === 0,
       "the pasted Llama 3.1 8B config.json on 2 GPUs equals napkin split --model <file>",
       compare(display, pasted.rows[0], env.sameNumber).join("; "));
  t.equal(display["time-total"][0], "4.44 ms", "8B on 2 GPUs, fast link: 4.44 ms per token (lesson's table)");

  // --- colour schemes -----------------------------------------------------------------
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({colorScheme: "light"});
  const light = await background();
  await page.emulateMedia({colorScheme: "dark"});
  const dark = await background();
  t.ok(light !== dark, "the dark colour scheme changes the page's colours", `${light} vs ${dark}`);
  await page.check('input[name=model][value="llama3.1-70b"]');
  await chooseGpus(page, 4);
  await page.screenshot({path: join(env.artifacts, "split-dark.png"), fullPage: true});
  await page.emulateMedia({colorScheme: null});

  t.ok(page.errors.length === 0, "no console errors", page.errors.join("\n"));
  await page.close();

  // --- self-contained and small -----------------------------------------------------------
  const html = readFileSync(join(env.site, "split.html"), "utf8");
  t.ok(!/(src|href)=["']?(https?:)?\/\//i.test(html) && !/@import|url\(\s*["']?https?:/i.test(html),
       "split.html names no other host (no CDN, no web fonts)");
  const files = ["split.html", "napkin.js", "napkin-web.js", "napkin-web.wasm"];
  const bytes = files.reduce((sum, f) => sum + statSync(join(env.site, f)).size, 0);
  t.ok(bytes < 300 * 1024, `split.html + loader + wasm is under 300 KiB (${(bytes / 1024).toFixed(1)} KiB)`);
}
