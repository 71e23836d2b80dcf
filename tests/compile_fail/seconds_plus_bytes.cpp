// Adding a time to a size must not compile.
#include <napkin/units.hpp>

int main() {
    const napkin::Seconds t = napkin::milliseconds(18.94);
    const napkin::Bytes b = napkin::gibibytes(34.93);
#ifdef NAPKIN_COMPILE_FAIL
    auto nonsense = t + b;
    (void)nonsense;
#endif
    return t.value() > 0 && b.value() > 0 ? 0 : 1;
}
