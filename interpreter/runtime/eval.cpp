// eval.cpp — evaluation of checked expressions. Dimensions are not looked at here: the checker
// proved them. What is tracked is provenance (deps) and, for regime notes, the branches taken.
#include "eval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "grammar/symbols.hpp"
#include "interpreter/semantics/natives.hpp"
#include "interpreter/semantics/stack.hpp"
#include "interrupt.hpp"
#include "native_eval.hpp"
#include "solve.hpp"

namespace mls {

namespace {
// Per thread: sweep workers share one Evaluator but each evaluates its own points.
thread_local int t_eval_depth = 0;
thread_local std::uint64_t t_steps_left = UINT64_MAX;  // no budget outside a BudgetScope
thread_local const Expr* t_current_call = nullptr;     // innermost user-function call

// Frames of user-function calls, reused: a call leases one, its return gives it back cleared.
thread_local std::vector<std::vector<Value>> t_frame_pool;
struct FrameLease {
  explicit FrameLease(std::size_t n) {
    if (!t_frame_pool.empty()) {
      frame = std::move(t_frame_pool.back());
      t_frame_pool.pop_back();
    }
    frame.resize(n);
  }
  ~FrameLease() {
    frame.clear();
    if (t_frame_pool.size() < 256) t_frame_pool.push_back(std::move(frame));
  }
  FrameLease(const FrameLease&) = delete;
  FrameLease& operator=(const FrameLease&) = delete;
  std::vector<Value> frame;
};

// Lowest stack address at which stack_nearly_exhausted() said no on this thread: stacks grow
// down, so anything above it is not nearly exhausted either (one compare per level instead of
// a call).
thread_local std::uintptr_t t_stack_ok_above = UINTPTR_MAX;
bool stack_low() {
  const auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (sp >= t_stack_ok_above) return false;
  if (stack_nearly_exhausted()) return true;
  t_stack_ok_above = sp;
  return false;
}

struct DepthGuard {
  DepthGuard() { ++t_eval_depth; }
  ~DepthGuard() { --t_eval_depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};
}  // namespace

Evaluator::BudgetScope::BudgetScope(const Evaluator& ev) : saved_(t_steps_left) { t_steps_left = ev.max_steps; }
Evaluator::BudgetScope::~BudgetScope() { t_steps_left = saved_; }

std::uint64_t Evaluator::steps_left() { return t_steps_left; }

void Evaluator::charge(std::uint64_t n, Span at) {
  if (n < t_steps_left) {
    t_steps_left -= n;
    return;
  }
  t_steps_left = 1;
  step(at);
}

void Evaluator::step(Span at) {
  // The common case inline: no Ctrl-C poll due and the budget not about to run out.
  if ((t_steps_left & 0xFFF) != 0 && t_steps_left != 1) {
    --t_steps_left;
    return;
  }
  step_slow(at);
}

void Evaluator::step_slow(Span at) {
  // Ctrl-C is polled every 4096 steps (an atomic load per step would cost more than it saves).
  if ((t_steps_left & 0xFFF) == 0 && interrupt_requested()) throw_interrupted(at);
  if (--t_steps_left != 0) return;
  t_steps_left = 1;  // anything evaluated before the scope unwinds fails at once, never wraps around
  Diagnostic d;
  d.kind = ErrorKind::limit_steps;
  // The innermost call says more than whichever small expression happened to be the last step.
  d.span = t_current_call ? t_current_call->span : at;
  d.message = "evaluation takes more than " + std::to_string(max_steps) + " steps";
  d.help.push_back("a function that calls itself more than once per level takes exponential time");
  throw DiagnosticError{std::move(d)};
}

std::vector<std::string> assumption_lines(const Program& p, DepSet d, std::size_t max) {
  std::vector<std::string> out;
  for (AtomId a : p.deps.atoms(d)) {
    if (!p.deps.is_assumption(a)) continue;
    const Assumption& as = p.deps.assumption(a);
    if (out.size() == max) {
      out.push_back("...");
      break;
    }
    // A command-line value's place is "command line", which is also who set it: say it once;
    // an approximation of the arithmetic has no place.
    const bool placed_on_command_line = as.via.kind == ViaKind::command_line && !as.at.valid();
    std::string place = assumption_place(p.sources, as);
    if (!quiet(as.via) && !placed_on_command_line) place += (place.empty() ? "" : ", ") + as.via.text();
    out.push_back(std::string(kind_name(as.kind)) + " " + as.name + " = " + as.value +
                  (place.empty() ? "" : " (" + place + ")"));
  }
  return out;
}

namespace {
// Records and lists share parts (`{let x = ..., a: x, b: x}`): a value can be a DAG whose tree
// is exponentially larger, so walks over values visit each shared part once.
DepSet deep_deps_walk(const Value& v, Deps& deps, std::unordered_map<const Heap*, DepSet>& seen) {
  if (v.k != Value::K::record && v.k != Value::K::list) return v.deps;
  auto it = seen.find(v.h.get());
  if (it != seen.end()) return it->second;
  DepSet d = 0;
  if (v.k == Value::K::record)
    for (const auto& [n, f] : v.rec().fields) d = deps.unite(d, deep_deps_walk(f, deps, seen));
  else
    for (const auto& x : v.list().items) d = deps.unite(d, deep_deps_walk(x, deps, seen));
  seen.emplace(v.h.get(), d);
  return d;
}
}  // namespace

DepSet deep_deps(const Value& v, Deps& deps) {
  std::unordered_map<const Heap*, DepSet> seen;
  return deep_deps_walk(v, deps, seen);
}

Evaluator::Evaluator(Program& p, const Config& cfg, bool exact) : Evaluator(p, cfg, exact, false) {}

Evaluator::~Evaluator() {
  for (std::size_t b = 0; b < (nglobals_ + kCacheBlock - 1) / kCacheBlock; ++b)
    delete[] cache_blocks_[b].load(std::memory_order_relaxed);
}

void Evaluator::forget_globals() {
  for (std::size_t b = 0; b < (nglobals_ + kCacheBlock - 1) / kCacheBlock; ++b)
    delete[] cache_blocks_[b].exchange(nullptr, std::memory_order_acq_rel);
}

Evaluator::GlobalCache& Evaluator::cache(std::uint32_t g) {
  std::atomic<GlobalCache*>& slot = cache_blocks_[g / kCacheBlock];
  GlobalCache* block = slot.load(std::memory_order_acquire);
  if (!block) {
    // Sweep workers may reach a new block at once: one of them installs its block.
    auto* made = new GlobalCache[kCacheBlock];
    if (slot.compare_exchange_strong(block, made, std::memory_order_acq_rel, std::memory_order_acquire))
      block = made;
    else
      delete[] made;
  }
  return block[g % kCacheBlock];
}

Evaluator::Evaluator(Program& p, const Config& cfg, bool exact, bool for_validation) : p_(p), cfg_(cfg), exact_(exact) {
  nglobals_ = p.globals.size();
  const std::size_t blocks = (nglobals_ + kCacheBlock - 1) / kCacheBlock;
  cache_blocks_.reset(new std::atomic<GlobalCache*>[blocks]);
  for (std::size_t b = 0; b < blocks; ++b) cache_blocks_[b].store(nullptr, std::memory_order_relaxed);
  Assumption a;
  a.kind = AssumptionKind::approx;
  if (exact) {
    a.name = "exact arithmetic";
    a.value = "continued in binary64 (a rational exceeded " + std::to_string(kMaxExactBits) + " bits)";
  } else {
    a.name = "arithmetic";
    a.value = "binary64 (sweep fast path)";
  }
  a.via = ViaKind::arithmetic;
  overflow_atom_ = p.deps.add_assumption(std::move(a));
  (void)overflow_deps();  // intern now, before any worker thread exists
  validation_on_ = !for_validation && cfg.validation_summaries;
}

DepSet Evaluator::overflow_deps() { return p_.deps.single(overflow_atom_); }

void Evaluator::fail(ErrorKind k, Span at, std::string msg, DepSet deps) {
  Diagnostic d;
  d.kind = k;
  d.span = at;
  d.message = std::move(msg);
  for (const auto& line : assumption_lines(p_, deps)) d.help.push_back("depends on " + line);
  throw DiagnosticError{std::move(d)};
}

Num Evaluator::number_checked(Num n, const Expr& at, DepSet deps) {
  if (!std::isfinite(n.d))
    fail(ErrorKind::runtime_non_finite, at.span,
         std::string("the result of this expression is ") + (std::isnan(n.d) ? "not a number" : "infinite") +
             " in binary64",
         deps);
  return n;
}

Value Evaluator::with_deps(Value v, DepSet d, Span at) {
  if (d == 0) return v;
  if (v.k != Value::K::record && v.k != Value::K::list) {
    v.deps = p_.deps.unite(v.deps, d);
    return v;
  }
  std::unordered_map<const Heap*, Value> done;
  return with_deps_shared(std::move(v), d, at, done);
}

Value Evaluator::with_deps_shared(Value v, DepSet d, Span at, std::unordered_map<const Heap*, Value>& done) {
  // Each node costs a step: a huge value copied over and over still meets the budget.
  step(at);
  switch (v.k) {
    case Value::K::record:
    case Value::K::list: {
      // A part shared within the value is rewritten once and stays shared in the result.
      auto it = done.find(v.h.get());
      if (it != done.end()) return it->second;
      const Heap* key = v.h.get();
      Value out;
      if (v.k == Value::K::record) {
        RecordObj r = v.rec();
        for (auto& [n, f] : r.fields) f = with_deps_shared(std::move(f), d, at, done);
        out = Value::record(std::move(r));
      } else {
        ListObj l = v.list();
        for (auto& x : l.items) x = with_deps_shared(std::move(x), d, at, done);
        out = Value::list(std::move(l));
      }
      done.emplace(key, out);
      return out;
    }
    default: v.deps = p_.deps.unite(v.deps, d); return v;
  }
}

Value Evaluator::arith(Op op, const Value& a, const Value& b, const Expr& at) {
  DepSet d = p_.deps.unite(a.deps, b.deps);
  bool lost = false;
  Num r;
  switch (op) {
    case Op::add: r = add(a.n, b.n, lost); break;
    case Op::sub: r = sub(a.n, b.n, lost); break;
    case Op::mul: r = mul(a.n, b.n, lost); break;
    case Op::div:
      if (is_zero(b.n)) fail(ErrorKind::runtime_div_zero, at.span, "division by zero", b.deps);
      r = div(a.n, b.n, lost);
      break;
    case Op::pow: {
      const auto k = to_int(b.n);
      if (is_zero(a.n) && compare(b.n, Num::of_int(0)) < 0)
        fail(ErrorKind::runtime_div_zero, at.span, "zero raised to a negative power", d);
      if (k && std::abs(*k) <= 100000) {
        r = pow_int(a.n, *k, lost);
      } else {
        if (a.n.d < 0) fail(ErrorKind::runtime_domain, at.span, "a negative number raised to a fractional power", d);
        r = Num::of_double(std::pow(a.n.d, b.n.d));
        if (exact_) lost = true;
      }
      break;
    }
    default: fail(ErrorKind::internal, at.span, "not an arithmetic operator", d);
  }
  if (lost) d = p_.deps.unite(d, overflow_deps());
  return Value::number(number_checked(std::move(r), at, d), d);
}

Value Evaluator::literal(const Expr& e) {
  if (!e.si_ready) fail(ErrorKind::internal, e.span, "literal was not checked", 0);
  const DepSet d = e.atom >= 0 ? p_.deps.single(static_cast<AtomId>(e.atom)) : 0;
  return Value::number(exact_ ? e.si : Num::of_double(e.si.d), d);
}

Value Evaluator::literal_override(const Override& o) {
  Value v = with_deps(eval_in(*o.value, o.nslots), p_.deps.single(o.atom), o.value->span);
  // As a global override: the setting's own literals stand for the setting.
  if (v.k == Value::K::num || v.k == Value::K::boolean) v.deps = p_.deps.single(o.atom);
  return v;
}

Value Evaluator::eval_in(const Expr& e, int nslots) {
  BudgetScope budget(*this);
  std::vector<Value> slots(static_cast<std::size_t>(std::max(nslots, 1)));
  return eval(e, slots.data(), 0);
}

namespace {
// Globals this thread is computing, innermost last, with the value so far: the value of a
// `set` reads its target's previous value from here (Ref::prior), and a global that would be
// entered again reports a cycle instead of waiting on its own lock.
struct InProgress {
  const Evaluator* ev;
  std::uint32_t g;
  const Value* so_far;  // the value before the `set` being evaluated; null outside a `set`
};
thread_local std::vector<InProgress> t_in_progress;

struct InProgressScope {
  InProgressScope(const Evaluator* ev, std::uint32_t g) { t_in_progress.push_back({ev, g, nullptr}); }
  ~InProgressScope() { t_in_progress.pop_back(); }
  InProgressScope(const InProgressScope&) = delete;
  InProgressScope& operator=(const InProgressScope&) = delete;
};
}  // namespace

Value Evaluator::prior(const Expr& e) {
  for (auto it = t_in_progress.rbegin(); it != t_in_progress.rend(); ++it)
    if (it->ev == this && it->g == e.ref.index && it->so_far) return *it->so_far;
  fail(ErrorKind::internal, e.span, "the previous value of '" + sym_name(e.name) + "' is read outside its `set`", 0);
}

Value Evaluator::global(std::uint32_t g) {
  GlobalCache& c = cache(g);
  // Computed already (the common case, every read after the first): its value never changes
  // again, so no lock. A global this thread is computing is not ready yet, so the cycle check
  // below has nothing to say about a ready one.
  if (!tracer && c.ready.load(std::memory_order_acquire)) return c.value;
  const GlobalDef& gd = p_.globals[g];
  // Backstop for configure()'s cycle check (name.cycle): never wait on a lock this thread holds.
  for (const auto& ip : t_in_progress)
    if (ip.ev == this && ip.g == g)
      fail(ErrorKind::name_cycle, gd.stmt ? gd.stmt->name_span : Span{},
           "'" + sym_name(gd.name) + "' depends on itself while it is evaluated", 0);
  std::lock_guard<std::mutex> lock(c.mu);
  const InProgressScope in_progress(this, g);
  // Literal globals are assumptions, not steps of a formula: the tracer does not see them.
  const bool traced = tracer && !gd.literal;
  if (c.ready.load(std::memory_order_relaxed)) {
    if (traced) {
      tracer->enter_global(g, true);
      tracer->leave(c.value);
    }
    return c.value;
  }
  if (traced) tracer->enter_global(g, false);
  const auto& ovs = cfg_.overrides[g];
  // A whole-value override replaces the definition (unless it reads it: `set x = x * 2`);
  // the overrides after it apply on top, in order, each reading the value so far.
  const std::size_t first = replacing_override(ovs);
  Value v;
  if (first > 0) {
    const Override& o = ovs[first - 1];
    v = with_deps(eval_in(*o.value, o.nslots), p_.deps.single(o.atom), o.value->span);
    // The override's own literal stands for the override, not a default.
    if (v.k == Value::K::num || v.k == Value::K::boolean) v.deps = p_.deps.single(o.atom);
  } else if (gd.stmt->kind == SK::solve) {
    v = solve_value(*this, *gd.stmt);  // the answer of `solve NAME in ...` (solve.cpp)
  } else {
    v = eval_in(*gd.stmt->value, gd.stmt->nslots);
  }
  for (std::size_t i = first; i < ovs.size(); ++i) {
    const Override& o = ovs[i];
    t_in_progress.back().so_far = &v;
    Value nv = eval_in(*o.value, o.nslots);
    t_in_progress.back().so_far = nullptr;
    // A value computed from the previous one keeps what that depended on; otherwise the
    // override's own literal stands for the override.
    if (o.reads_prior)
      nv = with_deps(std::move(nv), p_.deps.single(o.atom), o.value->span);
    else if (nv.k == Value::K::num || nv.k == Value::K::boolean)
      nv.deps = p_.deps.single(o.atom);
    if (o.path.size() == 1) {
      v = std::move(nv);
      continue;
    }
    // Replace along the path (checked statically to exist).
    std::function<Value(const Value&, std::size_t)> put = [&](const Value& cur, std::size_t i2) -> Value {
      if (i2 == o.path.size()) return nv;
      RecordObj r = cur.rec();
      for (auto& [n, f] : r.fields)
        if (n == o.path[i2]) f = put(f, i2 + 1);
      return Value::record(std::move(r));
    };
    v = put(v, 1);
  }
  // A record bound to a global first is known by its name (a sweep row keyed by it reads
  // `node=DGX_H100`); `let n = DGX_H100` keeps the label it has.
  if (v.k == Value::K::record && v.rec().label == kNoSym) {
    RecordObj r = v.rec();
    r.label = gd.name;
    Value labelled = Value::record(std::move(r));
    labelled.deps = v.deps;
    v = std::move(labelled);
  }
  c.value = v;
  c.ready.store(true, std::memory_order_release);
  if (traced) tracer->leave(v);
  return v;
}

// Entering a node (eval and place, after their DepthGuard): the depth limit, then one step.
// The count keeps results independent of the stack size; the stack check is the backstop
// for threads that are not pipeline threads (a smaller stack than the count assumes).
void Evaluator::enter_node(Span at) {
  if (t_eval_depth > kMaxEvalDepth || stack_low())
    fail(ErrorKind::runtime_depth, at,
         "evaluation nests deeper than " + std::to_string(kMaxEvalDepth) +
             " levels (counting the bodies of called functions)",
         0);
  step(at);
}

Value Evaluator::eval(const Expr& e, Value* slots, int depth) {
  const DepthGuard nesting;
  enter_node(e.span);
  if (e.atom >= 0 && !cfg_.literal_overrides.empty()) {
    const auto it = cfg_.literal_overrides.find(e.atom);
    if (it != cfg_.literal_overrides.end()) return literal_override(it->second);
  }
  switch (e.kind) {
    case EK::num: return literal(e);
    case EK::uncertain: {
      const DepSet d = e.atom >= 0 ? p_.deps.single(static_cast<AtomId>(e.atom)) : 0;
      if (!draws) return Value::number(literal(e).n, d);
      const auto it = draws->find(&e);
      if (it == draws->end()) fail(ErrorKind::internal, e.span, "an uncertain literal has no draw", d);
      return Value::number(Num::of_double(it->second), d);
    }
    case EK::boolean: return Value::boolean(e.bval, e.atom >= 0 ? p_.deps.single(static_cast<AtomId>(e.atom)) : 0);
    case EK::str: return Value::string(e.str);
    case EK::name:
      switch (e.ref.kind) {
        case RefKind::local: return slots[e.ref.index];
        case RefKind::global: return e.ref.prior ? prior(e) : global(e.ref.index);
        default: fail(ErrorKind::internal, e.span, "name cannot be evaluated here", 0);
      }
    case EK::unary: {
      Value v = eval(*e.kids[0], slots, depth);
      if (e.op == Op::not_) return Value::boolean(!v.b, v.deps);
      if (e.kids[0]->kind == EK::num && e.atom >= 0) v.deps = p_.deps.single(static_cast<AtomId>(e.atom));
      v.n = neg(v.n);
      return v;
    }
    case EK::binary: {
      if (e.op == Op::and_ || e.op == Op::or_) {
        // Short-circuit: the right side is neither evaluated nor depended upon.
        Value a = eval(*e.kids[0], slots, depth);
        if (a.b == (e.op == Op::or_)) return a;
        Value b = eval(*e.kids[1], slots, depth);
        return Value::boolean(b.b, p_.deps.unite(a.deps, b.deps));
      }
      Value a = eval(*e.kids[0], slots, depth);
      Value b = eval(*e.kids[1], slots, depth);
      switch (e.op) {
        case Op::eq:
        case Op::ne: {
          bool eq = false;
          if (a.k == Value::K::num)
            eq = compare(a.n, b.n) == 0;
          else if (a.k == Value::K::boolean)
            eq = a.b == b.b;
          else if (a.k == Value::K::str)
            eq = a.str() == b.str();
          return Value::boolean(e.op == Op::eq ? eq : !eq, p_.deps.unite(a.deps, b.deps));
        }
        case Op::lt: return Value::boolean(compare(a.n, b.n) < 0, p_.deps.unite(a.deps, b.deps));
        case Op::le: return Value::boolean(compare(a.n, b.n) <= 0, p_.deps.unite(a.deps, b.deps));
        case Op::gt: return Value::boolean(compare(a.n, b.n) > 0, p_.deps.unite(a.deps, b.deps));
        case Op::ge: return Value::boolean(compare(a.n, b.n) >= 0, p_.deps.unite(a.deps, b.deps));
        default: return arith(e.op, a, b, e);
      }
    }
    case EK::call: return call(e, slots, depth);
    case EK::field: {
      // A field of a named value (`cluster.fabric.bw`) is read in place, without copying the
      // records on the way; anything else is evaluated first.
      if (addressable(*e.kids[0])) return field_of(*place(*e.kids[0], slots), e);
      const Value r = eval(*e.kids[0], slots, depth);
      return field_of(r, e);
    }
    case EK::record: {
      RecordObj r;
      r.fields.reserve(e.items.size());
      for (const auto& it : e.items) {
        Value v = eval(*it.value, slots, depth);
        slots[it.slot] = v;
        if (!it.is_let) r.fields.emplace_back(it.name, std::move(v));
      }
      return Value::record(std::move(r));
    }
    case EK::with: return with(e, slots, depth);
    case EK::list: {
      ListObj l;
      l.items.reserve(e.kids.size());
      for (const auto& k : e.kids) l.items.push_back(eval(*k, slots, depth));
      return Value::list(std::move(l));
    }
    case EK::if_: {
      Value c = eval(*e.kids[0], slots, depth);
      const std::size_t arm = c.b ? 0 : 1;
      Value v = eval(*e.kids[1 + arm], slots, depth);
      return with_deps(std::move(v), p_.deps.unite(c.deps, p_.deps.single(p_.deps.branch_atom(e.site, arm))), e.span);
    }
    case EK::match: return match(e, slots, depth);
    case EK::convert: return eval(*e.kids[0], slots, depth);
  }
  fail(ErrorKind::internal, e.span, "unknown expression", 0);
}

// A local, a global or a field of one of those: what place() can point at. (Not a literal
// that a `set` overrides: that is evaluated.)
bool Evaluator::addressable(const Expr& e) const {
  if (e.atom >= 0) return false;
  if (e.kind == EK::field) return addressable(*e.kids[0]);
  return e.kind == EK::name && !tracer &&
         (e.ref.kind == RefKind::local || (e.ref.kind == RefKind::global && !e.ref.prior));
}

// The value an addressable expression names, in place: eval's checks and steps, no copy. A
// global's cached value never changes once computed (global() computes it if need be).
const Value* Evaluator::place(const Expr& e, Value* slots) {
  const DepthGuard nesting;
  enter_node(e.span);
  if (e.kind == EK::field) return &field_of(*place(*e.kids[0], slots), e);
  if (e.ref.kind == RefKind::local) return &slots[e.ref.index];
  GlobalCache& c = cache(e.ref.index);
  if (!c.ready.load(std::memory_order_acquire)) (void)global(e.ref.index);
  return &c.value;
}

// Field `e.name` of record `r` (field names are unique within a record: the checker refuses
// a repeated one and natives build theirs from fixed lists).
const Value& Evaluator::field_of(const Value& r, const Expr& e) {
  if (r.k != Value::K::record) fail(ErrorKind::internal, e.span, "field of a non-record", 0);
  const auto& fields = r.rec().fields;
  const std::uint32_t at = e.field_at.at.load(std::memory_order_relaxed);
  if (at < fields.size() && fields[at].first == e.name) return fields[at].second;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].first == e.name) {
      e.field_at.at.store(static_cast<std::uint32_t>(i), std::memory_order_relaxed);
      return fields[i].second;
    }
  fail(ErrorKind::internal, e.span, "missing field '" + sym_name(e.name) + "'", 0);
}

