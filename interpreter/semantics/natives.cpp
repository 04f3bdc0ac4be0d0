// natives.cpp — native functions: each with its type rule (dimensions) and evaluation.
// Keep this the single registry; stdlib/natives.mls declares them for users and docs.
#include "natives.hpp"

#include <algorithm>
#include <cmath>

#include "grammar/symbols.hpp"
#include "interpreter/runtime/eval.hpp"
#include "interpreter/runtime/kv_sim.hpp"
#include "program.hpp"

namespace mls {

Diagnostic& NativeCheck::error(std::size_t arg, ErrorKind k, std::string msg) {
  const Span s = arg < call.args.size() ? call.args[arg].value->span : call.span;
  return diags.error(k, s, std::move(msg));
}

std::string NativeCheck::describe(std::size_t arg) const { return mls::describe(*args[arg], prog.units); }

bool NativeCheck::loose() const {
  return std::any_of(args.begin(), args.end(), [](const TypeP& t) { return is_loose(*t); });
}

std::optional<Num> NativeCheck::literal(std::size_t arg) const {
  const Expr& e = *call.args[arg].value;
  if (e.kind == EK::num && !e.unit) return e.num;
  if (e.kind == EK::unary && e.op == Op::neg && e.kids[0]->kind == EK::num && !e.kids[0]->unit)
    return neg(e.kids[0]->num);
  return std::nullopt;
}

namespace {

std::string fname(const NativeCheck& c) { return sym_name(c.call.name); }

bool want_num(NativeCheck& c, std::size_t i) {
  if (c.args[i]->k == Type::K::num) return true;
  c.error(i, ErrorKind::type_mismatch, "'" + fname(c) + "' expects a number, got " + kind_word(*c.args[i]));
  return false;
}

bool want_dimensionless(NativeCheck& c, std::size_t i, const char* why) {
  if (!want_num(c, i)) return false;
  if (c.args[i]->dim.none()) return true;
  c.error(i, ErrorKind::dim_mismatch, "'" + fname(c) + "' needs a dimensionless number, got " + c.describe(i))
      .help.push_back(why);
  return false;
}

// ---- type rules ----

TypeP t_same_numbers(NativeCheck& c) {
  if (c.loose()) return t_error();
  for (std::size_t i = 0; i < c.args.size(); ++i)
    if (!want_num(c, i)) return t_error();
  for (std::size_t i = 1; i < c.args.size(); ++i)
    if (c.args[i]->dim != c.args[0]->dim) {
      auto& d = c.error(i, ErrorKind::dim_mismatch,
                        "'" + fname(c) + "' compares " + c.describe(0) + " with " + c.describe(i));
      d.notes.push_back({c.call.args[0].value->span, "this is " + c.describe(0)});
      return t_error();
    }
  return t_num(c.args[0]->dim);
}

TypeP t_num_same(NativeCheck& c) {
  if (c.loose()) return t_error();
  if (!want_num(c, 0)) return t_error();
  return t_num(c.args[0]->dim);
}

TypeP t_rounding(NativeCheck& c) {
  if (c.loose()) return t_error();
  if (!want_dimensionless(c, 0, "rounding depends on the unit; divide by a unit first, e.g. floor(x / 1 GB)"))
    return t_error();
  return t_num(Dim{});
}

TypeP t_transcendental(NativeCheck& c) {
  if (c.loose()) return t_error();
  for (std::size_t i = 0; i < c.args.size(); ++i)
    if (!want_dimensionless(c, i, "exp/log/pow of a quantity depends on its unit; divide by a unit first"))
      return t_error();
  return t_num(Dim{});
}

TypeP t_sqrt(NativeCheck& c) {
  if (c.loose()) return t_error();
  if (!want_num(c, 0)) return t_error();
  auto d = c.args[0]->dim.pow(1, 2);
  if (!d) {
    c.error(0, ErrorKind::dim_mismatch, "the square root of " + c.describe(0) + " has no representable dimension");
    return t_error();
  }
  return t_num(*d);
}

TypeP t_len(NativeCheck& c) {
  if (c.loose()) return t_error();
  if (c.args[0]->k != Type::K::list) {
    c.error(0, ErrorKind::type_mismatch, "'len' expects a list, got " + kind_word(*c.args[0]));
    return t_error();
  }
  return t_num(Dim{});
}

TypeP t_sum(NativeCheck& c) {
  if (c.loose()) return t_error();
  const TypeP& l = c.args[0];
  if (l->k != Type::K::list || (l->elem && l->elem->k != Type::K::num)) {
    c.error(0, ErrorKind::type_mismatch, "'" + fname(c) + "' expects a list of numbers, got " + c.describe(0));
    return t_error();
  }
  return t_num(l->elem ? l->elem->dim : Dim{});
}

TypeP t_at(NativeCheck& c) {
  if (c.loose()) return t_error();
  if (c.args[0]->k != Type::K::list) {
    c.error(0, ErrorKind::type_mismatch, "'at' expects a list, got " + kind_word(*c.args[0]));
    return t_error();
  }
  if (!want_dimensionless(c, 1, "an index is a plain count")) return t_error();
  return c.args[0]->elem ? c.args[0]->elem : t_error();
}

TypeP t_field_or(NativeCheck& c) {
  if (c.loose()) return c.args.size() > 2 ? c.args[2] : t_error();
  if (c.args[0]->k != Type::K::record) {
    c.error(0, ErrorKind::type_mismatch, "'field_or' expects a record, got " + kind_word(*c.args[0]));
    return t_error();
  }
  if (c.args[1]->k != Type::K::str) {
    c.error(1, ErrorKind::type_mismatch, "'field_or' expects a field name string, got " + kind_word(*c.args[1]));
    return t_error();
  }
  // Every field that could be picked must have the default's type.
  const Expr& key = *c.call.args[1].value;
  for (const auto& [name, t] : c.args[0]->fields) {
    if (key.kind == EK::str && sym_name(name) != key.str) continue;
    if (!same_type(*t, *c.args[2])) {
      c.error(
          2, ErrorKind::dim_mismatch,
          "field '" + sym_name(name) + "' is " + describe(*t, c.prog.units) + " but the default is " + c.describe(2));
      return t_error();
    }
  }
  return c.args[2];
}

TypeP t_has_field(NativeCheck& c) {
  if (c.loose()) return t_bool();
  if (c.args[0]->k != Type::K::record || c.args[1]->k != Type::K::str)
    c.error(0, ErrorKind::type_mismatch, "'has_field' expects a record and a field name string");
  return t_bool();
}

TypeP t_error_fn(NativeCheck& c) {
  if (!c.loose() && c.args[0]->k != Type::K::str)
    c.error(0, ErrorKind::type_mismatch, "'error' expects a message string, got " + kind_word(*c.args[0]));
  return t_pending();  // never returns: compatible with any type
}

TypeP t_clamp(NativeCheck& c) { return t_same_numbers(c); }

TypeP t_erlang_c(NativeCheck& c) {
  if (c.loose()) return t_error();
  for (std::size_t i = 0; i < c.args.size(); ++i)
    if (!want_dimensionless(c, i, "servers and offered load (arrival rate / service rate) are plain numbers"))
      return t_error();
  return t_num(Dim{});
}

// ---- evaluation ----

Value e_max(NativeEval& n) {
  n.take = compare(n.args[1].n, n.args[0].n) > 0 ? 1 : 0;
  Value v = n.args[n.take];
  v.deps = n.ev.unite(n.args[0].deps, n.args[1].deps);
  return v;
}

Value e_min(NativeEval& n) {
  n.take = compare(n.args[1].n, n.args[0].n) < 0 ? 1 : 0;
  Value v = n.args[n.take];
  v.deps = n.ev.unite(n.args[0].deps, n.args[1].deps);
  return v;
}

Value e_clamp(NativeEval& n) {
  const DepSet d = n.ev.unite(n.args[0].deps, n.ev.unite(n.args[1].deps, n.args[2].deps));
  if (compare(n.args[1].n, n.args[2].n) > 0)
    n.ev.fail(ErrorKind::runtime_domain, n.call.span, "clamp bounds are reversed (lo > hi)", d);
  n.take = compare(n.args[0].n, n.args[1].n) < 0 ? 1 : (compare(n.args[0].n, n.args[2].n) > 0 ? 2 : 0);
  Value v = n.args[n.take];
  v.deps = d;
  return v;
}

Value e_abs(NativeEval& n) {
  Value v = n.args[0];
  if (compare(v.n, Num::of_int(0)) < 0) v.n = neg(v.n);
  return v;
}

Value e_floor(NativeEval& n) {
  Value v = n.args[0];
  v.n = floor_num(v.n);
  return v;
}

Value e_ceil(NativeEval& n) {
  Value v = n.args[0];
  v.n = ceil_num(v.n);
  return v;
}

Value e_round(NativeEval& n) {
  Value v = n.args[0];
  v.n = round_to(v.n, Num::of_int(1));
  if (!n.ev.exact()) v.n = Num::of_double(v.n.d);
  return v;
}

// Marks a value as computed in binary64 (the call site's approx assumption).
Value approx(NativeEval& n, double r, DepSet d) {
  if (n.call.approx_atom >= 0 && n.ev.exact())
    d = n.ev.unite(d, n.ev.deps().single(static_cast<AtomId>(n.call.approx_atom)));
  return Value::number(n.ev.number_checked(Num::of_double(r), n.call, d), d);
}

Value e_sqrt(NativeEval& n) {
  const Value& x = n.args[0];
  if (x.n.d < 0) n.ev.fail(ErrorKind::runtime_domain, n.call.span, "square root of a negative number", x.deps);
  return approx(n, std::sqrt(x.n.d), x.deps);
}

Value e_exp(NativeEval& n) { return approx(n, std::exp(n.args[0].n.d), n.args[0].deps); }

Value log_like(NativeEval& n, double (*f)(double)) {
  const Value& x = n.args[0];
  if (x.n.d <= 0) n.ev.fail(ErrorKind::runtime_domain, n.call.span, "logarithm of a non-positive number", x.deps);
  return approx(n, f(x.n.d), x.deps);
}
Value e_ln(NativeEval& n) {
  return log_like(n, [](double x) { return std::log(x); });
}
Value e_log2(NativeEval& n) {
  return log_like(n, [](double x) { return std::log2(x); });
}
Value e_log10(NativeEval& n) {
  return log_like(n, [](double x) { return std::log10(x); });
}

Value e_pow(NativeEval& n) {
  const Value& a = n.args[0];
  const Value& b = n.args[1];
  const DepSet d = n.ev.unite(a.deps, b.deps);
  if (a.n.d < 0 && std::floor(b.n.d) != b.n.d)
    n.ev.fail(ErrorKind::runtime_domain, n.call.span, "a negative number raised to a fractional power", d);
  if (a.n.d == 0 && b.n.d < 0)
    n.ev.fail(ErrorKind::runtime_div_zero, n.call.span, "zero raised to a negative power", d);
  return approx(n, std::pow(a.n.d, b.n.d), d);
}

// Erlang C for the evaluator: checks the domain, then erlang_c_probability.
Value e_erlang_c(NativeEval& n) {
  const Value& cv = n.args[0];
  const Value& av = n.args[1];
  const DepSet d = n.ev.unite(cv.deps, av.deps);
  const auto c = to_int(cv.n);
  if (!c || *c < 1 || *c > kErlangMaxServers)
    n.ev.fail(ErrorKind::runtime_domain, n.call.span,
              "erlang_c: servers must be a whole number from 1 to 1000000, got " + format_sig(cv.n, 8), cv.deps);
  const double a = av.n.d;
  if (a < 0)
    n.ev.fail(ErrorKind::runtime_domain, n.call.span, "erlang_c: the offered load must not be negative", av.deps);
  if (a >= static_cast<double>(*c))
    n.ev.fail(ErrorKind::runtime_domain, n.call.span,
              "erlang_c: the queue is unstable (offered load " + format_sig(av.n, 6) + " >= " + std::to_string(*c) +
                  " servers): waits grow without bound",
              d);
  return approx(n, erlang_c_probability(*c, a), d);
}

Value e_len(NativeEval& n) {
  return Value::number(Num::of_int(static_cast<std::int64_t>(n.args[0].list().items.size())));
}

Value e_sum(NativeEval& n) {
  Value acc = Value::number(Num::of_int(0));
  for (const auto& x : n.args[0].list().items) acc = n.ev.arith(Op::add, acc, x, n.call);
  return acc;
}

Value e_at(NativeEval& n) {
  const auto& items = n.args[0].list().items;
  const auto k = to_int(n.args[1].n);
  if (!k || *k < 0 || static_cast<std::size_t>(*k) >= items.size())
    n.ev.fail(
        ErrorKind::runtime_index, n.call.span,
        "index " + format_sig(n.args[1].n, 6) + " is outside the list (length " + std::to_string(items.size()) + ")",
        n.args[1].deps);
  return n.ev.with_deps(items[static_cast<std::size_t>(*k)], n.args[1].deps, n.call.span);
}

Value e_field_or(NativeEval& n) {
  const Value* f = n.args[0].rec().get(intern(n.args[1].str()));
  return n.ev.with_deps(f ? *f : n.args[2], n.args[1].deps, n.call.span);
}

Value e_has_field(NativeEval& n) {
  return Value::boolean(n.args[0].rec().get(intern(n.args[1].str())) != nullptr, n.args[1].deps);
}

Value e_error(NativeEval& n) { n.ev.fail(ErrorKind::runtime_error, n.call.span, n.args[0].str(), n.args[0].deps); }

}  // namespace

// Erlang C: the probability that an arrival to an M/M/c queue waits, with c servers and offered
// load a = lambda/mu < c. The terms a^k/k! overflow binary64 near c = 170, so the sum is taken in
// log space with the log-sum-exp shift (as mlsysim's calc_queue_latency_mmc does).
double erlang_c_probability(std::int64_t c, double a) {
  if (a == 0) return 0.0;
  const double rho = a / static_cast<double>(c);
  const double log_a = std::log(a);
  // log(a^k / k!) for k <= c, with log k! accumulated (std::lgamma writes a global: not thread-safe).
  std::vector<double> log_term(static_cast<std::size_t>(c) + 1);
  double log_fact = 0;
  for (std::int64_t k = 0; k <= c; ++k) {
    if (k > 1) log_fact += std::log(static_cast<double>(k));
    log_term[static_cast<std::size_t>(k)] = static_cast<double>(k) * log_a - log_fact;
  }
  // The waiting term a^c/c! / (1 - rho); the largest term is the shift that keeps exp finite.
  const double log_last = log_term.back() - std::log(1 - rho);
  log_term.back() = log_last;
  const double top = *std::max_element(log_term.begin(), log_term.end());
  double sum = 0;
  for (double t : log_term) sum += std::exp(t - top);
  return std::exp(log_last - top) / sum;
}

const std::vector<NativeImpl>& native_table() {
  static const std::vector<NativeImpl> table = {
      {"max", 2, true, false, t_same_numbers, e_max, "the larger of two quantities"},
      {"min", 2, true, false, t_same_numbers, e_min, "the smaller of two quantities"},
      {"clamp", 3, true, false, t_clamp, e_clamp, "x limited to [lo, hi]"},
      {"abs", 1, false, false, t_num_same, e_abs, "absolute value"},
      {"floor", 1, false, false, t_rounding, e_floor, "largest integer <= x"},
      {"ceil", 1, false, false, t_rounding, e_ceil, "smallest integer >= x"},
      {"round", 1, false, false, t_rounding, e_round, "nearest integer, halves away from zero"},
      {"sqrt", 1, false, true, t_sqrt, e_sqrt, "square root (binary64)"},
      {"exp", 1, false, true, t_transcendental, e_exp, "e^x (binary64)"},
      {"ln", 1, false, true, t_transcendental, e_ln, "natural logarithm (binary64)"},
      {"log2", 1, false, true, t_transcendental, e_log2, "base-2 logarithm (binary64)"},
      {"log10", 1, false, true, t_transcendental, e_log10, "base-10 logarithm (binary64)"},
      {"pow", 2, false, true, t_transcendental, e_pow, "x^y for real y (binary64)"},
      {"len", 1, false, false, t_len, e_len, "number of list elements"},
      {"sum", 1, false, false, t_sum, e_sum, "sum of a list of quantities"},
      {"at", 2, false, false, t_at, e_at, "list element by 0-based index"},
      {"field_or", 3, false, false, t_field_or, e_field_or, "a record's field by name, or a default"},
      {"has_field", 2, false, false, t_has_field, e_has_field, "whether a record has a field"},
      {"error", 1, false, false, t_error_fn, e_error, "stop with a runtime error"},
      {"erlang_c", 2, false, true, t_erlang_c, e_erlang_c, "M/M/c probability of waiting (Erlang C, log space)"},
      {"kv_alloc_sim", 1, false, false, kvsim::type_rule, kvsim::evaluate, "paged vs static KV allocation simulation"},
  };
  return table;
}

int find_native(std::string_view name) {
  const auto& t = native_table();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (name == t[i].name) return static_cast<int>(i);
  return -1;
}

std::size_t native_arity(int impl) { return native_table()[static_cast<std::size_t>(impl)].arity; }
bool native_branchy(int impl) { return native_table()[static_cast<std::size_t>(impl)].branchy; }
bool native_approximates(int impl) { return native_table()[static_cast<std::size_t>(impl)].approximates; }

void check_natives_declared(Program& p) {
  for (const auto& n : native_table()) {
    const bool declared =
        std::any_of(p.natives.begin(), p.natives.end(), [&](const NativeDef& d) { return sym_name(d.name) == n.name; });
    if (!declared)
      p.diags.error(ErrorKind::internal, Span{},
                    std::string("native '") + n.name + "' is implemented but not declared in the prelude");
  }
}

}  // namespace mls
