// native_eval.cpp — how each native function computes its value (exact where it can, binary64
// with the call's approx assumption where it cannot), indexed by NativeId.
#include "native_eval.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "eval.hpp"
#include "grammar/symbols.hpp"
#include "kv_sim.hpp"
#include "serve_sim.hpp"

namespace mls {

namespace {

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
  if (n.call.call_atom >= 0 && n.ev.exact())
    d = n.ev.unite(d, n.ev.deps().single(static_cast<AtomId>(n.call.call_atom)));
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

// The value with its family's validation band attached: of the domain the value records (a train()
// result's `domain` field), else of all the family's cases.
Value e_validated(NativeEval& n) {
  const Value& v = n.args[1];
  const Value* domain = v.k == Value::K::record ? v.rec().get(intern("domain")) : nullptr;
  if (domain && domain->k != Value::K::record) domain = nullptr;
  return n.ev.with_deps(v, n.ev.validation_deps(n.args[0].str(), domain), n.call.span);
}

// The value with the band of the domain given beside it.
Value e_validated_in(NativeEval& n) {
  return n.ev.with_deps(n.args[2], n.ev.validation_deps(n.args[0].str(), &n.args[1]), n.call.span);
}

// The value with the call's `approx` assumption (made while resolving: the name and reason are
// literals).
Value e_borrowed(NativeEval& n) {
  if (n.call.call_atom < 0) return n.args[2];
  return n.ev.with_deps(n.args[2], n.ev.deps().single(static_cast<AtomId>(n.call.call_atom)), n.call.span);
}

// The value with the call's note (an atom created while resolving: t_note requires a literal).
Value e_note(NativeEval& n) {
  if (n.call.call_atom < 0) return n.args[1];
  return n.ev.with_deps(n.args[1], n.ev.deps().single(static_cast<AtomId>(n.call.call_atom)), n.call.span);
}

// The record of a config.json read while the program was resolved (semantics/hf_config.cpp); each
// value carries the assumptions of the keys it comes from.
Value e_hf_config(NativeEval& n) {
  const Program& p = n.ev.program();
  const auto it = p.hf_configs.find(n.args[0].str());
  if (it == p.hf_configs.end())
    n.ev.fail(ErrorKind::hf_path, n.call.span,
              "model_from_hf reads its file before evaluation: give the path as a string literal, "
              "model_from_hf(\"path/config.json\")",
              n.args[0].deps);
  RecordObj rec;
  for (const HfField& f : it->second.fields) {
    DepSet d = 0;
    for (const AtomId a : f.atoms) d = n.ev.program().deps.unite(d, n.ev.program().deps.single(a));
    switch (f.k) {
      case HfField::K::num: rec.fields.emplace_back(intern(f.name), Value::number(f.n, d)); break;
      case HfField::K::str: rec.fields.emplace_back(intern(f.name), Value::string(f.s, d)); break;
      case HfField::K::flag: rec.fields.emplace_back(intern(f.name), Value::boolean(f.b, d)); break;
    }
  }
  return Value::record(std::move(rec));
}

struct EvalRow {
  NativeId id;
  EvalRule eval;
};

// One row per native, in NativeId order: a native added to semantics/natives.hpp without an
// evaluation here fails the static_asserts below.
constexpr EvalRow kEvals[] = {
    {NativeId::max, e_max},
    {NativeId::min, e_min},
    {NativeId::clamp, e_clamp},
    {NativeId::abs, e_abs},
    {NativeId::floor, e_floor},
    {NativeId::ceil, e_ceil},
    {NativeId::round, e_round},
    {NativeId::sqrt, e_sqrt},
    {NativeId::exp, e_exp},
    {NativeId::ln, e_ln},
    {NativeId::log2, e_log2},
    {NativeId::log10, e_log10},
    {NativeId::pow, e_pow},
    {NativeId::len, e_len},
    {NativeId::sum, e_sum},
    {NativeId::at, e_at},
    {NativeId::field_or, e_field_or},
    {NativeId::has_field, e_has_field},
    {NativeId::error, e_error},
    {NativeId::erlang_c, e_erlang_c},
    {NativeId::validated, e_validated},
    {NativeId::validated_in, e_validated_in},
    {NativeId::note, e_note},
    {NativeId::borrowed, e_borrowed},
    {NativeId::hf_config, e_hf_config},
    {NativeId::kv_alloc_sim, kvsim::evaluate},
    {NativeId::serve_sim, servesim::evaluate},
};

constexpr bool evals_in_id_order() {
  for (std::size_t i = 0; i < std::size(kEvals); ++i)
    if (static_cast<std::size_t>(kEvals[i].id) != i) return false;
  return true;
}
static_assert(std::size(kEvals) == kNativeCount, "native_eval.cpp: every native needs an evaluation");
static_assert(evals_in_id_order(), "native_eval.cpp: the rows must follow NativeId");

}  // namespace

EvalRule native_eval(NativeId id) { return kEvals[static_cast<std::size_t>(id)].eval; }

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

}  // namespace mls
