// A consumer of the installed or embedded package: 70B on 4 A100s, as in the split lesson.
#include <napkin/napkin.hpp>

#include <cstdio>

int main() {
    using namespace napkin;
    constexpr auto memory = memory_per_gpu(catalog::llama3_1_70b, 4);
    static_assert(memory.total() == bytes(37'508'222'976));
    const auto time = token_time(catalog::llama3_1_70b, catalog::a100_80gb_sxm, catalog::nvlink_a100, {.gpus = 4});
    std::printf("%s per GPU, %s per token\n", to_string(memory.total()).c_str(), to_string(time.total()).c_str());
    return to_string(time.total()) == "18.94 ms" ? 0 : 1;
}
