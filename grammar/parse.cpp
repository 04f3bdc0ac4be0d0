// parse.cpp — runs the PEGTL grammar statement by statement and lowers parse trees to the AST.
// The only translation unit that includes PEGTL.
#include "parse.hpp"

#include <tao/pegtl/contrib/limit_depth.hpp>
#include <tao/pegtl/contrib/parse_tree.hpp>
#include <unordered_map>

#include "grammar.hpp"
#include "symbols.hpp"

namespace mls {
namespace pt = tao::pegtl::parse_tree;

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::plus_minus: return "+-";
    case Dist::uniform: return "uniform";
    case Dist::normal: return "normal";
    case Dist::lognormal: return "lognormal";
    case Dist::triangular: return "triangular";
  }
  return "?";
}

namespace g = grammar;
using Node = pt::node;

// ---------------------------------------------------------------------------------------------
// Error messages for every must<> target (a missing entry is a compile error). MLS_CLOSE marks
// the targets that close something (a bracket, a body, a string): their failure is
// SyntaxFailure::unclosed; every other target's is SyntaxFailure::expected.
template <typename Rule>
inline constexpr const char* error_message = nullptr;
template <typename Rule>
inline constexpr SyntaxFailure failure_of = SyntaxFailure::expected;
#define MLS_MSG(rule, text) \
  template <>               \
  inline constexpr const char* error_message<g::rule> = text
#define MLS_CLOSE(rule, text) \
  MLS_MSG(rule, text);        \
  template <>                 \
  inline constexpr SyntaxFailure failure_of<g::rule> = SyntaxFailure::unclosed
MLS_MSG(add_expr, "expected an expression after the operator");
MLS_MSG(and_expr, "expected an expression after 'or'");
MLS_MSG(annot_body, "expected a unit, a dimension name or the accepted strings (\"a\" | \"b\")");
MLS_MSG(assign, "expected '='");
MLS_MSG(binding, "expected a sweep variable ('name in [...]')");
MLS_MSG(bindings, "expected sweep variables ('name in [...]')");
MLS_CLOSE(body_close, "expected '}' to close the body");
MLS_CLOSE(call_close, "expected ')' to close the call");
MLS_MSG(colon, "expected ':'");
MLS_MSG(comma, "expected ','");
MLS_CLOSE(convention_close, "expected '}' to close the convention");
MLS_MSG(conversion_target, "expected a unit after '->'");
MLS_MSG(digits, "expected digits in the exponent");
MLS_MSG(dim_expr, "expected a dimension expression");
MLS_MSG(dim_factor, "expected a dimension name");
MLS_MSG(display_unit, "expected a unit");
MLS_MSG(domain, "expected a list or range of values");
MLS_MSG(expr, "expected an expression");
MLS_MSG(fat_arrow, "expected '=>'");
MLS_MSG(field_sep, "expected '=' or ':'");
MLS_MSG(if_else, "expected 'else' (every if has an else branch)");
MLS_MSG(if_then, "expected 'then'");
MLS_MSG(kw_in, "expected 'in'");
MLS_MSG(kw_over, "expected 'over'");
MLS_MSG(kw_to, "expected 'to' after 'subject'");
MLS_MSG(lbrace, "expected '{'");
MLS_MSG(let_target, "expected a name after 'let'");
MLS_CLOSE(list_close, "expected ']' to close the list");
MLS_MSG(lparen, "expected '('");
MLS_CLOSE(match_close, "expected '}' to close the match");
MLS_MSG(match_open, "expected '{' after the match subject");
MLS_MSG(mul_expr, "expected an expression after the operator");
MLS_MSG(name, "expected a name");
MLS_MSG(name_raw, "expected a name");
MLS_MSG(not_expr, "expected an expression");
MLS_MSG(number_lit, "expected a number");
MLS_MSG(objective, "expected 'maximize' or 'minimize'");
MLS_MSG(params, "expected '(' and parameters");
MLS_CLOSE(params_close, "expected ')' to close the parameter list");
MLS_CLOSE(paren_close, "expected ')'");
MLS_MSG(path, "expected a name");
MLS_MSG(pattern, "expected a pattern (a name, a string or _)");
MLS_CLOSE(prefixes_close, "expected '}' to close the prefixes");
MLS_CLOSE(preset_close, "expected '}' to close the preset");
MLS_CLOSE(record_close, "expected '}' to close the record");
MLS_CLOSE(rparen, "expected ')'");
MLS_MSG(solve_range, "expected a range 'LO..HI' to solve over");
MLS_MSG(such_that, "expected 'such that' and a comparison");
MLS_CLOSE(string_close, "expected '\"' to close the string");
MLS_MSG(string_lit, "expected a string");
MLS_MSG(top_group, "expected the group key after 'per' (an expression: `top 3 per acc`)");
MLS_MSG(unary_expr, "expected an expression");
MLS_MSG(unit_name, "expected a unit name");
MLS_CLOSE(with_close, "expected '}' to close the update");
MLS_MSG(with_open, "expected '{' after 'with'");
MLS_MSG(zip_domain, "expected 'zip(...)'");
#undef MLS_CLOSE
#undef MLS_MSG

// Every error the parser raises: a PEGTL parse_error (so positions and everything that catches
// one still work) that also says what failed, so decisions switch on that instead of the text.
struct SyntaxRaised : tao::pegtl::parse_error {
  SyntaxRaised(SyntaxFailure f, const char* message, tao::pegtl::position at)
      : tao::pegtl::parse_error(message, std::move(at)), failure(f) {}
  SyntaxFailure failure;
};

// must<X> raises through this control; only must targets are instantiated, so a must target
// without a message is a compile error while optional uses of the same rule never raise.
template <typename Rule>
struct control : tao::pegtl::normal<Rule> {
  template <typename ParseInput, typename... States>
  [[noreturn]] static void raise(const ParseInput& in, States&&... /*unused*/) {
    static_assert(error_message<Rule> != nullptr, "every must<> target needs an error message");
    throw SyntaxRaised(failure_of<Rule>, error_message<Rule>, in.position());
  }
};

// ---------------------------------------------------------------------------------------------
// Actions: remember where each run of whitespace started (so spans exclude trailing blanks and
// comments), and bound the nesting depth of recursive rules.
struct ParseState {
  std::unordered_map<std::size_t, std::size_t> ws_start;  // end byte -> begin byte
};

