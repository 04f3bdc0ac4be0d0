// natives.hpp — the one table of native (C++) functions. The prelude declares each by signature
// (`native sqrt(x) "..."`); this table gives its type rule, and its id names its evaluation
// (runtime/native_eval.cpp) and its compiled form (runtime/fastpath.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/diagnostic.hpp"
#include "types.hpp"

namespace mls {

class Program;

// Every native, in table order. The evaluator indexes its evaluations by it, so a new native
// without an evaluation fails to compile (a static_assert in native_eval.cpp); the fast path
// reads the row's FastForm instead (below).
enum class NativeId : std::uint8_t {
  max,
  min,
  clamp,
  abs,
  floor,
  ceil,
  round,
  sqrt,
  exp,
  ln,
  log2,
  log10,
  pow,
  len,
  sum,
  at,
  field_or,
  has_field,
  error,
  erlang_c,
  validated,
  validated_in,
  note,
  borrowed,
  hf_config,
  kv_alloc_sim,
  serve_sim,  // keep last (kNativeCount)
};
inline constexpr std::size_t kNativeCount = static_cast<std::size_t>(NativeId::serve_sim) + 1;

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

using TypeRule = TypeP (*)(NativeCheck&);

// The native's compiled form on the fast sweep path (runtime/fastpath.cpp): large sweeps run as
// binary64 register code, and a call compiles to the operation its row names here. A native the
// compiled path cannot express says why in its row instead; a sweep that calls it then runs on
// the evaluator (slower, same numbers). The fast path switches on FastOp with no default, so a
// new operation fails -Wswitch there until it is compiled; a new native only picks a row's form.
enum class FastOp : std::uint8_t {
  none,  // evaluator only: FastForm::why_not says why
  // one instruction each (constant arguments fold where the evaluator's result is exact)
  max,
  min,
  clamp,
  abs,
  floor,
  ceil,
  round,
  sqrt,
  exp,
  ln,
  log2,
  log10,
  pow,
  erlang_c,
  // resolved while compiling: the shapes of lists and records are known then
  list_len,
  list_sum,
  list_at,
  field_or,
  has_field,
  fail,        // error(): the row fails, as on the evaluator
  second_arg,  // validated(), note(): the value itself; its assumption is provenance the evaluator adds
  third_arg,   // validated_in(), borrowed(): the same, for the value in third place
};

struct FastForm {
  FastOp op;
  const char* why_not;  // nullptr iff op != none
};
[[nodiscard]] constexpr FastForm compiled(FastOp op) { return FastForm{op, nullptr}; }
[[nodiscard]] constexpr FastForm evaluator_only(const char* why) { return FastForm{FastOp::none, why}; }

struct NativeImpl {
  NativeId id;  // == the row's index (checked at compile time)
  const char* name;
  std::size_t arity;
  bool branchy;       // the result comes from one argument: a branch site (regime notes)
  bool approximates;  // may leave exact arithmetic (sqrt, exp, ...)
  TypeRule type;
  const char* doc;
  FastForm fast;  // the compiled sweep path's operation, or why there is none
};

[[nodiscard]] std::span<const NativeImpl> native_table();
[[nodiscard]] int find_native(std::string_view name);
[[nodiscard]] std::size_t native_arity(int impl);
[[nodiscard]] bool native_branchy(int impl);
[[nodiscard]] bool native_approximates(int impl);
// Every C++ native must be declared by the prelude (and vice versa): reported as internal errors.
void check_natives_declared(Program& p);

}  // namespace mls
