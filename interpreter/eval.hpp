// eval.hpp — the evaluator: walks checked expressions over plain numbers (base units), carrying
// each value's dependency set. Exact mode keeps rationals; fast mode (large sweeps) runs binary64.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config.hpp"
#include "program.hpp"
#include "value.hpp"

namespace mls {

inline constexpr int kMaxCallDepth = 200;
// Calls listed under a runtime error raised inside functions.
inline constexpr std::size_t kMaxCallNotes = 6;

// Observes function calls (mls explain): a formula chain with each step's value.
// Every enter/enter_global is matched by one leave, also for a global read from the cache.
class Tracer {
 public:
  virtual ~Tracer() = default;
  virtual void enter(const Stmt& fn, const Expr& call) = 0;
  // The callee's frame once parameters (passed and defaulted) are bound; valid until leave.
  virtual void bound(const Stmt& fn, const Value* frame) {
    (void)fn;
    (void)frame;
  }
  // A non-literal global is evaluated (cached: false) or read again (cached: true).
  virtual void enter_global(std::uint32_t g, bool cached) {
    (void)g;
    (void)cached;
  }
  virtual void leave(const Value& result) = 0;
};

class Evaluator {
 public:
  Evaluator(Program& p, const Config& cfg, bool exact = true);

  // Evaluates an expression in a frame of `nslots` fresh slots.
  [[nodiscard]] Value eval_in(const Expr& e, int nslots);
  [[nodiscard]] Value eval(const Expr& e, Value* slots, int depth);
  [[nodiscard]] Value global(std::uint32_t g);

  // Helpers shared with natives.
  [[noreturn]] void fail(ErrorKind k, Span at, std::string msg, DepSet deps);
  [[nodiscard]] Value arith(Op op, const Value& a, const Value& b, const Expr& at);
  [[nodiscard]] DepSet unite(DepSet a, DepSet b) { return p_.deps.unite(a, b); }
  [[nodiscard]] Value with_deps(Value v, DepSet d);
  [[nodiscard]] Num number_checked(Num n, const Expr& at, DepSet deps);  // rejects inf/nan
  [[nodiscard]] Deps& deps() { return p_.deps; }
  [[nodiscard]] Program& program() { return p_; }
  [[nodiscard]] const Config& config() const { return cfg_; }
  [[nodiscard]] bool exact() const { return exact_; }
  [[nodiscard]] DepSet overflow_deps();
  Tracer* tracer = nullptr;

 private:
  Value call(const Expr& e, Value* slots, int depth);
  Value call_function(const Expr& e, Value* slots, int depth);
  Value match(const Expr& e, Value* slots, int depth);
  Value with(const Expr& e, Value* slots, int depth);
  Value literal(const Expr& e);

  Program& p_;
  const Config& cfg_;
  bool exact_;
  struct GlobalCache {
    std::mutex mu;
    bool ready = false;
    Value value;
  };
  std::vector<std::unique_ptr<GlobalCache>> globals_;
  AtomId overflow_atom_ = 0;
  bool overflow_made_ = false;
};

// Human-readable list of the assumptions in a set, for runtime error notes.
[[nodiscard]] std::vector<std::string> assumption_lines(const Program& p, DepSet d, std::size_t max = 8);

}  // namespace mls