template <typename Rule>
struct action : tao::pegtl::nothing<Rule> {};
template <>
struct action<g::ws> {
  template <typename ActionInput>
  static void apply(const ActionInput& in, ParseState& st) {
    const std::size_t b = in.iterator().byte;
    const std::size_t e = b + in.size();
    if (b < e) st.ws_start[e] = b;
  }
};
// PEGTL's limit_depth<kMaxParseDepth>, raising SyntaxFailure::too_deep instead of a bare text.
struct depth_limit : tao::pegtl::maybe_nothing {
  template <typename Rule, tao::pegtl::apply_mode A, tao::pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename ParseInput, typename... States>
  [[nodiscard]] static bool match(ParseInput& in, States&&... st) {
    if constexpr (Control<Rule>::enable) {
      const tao::pegtl::internal::depth_guard dg(in.private_depth);  // one level while Rule matches
      if (in.private_depth > kMaxParseDepth)
        throw SyntaxRaised(SyntaxFailure::too_deep, "maximum parser rule nesting depth exceeded", in.position());
      return tao::pegtl::match<Rule, A, M, Action, Control>(in, st...);
    } else {
      return tao::pegtl::match<Rule, A, M, Action, Control>(in, st...);
    }
  }
};
// One level per nesting, whatever the form: every bracketed, listed or branched expression
// enters `expr`; prefix operators and `^` recurse through unary_req and not_req. (Limiting
// unary_expr/not_expr themselves counted three levels per pair of parentheses.)
template <>
struct action<g::expr> : depth_limit {};
template <>
struct action<g::unary_req> : depth_limit {};
template <>
struct action<g::not_req> : depth_limit {};

// Operator chains (`1 + 1 + ...`, `x.a.b...`) are flat in the grammar, so the nesting limit
// above never sees them, and a 16 MiB chain was parsed whole (47 s, 7.7 GB) before the AST's
// depth check refused it. Each chain counts its operators while it is parsed and stops at
// kMaxExprDepth, the depth its AST would reach. Per thread: parses run on pipeline threads.
struct ChainFrame {
  std::size_t links = 0;
  tao::pegtl::internal::iterator start;  // where the chain begins: the error points there
};
thread_local std::vector<ChainFrame> t_chains;
constexpr const char* kChainTooLong = "expression nests too deeply (an operator chain of more than 1000 levels)";
static_assert(kMaxExprDepth == 1000, "kChainTooLong names the limit");

struct chain : tao::pegtl::maybe_nothing {
  template <typename Rule, tao::pegtl::apply_mode A, tao::pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename ParseInput, typename... States>
  [[nodiscard]] static bool match(ParseInput& in, States&&... st) {
    struct Frame {
      explicit Frame(const tao::pegtl::internal::iterator& at) { t_chains.push_back({0, at}); }
      ~Frame() { t_chains.pop_back(); }
      Frame(const Frame&) = delete;
      Frame& operator=(const Frame&) = delete;
    } frame(in.iterator());
    return tao::pegtl::match<Rule, A, M, Action, Control>(in, st...);
  }
};
struct chain_link {
  template <typename ActionInput>
  static void apply(const ActionInput& in, ParseState&) {
    if (t_chains.empty() || ++t_chains.back().links < kMaxExprDepth) return;
    throw SyntaxRaised(SyntaxFailure::chain_too_long, kChainTooLong,
                       tao::pegtl::position(t_chains.back().start, in.input().source()));
  }
};
template <>
struct action<g::add_expr> : chain {};
template <>
struct action<g::mul_expr> : chain {};
template <>
struct action<g::and_expr> : chain {};
template <>
struct action<g::or_expr> : chain {};
template <>
struct action<g::postfix_expr> : chain {};
template <>
struct action<g::op_add> : chain_link {};
template <>
struct action<g::op_sub> : chain_link {};
template <>
struct action<g::op_pm> : chain_link {};
template <>
struct action<g::op_mul> : chain_link {};
template <>
struct action<g::op_div> : chain_link {};
template <>
struct action<g::kw_and> : chain_link {};
template <>
struct action<g::kw_or> : chain_link {};
template <>
struct action<g::field_access> : chain_link {};
template <>
struct action<g::with_clause> : chain_link {};

// Parse-tree nodes kept for lowering. The precedence levels (or, and, comparison, +, *, ^,
// postfix) are folded away when they hold one operand: every operand of every expression went
// through all seven, so a list literal `[1, 1, ...]` kept ten nodes per element (1.2 KB of its
// 2.1 KB per element at peak, issue 19 item 6). The lowering dispatches on node types, so a
// folded level is simply absent.
template <typename Rule>
using selector = pt::selector<
    Rule,
    pt::fold_one::on<g::or_expr, g::and_expr, g::cmp_expr, g::add_expr, g::mul_expr, g::pow_expr, g::postfix_expr>,
    pt::store_content::on<
        g::name_raw, g::number_raw, g::number_lit, g::unit_expr, g::unit_atom, g::unit_exponent, g::unit_div,
        g::unit_mul, g::unit_dot, g::string_lit, g::string_body, g::bool_true, g::bool_false, g::call, g::call_args,
        g::named_arg, g::positional_arg, g::name_ref, g::paren_expr, g::list_lit, g::record_lit, g::record_let,
        g::record_field, g::if_expr, g::match_expr, g::match_arm, g::patterns, g::wildcard, g::field_access,
        g::with_clause, g::with_item, g::path, g::neg_expr, g::op_mul, g::op_div, g::op_pm, g::op_add, g::op_sub,
        g::op_eq, g::op_ne, g::op_le, g::op_ge, g::op_lt, g::op_gt, g::not_prefix, g::conversion, g::target_unit,
        g::dimensionless_target, g::resolution, g::expr, g::let_stmt, g::let_target, g::params, g::param, g::type_annot,
        g::choice_annot, g::param_default, g::set_stmt, g::use_stmt, g::import_stmt, g::show_stmt, g::show_item,
        g::show_label, g::assert_stmt, g::sweep_stmt, g::search_stmt, g::solve_stmt, g::solve_range, g::bindings,
        g::single_binding, g::zip_binding, g::zip_names, g::zip_domain, g::domain, g::range_tail, g::range_step,
        g::range_step_mul, g::range_step_add, g::body, g::body_let, g::where_stmt, g::subject_stmt, g::maximize_obj,
        g::minimize_obj, g::top_stmt, g::pareto_stmt, g::convention_stmt, g::choice, g::convention_default,
        g::preset_stmt, g::preset_extends, g::preset_body, g::dimension_stmt, g::dim_expr, g::dim_factor, g::dim_mul,
        g::dim_div, g::unit_stmt, g::unit_name, g::unit_base_of, g::unit_def, g::prefix_list, g::prefixes_stmt,
        g::prefix_def, g::prefix_name, g::display_stmt, g::display_unit, g::native_stmt, g::call_close, g::paren_close,
        g::list_close, g::record_close, g::with_close, g::match_close, g::body_close>>;

// ---------------------------------------------------------------------------------------------
// Lowering from parse tree to AST.
namespace {

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char c = s[++i];
      out += c == 'n' ? '\n' : (c == 't' ? '\t' : c);
    } else {
      out += s[i];
    }
  }
  return out;
}

class Lowerer {
 public:
  Lowerer(const Sources& src, FileId file, Diagnostics& diags, const ParseState& st)
      : src_(src), file_(file), diags_(diags), st_(st) {}

  Span span(const Node& n) const {
    std::size_t e = n.m_end.byte;
    auto it = st_.ws_start.find(e);
    if (it != st_.ws_start.end() && it->second >= n.m_begin.byte) e = it->second;
    return Span{file_, static_cast<std::uint32_t>(n.m_begin.byte), static_cast<std::uint32_t>(e)};
  }
  static Span join(Span a, Span b) { return Span{a.file, a.begin, std::max(a.end, b.end)}; }

