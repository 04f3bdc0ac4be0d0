// ast.hpp — the typed syntax tree produced by grammar/parse.cpp and annotated by resolve/check.
// Plain structs: the parser fills the syntax, the resolver fills `ref`/`slot`/`site`.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "number.hpp"
#include "source.hpp"

namespace mls {

using Sym = std::uint32_t;  // interned identifier (see symbols.hpp)
inline constexpr Sym kNoSym = 0;

enum class Op : std::uint8_t { add, sub, mul, div, pow, eq, ne, lt, le, gt, ge, and_, or_, not_, neg };
[[nodiscard]] const char* op_text(Op op);

struct UnitTerm {
  std::string atom;
  int exponent = 1;  // already negated for terms after '/'
  Span span;
};

struct UnitExpr {
  std::vector<UnitTerm> terms;  // empty: dimensionless target `-> 1`
  std::string text;             // as written, spaces removed
  Span span;
};

enum class EK : std::uint8_t {
  num,
  boolean,
  str,
  name,
  unary,
  binary,
  call,
  field,
  record,
  with,
  list,
  if_,
  match,
  convert,
  uncertain  // `x +- d`, `normal(m, s)`, ...: kids are the literal parameters, `dist` says which
};

// The distribution an uncertain literal is drawn from (docs/uncertainty.md). Its nominal value,
// used by every run without --uncertainty: the centre (plus_minus, uniform), the mean (normal),
// the median (lognormal), the mode (triangular).
enum class Dist : std::uint8_t { plus_minus, uniform, normal, lognormal, triangular };
[[nodiscard]] const char* dist_name(Dist d);

// What a name or call refers to, filled by the resolver.
enum class RefKind : std::uint8_t { none, local, global, function, native, convention };
struct Ref {
  RefKind kind = RefKind::none;
  std::uint32_t index = 0;  // slot, global index, function index, native index, convention index
  // A global named in the value of a `set` of that same global: its value before the set, so
  // `set x = x * 2` doubles x (marked by the checker; other names mean final values).
  bool prior = false;
};

struct Expr;
using ExprP = std::unique_ptr<Expr>;

// Where the evaluator last found a field access's name in its record (records of one shape
// reach a node again and again). Relaxed atomic: sweep workers share the tree; a stale or
// foreign hint is only a miss, checked before use. Copies like a plain number.
struct FieldHint {
  std::atomic<std::uint32_t> at{0};
  FieldHint() = default;
  FieldHint(const FieldHint& o) : at(o.at.load(std::memory_order_relaxed)) {}
  FieldHint& operator=(const FieldHint& o) {
    at.store(o.at.load(std::memory_order_relaxed), std::memory_order_relaxed);
    return *this;
  }
};

struct RecordItem {
  bool is_let = false;  // `let x = ...` inside a record: visible to later items, not a field
  Sym name = kNoSym;
  Span name_span;
  ExprP value;
  int slot = -1;
};

struct WithItem {
  std::vector<Sym> path;
  std::vector<Span> path_spans;
  ExprP value;
};

struct Arg {
  Sym name = kNoSym;  // kNoSym: positional
  Span name_span;
  ExprP value;
};

struct Pattern {
  enum class K : std::uint8_t { wildcard, name, str } kind = K::wildcard;
  Sym name = kNoSym;
  std::string str;
  Span span;
};

struct MatchArm {
  std::vector<Pattern> patterns;
  ExprP body;
  Span span;
};

struct Expr {
  EK kind = EK::num;
  Op op = Op::add;
  Span span;
  // Literals. `num` is the number as written; `unit` its unit (the checker scales to base units).
  Num num;
  std::optional<UnitExpr> unit;
  bool bval = false;
  std::string str;
  // Names, fields and calls.
  Sym name = kNoSym;
  Span name_span;
  std::vector<ExprP> kids;  // unary 1, binary 2, field 1, with 1, list n, if 3, match 1, convert 1
  std::vector<RecordItem> items;
  std::vector<WithItem> with_items;
  std::vector<Arg> args;
  std::vector<MatchArm> arms;
  UnitExpr target;                // convert
  std::optional<Num> resolution;  // convert: `@ 0.1`
  Dist dist = Dist::plus_minus;   // uncertain
  // Annotations.
  Ref ref;
  std::uint32_t site = 0;       // branch site (if, match, max/min calls); 0 = none
  std::int32_t atom = -1;       // literal bound to a name: the assumption it creates
  std::int32_t call_atom = -1;  // native call's own atom: "approx" (may approximate) or note()'s "note"
  Num si;                       // number literal scaled to base units (set by the checker)
  bool si_ready = false;
  std::uint32_t depth = 1;     // height of this subtree; the parser keeps it <= kMaxExprDepth
  mutable FieldHint field_at;  // field: the evaluator's hint (eval.cpp)
};

// Calls f on each direct sub-expression of e (operands, record and `with` values, arguments,
// match arms): the one child walk for passes that look at every node. E is Expr or const Expr.
template <class E, class F>
void for_each_child(E& e, F&& f) {
  for (auto& k : e.kids) f(*k);
  for (auto& it : e.items) f(*it.value);
  for (auto& w : e.with_items) f(*w.value);
  for (auto& a : e.args) f(*a.value);
  for (auto& arm : e.arms) f(*arm.body);
}

struct Param {
  Sym name = kNoSym;
  Span span;
  std::optional<UnitExpr> annotation;
  std::vector<std::string> choices;  // `p: "a" | "b"`: the strings a call may pass (empty: any)
  Span choices_span;
  ExprP default_value;
  int slot = -1;
};

struct ShowItem {
  std::string label;
  bool explicit_label = false;
  ExprP expr;
  Span span;
};

struct Binding {
  std::vector<Sym> names;
  std::vector<Span> name_spans;
  std::vector<ExprP> domains;  // one for `x in ...`, several for `(a, b) in zip(...)`
  bool zip = false;
  ExprP range_to;  // `a..b`
  ExprP step;      // `by +s` / `by *f`
  char step_op = 0;
  std::vector<int> slots;
  Span span;
};

enum class BK : std::uint8_t { let, show, assert_, where, subject, maximize, minimize, top, pareto };
struct BodyItem {
  BK kind = BK::let;
  Span span;
  Sym name = kNoSym;  // let
  int slot = -1;
  std::vector<ExprP> exprs;     // where/subject/objectives/assert: expressions; top: its `per` group key, if any
  std::vector<bool> maximize;   // pareto: direction of each objective
  std::vector<ShowItem> shows;  // show
  std::string message;          // assert
  std::int64_t top = 0;
};

struct Choice {
  Sym name = kNoSym;
  std::string description;
  Span span;
};

enum class SK : std::uint8_t {
  import_,
  let,
  set,
  use,
  preset_select,
  preset_def,
  show,
  assert_,
  sweep,
  search,
  solve,  // `solve NAME in LO..HI such that EXPR == TARGET`: bindings[0] and value (a comparison)
  convention,
  dimension,
  unit,
  prefixes,
  display,
  native
};

struct Stmt {
  SK kind = SK::let;
  Span span;       // whole statement
  Span name_span;  // the declared name
  Sym name = kNoSym;
  std::vector<Sym> path;  // set: dotted target
  std::string str;        // import path, descriptions
  // let / native: function parameters (has_params distinguishes `let f() = ` from `let x =`)
  bool has_params = false;
  std::vector<Param> params;
  ExprP value;
  // False for the REPL's `ans`, a copy of a shown expression: `512` typed at the prompt is an
  // answer, not a parameter, so its literals create no assumptions.
  bool literals_are_assumptions = true;
  int nslots = 0;
  // use
  Sym choice = kNoSym;
  Span choice_span;
  // show / assert
  std::vector<ShowItem> shows;
  // sweeps and searches
  std::vector<Binding> bindings;
  std::vector<BodyItem> body;
  // conventions
  std::vector<Choice> choices;
  Sym default_choice = kNoSym;
  Span default_span;
  // presets: nested use/set statements, optional base
  std::vector<Stmt> items;
  Sym extends = kNoSym;
  Span extends_span;
  // dimension: factors (name, exponent); unit: base dimension, prefix sets, definition
  std::vector<std::pair<Sym, int>> dim_factors;
  std::vector<Span> dim_spans;
  Sym base_dim = kNoSym;
  std::vector<Sym> prefix_sets;
  std::vector<std::pair<std::string, Num>> prefix_defs;
  std::vector<UnitExpr> display_units;
  std::string unit_name;
};

// Calls f on each expression a statement holds directly, in source order: parameter defaults,
// the value, shows, sweep/search/solve bindings (domains, range end, step), body items. Nested
// statements (a preset's `items`) are not visited: callers recurse, each with its own context.
// S is Stmt or const Stmt; f gets Expr& or const Expr&.
template <class S, class F>
void for_each_stmt_expr(S& s, F&& f) {
  auto opt = [&f](auto& e) {
    if (e) f(*e);
  };
  for (auto& prm : s.params) opt(prm.default_value);
  opt(s.value);
  for (auto& sh : s.shows) opt(sh.expr);
  for (auto& b : s.bindings) {
    for (auto& d : b.domains) opt(d);
    opt(b.range_to);
    opt(b.step);
  }
  for (auto& item : s.body) {
    for (auto& x : item.exprs) opt(x);
    for (auto& sh : item.shows) opt(sh.expr);
  }
}

// The parameter each argument of a checked call binds to (positional first, then by name).
[[nodiscard]] inline std::vector<std::size_t> argument_params(const Stmt& decl, const Expr& call) {
  std::vector<std::size_t> out;
  out.reserve(call.args.size());
  std::size_t positional = 0;
  for (const auto& a : call.args) {
    std::size_t idx = 0;
    if (a.name == kNoSym) {
      idx = positional++;
    } else {
      for (std::size_t i = 0; i < decl.params.size(); ++i)
        if (decl.params[i].name == a.name) idx = i;
    }
    out.push_back(idx);
  }
  return out;
}

struct Module {
  FileId file = kNoFile;
  std::vector<Stmt> stmts;
  // Names of `let` statements that failed to parse: uses of them are not reported as unknown
  // (the parse error already explains them).
  std::vector<Sym> broken;
  // The text skipped after each syntax error, from the failed statement's start to where parsing
  // resumed (an editor tells from it what the broken statement could change); `rest`: parsing
  // stopped there after too many errors, and the span runs to the end of the file.
  struct Skipped {
    Span span;
    bool rest = false;
  };
  std::vector<Skipped> skipped;
};

}  // namespace mls
