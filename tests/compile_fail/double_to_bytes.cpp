// A raw double must not become Bytes implicitly: numbers enter through named constructors.
#include <napkin/units.hpp>

namespace {
double size_of(napkin::Bytes b) { return b.value(); }
}  // namespace

int main() {
#ifdef NAPKIN_COMPILE_FAIL
    return size_of(1024.0) > 0 ? 0 : 1;
#else
    return size_of(napkin::kibibytes(1)) > 0 ? 0 : 1;
#endif
}
