// natives.cpp — native functions: each with its type rule (dimensions); their evaluation is in
// runtime/native_eval.cpp. Keep this the single registry; stdlib/natives.mls declares them for
// users and docs.
#include "natives.hpp"

#include <algorithm>
#include <array>

#include "grammar/symbols.hpp"
#include "kv_sim_type.hpp"
#include "program.hpp"
#include "serve_sim_type.hpp"

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
  c.error(i, ErrorKind::type_mismatch, "'" + fname(c) + "' expects a number, got " + kind_word(*c.args[i]))
      .expecting("a number", kind_word(*c.args[i]));
  return false;
}

bool want_dimensionless(NativeCheck& c, std::size_t i, const char* why) {
  if (!want_num(c, i)) return false;
  if (c.args[i]->dim.none()) return true;
  c.error(i, ErrorKind::dim_mismatch, "'" + fname(c) + "' needs a dimensionless number, got " + c.describe(i))
      .expecting("a dimensionless number", c.describe(i))
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

TypeP t_validated(NativeCheck& c) {
  if (c.loose()) return c.args.size() == 2 ? c.args[1] : t_error();
  if (c.call.args[0].value->kind != EK::str)
    c.error(0, ErrorKind::type_mismatch,
            "'validated' expects the family as a string literal (\"training\"), got " + c.describe(0));
  return c.args[1];
}

// validated_in("family", domain, value): the family a literal, the domain a record (training_domain).
TypeP t_validated_in(NativeCheck& c) {
  if (c.loose()) return c.args.size() == 3 ? c.args[2] : t_error();
  if (c.call.args[0].value->kind != EK::str)
    c.error(0, ErrorKind::type_mismatch,
            "'validated_in' expects the family as a string literal (\"serving throughput\"), got " + c.describe(0));
  else if (c.args[1]->k != Type::K::record)
    c.error(1, ErrorKind::type_mismatch,
            "'validated_in' expects the domain as a record (training_domain(...)), got " + c.describe(1));
  return c.args[2];
}

// borrowed("NAME", "why", value): name and reason are literals, so the assumption exists before
// evaluation (like note's).
TypeP t_borrowed(NativeCheck& c) {
  if (c.loose()) return c.args.size() == 3 ? c.args[2] : t_error();
  for (std::size_t i = 0; i < 2; ++i)
    if (c.call.args[i].value->kind != EK::str)
      c.error(i, ErrorKind::type_mismatch,
              std::string("'borrowed' expects its ") + (i == 0 ? "name" : "reason") + " as a string literal, got " +
                  c.describe(i));
  return c.args[2];
}

// note("text", value): the text must be a literal, so its assumption exists before evaluation.
TypeP t_note(NativeCheck& c) {
  if (c.loose()) return c.args.size() == 2 ? c.args[1] : t_error();
  if (c.call.args[0].value->kind != EK::str)
    c.error(0, ErrorKind::type_mismatch, "'note' expects its text as a string literal, got " + c.describe(0));
  return c.args[1];
}

TypeP t_erlang_c(NativeCheck& c) {
  if (c.loose()) return t_error();
  for (std::size_t i = 0; i < c.args.size(); ++i)
    if (!want_dimensionless(c, i, "servers and offered load (arrival rate / service rate) are plain numbers"))
      return t_error();
  return t_num(Dim{});
}

// hf_config(path): a record of the shape fields hf_config.cpp maps (numbers, strings, one bool).
TypeP t_hf_config(NativeCheck& c) {
  std::vector<std::pair<Sym, TypeP>> out;
  for (const auto& s : hf_field_specs())
    out.emplace_back(intern(s.name), s.kind == HfField::K::num   ? t_num(Dim{})
                                     : s.kind == HfField::K::str ? t_str()
                                                                 : t_bool());
  if (!c.loose() && c.args[0]->k != Type::K::str)
    c.error(0, ErrorKind::type_mismatch, "'hf_config' expects the path of a config.json, got " + c.describe(0));
  return t_record(std::move(out));
}

// The rows in NativeId order, so that native_table()[id] is the row of `id`.
constexpr std::array<NativeImpl, kNativeCount> kNatives = {{
    {NativeId::max, "max", 2, true, false, t_same_numbers, "the larger of two quantities", compiled(FastOp::max)},
    {NativeId::min, "min", 2, true, false, t_same_numbers, "the smaller of two quantities", compiled(FastOp::min)},
    {NativeId::clamp, "clamp", 3, true, false, t_clamp, "x limited to [lo, hi]", compiled(FastOp::clamp)},
    {NativeId::abs, "abs", 1, false, false, t_num_same, "absolute value", compiled(FastOp::abs)},
    {NativeId::floor, "floor", 1, false, false, t_rounding, "largest integer <= x", compiled(FastOp::floor)},
    {NativeId::ceil, "ceil", 1, false, false, t_rounding, "smallest integer >= x", compiled(FastOp::ceil)},
    {NativeId::round, "round", 1, false, false, t_rounding, "nearest integer, halves away from zero",
     compiled(FastOp::round)},
    {NativeId::sqrt, "sqrt", 1, false, true, t_sqrt, "square root (binary64)", compiled(FastOp::sqrt)},
    {NativeId::exp, "exp", 1, false, true, t_transcendental, "e^x (binary64)", compiled(FastOp::exp)},
    {NativeId::ln, "ln", 1, false, true, t_transcendental, "natural logarithm (binary64)", compiled(FastOp::ln)},
    {NativeId::log2, "log2", 1, false, true, t_transcendental, "base-2 logarithm (binary64)", compiled(FastOp::log2)},
    {NativeId::log10, "log10", 1, false, true, t_transcendental, "base-10 logarithm (binary64)",
     compiled(FastOp::log10)},
    {NativeId::pow, "pow", 2, false, true, t_transcendental, "x^y for real y (binary64)", compiled(FastOp::pow)},
    {NativeId::len, "len", 1, false, false, t_len, "number of list elements", compiled(FastOp::list_len)},
    {NativeId::sum, "sum", 1, false, false, t_sum, "sum of a list of quantities", compiled(FastOp::list_sum)},
    {NativeId::at, "at", 2, false, false, t_at, "list element by 0-based index", compiled(FastOp::list_at)},
    {NativeId::field_or, "field_or", 3, false, false, t_field_or, "a record's field by name, or a default",
     compiled(FastOp::field_or)},
    {NativeId::has_field, "has_field", 2, false, false, t_has_field, "whether a record has a field",
     compiled(FastOp::has_field)},
    {NativeId::error, "error", 1, false, false, t_error_fn, "stop with a runtime error", compiled(FastOp::fail)},
    {NativeId::erlang_c, "erlang_c", 2, false, true, t_erlang_c, "M/M/c probability of waiting (Erlang C, log space)",
     compiled(FastOp::erlang_c)},
    {NativeId::validated, "validated", 2, false, false, t_validated,
     "a value with its model's measured error band (family of validation cases) as an assumption",
     compiled(FastOp::second_arg)},
    {NativeId::validated_in, "validated_in", 3, false, false, t_validated_in,
     "a value with its model's measured error band for a domain (a record) as an assumption",
     compiled(FastOp::third_arg)},
    {NativeId::note, "note", 2, false, false, t_note, "a value with a note the reader must see (a `note` assumption)",
     compiled(FastOp::second_arg)},
    {NativeId::borrowed, "borrowed", 3, false, false, t_borrowed,
     "a value taken from another entry, listed as an `approx` assumption with the reason", compiled(FastOp::third_arg)},
    {NativeId::hf_config, "hf_config", 1, false, false, t_hf_config,
     "a Hugging Face config.json read before evaluation, as transformer() shape fields",
     evaluator_only("reads a file (a config.json) into a record of numbers and strings")},
    {NativeId::kv_alloc_sim, "kv_alloc_sim", 1, false, false, kvsim::type_rule,
     "paged vs static KV allocation simulation", evaluator_only("a simulation returning a record of counts")},
    {NativeId::serve_sim, "serve_sim", 1, false, true, servesim::type_rule,
     "request-level continuous-batching serving simulation",
     evaluator_only("a request-level simulation returning a record, bounded by the step budget")},
}};

constexpr bool rows_in_id_order() {
  for (std::size_t i = 0; i < kNatives.size(); ++i)
    if (static_cast<std::size_t>(kNatives[i].id) != i) return false;
  return true;
}
static_assert(rows_in_id_order(), "natives.cpp: the table's rows must follow NativeId");

// Every row is compiled or says why not (tests/unit/natives_test.cpp checks the same at run time).
constexpr bool fast_forms_stated() {
  for (const auto& n : kNatives)
    if ((n.fast.op == FastOp::none) != (n.fast.why_not != nullptr) || (n.fast.why_not && !*n.fast.why_not))
      return false;
  return true;
}
static_assert(fast_forms_stated(), "natives.cpp: each row needs compiled(op) or evaluator_only(\"why\")");

}  // namespace

std::span<const NativeImpl> native_table() { return kNatives; }

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