  Sym name_of(const Node& n) const { return intern(n.string_view()); }
  const Node* child(const Node& n, std::size_t i) const {
    return i < n.children.size() ? n.children[i].get() : nullptr;
  }
  template <typename R>
  const Node* find(const Node& n) const {
    for (const auto& c : n.children)
      if (c->is_type<R>()) return c.get();
    return nullptr;
  }
  template <typename R>
  std::vector<const Node*> all(const Node& n) const {
    std::vector<const Node*> out;
    for (const auto& c : n.children)
      if (c->is_type<R>()) out.push_back(c.get());
    return out;
  }

  std::string string_value(const Node& lit) const {
    const Node* body = find<g::string_body>(lit);
    return body ? unescape(body->string_view()) : std::string();
  }

  UnitExpr unit_expr(const Node& n) const {
    UnitExpr u;
    u.span = span(n);
    int sign = 1;
    for (const auto& c : n.children) {
      if (c->is_type<g::unit_div>()) {
        sign = -1;
      } else if (c->is_type<g::unit_mul>() || c->is_type<g::unit_dot>()) {
        sign = 1;
      } else if (c->is_type<g::unit_atom>()) {
        u.terms.push_back(UnitTerm{c->string(), sign, span(*c)});
      } else if (c->is_type<g::unit_exponent>()) {
        const std::string_view t = c->string_view().substr(1);  // drop '^'
        int v = 0;
        bool negative = false;
        for (char ch : t) {
          if (ch == '-')
            negative = true;
          else
            v = std::min(v * 10 + (ch - '0'), 1000);
        }
        if (!u.terms.empty()) {
          u.terms.back().exponent *= negative ? -v : v;
          u.terms.back().span = join(u.terms.back().span, span(*c));
        }
      }
    }
    for (char ch : n.string_view())
      if (ch != ' ' && ch != '\t') u.text += ch;
    return u;
  }

  Num number(const Node& raw) const {
    auto v = Num::parse(raw.string_view());
    if (!v) {
      diags_.error(ErrorKind::parse_number, span(raw), "number literal out of range")
          .help.push_back("literals are exact rationals of at most 1024 bits: from about 1e-300 to 1e300");
      return Num::of_int(0);
    }
    return *v;
  }

  ExprP make(EK k, Span s) const {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->span = s;
    return e;
  }

  ExprP number_lit(const Node& n) const {
    auto e = make(EK::num, span(n));
    e->num = number(*n.children.at(0));
    if (const Node* u = find<g::unit_expr>(n)) e->unit = unit_expr(*u);
    return e;
  }

  // Every lowered expression passes through bounded(): the AST stays at most kMaxExprDepth deep.
  ExprP expr(const Node& n) const { return bounded(expr_node(n)); }

  // Height of a node from its (already bounded) children. Chains like `a + b + c + ...` and
  // `x.a.b.c...` are flat in the grammar (so PEGTL's nesting limit does not see them) but
  // left-deep in the AST, and every later phase recurses over the AST: a chain longer than
  // kMaxExprDepth is reported here and cut, so no phase can run out of stack on it.
  ExprP bounded(ExprP e) const {
    std::uint32_t h = 0;
    auto see = [&h](const ExprP& k) {
      if (k) h = std::max(h, k->depth);
    };
    for (const auto& k : e->kids) see(k);
    for (const auto& it : e->items) see(it.value);
    for (const auto& w : e->with_items) see(w.value);
    for (const auto& a : e->args) see(a.value);
    for (const auto& arm : e->arms) see(arm.body);
    e->depth = h + 1;
    if (e->depth <= kMaxExprDepth) return e;
    if (!too_deep_reported_) {
      too_deep_reported_ = true;
      Span at = e->span;
      auto& d = diags_.error(ErrorKind::parse_too_deep, at,
                             "expression nests too deeply (more than " + std::to_string(kMaxExprDepth) + " levels)");
      d.help.push_back(
          "each operator in a chain like `a + b + c + ...` is one level; use sum([...]) or split it with `let`");
    }
    // The stand-in is a name without a name: the resolver leaves it unbound and the checker
    // gives it the error type, which silences follow-on messages (the file fails anyway).
    return make(EK::name, e->span);
  }

  ExprP expr_node(const Node& n) const {
    if (n.is_type<g::expr>()) {
      ExprP inner = expr(*n.children.at(0));
      const Node* conv = find<g::conversion>(n);
      if (!conv) return inner;
      auto e = make(EK::convert, span(n));
      if (const Node* t = find<g::target_unit>(*conv)) {
        e->target = unit_expr(*t->children.at(0));
      } else {
        e->target.text = "1";
        e->target.span = span(*find<g::dimensionless_target>(*conv));
      }
      if (const Node* r = find<g::resolution>(*conv)) {
        const Node& lit = *r->children.at(0);
        e->resolution = number(*lit.children.at(0));
        if (find<g::unit_expr>(lit))
          diags_.error(ErrorKind::parse_syntax, span(lit), "a resolution is a plain number")
              .help.push_back("write the unit before '@': `x -> ms @ 0.1`");
      }
      e->kids.push_back(std::move(inner));
      return e;
    }
    if (n.is_type<g::or_expr>() || n.is_type<g::and_expr>()) {
      const Op op = n.is_type<g::or_expr>() ? Op::or_ : Op::and_;
      ExprP acc = expr(*n.children.at(0));
      for (std::size_t i = 1; i < n.children.size(); ++i) acc = binary(op, std::move(acc), expr(*n.children[i]));
      return acc;
    }
    if (n.is_type<g::not_prefix>()) {
      auto e = make(EK::unary, span(n));
      e->op = Op::not_;
      e->kids.push_back(expr(*n.children.at(0)));
      return e;
    }
    if (n.is_type<g::cmp_expr>() || n.is_type<g::add_expr>() || n.is_type<g::mul_expr>()) {
      ExprP acc = expr(*n.children.at(0));
      for (std::size_t i = 1; i + 1 < n.children.size(); i += 2) {
        if (n.children[i]->is_type<g::op_pm>()) {
          acc = plus_minus(std::move(acc), expr(*n.children[i + 1]));
          continue;
        }
        acc = binary(op_of(*n.children[i]), std::move(acc), expr(*n.children[i + 1]));
      }
      return acc;
    }
    if (n.is_type<g::neg_expr>()) {
      auto e = make(EK::unary, span(n));
      e->op = Op::neg;
      e->kids.push_back(expr(*n.children.at(0)));
      return e;
    }
    if (n.is_type<g::pow_expr>()) {
      ExprP base = expr(*n.children.at(0));
      if (n.children.size() < 2) return base;
      return binary(Op::pow, std::move(base), expr(*n.children.back()));
    }
    if (n.is_type<g::postfix_expr>()) return postfix(n);
    return primary(n);
  }

