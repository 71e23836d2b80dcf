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
// Under Node: Napkin.load({factory: require("./napkin-web.js"), wasmBinary: fs.readFileSync(...)}).
(function (root) {
  "use strict";

  function wrap(module) {
    function call(name, types, args) {
      const text = module.ccall(name, "string", types, args);
      const value = JSON.parse(text);
      if (value && typeof value === "object" && "error" in value) throw new Error(value.error);
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

  const Napkin = {load};
  if (typeof module === "object" && module.exports) module.exports = Napkin;
  else root.Napkin = Napkin;
})(typeof globalThis !== "undefined" ? globalThis : this);
