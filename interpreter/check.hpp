// check.hpp — the dimension and type checker: proves every operation dimensionally sound before
// anything is evaluated, including inside function bodies (checked per argument-type signature).
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "program.hpp"
#include "types.hpp"

namespace mls {

class Checker {
 public:
  explicit Checker(Program& p) : p_(p) {}

  // Checks all globals, fully-typed functions and the main file's statements.
  void check_program();
  // Checks one statement of the main file (REPL: after it was added).
  void check_stmt(Stmt& s);
  [[nodiscard]] TypeP global_type(std::uint32_t g);
  // Type of a command-line or preset `set` value against its target; reports mismatches.
  void check_override(const std::vector<Sym>& path, Span path_span, Expr& value, int nslots);

  // Types of shown items and sweep columns, for formatting.
  [[nodiscard]] TypeP show_type(const ShowItem* s) const;
  [[nodiscard]] std::optional<ResolvedUnit> resolve_unit(const UnitExpr& u, bool report = true);

 private:
  friend struct CheckFrame;
  struct Env {
    std::vector<TypeP> slots;
    std::vector<Span> calls;  // instantiation stack, for notes
  };
  struct Inst {
    std::vector<TypeP> args;  // null: parameter not passed
    TypeP result;
    bool active = false;    // its body is being checked now
    bool recursed = false;  // a call inside the body reached it again and got a provisional result
  };

  TypeP expr(Expr& e, Env& env);
  TypeP name(Expr& e, Env& env);
  TypeP binary(Expr& e, Env& env);
  TypeP call(Expr& e, Env& env);
  TypeP call_function(Expr& e, Env& env, std::uint32_t fn);
  TypeP match(Expr& e, Env& env);
  TypeP record(Expr& e, Env& env);
  TypeP with(Expr& e, Env& env);
  TypeP number(Expr& e);
  TypeP convert(Expr& e, Env& env);
  void show_items(std::vector<ShowItem>& items, Env& env, bool scalar_only);
  void sweep(Stmt& s);
  void check_function_standalone(std::uint32_t fn);
  // Checks instantiation `my` of `fn` by running `pass` (parameters and body) until a
  // recursive function's result type settles; returns that type.
  TypeP check_instance(std::uint32_t fn, std::size_t my, const std::function<TypeP()>& pass);
  Diagnostic& error(ErrorKind k, Span s, std::string msg, const Env& env);
  [[nodiscard]] std::string dim_text(const TypeP& t) const;

  Program& p_;
  std::vector<std::vector<Inst>> insts_;  // per function
  std::unordered_map<const ShowItem*, TypeP> show_types_;
  std::size_t inst_depth_ = 0;
  std::size_t inst_count_ = 0;   // instantiations made so far (bounded: see check.cpp)
  std::vector<std::uint32_t> inst_log_;  // function of each instantiation made, in order
  std::size_t open_instances_ = 0;       // check_instance calls in progress
  std::vector<std::uint32_t> global_stack_;  // globals being checked (for cycle messages)
  std::size_t nesting_ = 0;      // expr() recursion, summed over instantiations
  bool too_deep_reported_ = false;
  bool too_many_reported_ = false;
  std::vector<std::pair<std::uint64_t, std::string>> reported_;  // dedupe errors in instantiations
};

}  // namespace mls
