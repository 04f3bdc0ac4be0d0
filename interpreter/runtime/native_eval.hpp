// native_eval.hpp — the evaluation of native functions: one function per NativeId (the table of
// names, arities and type rules is semantics/natives.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "interpreter/semantics/natives.hpp"
#include "interpreter/semantics/value.hpp"

namespace mls {

class Evaluator;

// What an evaluation sees. `take` is the arm index for branchy natives (max/min).
struct NativeEval {
  Evaluator& ev;
  const Expr& call;
  std::vector<Value>& args;
  std::size_t take = 0;
};

using EvalRule = Value (*)(NativeEval&);

// The evaluation of a native; every NativeId has one (checked at compile time).
[[nodiscard]] EvalRule native_eval(NativeId id);

// The M/M/c probability of waiting behind the native erlang_c (shared with the fast path).
// Domain: 1 <= c <= kErlangMaxServers, 0 <= a < c; callers check it.
inline constexpr std::int64_t kErlangMaxServers = 1'000'000;
[[nodiscard]] double erlang_c_probability(std::int64_t c, double a);

}  // namespace mls
