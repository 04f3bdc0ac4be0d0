// serve_sim.cpp — continuous batching, simulated step by step on each engine between arrival
// events: the scheduler forms a step (vLLM prefill-first, Sarathi chunked prefill, or static
// batches), the step's time comes from the replica's cost coefficients, and every request's
// first-token and completion times give TTFT, TPOT and end-to-end latency.
#include "serve_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "interrupt.hpp"
#include "splitmix.hpp"

namespace mls::servesim {

namespace {

using Rng = SplitMix64;

std::int64_t tokens_of(Rng& r, double median, double sigma, Lengths l) {
  const double x =
      l == Lengths::exponential ? std::ceil(median * r.exponential()) : median * std::exp(sigma * r.normal());
  return std::max<std::int64_t>(1, std::llround(std::min(x, 1e9)));
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Attention pairs of the tokens at positions a+1 .. b (each attends to itself and its predecessors).
double position_sum(std::int64_t a, std::int64_t b) {
  return (static_cast<double>(b) * static_cast<double>(b + 1) - static_cast<double>(a) * static_cast<double>(a + 1)) /
         2;
}

Percentiles summarize(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  // Linear interpolation between closest ranks (numpy's default).
  auto at = [&](double q) {
    const double h = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  return p;
}

struct Req {
  double arrival = 0, admitted = -1, first = -1, finish = -1;
  std::int64_t prompt = 0, output = 0, done = 0;  // done: output tokens produced
  std::int64_t cached = 0;                        // KV tokens that arrive with the request (decode pool)
};

struct Seq {
  std::size_t req = 0;
  std::int64_t left = 0;   // tokens still to prefill (the prompt, or prompt + output so far after preemption)
  std::int64_t ctx = 0;    // tokens whose KV the sequence holds
  std::int64_t pages = 0;  // pages it holds
};

struct Planned {
  std::size_t req;
  bool produces;  // the step ends with a new token of this request
};

// One attention data-parallel group of an engine (the whole engine without attention DP): its own
// queue, sequences and KV pages; the groups of an engine step in lockstep (they meet in the expert
// layers), each with its own share of the batch and token budget.
struct Group {
  std::deque<std::size_t> waiting;
  std::vector<Seq> running;  // admission order: the back is the youngest
  std::int64_t free_pages = 0;
};

struct Engine {
  std::vector<Group> groups;
  std::vector<Planned> plan;  // the step in flight
  bool busy = false;
};

class Sim {
 public:
  Sim(const Config& c, const std::vector<TraceRow>& rows) : c_(c), engines_(static_cast<std::size_t>(c.engines)) {
    reqs_.reserve(rows.size());
    for (const auto& r : rows)
      reqs_.push_back(Req{r.arrival, -1, -1, -1, r.prompt, c.phase == Phase::prefill ? 1 : r.output, 0, 0});
    pages_per_group_ = c.kv_capacity / c.page_size;
    for (auto& e : engines_) {
      e.groups.resize(static_cast<std::size_t>(c.groups));
      for (auto& g : e.groups) g.free_pages = pages_per_group_;
    }
  }

  Result run() {
    using Event = std::pair<double, std::size_t>;  // step end, engine
    std::priority_queue<Event, std::vector<Event>, std::greater<>> ends;
    std::size_t next = 0;
    while (true) {
      if (r_.work > c_.max_work) {
        r_.over_budget = true;
        return r_;
      }
      if ((r_.steps & 0x3FF) == 0 && interrupt_requested()) {
        r_.interrupted = true;
        return r_;
      }
      const double t_arr = next < reqs_.size() ? reqs_[next].arrival : std::numeric_limits<double>::infinity();
      if (ends.empty() && next >= reqs_.size()) break;
      if (ends.empty() || t_arr <= ends.top().first) {
        const std::size_t q = next++;
        const Req& rq = reqs_[q];
        if (rq.prompt + rq.output > c_.max_seq || ceil_div(rq.prompt + rq.output, c_.page_size) > pages_per_group_) {
          ++r_.rejected;
          continue;
        }
        if (c_.phase == Phase::decode) {
          // The first token came from the prefill pool with the KV cache; one-token requests are done.
          Req& d = reqs_[q];
          d.first = d.arrival;
          d.done = 1;
          d.cached = d.prompt;
          if (d.output == 1) {
            d.admitted = d.finish = d.arrival;
            continue;
          }
        }
        const auto [e, g] = route();
        Group& grp = engines_[e].groups[g];
        grp.waiting.push_back(q);
        r_.max_queue = std::max<std::int64_t>(r_.max_queue, static_cast<std::int64_t>(grp.waiting.size()));
        if (!engines_[e].busy) start(e, t_arr, ends);
      } else {
        const auto [t, e] = ends.top();
        ends.pop();
        finish(e, t);
        start(e, t, ends);
      }
    }
    return summarize_run();
  }

 private:
  // The group with the fewest requests (waiting and running) over every engine; ties go to the
  // lowest engine, then the lowest group.
  std::pair<std::size_t, std::size_t> route() const {
    std::pair<std::size_t, std::size_t> best{0, 0};
    std::size_t load = std::numeric_limits<std::size_t>::max();
    for (std::size_t i = 0; i < engines_.size(); ++i)
      for (std::size_t j = 0; j < engines_[i].groups.size(); ++j) {
        const Group& g = engines_[i].groups[j];
        const std::size_t l = g.waiting.size() + g.running.size();
        if (l < load) load = l, best = {i, j};
      }
    return best;
  }

  // Moves the youngest running sequence back to the front of the queue (vLLM recompute preemption).
  void preempt(Group& e) {
    Seq s = e.running.back();
    e.running.pop_back();
    e.free_pages += s.pages;
    e.waiting.push_front(s.req);
    ++r_.preemptions;
  }

  // Admits the queue's head if it fits (pages for what it must prefill; static: for its whole length).
  bool admit(Group& e, double now) {
    if (e.waiting.empty() || static_cast<std::int64_t>(e.running.size()) >= c_.max_batch) return false;
    Req& rq = reqs_[e.waiting.front()];
    const std::int64_t left = rq.prompt + rq.done;
    const std::int64_t need = ceil_div(c_.policy == Policy::static_batch ? rq.prompt + rq.output
                                       : rq.cached > 0                   ? rq.cached
                                                                         : left,
                                       c_.page_size);
    if (need > e.free_pages) return false;
    e.free_pages -= need;
    if (rq.cached > 0) {  // decode pool: the KV cache of the prompt is there, decoding starts at once
      e.running.push_back(Seq{e.waiting.front(), 0, rq.cached, need});
      rq.cached = 0;
    } else {
      e.running.push_back(Seq{e.waiting.front(), left, 0, need});
    }
    e.waiting.pop_front();
    if (rq.admitted < 0) rq.admitted = now;
    return true;
  }

  // The pages a sequence needs beyond its own to hold one more token: max(0, ceil((ctx + 1) /
  // page_size) - pages), without the division while its pages hold the token (every step of
  // every decoding sequence asks: the division was a third of a serving simulation's time).
  std::int64_t more_pages(const Seq& s) const {
    if (s.ctx + 1 <= s.pages * c_.page_size) return 0;
    return ceil_div(s.ctx + 1, c_.page_size) - s.pages;
  }

  // Pages for one more token of every decoding sequence, preempting the youngest while short.
  void grow_decoders(Group& e) {
    while (true) {
      std::int64_t need = 0;
      for (const Seq& s : e.running)
        if (s.left == 0) need += more_pages(s);
      if (need == 0) return;  // most steps: every page has room for the token
      if (need <= e.free_pages || e.running.size() <= 1) break;
      preempt(e);
    }
    for (Seq& s : e.running)
      if (s.left == 0) {
        const std::int64_t more = more_pages(s);
        s.pages += more;
        e.free_pages -= more;
      }
  }

  // Plans one group's part of a step into `plan`; returns its prefill and decode work.
  std::pair<Load, Load> plan_group(Group& e, double now, std::vector<Planned>& plan) {
    Load pl, dl;
    // Decode pool: arrivals whose KV cache came with them join the batch first.
    if (c_.phase == Phase::decode)
      while (!e.waiting.empty() && reqs_[e.waiting.front()].cached > 0 && admit(e, now)) {
      }
    auto prefill = [&](Seq& s, std::int64_t n) {
      pl.tokens += static_cast<double>(n);
      pl.pairs += position_sum(s.ctx, s.ctx + n);
      pl.context += static_cast<double>(s.ctx);
      s.ctx += n;
      s.left -= n;
      plan.push_back({s.req, s.left == 0});
    };
    auto decode = [&](Seq& s) {
      dl.tokens += 1;
      dl.decode_pairs += static_cast<double>(s.ctx);
      dl.context += static_cast<double>(s.ctx);
      s.ctx += 1;
      plan.push_back({s.req, true});
    };
    switch (c_.policy) {
      case Policy::vllm: {
        // Prefill-first: admit what fits in the token budget and prefill it whole; else decode.
        std::int64_t budget = c_.token_budget;
        const std::size_t before = e.running.size();
        while (!e.waiting.empty()) {
          const Req& q = reqs_[e.waiting.front()];
          const std::int64_t left = q.prompt + q.done;
          if (e.running.size() > before && left > budget) break;  // the first one may exceed it alone
          if (!admit(e, now)) break;
          budget -= left;
        }
        bool prefilling = false;
        for (std::size_t i = before; i < e.running.size(); ++i)
          if (e.running[i].left > 0) prefill(e.running[i], e.running[i].left), prefilling = true;
        if (!prefilling) {
          grow_decoders(e);
          for (Seq& s : e.running)
            if (s.left == 0) decode(s);
        }
        break;
      }
      case Policy::sarathi: {
        // Stall-free: every decoding sequence gets its token, prefill chunks fill the budget.
        grow_decoders(e);
        std::int64_t budget = c_.token_budget;
        for (Seq& s : e.running)
          if (s.left == 0) decode(s), --budget;
        for (Seq& s : e.running)
          if (s.left > 0 && budget > 0) {
            const std::int64_t n = std::min(s.left, budget);
            budget -= n;
            prefill(s, n);
          }
        while (budget > 0 && admit(e, now)) {
          Seq& s = e.running.back();
          if (s.left == 0) continue;  // a decode-pool arrival: it decodes from the next step
          const std::int64_t n = std::min(s.left, budget);
          budget -= n;
          prefill(s, n);
        }
        break;
      }
      case Policy::static_batch: {
        // A batch is formed when the group is empty and runs until its last request finishes.
        if (e.running.empty()) {
          while (admit(e, now)) {
          }
          for (Seq& s : e.running) s.left > 0 ? prefill(s, s.left) : decode(s);
        } else {
          for (Seq& s : e.running)
            if (reqs_[s.req].finish < 0) decode(s);
        }
        break;
      }
    }
    return {pl, dl};
  }

  void start(std::size_t ei, double now, auto& ends) {
    Engine& e = engines_[ei];
    e.plan.clear();
    // Every group plans its part; the step lasts as long as the slowest group's part plus the
    // expert layers over all the groups' tokens.
    double slowest = 0, slowest_p = 0, slowest_d = 0, ptok = 0, dtok = 0;
    for (Group& g : e.groups) {
      const auto [pl, dl] = plan_group(g, now, e.plan);
      if (pl.tokens + dl.tokens <= 0) continue;
      const Load both{pl.tokens + dl.tokens, pl.pairs, dl.decode_pairs, pl.context + dl.context};
      slowest = std::max(slowest, c_.cost.group_time(both));
      if (pl.tokens > 0) slowest_p = std::max(slowest_p, c_.cost.group_time(pl));
      if (dl.tokens > 0) slowest_d = std::max(slowest_d, c_.cost.group_time(dl));
      ptok += pl.tokens;
      dtok += dl.tokens;
    }
    if (e.plan.empty()) {
      e.busy = false;
      return;
    }
    const double tp = ptok > 0 ? c_.cost.step(slowest_p, ptok) : 0;
    const double td = dtok > 0 ? c_.cost.step(slowest_d, dtok) : 0;
    const double dt = c_.cost.step(slowest, ptok + dtok);
    r_.busy += dt;
    r_.prefill_busy += dt * tp / (tp + td);
    r_.decode_busy += dt * td / (tp + td);
    r_.mean_batch += static_cast<double>(e.plan.size());
    ++r_.steps;
    r_.work += 1 + e.plan.size() / 16;
    e.busy = true;
    ends.push({now + dt, ei});
  }

  void finish(std::size_t ei, double now) {
    Engine& e = engines_[ei];
    std::int64_t made = 0, finished = 0;
    for (const Planned& p : e.plan) {
      if (!p.produces) continue;
      ++made;
      Req& rq = reqs_[p.req];
      if (rq.first < 0)
        rq.first =
            now +
            (c_.phase == Phase::prefill ? c_.transfer_fixed + c_.transfer_token * static_cast<double>(rq.prompt) : 0.0);
      if (++rq.done == rq.output) rq.finish = std::max(now, rq.first), ++finished;
    }
    if (made > 0) produced_.emplace_back(now, made);  // step ends arrive in time order
    // Outside static batching a sequence leaves at the step that finishes it: with none finished
    // by this one, no running sequence has finished (most steps; the scan reads every request).
    if (finished > 0 || c_.policy == Policy::static_batch) release_finished(e);
    e.plan.clear();
    e.busy = false;
  }

  // Finished sequences leave and free their pages (static: only once the group's batch is done).
  void release_finished(Engine& e) {
    for (Group& g : e.groups) {
      const bool keep_batch =
          c_.policy == Policy::static_batch &&
          std::any_of(g.running.begin(), g.running.end(), [&](const Seq& s) { return reqs_[s.req].finish < 0; });
      if (keep_batch) continue;
      std::erase_if(g.running, [&](const Seq& s) {
        if (reqs_[s.req].finish < 0) return false;
        g.free_pages += s.pages;
        return true;
      });
    }
  }

  Result summarize_run() {
    std::vector<double> ttft, tpot, e2e, queue;
    double first_arrival = std::numeric_limits<double>::infinity(), last = 0;
    for (const Req& q : reqs_) {
      if (q.finish < 0) continue;
      ++r_.served;
      first_arrival = std::min(first_arrival, q.arrival);
      last = std::max(last, q.finish);
      ttft.push_back(q.first - q.arrival);
      e2e.push_back(q.finish - q.arrival);
      queue.push_back(q.admitted - q.arrival);
      if (q.output > 1) tpot.push_back((q.finish - q.first) / static_cast<double>(q.output - 1));
      r_.input_tokens += static_cast<double>(q.prompt);
      r_.output_tokens += static_cast<double>(q.output);
      const bool met = q.first - q.arrival <= c_.slo_ttft &&
                       (q.output <= 1 || (q.finish - q.first) / static_cast<double>(q.output - 1) <= c_.slo_tpot);
      if (met) ++r_.slo_met;
    }
    r_.makespan = r_.served > 0 ? last - first_arrival : 0;
    r_.ttft = summarize(std::move(ttft));
    r_.tpot = summarize(std::move(tpot));
    r_.e2e = summarize(std::move(e2e));
    r_.queue = summarize(std::move(queue));
    if (r_.steps > 0) r_.mean_batch /= static_cast<double>(r_.steps);
    steady_window(first_arrival);
    return r_;
  }

  // The steady-state window (Result::steady_tokens): from the step end at which the cumulative
  // output first reaches trim of the total to the one at which it first reaches 1 - trim.
  void steady_window(double first_arrival) {
    double total = 0;
    for (const auto& [t, n] : produced_) total += static_cast<double>(n);
    r_.steady_tokens = r_.output_tokens;
    r_.steady_time = r_.makespan;
    if (total <= 0) return;
    const double lo = c_.steady_trim * total, hi = (1 - c_.steady_trim) * total;
    double cum = 0, t_lo = first_arrival, cum_lo = 0;
    bool have_lo = c_.steady_trim <= 0;
    for (const auto& [t, n] : produced_) {
      cum += static_cast<double>(n);
      if (!have_lo && cum >= lo) t_lo = t, cum_lo = cum, have_lo = true;
      if (cum >= hi) {
        if (t > t_lo && cum > cum_lo) r_.steady_tokens = cum - cum_lo, r_.steady_time = t - t_lo;
        return;
      }
    }
  }

  const Config& c_;
  std::vector<Engine> engines_;
  std::vector<Req> reqs_;
  std::int64_t pages_per_group_ = 0;
  std::vector<std::pair<double, std::int64_t>> produced_;  // (step end, output tokens it made)
  Result r_;
};

}  // namespace

double StepCost::group_time(const Load& l) const {
  const double compute = l.tokens * t_token + l.pairs * t_pair + l.decode_pairs * t_pair_decode;
  const double memory = t_weights + l.context * t_kv_token;
  const double core = combine == Combine::max ? std::max(compute, memory) : compute + memory;
  return core + l.tokens * comm_token;
}

double StepCost::expert_time(double tokens) const {
  if (t_expert_token <= 0 && t_expert_weights <= 0) return 0;
  const double compute = tokens * t_expert_token;
  const double memory = t_expert_weights * (1 - std::pow(expert_miss, tokens));
  return combine == Combine::max ? std::max(compute, memory) : compute + memory;
}

double StepCost::step(double group, double tokens) const { return overhead + group + expert_time(tokens) + comm_fixed; }

double StepCost::time(double tokens, double pairs, double decode_pairs, double context) const {
  return step(group_time(Load{tokens, pairs, decode_pairs, context}), tokens);
}

std::vector<TraceRow> generate(const Workload& w) {
  Rng rng{w.seed * 0x2545F4914F6CDD1DULL + 1};
  std::vector<TraceRow> rows;
  rows.reserve(static_cast<std::size_t>(w.requests));
  double t = 0;
  for (std::int64_t i = 0; i < w.requests; ++i) {
    t += rng.exponential() / w.rate;
    const std::int64_t prompt = tokens_of(rng, w.prompt_median, w.sigma, w.lengths);
    const std::int64_t output = tokens_of(rng, w.output_median, w.sigma, w.lengths);
    rows.push_back({t, prompt, output});
  }
  return rows;
}

std::optional<std::string> validate(const Config& c) {
  auto bad = [](const char* field, const char* want) { return std::string(field) + " must be " + want; };
  if (c.engines < 1 || c.engines > 4096) return bad("engines", "between 1 and 4096");
  if (c.groups < 1 || c.groups > 256) return bad("groups", "between 1 and 256");
  if (c.max_batch < 1 || c.max_batch > 65536) return bad("max_batch", "between 1 and 65536");
  if (c.token_budget < 1 || c.token_budget > 10'000'000) return bad("token_budget", "between 1 and 1e7 tokens");
  if (c.page_size < 1 || c.page_size > 4096) return bad("page_size", "between 1 and 4096 tokens");
  if (c.kv_capacity < c.page_size || c.kv_capacity > 1'000'000'000'000)
    return bad("kv_capacity", "at least one page and at most 1e12 token slots");
  if (c.max_seq < 2) return bad("max_seq", "at least 2 tokens");
  const StepCost& s = c.cost;
  for (double x : {s.overhead, s.t_token, s.t_pair, s.t_pair_decode, s.t_weights, s.t_expert_token, s.t_expert_weights,
                   s.t_kv_token, s.comm_fixed, s.comm_token})
    if (!(x >= 0 && x < 1e6)) return std::string("every step cost coefficient must be a finite time >= 0");
  if (!(s.expert_miss >= 0 && s.expert_miss <= 1)) return bad("expert_miss", "between 0 and 1");
  if (!(s.time(1, 0, 0, 0) > 0)) return std::string("a step must take some time (every cost coefficient is 0)");
  if (!(c.slo_ttft >= 0 && c.slo_tpot >= 0 && c.slo_ttft < 1e9 && c.slo_tpot < 1e9))
    return bad("slo_ttft and slo_tpot", "finite times >= 0");
  if (!(c.transfer_fixed >= 0 && c.transfer_token >= 0 && c.transfer_fixed < 1e6 && c.transfer_token < 1e6))
    return bad("transfer_fixed and transfer_token", "finite times >= 0");
  if (!(c.steady_trim >= 0 && c.steady_trim < 0.5)) return bad("steady_trim", "at least 0 and below 0.5");
  return std::nullopt;
}

std::optional<std::string> clock_problem(const Config& c, const std::vector<TraceRow>& requests) {
  // The clock is binary64 seconds: arrivals at 1e20 s (or at 1e-30 requests/s) absorbed every
  // step into the time it started at, the makespan came out 0 and throughput divided by it
  // (issue 38, item 13). The clock must resolve a millionth of the shortest step at the last
  // arrival; queues drain in steps, so later times grow with the work, which is bounded.
  if (requests.empty()) return std::nullopt;
  const double step = c.cost.time(1, 0, 0, 0), last = requests.back().arrival;
  const double horizon = step * 1e-6 * 0x1p52;
  if (last <= horizon) return std::nullopt;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "the arrivals reach %.3g s, too late for the simulated clock (binary64 seconds) to resolve an "
                "engine step of %.3g s: arrivals up to %.3g s can be simulated (raise the rate, or shorten the "
                "trace's time span)",
                last, step, horizon);
  return std::string(buf);
}

Result simulate(const Config& c, const std::vector<TraceRow>& requests) {
  if (auto why = validate(c)) {
    Result r;
    r.error = *why;
    return r;
  }
  if (auto why = clock_problem(c, requests)) {
    Result r;
    r.error = *why;
    return r;
  }
  return Sim(c, requests).run();
}

}  // namespace mls::servesim