  static Op op_of(const Node& n) {
    if (n.is_type<g::op_mul>()) return Op::mul;
    if (n.is_type<g::op_div>()) return Op::div;
    if (n.is_type<g::op_add>()) return Op::add;
    if (n.is_type<g::op_sub>()) return Op::sub;
    if (n.is_type<g::op_eq>()) return Op::eq;
    if (n.is_type<g::op_ne>()) return Op::ne;
    if (n.is_type<g::op_lt>()) return Op::lt;
    if (n.is_type<g::op_le>()) return Op::le;
    if (n.is_type<g::op_gt>()) return Op::gt;
    return Op::ge;
  }

  // ---- uncertain literals (docs/uncertainty.md) ----
  // Their parameters are literals, so every input's distribution is known before anything runs
  // and one draw per input and sample is well defined wherever the literal sits.
  static bool literal_number(const Expr& e) {
    return e.kind == EK::num || (e.kind == EK::unary && e.op == Op::neg && e.kids[0]->kind == EK::num);
  }
  ExprP uncertain(Dist d, Span at, std::vector<ExprP> params) const {
    auto e = make(EK::uncertain, at);
    e->dist = d;
    for (auto& k : params) {
      if (!literal_number(*k)) {
        auto& diag = diags_.error(ErrorKind::uncertainty_decl, k->span,
                                  std::string("expected a number literal (with its unit) as a parameter of ") +
                                      (d == Dist::plus_minus ? "'+-'" : std::string("'") + dist_name(d) + "'") +
                                      ", got an expression");
        diag.help.push_back(
            "an uncertain input's spread is written out: `50_000 h +- 30 %`, `normal(50_000 h, 5_000 h)`");
      }
      e->kids.push_back(std::move(k));
    }
    return bounded(std::move(e));
  }
  ExprP plus_minus(ExprP centre, ExprP spread) const {
    const Span at = join(centre->span, spread->span);
    std::vector<ExprP> ps;
    ps.push_back(std::move(centre));
    ps.push_back(std::move(spread));
    return uncertain(Dist::plus_minus, at, std::move(ps));
  }
  // `normal(m, s)` and the others: calls by name, positional parameters only.
  ExprP distribution(ExprP call) const {
    static constexpr std::pair<const char*, Dist> kinds[] = {{"uniform", Dist::uniform},
                                                             {"normal", Dist::normal},
                                                             {"lognormal", Dist::lognormal},
                                                             {"triangular", Dist::triangular}};
    const std::string nm = sym_name(call->name);
    for (const auto& [text, d] : kinds) {
      if (nm != text) continue;
      const std::size_t want = d == Dist::triangular ? 3 : 2;
      std::vector<ExprP> ps;
      bool named = false;
      for (auto& a : call->args) {
        named = named || a.name != kNoSym;
        ps.push_back(std::move(a.value));
      }
      if (named || ps.size() != want) {
        static constexpr const char* forms[] = {"", "uniform(lo, hi)", "normal(mean, sd)", "lognormal(median, sigma)",
                                                "triangular(lo, mode, hi)"};
        auto& diag = diags_.error(ErrorKind::uncertainty_decl, call->span,
                                  "expected " + std::to_string(want) + " positional parameters for '" + nm + "', got " +
                                      (named ? std::string("named ones") : std::to_string(ps.size())));
        diag.help.push_back(std::string("write ") + forms[static_cast<int>(d)]);
      }
      return uncertain(d, call->span, std::move(ps));
    }
    return call;
  }

  ExprP binary(Op op, ExprP a, ExprP b) const {
    auto e = make(EK::binary, join(a->span, b->span));
    e->op = op;
    e->kids.push_back(std::move(a));
    e->kids.push_back(std::move(b));
    return bounded(std::move(e));
  }

  ExprP postfix(const Node& n) const {
    ExprP acc = primary(*n.children.at(0));
    for (std::size_t i = 1; i < n.children.size(); ++i) {
      const Node& c = *n.children[i];
      if (c.is_type<g::field_access>()) {
        const Node& nm = *c.children.at(0);
        auto e = make(EK::field, join(acc->span, span(nm)));
        e->name = name_of(nm);
        e->name_span = span(nm);
        e->kids.push_back(std::move(acc));
        acc = bounded(std::move(e));
      } else if (c.is_type<g::with_clause>()) {
        auto e = make(EK::with, join(acc->span, close_span(c, find<g::with_close>(c))));
        e->kids.push_back(std::move(acc));
        for (const Node* item : all<g::with_item>(c)) {
          WithItem w;
          for (const auto& part : item->children.at(0)->children) {
            w.path.push_back(name_of(*part));
            w.path_spans.push_back(span(*part));
          }
          w.value = expr(*item->children.at(1));
          e->with_items.push_back(std::move(w));
        }
        acc = bounded(std::move(e));
      }
    }
    return acc;
  }

  // Span from the node start through its closing bracket (not the trailing whitespace).
  Span close_span(const Node& n, const Node* closer) const {
    Span s = span(n);
    if (closer) s.end = static_cast<std::uint32_t>(closer->m_begin.byte + 1);
    return s;
  }

  ExprP primary(const Node& n) const {
    if (n.is_type<g::number_lit>()) return number_lit(n);
    if (n.is_type<g::string_lit>()) {
      auto e = make(EK::str, span(n));
      e->str = string_value(n);
      return e;
    }
    if (n.is_type<g::bool_true>() || n.is_type<g::bool_false>()) {
      const bool v = n.is_type<g::bool_true>();
      Span s = span(n);
      s.end = s.begin + (v ? 4 : 5);
      auto e = make(EK::boolean, s);
      e->bval = v;
      return e;
    }
    if (n.is_type<g::name_ref>()) {
      const Node& nm = *n.children.at(0);
      auto e = make(EK::name, span(nm));
      e->name = name_of(nm);
      e->name_span = e->span;
      return e;
    }
    if (n.is_type<g::call>()) {
      const Node& nm = *n.children.at(0);
      const Node& args = *n.children.at(1);
      auto e = make(EK::call, join(span(nm), close_span(args, find<g::call_close>(args))));
      e->name = name_of(nm);
      e->name_span = span(nm);
      for (const auto& a : args.children) {
        if (a->is_type<g::named_arg>()) {
          Arg arg;
          arg.name = name_of(*a->children.at(0));
          arg.name_span = span(*a->children.at(0));
          arg.value = expr(*a->children.at(1));
          e->args.push_back(std::move(arg));
        } else if (a->is_type<g::positional_arg>()) {
          Arg arg;
          arg.value = expr(*a->children.at(0));
          e->args.push_back(std::move(arg));
        }
      }
      return distribution(std::move(e));
    }
    if (n.is_type<g::paren_expr>()) {
      ExprP inner = expr(*n.children.at(0));
      // Keep the parenthesised span for carets, the inner node otherwise.
      inner->span = close_span(n, find<g::paren_close>(n));
      return inner;
    }
    if (n.is_type<g::list_lit>()) {
      auto e = make(EK::list, close_span(n, find<g::list_close>(n)));
      for (const auto& c : n.children)
        if (!c->is_type<g::list_close>()) e->kids.push_back(expr(*c));
      return e;
    }
    if (n.is_type<g::record_lit>()) {
      auto e = make(EK::record, close_span(n, find<g::record_close>(n)));
      for (const auto& c : n.children) {
        if (c->is_type<g::record_close>()) continue;
        RecordItem item;
        item.is_let = c->is_type<g::record_let>();
        item.name = name_of(*c->children.at(0));
        item.name_span = span(*c->children.at(0));
        item.value = expr(*c->children.at(1));
        e->items.push_back(std::move(item));
      }
      return e;
    }
    if (n.is_type<g::if_expr>()) {
      auto e = make(EK::if_, span(n));
      for (const auto& c : n.children) e->kids.push_back(expr(*c));
      return e;
    }
    if (n.is_type<g::match_expr>()) {
      auto e = make(EK::match, close_span(n, find<g::match_close>(n)));
      e->kids.push_back(expr(*n.children.at(0)));
      for (const Node* arm : all<g::match_arm>(n)) {
        MatchArm m;
        m.span = span(*arm);
        for (const auto& p : arm->children.at(0)->children) {
          Pattern pat;
          pat.span = span(*p);
          if (p->is_type<g::wildcard>()) {
            pat.kind = Pattern::K::wildcard;
            pat.span.end = pat.span.begin + 1;
          } else if (p->is_type<g::string_lit>()) {
            pat.kind = Pattern::K::str;
            pat.str = string_value(*p);
          } else {
            pat.kind = Pattern::K::name;
            pat.name = name_of(*p);
          }
          m.patterns.push_back(std::move(pat));
        }
        m.body = expr(*arm->children.at(1));
        e->arms.push_back(std::move(m));
      }
      return e;
    }
    if (n.is_type<g::expr>() || n.is_type<g::or_expr>() || n.is_type<g::and_expr>() || n.is_type<g::cmp_expr>() ||
        n.is_type<g::add_expr>() || n.is_type<g::mul_expr>() || n.is_type<g::pow_expr>() ||
        n.is_type<g::postfix_expr>())
      return expr_node(n);
    // Unreachable for well-formed trees; keep going with a harmless literal.
    diags_.error(ErrorKind::internal, span(n), "unexpected parse node " + std::string(n.type));
    return make(EK::num, span(n));
  }

