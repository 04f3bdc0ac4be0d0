// grammar.hpp — the PEGTL grammar of mls, rules only (no semantics).
// Included by grammar/parse.cpp alone: PEGTL is heavy to compile, so it stays in one TU.
#pragma once

#include <tao/pegtl.hpp>

namespace mls::grammar {
namespace p = tao::pegtl;
using p::at;
using p::eof;
using p::identifier_first;
using p::identifier_other;
using p::must;
using p::not_at;
using p::one;
using p::opt;
using p::plus;
using p::seq;
using p::sor;
using p::star;
using p::string;
using p::until;

// ---- whitespace: every token rule consumes the whitespace that follows it ----
struct comment : seq<one<'#'>, until<p::eolf>> {};
struct space_char : one<' ', '\t', '\r', '\n'> {};
struct ws : star<sor<space_char, comment>> {};
// Spaces on the same line only: a unit must sit on the line of its number, so that
// `a: 1` followed by a new field `b: 2` never reads as "1 b" (one bit).
struct line_blank : star<one<' ', '\t'>> {};

// ---- keywords ----
#define MLS_KW(name, text)                                \
  struct kw_##name : seq<TAO_PEGTL_KEYWORD(text), ws> {}; \
  struct kw_##name##_raw : TAO_PEGTL_KEYWORD(text) {}
MLS_KW(let, "let");
MLS_KW(set, "set");
MLS_KW(use, "use");
MLS_KW(preset, "preset");
MLS_KW(extends, "extends");
MLS_KW(import, "import");
MLS_KW(show, "show");
MLS_KW(assert, "assert");
MLS_KW(sweep, "sweep");
MLS_KW(search, "search");
MLS_KW(over, "over");
MLS_KW(in, "in");
MLS_KW(by, "by");
MLS_KW(zip, "zip");
MLS_KW(where, "where");
MLS_KW(subject, "subject");
MLS_KW(to, "to");
MLS_KW(maximize, "maximize");
MLS_KW(minimize, "minimize");
MLS_KW(top, "top");
MLS_KW(per, "per");
MLS_KW(pareto, "pareto");
MLS_KW(solve, "solve");
MLS_KW(such, "such");
MLS_KW(that, "that");
MLS_KW(if, "if");
MLS_KW(then, "then");
MLS_KW(else, "else");
MLS_KW(match, "match");
MLS_KW(with, "with");
MLS_KW(and, "and");
MLS_KW(or, "or");
MLS_KW(not, "not");
MLS_KW(true, "true");
MLS_KW(false, "false");
MLS_KW(convention, "convention");
MLS_KW(default, "default");
MLS_KW(dimension, "dimension");
MLS_KW(unit, "unit");
MLS_KW(prefixes, "prefixes");
MLS_KW(display, "display");
MLS_KW(native, "native");
#undef MLS_KW

// Words that can never be a name or a unit.
struct reserved
    : sor<kw_let_raw, kw_set_raw, kw_use_raw, kw_preset_raw, kw_import_raw, kw_show_raw, kw_assert_raw, kw_sweep_raw,
          kw_search_raw, kw_over_raw, kw_in_raw, kw_if_raw, kw_then_raw, kw_else_raw, kw_match_raw, kw_with_raw,
          kw_and_raw, kw_or_raw, kw_not_raw, kw_true_raw, kw_false_raw, kw_convention_raw, kw_dimension_raw,
          kw_unit_raw, kw_prefixes_raw, kw_display_raw, kw_native_raw, kw_pareto_raw, kw_solve_raw> {};
// Contextual words: names elsewhere, but never units (they follow numbers in sweeps).
struct unit_stopword
    : sor<reserved, kw_by_raw, kw_where_raw, kw_subject_raw, kw_to_raw, kw_top_raw, kw_per_raw, kw_maximize_raw,
          kw_minimize_raw, kw_default_raw, kw_extends_raw, kw_zip_raw, kw_such_raw, kw_that_raw> {};

struct name_raw : seq<not_at<reserved>, p::identifier> {};
struct name : seq<name_raw, ws> {};

// ---- punctuation ----
template <char C>
struct sym : seq<one<C>, ws> {};
struct comma : sym<','> {};
struct colon : sym<':'> {};
struct lparen : sym<'('> {};
struct rparen : sym<')'> {};
struct lbracket : sym<'['> {};
struct rbracket : sym<']'> {};
struct lbrace : sym<'{'> {};
struct rbrace : sym<'}'> {};
struct assign : seq<one<'='>, not_at<one<'=', '>'>>, ws> {};
struct field_sep : sor<assign, colon> {};
struct arrow : seq<string<'-', '>'>, ws> {};
struct fat_arrow : seq<string<'=', '>'>, ws> {};
struct dotdot : seq<string<'.', '.'>, ws> {};
struct opt_sep : opt<sor<comma, sym<';'>>> {};

// ---- literals ----
struct digits : seq<p::digit, star<sor<p::digit, seq<one<'_'>, at<p::digit>>>>> {};
struct number_raw : seq<digits, opt<one<'.'>, digits>, opt<one<'e', 'E'>, opt<one<'+', '-'>>, must<digits>>> {};

// Units: identifier-like atoms, plus '%' and the micro sign, joined by / * · without spaces.
struct micro : string<'\xC2', '\xB5'> {};
struct unit_first : sor<identifier_first, micro> {};
struct unit_word : seq<unit_first, star<sor<identifier_other, micro>>> {};
struct unit_atom : sor<seq<not_at<unit_stopword>, unit_word>, one<'%'>> {};
struct unit_exponent : seq<one<'^'>, opt<one<'-'>>, plus<p::digit>> {};
struct unit_factor : seq<unit_atom, opt<unit_exponent>> {};
struct unit_mul : one<'*'> {};
struct unit_div : one<'/'> {};
struct unit_dot : string<'\xC2', '\xB7'> {};
struct unit_op : sor<unit_div, unit_mul, unit_dot> {};
struct unit_expr : seq<unit_factor, star<unit_op, unit_factor>> {};
struct number_lit : seq<number_raw, opt<line_blank, unit_expr>, ws> {};

struct escape : seq<one<'\\'>, one<'"', '\\', 'n', 't'>> {};
struct string_char : sor<escape, seq<not_at<one<'"', '\n'>>, p::utf8::any>> {};
struct string_body : star<string_char> {};
struct string_close : one<'"'> {};
struct string_lit : seq<one<'"'>, string_body, must<string_close>, ws> {};

struct bool_true : kw_true {};
struct bool_false : kw_false {};

// ---- expressions ----
struct expr;
struct expr_req : must<expr> {};

struct arg_label : seq<name, field_sep> {};
struct named_arg : seq<arg_label, expr_req> {};
struct positional_arg : seq<expr> {};
struct argument : sor<named_arg, positional_arg> {};
struct call_close : rparen {};
struct call_args : seq<one<'('>, ws, opt<argument, star<comma, argument>, opt<comma>>, must<call_close>> {};
struct call : seq<name_raw, call_args> {};
struct name_ref : name {};

struct paren_close : rparen {};
struct paren_expr : seq<lparen, expr_req, must<paren_close>> {};

struct list_close : rbracket {};
struct list_lit : seq<lbracket, opt<expr, star<comma, expr>, opt<comma>>, must<list_close>> {};

struct field_name : name {};
struct record_let : seq<kw_let, must<name>, must<assign>, expr_req> {};
struct record_field : seq<field_name, field_sep, expr_req> {};
struct record_item : sor<record_let, record_field> {};
struct record_close : rbrace {};
struct record_lit : seq<lbrace, star<record_item, opt_sep>, must<record_close>> {};

struct if_then : kw_then {};
struct if_else : kw_else {};
struct if_expr : seq<kw_if, expr_req, must<if_then>, expr_req, must<if_else>, expr_req> {};

struct wildcard : seq<one<'_'>, not_at<identifier_other>, ws> {};
struct pattern : sor<wildcard, string_lit, name> {};
struct patterns : seq<pattern, star<sym<'|'>, must<pattern>>> {};
struct match_arm : seq<patterns, must<fat_arrow>, expr_req> {};
struct match_open : lbrace {};
struct match_close : rbrace {};
struct match_expr : seq<kw_match, expr_req, must<match_open>, star<match_arm, opt_sep>, must<match_close>> {};

struct primary : sor<number_lit, string_lit, bool_true, bool_false, if_expr, match_expr, list_lit, record_lit,
                     paren_expr, call, name_ref> {};

struct field_access : seq<one<'.'>, not_at<one<'.'>>, ws, must<name>> {};
struct path : seq<name, star<one<'.'>, ws, must<name>>> {};
struct with_item : seq<path, must<field_sep>, expr_req> {};
struct with_open : lbrace {};
struct with_close : rbrace {};
struct with_clause : seq<kw_with, must<with_open>, star<with_item, opt_sep>, must<with_close>> {};
struct postfix_expr : seq<primary, star<sor<field_access, with_clause>>> {};

struct op_pow : sym<'^'> {};
struct unary_expr;
struct unary_req : must<unary_expr> {};
struct pow_expr : seq<postfix_expr, opt<op_pow, unary_req>> {};
struct op_neg : seq<one<'-'>, not_at<one<'>'>>, ws> {};
struct neg_expr : seq<op_neg, unary_req> {};
struct unary_expr : sor<neg_expr, pow_expr> {};

struct op_mul : seq<one<'*'>, ws> {};
struct op_div : seq<one<'/'>, ws> {};
struct mul_expr : seq<unary_expr, star<sor<op_mul, op_div>, unary_req>> {};

// `x +- d`: an uncertain literal (docs/uncertainty.md); `+` is never followed by `-` otherwise.
struct op_pm : seq<string<'+', '-'>, ws> {};
struct op_add : seq<one<'+'>, not_at<one<'-'>>, ws> {};
struct op_sub : seq<one<'-'>, not_at<one<'>'>>, ws> {};
struct mul_req : must<mul_expr> {};
struct add_expr : seq<mul_expr, star<sor<op_pm, op_add, op_sub>, mul_req>> {};

struct op_eq : seq<string<'=', '='>, ws> {};
struct op_ne : seq<string<'!', '='>, ws> {};
struct op_le : seq<string<'<', '='>, ws> {};
struct op_ge : seq<string<'>', '='>, ws> {};
struct op_lt : seq<one<'<'>, ws> {};
struct op_gt : seq<one<'>'>, ws> {};
struct cmp_op : sor<op_eq, op_ne, op_le, op_ge, op_lt, op_gt> {};
struct add_req : must<add_expr> {};
struct cmp_expr : seq<add_expr, opt<cmp_op, add_req>> {};

struct not_expr;
struct not_req : must<not_expr> {};
struct not_prefix : seq<kw_not, not_req> {};
struct not_expr : sor<not_prefix, cmp_expr> {};
struct and_req : must<not_expr> {};
struct and_expr : seq<not_expr, star<kw_and, and_req>> {};
struct or_req : must<and_expr> {};
struct or_expr : seq<and_expr, star<kw_or, or_req>> {};

// `x -> h @ 0.1`: convert for display, optionally rounding to a resolution.
struct target_unit : seq<unit_expr, ws> {};
struct dimensionless_target : seq<one<'1'>, not_at<p::digit>, ws> {};
struct resolution : seq<sym<'@'>, must<number_lit>> {};
struct conversion_target : sor<dimensionless_target, target_unit> {};
struct conversion : seq<arrow, must<conversion_target>, opt<resolution>> {};
struct expr : seq<or_expr, opt<conversion>> {};

// ---- statements ----
// A parameter's annotation: a unit or dimension name (`bw: B/s`), or the strings it accepts
// (`precision: "bf16" | "fp16" | "fp8"`), checked at every call that passes a literal.
struct choice_sep : one<'|'> {};
struct choice_annot : seq<string_lit, star<choice_sep, ws, must<string_lit>>> {};
struct annot_body : sor<choice_annot, unit_expr> {};
struct type_annot : seq<colon, must<annot_body>, ws> {};
struct param_default : seq<assign, expr_req> {};
struct param : seq<name, opt<type_annot>, opt<param_default>> {};
struct params_close : rparen {};
struct params : seq<one<'('>, ws, opt<param, star<comma, param>, opt<comma>>, must<params_close>> {};
struct let_target : seq<name_raw, opt<params>, ws> {};
struct let_stmt : seq<kw_let, must<let_target>, must<assign>, expr_req> {};

struct set_stmt : seq<kw_set, must<path>, must<assign>, expr_req> {};
struct use_stmt : seq<kw_use, must<name>, must<assign>, must<name>> {};
struct import_stmt : seq<kw_import, must<string_lit>> {};

struct show_label : seq<name, field_sep> {};
struct show_item : seq<opt<show_label>, expr_req> {};
struct show_stmt : seq<kw_show, show_item, star<comma, show_item>> {};
struct assert_stmt : seq<kw_assert, expr_req, opt<comma, string_lit>> {};

// Sweeps and searches.
struct range_step_mul : sym<'*'> {};
struct range_step_add : sym<'+'> {};
struct range_step : seq<kw_by, opt<sor<range_step_mul, range_step_add>>, expr_req> {};
struct range_tail : seq<dotdot, expr_req, opt<range_step>> {};
struct domain : seq<expr, opt<range_tail>> {};
struct zip_domain : seq<kw_zip, must<lparen>, expr_req, star<comma, expr_req>, must<rparen>> {};
struct zip_names : seq<lparen, must<name>, star<comma, must<name>>, must<rparen>> {};
struct zip_binding : seq<zip_names, must<kw_in>, must<zip_domain>> {};
struct single_binding : seq<name, must<kw_in>, must<domain>> {};
struct binding : sor<zip_binding, single_binding> {};
struct bindings : seq<binding, star<comma, must<binding>>> {};

struct where_stmt : seq<kw_where, expr_req> {};
struct subject_stmt : seq<kw_subject, must<kw_to>, expr_req, star<comma, expr_req>> {};
struct maximize_obj : seq<kw_maximize, expr_req> {};
struct minimize_obj : seq<kw_minimize, expr_req> {};
struct objective : sor<maximize_obj, minimize_obj> {};
// `top K per EXPR`: the best K of each value of EXPR (a group key), group by group.
struct top_group : seq<expr> {};
struct top_per : seq<kw_per, must<top_group>> {};
struct top_stmt : seq<kw_top, must<number_lit>, opt<top_per>> {};
struct pareto_stmt : seq<kw_pareto, must<objective>, must<comma>, must<objective>> {};
struct body_let : seq<kw_let, must<name>, must<assign>, expr_req> {};
struct body_item : sor<body_let, show_stmt, assert_stmt, where_stmt, subject_stmt, objective, top_stmt, pareto_stmt> {};
struct body_close : rbrace {};
struct body : seq<must<lbrace>, star<body_item, opt_sep>, must<body_close>> {};
struct sweep_stmt : seq<kw_sweep, must<name>, must<kw_over>, must<bindings>, body> {};
struct search_stmt : seq<kw_search, must<name>, must<kw_over>, must<bindings>, body> {};
// `solve NAME in LO..HI [by STEP] such that EXPR == TARGET` (or <=, >=): lowering checks the
// comparison and refuses a multiplicative step; the runtime, a step on a continuous range.
struct solve_range : seq<expr, dotdot, expr_req, opt<range_step>> {};
struct such_that : seq<kw_such, kw_that> {};
struct solve_stmt : seq<kw_solve, must<name>, must<kw_in>, must<solve_range>, must<such_that>, expr_req> {};

// Conventions and presets.
struct choice : seq<name, must<colon>, must<string_lit>> {};
struct convention_default : seq<kw_default, must<name>> {};
struct convention_close : rbrace {};
struct convention_stmt : seq<kw_convention, must<name>, must<string_lit>, must<lbrace>,
                             star<sor<convention_default, choice>, opt_sep>, must<convention_close>> {};
struct preset_extends : seq<kw_extends, must<name>> {};
struct preset_item : sor<use_stmt, set_stmt> {};
struct preset_close : rbrace {};
struct preset_body : seq<lbrace, star<preset_item, opt_sep>, must<preset_close>> {};
struct preset_stmt : seq<kw_preset, must<name>, opt<string_lit>, opt<preset_extends>, opt<preset_body>> {};

// The prelude's declarations of dimensions, units, prefixes and native functions.
struct dim_factor : seq<name, opt<unit_exponent, ws>> {};
struct dim_mul : sym<'*'> {};
struct dim_div : sym<'/'> {};
struct dim_expr : seq<dim_factor, star<sor<dim_mul, dim_div>, must<dim_factor>>> {};
struct dimension_stmt : seq<kw_dimension, must<name>, opt<assign, must<dim_expr>>, opt<string_lit>> {};
struct unit_name : seq<unit_atom, ws> {};
struct unit_base_of : seq<colon, must<name>> {};
struct unit_def : seq<assign, expr_req> {};
struct prefix_list : seq<kw_prefixes, must<name>, star<comma, must<name>>> {};
struct unit_stmt : seq<kw_unit, must<unit_name>, opt<unit_base_of>, opt<unit_def>, opt<string_lit>, opt<prefix_list>> {
};
struct prefix_name : seq<unit_word, ws> {};
struct prefix_def : seq<prefix_name, must<assign>, must<number_lit>> {};
struct prefixes_close : rbrace {};
struct prefixes_stmt : seq<kw_prefixes, must<name>, must<lbrace>, star<prefix_def, opt_sep>, must<prefixes_close>> {};
struct display_unit : seq<unit_expr, ws> {};
struct display_stmt : seq<kw_display, must<display_unit>, star<comma, must<display_unit>>> {};
struct native_stmt : seq<kw_native, must<name_raw>, must<params>, ws, opt<string_lit>> {};

struct statement
    : sor<import_stmt, let_stmt, set_stmt, use_stmt, show_stmt, assert_stmt, sweep_stmt, search_stmt, solve_stmt,
          convention_stmt, preset_stmt, dimension_stmt, unit_stmt, prefixes_stmt, display_stmt, native_stmt> {};

// One statement at a time: the parser loop in parse.cpp resynchronises after an error.
struct one_statement : seq<statement, opt_sep> {};
struct leading_ws : ws {};
// REPL input: statements or a bare expression.
struct repl_item : sor<statement, expr> {};
struct repl_input : seq<ws, star<repl_item, opt_sep>, eof> {};

}  // namespace mls::grammar
