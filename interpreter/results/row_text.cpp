// row_text.cpp — the allocation-free path of format_value for the cells of large sweeps.
#include "row_text.hpp"

#include <cmath>

#include "grammar/number_fast.hpp"

namespace mls {

void append_value(std::string& out, const Value& v, const Display& d) {
  if (v.k == Value::K::num && !v.n.exact() && !d.resolution) {
    // As in_unit and format_value: a binary64 number divided by the unit's factor in binary64,
    // whole numbers below 1e15 in full, the rest to 4 significant digits.
    const double x = v.n.d / d.factor.d;
    if (append_integer_binary64(out, x) || append_sig_binary64(out, x, 4)) return;
  }
  out += format_value(v, d);
}

}  // namespace mls