Value Evaluator::with(const Expr& e, Value* slots, int depth) {
  Value base = eval(*e.kids[0], slots, depth);
  for (const auto& w : e.with_items) {
    Value nv = eval(*w.value, slots, depth);
    std::function<Value(const Value&, std::size_t)> put = [&](const Value& cur, std::size_t i) -> Value {
      if (i == w.path.size()) return nv;
      RecordObj r = cur.rec();
      for (auto& [n, f] : r.fields)
        if (n == w.path[i]) f = put(f, i + 1);
      return Value::record(std::move(r));
    };
    base = put(base, 0);
  }
  return base;
}

Value Evaluator::match(const Expr& e, Value* slots, int depth) {
  const Expr& scrut = *e.kids[0];
  DepSet d = 0;
  std::size_t arm = e.arms.size();
  if (scrut.kind == EK::name && scrut.ref.kind == RefKind::convention) {
    const ConvSel& cs = cfg_.conv[scrut.ref.index];
    const ConventionDef& cd = p_.conventions[scrut.ref.index];
    const Sym choice = cd.stmt->choices[static_cast<std::size_t>(cs.choice)].name;
    d = p_.deps.single(cs.atom);
    for (std::size_t i = 0; i < e.arms.size() && arm == e.arms.size(); ++i)
      for (const auto& pat : e.arms[i].patterns)
        if (pat.kind == Pattern::K::wildcard || (pat.kind == Pattern::K::name && pat.name == choice)) {
          arm = i;
          break;
        }
  } else {
    Value s = eval(scrut, slots, depth);
    d = s.deps;
    const std::string& text = s.str();
    for (std::size_t i = 0; i < e.arms.size() && arm == e.arms.size(); ++i)
      for (const auto& pat : e.arms[i].patterns)
        if (pat.kind == Pattern::K::wildcard || (pat.kind == Pattern::K::str && pat.str == text) ||
            (pat.kind == Pattern::K::name && sym_name(pat.name) == text)) {
          arm = i;
          break;
        }
  }
  if (arm == e.arms.size()) fail(ErrorKind::internal, e.span, "no match arm applies", d);
  Value v = eval(*e.arms[arm].body, slots, depth);
  return with_deps(std::move(v), p_.deps.unite(d, p_.deps.single(p_.deps.branch_atom(e.site, arm))), e.span);
}

