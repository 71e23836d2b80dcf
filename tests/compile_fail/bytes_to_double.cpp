// A quantity must not leave the type system implicitly: in(x, unit) is the way out.
#include <napkin/units.hpp>

int main() {
    const napkin::Bytes b = napkin::gibibytes(1);
#ifdef NAPKIN_COMPILE_FAIL
    const double gib = b;
#else
    const double gib = napkin::in(b, napkin::units::GiB);
#endif
    return gib == 1.0 ? 0 : 1;
}
