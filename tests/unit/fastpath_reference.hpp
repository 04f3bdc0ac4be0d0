// fastpath_reference.hpp — a small reference machine for hand-written register code (the
// compiled sweep body's, fastpath_compiled.hpp), shared by the optimiser's tests: what a point
// computes before and after a pass must be the same bits.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "interpreter/runtime/fastpath_compiled.hpp"

namespace fast_ref {

using mls::fast::Compiled;
using mls::fast::CVal;
using mls::fast::Ins;
using mls::fast::Slot;
using FOp = mls::fast::Op;

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// What a point computes: its cells, its signature, and whether it failed (a division by zero
// or a non-finite result, as the careful machine stops).
struct Run {
  std::vector<double> cells;
  std::vector<int> sig;
  bool failed = false;
};

// Runs the operations the hand-written code of the tests uses, x and y in the registers of the
// first two binding shapes.
inline Run run_code(const Compiled& c, double x, double y) {
  std::vector<double> r(c.nregs, 0);
  for (const auto& [reg, v] : c.constants) r[reg] = v;
  r[c.binding_shapes.at(0).reg] = x;
  r[c.binding_shapes.at(1).reg] = y;
  Run out;
  out.sig.assign(c.nslots, -1);
  for (std::size_t pc = 0; pc < c.code.size();) {
    const Ins& i = c.code[pc++];
    auto put = [&](double v) {
      r[i.d] = v;
      if (!std::isfinite(v)) out.failed = true;
    };
    switch (i.op) {
      case FOp::movi: r[i.d] = i.imm; break;
      case FOp::mov: r[i.d] = r[i.a]; break;
      case FOp::add: put(r[i.a] + r[i.b]); break;
      case FOp::sub: put(r[i.a] - r[i.b]); break;
      case FOp::mul: put(r[i.a] * r[i.b]); break;
      case FOp::div:
        if (r[i.b] == 0) out.failed = true;
        put(r[i.a] / r[i.b]);
        break;
      case FOp::neg: r[i.d] = -r[i.a]; break;
      case FOp::gt: r[i.d] = r[i.a] > r[i.b]; break;
      case FOp::lt: r[i.d] = r[i.a] < r[i.b]; break;
      case FOp::not_: r[i.d] = r[i.a] == 0; break;
      case FOp::max:
        out.sig[i.s] = r[i.b] > r[i.a];
        r[i.d] = r[i.b] > r[i.a] ? r[i.b] : r[i.a];
        break;
      case FOp::jz:
        if (r[i.a] == 0) pc = i.d;
        break;
      case FOp::jmp: pc = i.d; break;
      case FOp::mark: out.sig[i.s] = static_cast<int>(i.imm); break;
      case FOp::fail: out.failed = true; break;
      default: FAIL("an operation the reference machine does not run");
    }
    if (out.failed) return out;
  }
  for (const Slot& s : c.cells) out.cells.push_back(s.constant ? s.value : r[s.reg]);
  return out;
}

inline Ins ins(FOp op, std::uint32_t d, std::uint32_t a = 0, std::uint32_t b = 0, std::uint32_t s = 0, double imm = 0) {
  Ins i{op};
  i.d = d;
  i.a = a;
  i.b = b;
  i.s = s;
  i.imm = imm;
  return i;
}

inline Slot cell(std::uint32_t reg) {
  Slot s;
  s.reg = reg;
  return s;
}

inline std::size_t count(const Compiled& c, FOp op) {
  std::size_t n = 0;
  for (const Ins& i : c.code) n += i.op == op;
  return n;
}

// The same cells, signature and failure at (x, y) before and after.
inline void same_runs(const Compiled& before, const Compiled& after, double x, double y) {
  INFO("x " << x << " y " << y);
  const Run want = run_code(before, x, y), got = run_code(after, x, y);
  CHECK(want.failed == got.failed);
  CHECK(want.sig == got.sig);
  REQUIRE(want.cells.size() == got.cells.size());
  for (std::size_t k = 0; k < want.cells.size(); ++k) CHECK(same_bits(want.cells[k], got.cells[k]));
}

// Code over two inputs, x in r0 and y in r1.
inline Compiled two_inputs(std::uint32_t nregs, std::uint32_t nslots) {
  Compiled c;
  c.nregs = nregs;
  c.nslots = nslots;
  CVal bx, by;
  bx.reg = 0;
  by.reg = 1;
  c.binding_shapes = {bx, by};
  return c;
}

}  // namespace fast_ref
