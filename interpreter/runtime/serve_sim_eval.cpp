// serve_sim_eval.cpp — the native `serve_sim(config)`: reads the configuration record, generates
// the Poisson workload or reads the trace file, runs the simulation against the evaluator's step
// budget and returns the result record (every field depends on every input: deep deps).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "eval.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/semantics/program.hpp"
#include "interpreter/semantics/serve_sim_type.hpp"
#include "interrupt.hpp"
#include "serve_sim.hpp"

namespace mls::servesim {

namespace {

// Largest trace file read (the same cap as a scenario file).
constexpr std::size_t kMaxTraceBytes = 16u << 20;
// Largest synthetic workload.
constexpr std::int64_t kMaxRequests = 1'000'000;

// A trace path is relative to the directory of the scenario being run (as `import` paths are to
// their file); absolute paths are taken as they are.
std::string trace_path(const Program& p, const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::path(path).is_absolute() || p.main_file == kNoFile) return path;
  const fs::path dir = fs::path(p.sources.get(p.main_file).name).parent_path();
  return dir.empty() ? path : (dir / path).lexically_normal().string();
}

std::vector<TraceRow> read_trace(NativeEval& n, const std::string& path, DepSet deps) {
  Program& p = n.ev.program();
  const std::string full = trace_path(p, path);
  const auto text = p.reader ? p.reader(full) : std::nullopt;
  if (!text) n.ev.fail(ErrorKind::load_missing, n.call.span, "serve_sim: cannot read the trace '" + full + "'", deps);
  if (text->size() > kMaxTraceBytes)
    n.ev.fail(ErrorKind::load_too_large, n.call.span, "serve_sim: the trace '" + full + "' is larger than 16 MiB",
              deps);
  TraceParse t = parse_trace(*text);
  if (t.error) {
    Diagnostic d;
    d.kind = ErrorKind::trace_format;
    d.span = n.call.span;
    d.message =
        full + ":" + std::to_string(t.error->line) + ":" + std::to_string(t.error->col) + ": " + t.error->message;
    if (!t.error->line_text.empty()) {
      const std::string prefix = "line " + std::to_string(t.error->line) + ": ";
      std::string line;
      for (char c : t.error->line_text.substr(0, 200)) line += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
      d.help.push_back(prefix + line);
      d.help.push_back(std::string(prefix.size() + std::min<std::size_t>(t.error->col - 1, 200), ' ') + "^");
    }
    if (t.error->text_hidden)
      d.help.push_back("no line of '" + full + "' reads as a trace yet, so none of its text is shown");
    d.help.push_back("a trace has one request per line: arrival_s, prompt_tokens, output_tokens (docs/models.md)");
    throw DiagnosticError{std::move(d)};
  }
  return std::move(t.rows);
}

// Results of simulations already run in this process, keyed by every input of a synthetic-workload
// run (configuration and workload; a trace file's runs are not kept). `mls validate`, `sensitivity`
// and `diff` evaluate the same simulations again under variants that do not touch them; a simulation
// is deterministic, so the kept result is the one it would compute. Bounded: cleared when full.
class Memo {
 public:
  static std::string key(const Config& c, const Workload& w) {
    std::string k;
    auto put = [&](auto x) { k.append(reinterpret_cast<const char*>(&x), sizeof x); };
    const StepCost& s = c.cost;
    for (double x : {s.overhead,    s.t_token,    s.t_pair,        s.t_pair_decode,  s.t_weights,
                     s.t_kv_token,  s.comm_fixed, s.comm_token,    s.t_expert_token, s.t_expert_weights,
                     s.expert_miss, c.slo_ttft,   c.slo_tpot,      c.transfer_fixed, c.transfer_token,
                     c.steady_trim, w.rate,       w.prompt_median, w.output_median,  w.sigma})
      put(x);
    for (std::int64_t x :
         {c.engines, c.groups, c.max_batch, c.token_budget, c.kv_capacity, c.page_size, c.max_seq, w.requests})
      put(x);
    put(w.seed);
    for (int x : {static_cast<int>(c.policy), static_cast<int>(s.combine), static_cast<int>(c.phase),
                  static_cast<int>(w.lengths)})
      put(x);
    return k;
  }
  std::optional<Result> get(const std::string& k) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = kept_.find(k);
    return it == kept_.end() ? std::nullopt : std::optional<Result>(it->second);
  }
  void put(const std::string& k, const Result& r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (kept_.size() >= kMaxKept) kept_.clear();
    kept_.emplace(k, r);
  }