  // ---- statements ----
  std::vector<Param> params(const Node& n) const {
    std::vector<Param> out;
    for (const Node* p : all<g::param>(n)) {
      Param prm;
      prm.name = name_of(*p->children.at(0));
      prm.span = span(*p);
      if (const Node* t = find<g::type_annot>(*p)) {
        const Node& body = *t->children.at(0);
        if (body.is_type<g::choice_annot>()) {
          prm.choices_span = span(body);
          for (const auto& s : body.children)
            if (s->is_type<g::string_lit>()) prm.choices.push_back(string_value(*s));
        } else {
          prm.annotation = unit_expr(body);
        }
      }
      if (const Node* d = find<g::param_default>(*p)) prm.default_value = expr(*d->children.at(0));
      out.push_back(std::move(prm));
    }
    return out;
  }

  std::vector<ShowItem> show_items(const Node& n) const {
    std::vector<ShowItem> out;
    for (const Node* it : all<g::show_item>(n)) {
      ShowItem s;
      s.span = span(*it);
      const Node* label = find<g::show_label>(*it);
      s.expr = expr(*it->children.back());
      if (label) {
        s.label = label->children.at(0)->string();
        s.explicit_label = true;
      } else {
        // The label of `show x -> h` is "x": the expression without its conversion.
        const Expr* core = s.expr.get();
        if (core->kind == EK::convert) core = core->kids[0].get();
        s.label = std::string(src_.slice(core->span));
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  Stmt use_or_set(const Node& n) const {
    Stmt s;
    s.span = span(n);
    if (n.is_type<g::use_stmt>()) {
      s.kind = SK::use;
      s.name = name_of(*n.children.at(0));
      s.name_span = span(*n.children.at(0));
      s.choice = name_of(*n.children.at(1));
      s.choice_span = span(*n.children.at(1));
    } else {
      s.kind = SK::set;
      const Node& path = *n.children.at(0);
      for (const auto& part : path.children) s.path.push_back(name_of(*part));
      s.name = s.path.front();
      s.name_span = span(path);
      s.value = expr(*n.children.at(1));
    }
    return s;
  }

  Binding binding(const Node& n) const {
    Binding b;
    b.span = span(n);
    if (n.is_type<g::zip_binding>()) {
      b.zip = true;
      for (const auto& nm : n.children.at(0)->children) {
        b.names.push_back(name_of(*nm));
        b.name_spans.push_back(span(*nm));
      }
      for (const auto& d : n.children.at(1)->children) b.domains.push_back(expr(*d));
      return b;
    }
    b.names.push_back(name_of(*n.children.at(0)));
    b.name_spans.push_back(span(*n.children.at(0)));
    const Node& dom = *n.children.at(1);
    b.domains.push_back(expr(*dom.children.at(0)));
    if (const Node* r = find<g::range_tail>(dom)) {
      b.range_to = expr(*r->children.at(0));
      if (const Node* st = find<g::range_step>(*r)) {
        b.step_op = find<g::range_step_mul>(*st) ? '*' : '+';
        b.step = expr(*st->children.back());
      }
    }
    return b;
  }

  BodyItem body_item(const Node& n) const {
    BodyItem b;
    b.span = span(n);
    if (n.is_type<g::body_let>()) {
      b.kind = BK::let;
      b.name = name_of(*n.children.at(0));
      b.exprs.push_back(expr(*n.children.at(1)));
    } else if (n.is_type<g::show_stmt>()) {
      b.kind = BK::show;
      b.shows = show_items(n);
    } else if (n.is_type<g::assert_stmt>()) {
      b.kind = BK::assert_;
      b.exprs.push_back(expr(*n.children.at(0)));
      if (const Node* m = find<g::string_lit>(n)) b.message = string_value(*m);
    } else if (n.is_type<g::where_stmt>()) {
      b.kind = BK::where;
      b.exprs.push_back(expr(*n.children.at(0)));
    } else if (n.is_type<g::subject_stmt>()) {
      b.kind = BK::subject;
      for (const auto& c : n.children) b.exprs.push_back(expr(*c));
    } else if (n.is_type<g::maximize_obj>() || n.is_type<g::minimize_obj>()) {
      b.kind = n.is_type<g::maximize_obj>() ? BK::maximize : BK::minimize;
      b.exprs.push_back(expr(*n.children.at(0)));
    } else if (n.is_type<g::top_stmt>()) {
      b.kind = BK::top;
      const Num v = number(*n.children.at(0)->children.at(0));
      const auto k = to_int(v);
      if (!k || *k < 1 || find<g::unit_expr>(*n.children.at(0)))
        diags_.error(ErrorKind::sweep_decl, span(*n.children.at(0)), "'top' needs a positive whole number");
      b.top = k.value_or(1);
      if (n.children.size() > 1) b.exprs.push_back(expr(*n.children.at(1)));  // `per EXPR`: the group key
    } else if (n.is_type<g::pareto_stmt>()) {
      b.kind = BK::pareto;
      for (const auto& c : n.children) {
        b.maximize.push_back(c->is_type<g::maximize_obj>());
        b.exprs.push_back(expr(*c->children.at(0)));
      }
    }
    return b;
  }

  // `solve NAME in LO..HI [by STEP] such that EXPR REL TARGET`: one range binding (as in a sweep)
  // and the comparison as the value; REL is ==, <= or >= (< and > mean the same boundary).
  void solve(const Node& n, Stmt& s) const {
    s.kind = SK::solve;
    s.name = name_of(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
    Binding b;
    const Node& range = *n.children.at(1);
    b.span = span(range);
    b.names.push_back(s.name);
    b.name_spans.push_back(s.name_span);
    b.domains.push_back(expr(*range.children.at(0)));
    b.range_to = expr(*range.children.at(1));
    if (const Node* st = find<g::range_step>(range)) {
      b.step_op = find<g::range_step_mul>(*st) ? '*' : '+';
      b.step = expr(*st->children.back());
      if (b.step_op == '*') {
        auto& d = diags_.error(ErrorKind::solve_decl, span(*st),
                               "a solve range steps by adding a whole number, not by multiplying");
        d.help.push_back("write `by 4` (16, 20, 24, ...); the scan is already geometric over a wide range");
      }
    }
    s.bindings.push_back(std::move(b));
    s.value = expr(*n.children.back());
    const Expr& c = *s.value;
    const bool cmp = c.kind == EK::binary &&
                     (c.op == Op::eq || c.op == Op::le || c.op == Op::ge || c.op == Op::lt || c.op == Op::gt);
    if (!cmp) {
      auto& d =
          diags_.error(ErrorKind::solve_decl, c.span,
                       std::string("expected a comparison 'EXPR == TARGET' (or <=, >=), got ") +
                           (c.kind == EK::binary ? std::string("another operator") : std::string("an expression")));
      d.help.push_back("solve finds where EXPR equals TARGET, or the boundary of EXPR <= TARGET");
    }
  }

  // One statement: its span, then the lowering of its kind (one function each, below).
  Stmt statement(const Node& n) const {
    too_deep_reported_ = false;
    if (n.is_type<g::set_stmt>() || n.is_type<g::use_stmt>()) return use_or_set(n);
    Stmt s;
    s.span = span(n);
    if (n.is_type<g::import_stmt>()) {
      import_stmt(n, s);
    } else if (n.is_type<g::let_stmt>()) {
      let_stmt(n, s);
    } else if (n.is_type<g::show_stmt>()) {
      show_stmt(n, s);
    } else if (n.is_type<g::assert_stmt>()) {
      assert_stmt(n, s);
    } else if (n.is_type<g::sweep_stmt>() || n.is_type<g::search_stmt>()) {
      sweep_stmt(n, s);
    } else if (n.is_type<g::solve_stmt>()) {
      solve(n, s);
    } else if (n.is_type<g::convention_stmt>()) {
      convention_stmt(n, s);
    } else if (n.is_type<g::preset_stmt>()) {
      preset_stmt(n, s);
    } else if (n.is_type<g::dimension_stmt>()) {
      dimension_stmt(n, s);
    } else if (n.is_type<g::unit_stmt>()) {
      unit_stmt(n, s);
    } else if (n.is_type<g::prefixes_stmt>()) {
      prefixes_stmt(n, s);
    } else if (n.is_type<g::display_stmt>()) {
      display_stmt(n, s);
    } else if (n.is_type<g::native_stmt>()) {
      native_stmt(n, s);
    }
    return s;
  }

  void import_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::import_;
    s.str = string_value(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
  }

  void let_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::let;
    const Node& target = *n.children.at(0);
    s.name = name_of(*target.children.at(0));
    s.name_span = span(*target.children.at(0));
    if (const Node* p = find<g::params>(target)) {
      s.has_params = true;
      s.params = params(*p);
    }
    s.value = expr(*n.children.at(1));
  }

  void show_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::show;
    s.shows = show_items(n);
  }

  void assert_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::assert_;
    ShowItem item;
    item.expr = expr(*n.children.at(0));
    item.span = item.expr->span;
    item.label = std::string(src_.slice(item.span));
    s.shows.push_back(std::move(item));
    if (const Node* m = find<g::string_lit>(n)) s.str = string_value(*m);
  }

  void sweep_stmt(const Node& n, Stmt& s) const {
    s.kind = n.is_type<g::sweep_stmt>() ? SK::sweep : SK::search;
    s.name = name_of(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
    for (const auto& b : n.children.at(1)->children) s.bindings.push_back(binding(*b));
    for (const auto& item : find<g::body>(n)->children)
      if (!item->is_type<g::body_close>()) s.body.push_back(body_item(*item));
  }

  void convention_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::convention;
    s.name = name_of(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
    s.str = string_value(*n.children.at(1));
    for (std::size_t i = 2; i < n.children.size(); ++i) {
      const Node& c = *n.children[i];
      if (c.is_type<g::choice>()) {
        s.choices.push_back(
            Choice{name_of(*c.children.at(0)), string_value(*c.children.at(1)), span(*c.children.at(0))});
      } else if (c.is_type<g::convention_default>()) {
        if (s.default_choice != kNoSym)
          diags_.error(ErrorKind::convention_decl, span(c), "a convention has one default");
        s.default_choice = name_of(*c.children.at(0));
        s.default_span = span(*c.children.at(0));
      }
    }
  }

  void preset_stmt(const Node& n, Stmt& s) const {
    s.name = name_of(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
    const Node* desc = find<g::string_lit>(n);
    const Node* ext = find<g::preset_extends>(n);
    const Node* body = find<g::preset_body>(n);
    s.kind = (desc || ext || body) ? SK::preset_def : SK::preset_select;
    if (desc) s.str = string_value(*desc);
    if (ext) {
      s.extends = name_of(*ext->children.at(0));
      s.extends_span = span(*ext->children.at(0));
    }
    if (body)
      for (const auto& item : body->children)
        if (item->is_type<g::use_stmt>() || item->is_type<g::set_stmt>()) s.items.push_back(use_or_set(*item));
  }

  void dimension_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::dimension;
    s.name = name_of(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
    if (const Node* de = find<g::dim_expr>(n)) {
      int sign = 1;
      for (const auto& c : de->children) {
        if (c->is_type<g::dim_div>()) {
          sign = -1;
        } else if (c->is_type<g::dim_mul>()) {
          sign = 1;
        } else if (c->is_type<g::dim_factor>()) {
          int ex = 1;
          if (const Node* e = find<g::unit_exponent>(*c)) {
            // Saturating parse: atoi is undefined on overflow and the digits are unbounded.
            int v = 0;
            for (char ch : e->string_view().substr(1))
              if (ch >= '0' && ch <= '9') v = std::min(v * 10 + (ch - '0'), 100);
            ex = e->string_view().find('-') != std::string_view::npos ? -v : v;
          }
          s.dim_factors.emplace_back(name_of(*c->children.at(0)), sign * ex);
          s.dim_spans.push_back(span(*c));
        }
      }
    }
    if (const Node* d = find<g::string_lit>(n)) s.str = string_value(*d);
  }

  void unit_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::unit;
    const Node& un = *n.children.at(0);
    s.unit_name = un.children.at(0)->string();
    s.name_span = span(*un.children.at(0));
    if (const Node* b = find<g::unit_base_of>(n)) {
      s.base_dim = name_of(*b->children.at(0));
      s.choice_span = span(*b->children.at(0));
    }
    if (const Node* d = find<g::unit_def>(n)) s.value = expr(*d->children.at(0));
    if (const Node* d = find<g::string_lit>(n)) s.str = string_value(*d);
    if (const Node* pl = find<g::prefix_list>(n))
      for (const auto& c : pl->children) s.prefix_sets.push_back(name_of(*c));
  }

  void prefixes_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::prefixes;
    s.name = name_of(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
    for (const Node* d : all<g::prefix_def>(n)) {
      const Node& lit = *d->children.at(1);
      s.prefix_defs.emplace_back(d->children.at(0)->string(), number(*lit.children.at(0)));
      if (find<g::unit_expr>(lit)) diags_.error(ErrorKind::unit_decl, span(lit), "a prefix factor is a plain number");
      // Trim the whitespace the prefix_name token swallowed.
      auto& nm = s.prefix_defs.back().first;
      while (!nm.empty() && (nm.back() == ' ' || nm.back() == '\t' || nm.back() == '\n' || nm.back() == '\r'))
        nm.pop_back();
    }
  }

  void display_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::display;
    for (const Node* d : all<g::display_unit>(n)) s.display_units.push_back(unit_expr(*d->children.at(0)));
  }

  void native_stmt(const Node& n, Stmt& s) const {
    s.kind = SK::native;
    s.name = name_of(*n.children.at(0));
    s.name_span = span(*n.children.at(0));
    s.has_params = true;
    s.params = params(*n.children.at(1));
    if (const Node* d = find<g::string_lit>(n)) s.str = string_value(*d);
  }

 private:
  const Sources& src_;
  FileId file_;
  Diagnostics& diags_;
  const ParseState& st_;
  mutable bool too_deep_reported_ = false;  // one report per statement
};

// ---------------------------------------------------------------------------------------------
// Error reporting and resynchronisation.

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// What the parser found at the error position, for "expected X, got Y".
std::string describe_at(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return "end of input";
  const char c = text[pos];
  if (c == '\n' || c == '\r') return "end of line";
  if (static_cast<unsigned char>(c) >= 0x80 || c < 0x20) return "a non-ASCII or control character";
  if (is_word_char(c)) {
    std::size_t e = pos;
    while (e < text.size() && is_word_char(text[e]) && e - pos < 24) ++e;
    return "'" + std::string(text.substr(pos, e - pos)) + "'";
  }
  return "'" + std::string(1, c) + "'";
}

// The innermost bracket opened in [from, to) and not closed there (skipping strings/comments).
std::optional<std::size_t> unclosed_opener(std::string_view text, std::size_t from, std::size_t to) {
  std::vector<std::size_t> stack;
  bool in_str = false;
  for (std::size_t i = from; i < to && i < text.size(); ++i) {
    const char c = text[i];
    if (in_str) {
      if (c == '\\')
        ++i;
      else if (c == '"' || c == '\n')
        in_str = false;
      continue;
    }
    if (c == '#') {
      while (i < to && text[i] != '\n') ++i;
      continue;
    }
    if (c == '"') in_str = true;
    if (c == '(' || c == '[' || c == '{') stack.push_back(i);
    if ((c == ')' || c == ']' || c == '}') && !stack.empty()) stack.pop_back();
  }
  if (stack.empty()) return std::nullopt;
  return stack.back();
}

const char* const kStatementWords[] = {"let",       "set",    "use",      "preset",  "import",
                                       "show",      "assert", "sweep",    "search",  "convention",
                                       "dimension", "unit",   "prefixes", "display", "native"};

bool starts_statement(std::string_view line) {
  for (const char* w : kStatementWords) {
    const std::size_t n = std::strlen(w);
    if (line.size() >= n && line.compare(0, n, w) == 0 && (line.size() == n || !is_word_char(line[n]))) return true;
  }
  return false;
}

// After an error: the next line, starting in column 1, that begins a statement.
std::size_t resync(const SourceFile& f, std::size_t err) {
  const LineCol lc = f.locate(static_cast<std::uint32_t>(std::min(err, f.text.size())));
  // An error right at a statement keyword in column 1 (an unclosed bracket ran into the next
  // statement): resume at that statement rather than skipping it.
  if (lc.col == 1 && err < f.text.size() && starts_statement(f.line_text(lc.line))) return err;
  const std::uint32_t line = lc.line;
  for (std::uint32_t l = line + 1; l <= f.line_starts.size(); ++l)
    if (starts_statement(f.line_text(l))) return f.line_starts[l - 1];
  return f.text.size();
}

template <typename Rule>
struct ParseOutcome {
  std::unique_ptr<Node> root;
  std::size_t end = 0;
  bool failed = false;
  std::size_t error_pos = 0;
  SyntaxFailure failure = SyntaxFailure::expected;
  std::string message;
};

template <typename Rule>
ParseOutcome<Rule> run(const SourceFile& f, std::size_t pos, ParseState& st) {
  ParseOutcome<Rule> out;
  const LineCol lc = f.locate(static_cast<std::uint32_t>(pos));
  tao::pegtl::memory_input<> in(f.text.data() + pos, f.text.data() + f.text.size(), f.name, pos, lc.line, lc.col);
  try {
    out.root = pt::parse<Rule, selector, action, control>(in, st);
    out.end = in.byte();
  } catch (const SyntaxRaised& e) {
    out.failed = true;
    out.error_pos = e.positions().empty() ? pos : e.positions().front().byte;
    out.failure = e.failure;
    out.message = std::string(e.message());
  }
  return out;
}

void report(Diagnostics& diags, const SourceFile& f, FileId file, std::size_t stmt_start, std::size_t pos,
            SyntaxFailure failure, const std::string& message) {
  if (failure == SyntaxFailure::chain_too_long) {
    diags
        .error(ErrorKind::parse_too_deep,
               Span{file, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + 1)}, message)
        .help.push_back(
            "each operator in a chain like `a + b + c + ...` is one level; use sum([...]) or split it "
            "with `let`");
    return;
  }
  if (failure == SyntaxFailure::too_deep) {
    diags
        .error(ErrorKind::parse_too_deep,
               Span{file, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + 1)},
               "expressions nest too deeply (more than " + std::to_string(kMaxParseDepth) + " levels)")
        .help.push_back("split the expression with `let` bindings");
    return;
  }
  std::string got = describe_at(f.text, pos);
  const bool at_end = pos >= f.text.size();
  std::uint32_t b = static_cast<std::uint32_t>(std::min(pos, f.text.size()));
  std::uint32_t e = at_end ? b : b + 1;
  // What was missing belongs after the last token, not at the start of whatever comes lines
  // later (`let x = 1 +` then `let y` on the next line): put the caret there and say where
  // the unexpected token is.
  std::size_t prev = std::min(pos, f.text.size());
  while (prev > stmt_start && std::isspace(static_cast<unsigned char>(f.text[prev - 1]))) --prev;
  const std::uint32_t err_line = f.locate(b).line;
  const std::uint32_t prev_line = f.locate(static_cast<std::uint32_t>(prev)).line;
  if (prev_line < err_line) {
    if (!at_end) got += err_line == prev_line + 1 ? " on the next line" : " on line " + std::to_string(err_line);
    b = e = static_cast<std::uint32_t>(prev);
  }
  const bool unclosed = failure == SyntaxFailure::unclosed;
  Diagnostic& d = diags.error(unclosed ? ErrorKind::parse_unclosed : ErrorKind::parse_syntax, Span{file, b, e},
                              message + ", got " + got);
  if (unclosed) {
    if (auto opener = unclosed_opener(f.text, stmt_start, pos)) {
      const auto o = static_cast<std::uint32_t>(*opener);
      d.notes.push_back({Span{file, o, o + 1}, std::string("unclosed '") + f.text[*opener] + "' opened here"});
    }
  }
}

