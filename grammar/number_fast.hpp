// number_fast.hpp — number text in plain binary64 arithmetic for the hot output path (a sweep
// prints millions of cells). Each function either appends exactly the bytes the exact
// formatter in number.cpp would give for the same binary64 value and returns true, or appends
// nothing and returns false when binary64 cannot be sure (a decimal tie within rounding error,
// a magnitude outside the exact powers of ten); the caller then takes the exact path. Kept out
// of number.hpp so that callers do not pull in Boost-free but widely rebuilt declarations.
#pragma once

#include <string>

namespace mls {

// format_sig(Num::of_double(v), sig): `sig` significant digits, half-up, trailing zeros
// trimmed, scientific outside [1e-6, 1e15). Handles sig 1..9 and finite nonzero v.
[[nodiscard]] bool append_sig_binary64(std::string& out, double v, int sig);

// format_fixed(Num::of_double(v), 0) for an integral v with |v| < 1e15 (the whole numbers
// format_value prints in full); "-0" prints as "0".
[[nodiscard]] bool append_integer_binary64(std::string& out, double v);

}  // namespace mls