 private:
  static constexpr std::size_t kMaxKept = 4096;
  std::mutex mu_;
  std::unordered_map<std::string, Result> kept_;
};

Memo& memo() {
  static Memo m;
  return m;
}

// The simulation's result as the record serve_sim returns, each number checked and carrying `deps`.
Value result_record(NativeEval& n, const Result& r, DepSet deps) {
  const double values[] = {
      r.ttft.mean,
      r.ttft.p50,
      r.ttft.p90,
      r.ttft.p99,
      r.tpot.mean,
      r.tpot.p50,
      r.tpot.p90,
      r.tpot.p99,
      r.e2e.mean,
      r.e2e.p50,
      r.e2e.p90,
      r.e2e.p99,
      r.queue.mean,
      r.queue.p99,
      double(r.served),
      double(r.rejected),
      double(r.preemptions),
      double(r.steps),
      double(r.slo_met),
      r.makespan,
      r.input_tokens,
      r.output_tokens,
      r.busy,
      r.prefill_busy,
      r.decode_busy,
      r.mean_batch,
      double(r.max_queue),
      r.steady_tokens,
      r.steady_time,
  };
  static_assert(std::size(values) == std::size(kOutputs));
  RecordObj rec;
  for (std::size_t i = 0; i < std::size(kOutputs); ++i)
    rec.fields.emplace_back(intern(kOutputs[i]),
                            Value::number(n.ev.number_checked(Num::of_double(values[i]), n.call, deps), deps));
  return Value::record(std::move(rec));
}

}  // namespace