// The name a statement at `pos` defines, if it starts `let NAME`.
std::optional<std::string> let_name(std::string_view text, std::size_t pos) {
  if (text.compare(pos, 3, "let") != 0 || pos + 3 >= text.size() ||
      !std::isspace(static_cast<unsigned char>(text[pos + 3])))
    return std::nullopt;
  std::size_t b = pos + 3;
  while (b < text.size() && (text[b] == ' ' || text[b] == '\t')) ++b;
  std::size_t e = b;
  while (e < text.size() && is_word_char(text[e])) ++e;
  if (e == b || std::isdigit(static_cast<unsigned char>(text[b]))) return std::nullopt;
  return std::string(text.substr(b, e - b));
}

std::size_t skip_ws(const SourceFile& f, std::size_t pos, ParseState& st) {
  auto r = run<g::leading_ws>(f, pos, st);
  return r.failed ? pos : r.end;
}

}  // namespace

Module parse_module(const Sources& src, FileId file, Diagnostics& diags) {
  Module m;
  m.file = file;
  const SourceFile& f = src.get(file);
  ParseState st;
  std::size_t pos = skip_ws(f, 0, st);
  Lowerer low(src, file, diags, st);
  std::size_t errors = 0;
  while (pos < f.text.size()) {
    // A file that is mostly not mls (generated, mangled, the wrong file) would give an error
    // per line: past kMaxParseErrors the rest of the file is not parsed.
    if (errors == kMaxParseErrors) {
      // Reported at the top of the file, so that it is among the diagnostics shown first.
      diags
          .error(ErrorKind::parse_syntax, Span{file, 0, 0},
                 "more than " + std::to_string(kMaxParseErrors) + " syntax errors: parsing stopped at line " +
                     std::to_string(f.locate(static_cast<std::uint32_t>(pos)).line))
          .help.push_back("is this an mls file?");
      m.skipped.push_back(
          {Span{file, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(f.text.size())}, true});
      break;
    }
    auto r = run<g::one_statement>(f, pos, st);
    if (r.failed) {
      ++errors;
      report(diags, f, file, pos, r.error_pos, r.failure, r.message);
      if (auto name = let_name(f.text, pos)) m.broken.push_back(intern(*name));
      const std::size_t resume = resync(f, r.error_pos);
      m.skipped.push_back({Span{file, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(resume)}});
      pos = skip_ws(f, resume, st);
      continue;
    }
    if (!r.root || r.root->children.empty() || r.end <= pos) {
      ++errors;
      const std::string got = describe_at(f.text, pos);
      diags.error(ErrorKind::parse_syntax,
                  Span{file, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + 1)},
                  "expected a statement (let, show, sweep, ...), got " + got);
      const std::size_t resume = resync(f, pos);
      m.skipped.push_back({Span{file, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(resume)}});
      pos = skip_ws(f, resume, st);
      continue;
    }
    m.stmts.push_back(low.statement(*r.root->children.front()));
    pos = r.end;
  }
  return m;
}

