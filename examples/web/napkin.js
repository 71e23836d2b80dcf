// napkin.js: loads napkin's WebAssembly build and wraps its C interface.
//
//   <script src="napkin-web.js"></script>   (emscripten's loader, defines createNapkinModule)
//   <script src="napkin.js"></script>
//   const napkin = await Napkin.load();
//   const row = napkin.split({model: "llama3.1-70b", gpus: 4, link: "nvlink-a100"});
//   row.memory.total   // bytes, the same number `napkin split --json` prints
//
// Every function returns what the matching `napkin ... --json` command prints
// (bytes and seconds) and throws an Error with napkin's message on bad input.
// The pages' DOM helpers are Napkin.page ($, show, svg, load).
// Under Node: Napkin.load({factory: require("./napkin-web.js"), wasmBinary: fs.readFileSync(...)}).
(function (root) {
  "use strict";

  function wrap(module) {
    function call(name, types, args) {
      const text = module.ccall(name, "string", types, args);
      const value = JSON.parse(text);
      if (value && typeof value === "object" && "error" in value) {
        // The message, and which input set the value (error.input: "gpus", "bandwidth_gbps"; "" when none).
        throw Object.assign(new Error(value.error), {field: value.field || "", input: value.input || ""});
      }
      return value;
    }
    return {
      // {models: [{name, parameters, layers, ...}], gpus: [{name, usable}], links: [{name, bandwidth, step_latency}]}
      catalog: () => call("napkin_web_catalog", [], []),
      // Reads a Hugging Face config.json; the model is then called "custom".
      loadConfig: (text) => call("napkin_web_load_config", ["string"], [String(text)]),
      // One row of `napkin split --json`.
      split: ({model, gpu = "a100-80gb-sxm", link, gpus, split = "tensor", tokens = 1}) =>
        call("napkin_web_split", ["string", "string", "string", "number", "string", "number"],
             [model, gpu, link, gpus, split, tokens]),
      // `napkin allreduce --json` and `napkin crossover --json` (the communication page).
      allreduce: (options) => call("napkin_web_allreduce", ["string"], [JSON.stringify(options)]),
      crossover: (options) => call("napkin_web_crossover", ["string"], [JSON.stringify(options)]),
    };
  }

  async function load(options = {}) {
    const factory = options.factory || root.createNapkinModule;
    if (typeof factory !== "function") throw new Error("napkin-web.js is not loaded (createNapkinModule is missing)");
    const settings = {};
    if (options.wasmBinary) settings.wasmBinary = options.wasmBinary;
    return wrap(await factory(settings));
  }

  // What the lesson pages share (browser only): $, show, svg, and loadPage,
  // which reports a module that did not load in the page's #load-error.
  const $ = (id) => document.getElementById(id);
  // Shows rounded text, with the raw value in data-value for the tests.
  function show(id, value, text) {
    const el = $(id);
    el.dataset.value = String(value);
    el.textContent = text;
  }
  const SVG = "http://www.w3.org/2000/svg";
  function svg(name, attributes, parent) {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
    if (parent) parent.append(el);
    return el;
  }
  // napkin, or null after showing why it did not load.
  async function loadPage() {
    try {
      return await load();
    } catch (e) {
      $("load-error").hidden = false;
      $("load-error").textContent = "napkin's WebAssembly module did not load: " + e.message;
      console.error(e);
      return null;
    }
  }

  const Napkin = {load, page: {$, show, svg, load: loadPage}};
  if (typeof module === "object" && module.exports) module.exports = Napkin;
  else root.Napkin = Napkin;
})(typeof globalThis !== "undefined" ? globalThis : this);