Value evaluate(NativeEval& n) {
  const Value& cfgv = n.args[0];
  DepSet deps = deep_deps(cfgv, n.ev.deps());
  if (n.call.call_atom >= 0 && n.ev.exact())
    deps = n.ev.unite(deps, n.ev.deps().single(static_cast<AtomId>(n.call.call_atom)));
  auto field = [&](const char* name) -> const Value& { return *cfgv.rec().get(intern(name)); };
  auto real = [&](const char* name) {
    const Value& v = field(name);
    if (!std::isfinite(v.n.d))
      n.ev.fail(ErrorKind::runtime_domain, n.call.span, std::string("serve_sim: ") + name + " must be finite", v.deps);
    return v.n.d;
  };
  auto count = [&](const char* name, std::int64_t lo, std::int64_t hi) {
    const Value& v = field(name);
    const auto k = to_int(v.n);
    if (!k || *k < lo || *k > hi)
      n.ev.fail(ErrorKind::runtime_domain, n.call.span,
                std::string("serve_sim: ") + name + " must be a whole number from " + std::to_string(lo) + " to " +
                    std::to_string(hi) + ", got " + format_sig(v.n, 8),
                v.deps);
    return *k;
  };
  auto choice = [&](const char* name, std::initializer_list<const char*> options) {
    const Value& v = field(name);
    int i = 0;
    std::string list;
    for (const char* o : options) {
      if (v.str() == o) return i;
      list += (i++ ? ", \"" : "\"") + std::string(o) + "\"";
    }
    n.ev.fail(ErrorKind::runtime_domain, n.call.span,
              std::string("serve_sim: ") + name + " must be one of " + list + ", got \"" + v.str() + "\"", v.deps);
  };

  Config c;
  c.policy = static_cast<Policy>(choice("policy", {"vllm", "sarathi", "static"}));
  c.cost.combine = static_cast<Combine>(choice("combine", {"max", "sum"}));
  c.cost.overhead = real("overhead");
  c.cost.t_token = real("t_token");
  c.cost.t_pair = real("t_pair");
  c.cost.t_pair_decode = real("t_pair_decode");
  c.cost.t_weights = real("t_weights");
  c.cost.t_expert_weights = real("t_expert_weights");
  c.cost.t_expert_token = real("t_expert_token");
  c.cost.expert_miss = real("expert_miss");
  c.cost.t_kv_token = real("t_kv_token");
  c.cost.comm_fixed = real("comm_fixed");
  c.cost.comm_token = real("comm_token");
  c.engines = count("engines", 1, 4096);
  c.groups = count("groups", 1, 256);
  c.max_batch = count("max_batch", 1, 65536);
  c.token_budget = count("token_budget", 1, 10'000'000);
  c.kv_capacity = count("kv_capacity", 0, 1'000'000'000'000);
  c.page_size = count("page_size", 1, 4096);
  c.max_seq = count("max_seq", 2, 100'000'000);
  c.slo_ttft = real("slo_ttft");
  c.slo_tpot = real("slo_tpot");
  c.phase = static_cast<Phase>(choice("phase", {"both", "prefill", "decode"}));
  c.transfer_fixed = real("transfer_fixed");
  c.transfer_token = real("transfer_token");
  c.steady_trim = real("steady_trim");
  if (auto why = validate(c)) n.ev.fail(ErrorKind::runtime_domain, n.call.span, "serve_sim: " + *why, deps);

  std::vector<TraceRow> rows;
  std::string key;  // the memo's key of a synthetic workload's run
  std::size_t requests = 0;
  const std::string trace = field("trace").str();
  if (!trace.empty()) {
    rows = read_trace(n, trace, deps);
    requests = rows.size();
    // Every result is a difference of times (latencies, makespan, steady window): a trace is
    // simulated from its first arrival, so that a trace of absolute timestamps (Unix seconds,
    // or `1e20,5,10`) keeps the resolution of its steps.
    const double t0 = rows.empty() ? 0 : rows.front().arrival;
    for (TraceRow& row : rows) row.arrival -= t0;
  } else {
    Workload w;
    w.requests = count("requests", 1, kMaxRequests);
    w.rate = real("rate");
    w.seed = static_cast<std::uint64_t>(count("seed", 0, INT64_MAX));
    w.prompt_median = real("prompt_median");
    w.output_median = real("output_median");
    w.sigma = real("sigma");
    w.lengths = static_cast<Lengths>(choice("lengths", {"lognormal", "exponential"}));
    if (!(w.rate > 0 && w.rate <= 1e9))
      n.ev.fail(ErrorKind::runtime_domain, n.call.span, "serve_sim: rate must be in (0, 1e9] requests/s", deps);
    if (!(w.prompt_median >= 1 && w.prompt_median <= 1e7 && w.output_median >= 1 && w.output_median <= 1e7))
      n.ev.fail(ErrorKind::runtime_domain, n.call.span,
                "serve_sim: prompt_median and output_median must be between 1 and 1e7 tokens", deps);
    if (!(w.sigma >= 0 && w.sigma <= 4))
      n.ev.fail(ErrorKind::runtime_domain, n.call.span, "serve_sim: sigma must be between 0 and 4", deps);
    key = Memo::key(c, w);
    requests = static_cast<std::size_t>(w.requests);
    if (!memo().get(key)) rows = generate(w);
  }
  n.ev.charge(requests, n.call.span);
  c.max_work = Evaluator::steps_left();
  // A kept result charges the step budget as the run would have (its work past the budget: the
  // same limit.steps error).
  const std::optional<Result> kept = key.empty() ? std::nullopt : memo().get(key);
  const Result r = kept ? *kept : simulate(c, rows);
  if (!kept && !key.empty() && r.error.empty() && !r.over_budget && !r.interrupted) memo().put(key, r);
  if (!r.error.empty()) n.ev.fail(ErrorKind::runtime_domain, n.call.span, "serve_sim: " + r.error, deps);
  if (r.interrupted) throw_interrupted(n.call.span);
  n.ev.charge(r.work, n.call.span);  // past the budget: limit.steps here
  if (r.served == 0)
    n.ev.fail(ErrorKind::runtime_domain, n.call.span,
              "serve_sim: no request was served (every request is longer than max_seq or the KV capacity)", deps);

  return result_record(n, r, deps);
}

}  // namespace mls::servesim