Value Evaluator::call(const Expr& e, Value* slots, int depth) {
  if (e.ref.kind == RefKind::function) return call_function(e, slots, depth);
  std::vector<Value> args;
  args.reserve(e.args.size());
  for (const auto& a : e.args) args.push_back(eval(*a.value, slots, depth));
  const NativeImpl& impl = native_table()[static_cast<std::size_t>(p_.natives[e.ref.index].impl)];
  NativeEval ne{*this, e, args, 0};
  Value v = native_eval(impl.id)(ne);
  if (impl.branchy && e.site) v = with_deps(std::move(v), p_.deps.single(p_.deps.branch_atom(e.site, ne.take)), e.span);
  return v;
}

Value Evaluator::call_function(const Expr& e, Value* slots, int depth) {
  if (depth >= kMaxCallDepth)
    fail(ErrorKind::runtime_depth, e.span, "calls nest deeper than " + std::to_string(kMaxCallDepth) + " levels", 0);
  const Stmt& decl = *p_.functions[e.ref.index].stmt;
  // The frame comes from this thread's pool (no allocation per call once it is warm); which
  // parameters were passed is a bit mask (a vector beyond 64 parameters).
  FrameLease lease(static_cast<std::size_t>(std::max(decl.nslots, 1)));
  std::vector<Value>& frame = lease.frame;
  const std::size_t nparams = decl.params.size();
  std::uint64_t given_bits = 0;
  std::vector<bool> given_many(nparams > 64 ? nparams : 0, false);
  std::size_t positional = 0;
  for (std::size_t k = 0; k < e.args.size(); ++k) {
    std::size_t p = 0;  // as argument_params: positional first, then by name
    if (e.args[k].name == kNoSym) {
      p = positional++;
    } else {
      for (std::size_t i = 0; i < nparams; ++i)
        if (decl.params[i].name == e.args[k].name) p = i;
    }
    frame[static_cast<std::size_t>(decl.params[p].slot)] = eval(*e.args[k].value, slots, depth);
    if (nparams > 64)
      given_many[p] = true;
    else
      given_bits |= std::uint64_t{1} << p;
  }
  auto given = [&](std::size_t i) { return nparams > 64 ? bool(given_many[i]) : ((given_bits >> i) & 1) != 0; };
  struct CallScope {
    const Expr* saved = t_current_call;
    explicit CallScope(const Expr* e) { t_current_call = e; }
    ~CallScope() { t_current_call = saved; }
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;
  } call_scope(&e);
  if (tracer) tracer->enter(decl, e);
  try {
    for (std::size_t i = 0; i < nparams; ++i)
      if (!given(i))
        frame[static_cast<std::size_t>(decl.params[i].slot)] =
            eval(*decl.params[i].default_value, frame.data(), depth + 1);
    if (tracer) tracer->bound(decl, frame.data());
    Value r = eval(*decl.value, frame.data(), depth + 1);
    if (tracer) tracer->leave(r);
    return r;
  } catch (DiagnosticError& err) {
    // An error inside a (stdlib) function also points at the calls that led there, innermost
    // first, so the user sees which of their lines triggered it.
    // A recursive function passes the same call many times: it is noted once.
    std::size_t calls = 0;
    bool seen = false;
    for (const auto& n : err.diag.notes) {
      const bool call_note = n.kind == LabelKind::call;
      calls += call_note ? 1 : 0;
      seen =
          seen || (call_note && n.span.file == e.span.file && n.span.begin == e.span.begin && n.span.end == e.span.end);
    }
    if (calls < kMaxCallNotes && !seen)
      err.diag.notes.push_back({e.span, "in the call to '" + sym_name(decl.name) + "'", LabelKind::call});
    throw;
  }
}

}  // namespace mls
