// eval.hpp — the evaluator: walks checked expressions over plain numbers (base units), carrying
// each value's dependency set. Exact mode keeps rationals; fast mode (large sweeps) runs binary64.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/program.hpp"
#include "interpreter/semantics/value.hpp"
#include "run_options.hpp"

namespace mls {

inline constexpr int kMaxCallDepth = 200;
// Nesting of evaluation steps (expression levels, summed over active calls): the deepest a
// formula plus its callees may go. Sized so that it fits kPipelineStackBytes even under ASan.
inline constexpr int kMaxEvalDepth = 20000;
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
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // The validation assumption of a family (validated("training", ...)) for a result of `domain` (a
  // domain record: stdlib/validation.mls, training_domain; null: banded by all the family's cases):
  // the band of that domain's cases, or an extrapolation from the nearest validated domain
  // (runtime/validation.cpp, docs/validation.md). The cases are evaluated exactly under this
  // evaluator's configuration, once per process and configuration. Inside that evaluation (and
  // for an evaluator without summaries) it is the empty set, so the cases do not validate
  // themselves.
  [[nodiscard]] DepSet validation_deps(const std::string& family, const Value* domain);
  // An exact evaluator without validation summaries (the validation cases themselves).
  [[nodiscard]] static Evaluator for_validation(Program& p, const Config& cfg) { return Evaluator(p, cfg, true, true); }

  // Evaluates an expression in a frame of `nslots` fresh slots.
  [[nodiscard]] Value eval_in(const Expr& e, int nslots);
  [[nodiscard]] Value eval(const Expr& e, Value* slots, int depth);
  [[nodiscard]] Value global(std::uint32_t g);
  // The value a `set` gives a literal it replaces (Config::literal_overrides).
  [[nodiscard]] Value literal_override(const Override& o);

  // Helpers shared with natives.
  [[noreturn]] void fail(ErrorKind k, Span at, std::string msg, DepSet deps);
  [[nodiscard]] Value arith(Op op, const Value& a, const Value& b, const Expr& at);
  [[nodiscard]] DepSet unite(DepSet a, DepSet b) { return p_.deps.unite(a, b); }
  [[nodiscard]] Value with_deps(Value v, DepSet d, Span at = {});
  [[nodiscard]] Num number_checked(Num n, const Expr& at, DepSet deps);  // rejects inf/nan
  [[nodiscard]] Deps& deps() { return p_.deps; }
  [[nodiscard]] Program& program() { return p_; }
  [[nodiscard]] const Config& config() const { return cfg_; }
  [[nodiscard]] bool exact() const { return exact_; }
  [[nodiscard]] DepSet overflow_deps();
  // Step budget for work done outside the tree walk (serve_sim): what is left of the current
  // evaluation's budget, and charging `n` units of it (limit.steps at `at` when it runs out).
  [[nodiscard]] static std::uint64_t steps_left();
  void charge(std::uint64_t n, Span at);
  Tracer* tracer = nullptr;
  std::uint64_t max_steps = kMaxSteps;  // per evaluation (see BudgetScope)
  // Monte Carlo (--uncertainty, runtime/uncertainty.cpp): each uncertain literal's value in the
  // current sample. Null: every uncertain literal is its nominal value.
  const std::unordered_map<const Expr*, double>* draws = nullptr;
  // Forgets every computed global, so the next sample's draws reach them. Single-threaded use.
  void forget_globals();

  // Gives the evaluations inside its lifetime, on this thread, a fresh budget of max_steps
  // steps; the enclosing budget resumes afterwards. eval_in opens one; sweeps open one per point.
  class BudgetScope {
   public:
    explicit BudgetScope(const Evaluator& ev);
    ~BudgetScope();
    BudgetScope(const BudgetScope&) = delete;
    BudgetScope& operator=(const BudgetScope&) = delete;

   private:
    std::uint64_t saved_;
  };

 private:
  Value call(const Expr& e, Value* slots, int depth);
  Value call_function(const Expr& e, Value* slots, int depth);
  Value match(const Expr& e, Value* slots, int depth);
  Value with(const Expr& e, Value* slots, int depth);
  [[nodiscard]] bool addressable(const Expr& e) const;
  const Value* place(const Expr& e, Value* slots);
  const Value& field_of(const Value& r, const Expr& e);
  Value literal(const Expr& e);
  Value prior(const Expr& e);  // a `set` reading its target's previous value
  void enter_node(Span at);    // a node entered: depth limit, then step()
  void step(Span at);          // one unit of the step budget
  void step_slow(Span at);     // step() when Ctrl-C is due a poll or the budget runs out
  Value with_deps_shared(Value v, DepSet d, Span at, std::unordered_map<const Heap*, Value>& done);

  Program& p_;
  const Config& cfg_;
  bool exact_;
  struct GlobalCache {
    std::mutex mu;
    std::atomic<bool> ready{false};  // set (release) once `value` is final; read without the lock
    Value value;
  };
  // One per global of the program at construction, in blocks made on first use: a REPL session
  // makes an evaluator per input over all its globals, and reads few of them (issue 19, item 9).
  static constexpr std::size_t kCacheBlock = 256;
  std::size_t nglobals_ = 0;
  std::unique_ptr<std::atomic<GlobalCache*>[]> cache_blocks_;
  GlobalCache& cache(std::uint32_t g);
  AtomId overflow_atom_ = 0;
  // Validation (runtime/validation.cpp): whether validated() attaches bands, and the band of each
  // (family, domain) met so far by this evaluator.
  Evaluator(Program& p, const Config& cfg, bool exact, bool for_validation);
  bool validation_on_ = false;
  std::mutex validation_mu_;
  std::unordered_map<std::string, DepSet> validation_seen_;
};

// Human-readable list of the assumptions in a set, for runtime error notes.
[[nodiscard]] std::vector<std::string> assumption_lines(const Program& p, DepSet d, std::size_t max = 8);

}  // namespace mls
