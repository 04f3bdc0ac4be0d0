// check.hpp — the dimension and type checker: proves every operation dimensionally sound before
// anything is evaluated, including inside function bodies (checked per argument-type signature).
#pragma once

#include <functional>
#include <map>
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

  // REPL: checks globals, functions and preset `set` items declared from these indices on (what
  // check_program does for a whole program); the new statements go through check_stmt.
  void check_added(std::size_t first_global, std::size_t first_function, std::size_t first_preset);

  // Types of shown items and sweep columns, for formatting.
  [[nodiscard]] TypeP show_type(const ShowItem* s) const;
  // Types of the operands of top-level assert comparisons (for failure messages).
  [[nodiscard]] TypeP expr_type(const Expr* e) const;

  // Memo state a failed REPL input must not leave behind: instantiations found while checking
  // it (a stale one would answer the same call again without its error), the types of its
  // shown items and expressions, and which instantiation each of its calls took. Marks and
  // rollbacks cost what was done since the mark (logs), not the size of the tables.
  struct Mark {
    std::size_t functions, inst_ids, show_log, expr_log, call_log, call_undo, reported;
  };
  [[nodiscard]] Mark mark() const;
  void rollback(const Mark& m);
  [[nodiscard]] std::optional<ResolvedUnit> resolve_unit(const UnitExpr& u, bool report = true);

  // Instantiations, for `mls explain` (the unit of each step in a formula chain). Evaluation has
  // no types, but following the chain from the top level recovers them exactly: a call
  // expression checked inside instantiation `caller` (-1: top level, a global, a sweep body)
  // took instantiation call_instance(call, caller). -1 when unknown (the call did not check).
  [[nodiscard]] int call_instance(const Expr& call, int caller) const;
  [[nodiscard]] TypeP instance_result(int inst) const;
  [[nodiscard]] TypeP instance_param(int inst, std::size_t param) const;  // passed or default

 private:
  friend struct CheckFrame;
  struct Env {
    std::vector<TypeP> slots;
    std::vector<Span> calls;  // instantiation stack, for notes
    int inst = -1;            // the instantiation being checked (-1: top level)
  };
  struct Inst {
    std::vector<TypeP> args;  // null: parameter not passed
    TypeP result;
    int id = -1;                     // index into inst_ids_
    std::vector<TypeP> param_types;  // after defaults
    bool active = false;             // its body is being checked now
    bool recursed = false;           // a call inside the body reached it again and got a provisional result
  };

  TypeP expr(Expr& e, Env& env);
  TypeP name(Expr& e, Env& env);
  TypeP binary(Expr& e, Env& env);
  TypeP call(Expr& e, Env& env);
  TypeP call_function(Expr& e, Env& env, std::uint32_t fn);
  bool bind_arguments(Expr& e, Env& env, std::uint32_t fn, std::vector<TypeP>& passed);
  bool choice_ok(const Param& prm, const Type& t, const Expr& value, Span at, Env& env);
  TypeP match(Expr& e, Env& env);
  TypeP record(Expr& e, Env& env);
  TypeP with(Expr& e, Env& env);
  TypeP number(Expr& e);
  TypeP convert(Expr& e, Env& env);
  void show_items(std::vector<ShowItem>& items, Env& env, bool scalar_only);
  void sweep(Stmt& s);
  TypeP solve(Stmt& s, Env& env);      // check_solve.cpp: the type of the answer
  TypeP uncertain(Expr& e, Env& env);  // check_uncertain.cpp: `x +- d`, `normal(m, s)`, ...
  void check_function_standalone(std::uint32_t fn);
  // Checks instantiation `my` of `fn` by running `pass` (parameters and body) until a
  // recursive function's result type settles; returns that type.
  TypeP check_instance(std::uint32_t fn, std::size_t my, const std::function<TypeP()>& pass);
  Diagnostic& error(ErrorKind k, Span s, std::string msg, const Env& env);
  void note_calls(Diagnostic& d, const Env& env) const;
  [[nodiscard]] std::string dim_text(const TypeP& t) const;

  Program& p_;
  std::vector<std::vector<Inst>> insts_;                         // per function
  std::vector<std::pair<std::uint32_t, std::size_t>> inst_ids_;  // id -> (function, position)
  std::map<std::pair<const Expr*, int>, int> call_insts_;        // (call, caller) -> id
  int new_instance(std::uint32_t fn, std::vector<TypeP> args);
  std::unordered_map<const ShowItem*, TypeP> show_types_;
  std::unordered_map<const Expr*, TypeP> expr_types_;
  // Keys in insertion order, for rollback.
  std::vector<const ShowItem*> show_log_;
  std::vector<const Expr*> expr_log_;
  std::vector<std::pair<const Expr*, int>> call_log_;
  // Calls already recorded that were pointed at another instantiation: (call, caller) and the
  // previous instantiation, for rollback.
  std::vector<std::pair<std::pair<const Expr*, int>, int>> call_undo_;
  void note_show(const ShowItem* s, TypeP t);
  void note_expr(const Expr* e, TypeP t);
  void top_group(const Stmt& s, Expr& g, Env& env);
  void note_call(const Expr* call, int caller, int inst);
  std::size_t inst_depth_ = 0;
  std::size_t inst_count_ = 0;               // instantiations made so far (bounded: see check.cpp)
  std::vector<std::uint32_t> global_stack_;  // globals being checked (for cycle messages)
  std::size_t nesting_ = 0;                  // expr() recursion, summed over instantiations
  bool too_deep_reported_ = false;
  bool too_many_reported_ = false;
  std::vector<std::pair<std::uint64_t, std::string>> reported_;  // dedupe errors in instantiations
};

}  // namespace mls
