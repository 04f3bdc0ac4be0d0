// natives.hpp — the one table of native (C++) functions. The prelude declares each by signature
// (`native sqrt(x) "..."`); this table gives its type rule and its evaluation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/diagnostic.hpp"
#include "types.hpp"
#include "value.hpp"

namespace mls {

class Program;
class Evaluator;

// What a type rule sees: argument types and spans; it reports errors itself.
struct NativeCheck {
  Program& prog;
  const Expr& call;
  std::vector<TypeP> args;
  Diagnostics& diags;
  Diagnostic& error(std::size_t arg, ErrorKind k, std::string msg);
  [[nodiscard]] std::string describe(std::size_t arg) const;
  [[nodiscard]] bool loose() const;  // any argument already in error: stay quiet
  // Constant value of an argument when it is a literal (exponents of dimensioned pow).
  [[nodiscard]] std::optional<Num> literal(std::size_t arg) const;
};

// What an evaluation sees. `take` is the arm index for branchy natives (max/min).
struct NativeEval {
  Evaluator& ev;
  const Expr& call;
  std::vector<Value>& args;
  std::size_t take = 0;
};

using TypeRule = TypeP (*)(NativeCheck&);
using EvalRule = Value (*)(NativeEval&);

struct NativeImpl {
  const char* name;
  std::size_t arity;
  bool branchy;       // the result comes from one argument: a branch site (regime notes)
  bool approximates;  // may leave exact arithmetic (sqrt, exp, ...)
  TypeRule type;
  EvalRule eval;
  const char* doc;
};

[[nodiscard]] const std::vector<NativeImpl>& native_table();

// The M/M/c probability of waiting behind the native erlang_c (shared with the fast path).
// Domain: 1 <= c <= kErlangMaxServers, 0 <= a < c; callers check it.
inline constexpr std::int64_t kErlangMaxServers = 1'000'000;
[[nodiscard]] double erlang_c_probability(std::int64_t c, double a);
[[nodiscard]] int find_native(std::string_view name);
[[nodiscard]] std::size_t native_arity(int impl);
[[nodiscard]] bool native_branchy(int impl);
[[nodiscard]] bool native_approximates(int impl);
// Every C++ native must be declared by the prelude (and vice versa): reported as internal errors.
void check_natives_declared(Program& p);

}  // namespace mls