std::optional<SyntaxError> first_syntax_error(const Sources& src, FileId file) {
  const SourceFile& f = src.get(file);
  ParseState st;
  std::size_t pos = skip_ws(f, 0, st);
  while (pos < f.text.size()) {
    auto r = run<g::one_statement>(f, pos, st);
    if (r.failed) return SyntaxError{r.failure, r.error_pos, r.message};
    if (!r.root || r.root->children.empty() || r.end <= pos) break;  // not a statement: no raised error
    pos = r.end;
  }
  return std::nullopt;
}

Module parse_repl(const Sources& src, FileId file, Diagnostics& diags, bool& incomplete, bool final) {
  Module m;
  m.file = file;
  incomplete = false;
  const SourceFile& f = src.get(file);
  ParseState st;
  std::size_t end = f.text.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(f.text[end - 1]))) --end;
  std::size_t pos = skip_ws(f, 0, st);
  Lowerer low(src, file, diags, st);
  while (pos < f.text.size()) {
    auto r = run<tao::pegtl::seq<g::repl_item, g::opt_sep>>(f, pos, st);
    if (r.failed) {
      // Lua's trick: an error exactly at the end of the input means "keep reading".
      if (!final && r.error_pos >= end && r.failure != SyntaxFailure::too_deep &&
          r.failure != SyntaxFailure::chain_too_long) {
        incomplete = true;
        m.stmts.clear();
        return m;
      }
      report(diags, f, file, pos, r.error_pos, r.failure, r.message);
      return m;
    }
    if (!r.root || r.root->children.empty() || r.end <= pos) {
      diags.error(ErrorKind::parse_syntax,
                  Span{file, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + 1)},
                  "expected a statement or an expression, got " + describe_at(f.text, pos));
      return m;
    }
    const Node& c = *r.root->children.front();
    if (c.is_type<g::expr>()) {
      // A bare expression is shown like `show`.
      Stmt s;
      s.kind = SK::show;
      s.span = low.span(c);
      ShowItem item;
      item.expr = low.expr(c);
      item.span = item.expr->span;
      const Expr* core = item.expr.get();
      if (core->kind == EK::convert) core = core->kids[0].get();
      item.label = std::string(src.slice(core->span));
      s.shows.push_back(std::move(item));
      m.stmts.push_back(std::move(s));
    } else {
      m.stmts.push_back(low.statement(c));
    }
    pos = r.end;
  }
  return m;
}

ExprP parse_expression(const Sources& src, FileId file, Diagnostics& diags) {
  const SourceFile& f = src.get(file);
  ParseState st;
  const std::size_t start = skip_ws(f, 0, st);
  auto r = run<tao::pegtl::seq<g::expr, tao::pegtl::eof>>(f, start, st);
  if (r.failed || !r.root || r.root->children.empty()) {
    report(diags, f, file, 0, r.failed ? r.error_pos : 0, r.failure, r.failed ? r.message : "expected a value");
    return nullptr;
  }
  Lowerer low(src, file, diags, st);
  return low.expr(*r.root->children.front());
}

}  // namespace mls
