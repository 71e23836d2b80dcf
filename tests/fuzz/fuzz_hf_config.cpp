// libFuzzer target: any bytes as a config.json. Each input ends in a model
// that passes validated() or in one napkin::invalid_argument whose message
// names the origin and holds no control character; nothing else may escape.
#include <napkin/io/hf_config.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const napkin::io::LoadedModel loaded = napkin::io::parse_hf_config(text, "fuzz.json");
        (void)napkin::validated(loaded.shape);
        if (napkin::parameter_count(loaded.shape) < 1) std::abort();
    } catch (const napkin::invalid_argument& e) {
        const std::string message = e.what();
        if (message.rfind("fuzz.json", 0) != 0) std::abort();  // every message names the file first
        for (const char c : message)
            if (c >= 0 && c < 0x20) std::abort();  // no control character reaches a terminal
        if (message.size() > 400) std::abort();   // the echo is bounded
    }
    return 0;
}
