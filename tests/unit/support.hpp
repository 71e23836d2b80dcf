// Helpers shared by the test suites.
#pragma once

#include <napkin/error.hpp>

#include <string>

namespace napkin::test {

// The message a call rejects its input with, or "(no error)".
inline std::string error_of(auto&& call) {
    try {
        (void)call();
    } catch (const napkin::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace napkin::test
