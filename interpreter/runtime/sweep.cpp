// sweep.cpp — sweeps and searches. Points are independent (values are immutable), so they run
// on a thread pool and are merged back in enumeration order: output is identical for any
// thread count, and memory stays flat because only a window of chunks is in flight.
#include "sweep.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "fastpath.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/results/row_text.hpp"
#include "interpreter/semantics/stack.hpp"
#include "interrupt.hpp"
#include "notes.hpp"
#include "ordered_map.hpp"

namespace mls {
namespace {

struct PointOut {
  bool filtered = false;
  bool feasible = true;
  std::vector<Value> key, cells;
  std::vector<Value> objectives;
  std::vector<AssertOutcome> failed;
  std::vector<std::size_t> failed_items;  // the body item of each failed assert (shard parts)
  std::string error;                      // searches: the runtime error that made this point infeasible
  // The row as the sink writes it, formatted on the worker thread once the sink could say how
  // (row_text.hpp); has_text is false for the rows computed before that, which the sink formats.
  std::string text;
  bool has_text = false;
  // Set with the text, on the worker (format_rows): this row against the chunk's row before it,
  // and whether every cell is a finite binary64 number of a number column (nothing for
  // check_displayable to refuse). The writer's thread then need not read the cells.
  RowDelta delta;
  bool displayable = false;
};

// What check_displayable accepts without a look, per column: a finite binary64 number in a
// number column, finite in its display unit too. Fixed once the table's units are chosen.
struct CellCheck {
  std::vector<std::uint8_t> num_col;      // its type is a number
  std::vector<std::uint8_t> no_overflow;  // |factor| >= 1, so x / factor is finite when x is
  std::vector<double> factor;

  explicit CellCheck(const Table& t) {
    for (const auto& col : t.cols) {
      num_col.push_back(col.type && col.type->k == Type::K::num);
      factor.push_back(col.display.factor.d);
      no_overflow.push_back(std::fabs(col.display.factor.d) >= 1);
    }
  }
  [[nodiscard]] bool plain(std::size_t c, const Value& v) const {
    // The division only where it could overflow (x / factor with |factor| < 1).
    return v.k == Value::K::num && num_col[c] && !v.n.exact() &&
           (no_overflow[c] ? std::isfinite(v.n.d) : std::isfinite(v.n.d / factor[c]));
  }
  [[nodiscard]] bool plain(const std::vector<Value>& cells) const {
    if (cells.size() != num_col.size()) return false;
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (!plain(c, cells[c])) return false;
    return true;
  }
};

// One worker's state for the tree-walking path (exact sweeps, and binary64 ones the compiler
// does not support): the frame of its previous point and each body item's values as last
// evaluated. An item whose sweep variables (read directly or through earlier `let`s) have not
// changed since then is not evaluated again: its values are the same, because evaluation is a
// pure function of the frame (globals and settings are fixed for the whole sweep).
struct EvalRun {
  std::vector<Value> slots;
  std::vector<std::size_t> pick, last_pick;  // per binding: the element chosen (this and the previous point)
  std::vector<std::uint64_t> stale;          // per body item: the bindings changed since it was evaluated
  std::vector<std::uint64_t> cost;           // per body item: the evaluation steps it took
  std::vector<std::uint8_t> valid;           // per body item: `values` hold its results
  std::vector<std::vector<Value>> values;    // per body item: what it evaluated to
};

// A row two ahead of the one being written, fetched into this core's cache: the writer reads
// what another core wrote just before (the text; the cells when the sink takes them), and
// without the hint it waits for each of those cache lines in turn.
void prefetch(const PointOut& o) {
  auto lines = [](const void* p, std::size_t bytes) {
    for (std::size_t off = 0; off < bytes; off += 64) __builtin_prefetch(static_cast<const char*>(p) + off);
  };
  if (o.has_text) {
    lines(o.text.data(), o.text.size());
    return;
  }
  lines(o.cells.data(), o.cells.size() * sizeof(Value));
  lines(o.key.data(), o.key.size() * sizeof(Value));
}

// A worker's branch signatures (bytes, one per branch site) -> their cells' provenance, looked
// up by a view of the signature's bytes: a point whose branches differ from its predecessor's
// (about one in eight on bench/e2_bench.mls) then costs a hash, not a string and a map node
// allocated and freed.
struct SigHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using LocalSigs = std::unordered_map<std::string, const std::vector<DepSet>*, SigHash, std::equal_to<>>;

class SweepRunner {
 public:
  SweepRunner(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const Stmt& s)
      : p_(p), ck_(ck), cfg_(cfg), opt_(opt), s_(s) {}

  // Evaluates every point and streams the rows (sweeps) or the best rows (searches) to `sink`.
  void run(RunSink& sink, std::vector<AssertOutcome>& asserts) {
    Table t;
    t.name = sym_name(s_.name);
    t.span = s_.span;
    t.search = s_.kind == SK::search;
    Domains domains;  // per binding: tuples of values
    const std::size_t total = evaluate_domains(t, domains);
    describe_columns(t);
    const bool fast = total > opt_.exact_limit;
    if (fast) key_in_binary64(domains);
    Evaluator ev(p_, cfg_, !fast);
    ev.max_steps = opt_.max_steps;
    const std::unique_ptr<fast::SweepProgram> prog = choose_engine(t, domains, ev, fast);
    if (!prog) body_masks();

    // Once the table has begun, a sink that can format rows off its own thread says how; the
    // workers then format the rows of the chunks they compute next.
    RowTextSink* const row_text = dynamic_cast<RowTextSink*>(&sink);
    NotesBuilder notes(p_, t);
    bool begun = false;
    std::shared_ptr<const CellCheck> cell_check;  // once the table has begun
    auto begin_table = [&](const std::vector<PointOut*>& sample) {
      // One display unit per column, fitted to the largest magnitude of the first rows.
      for (std::size_t c = 0; c < t.cols.size(); ++c) {
        double biggest = 0;
        for (const PointOut* o : sample)
          if (c < o->cells.size() && o->cells[c].k == Value::K::num)
            biggest = std::max(biggest, std::fabs(o->cells[c].n.d));
        t.cols[c].display = display_for(scope_of(p_), t.cols[c].type, biggest);
      }
      sink.table_begin(t);
      begun = true;
      cell_check = std::make_shared<const CellCheck>(t);
    };
    std::vector<DepSet> last_cell_deps;
    // One row object for the whole table. Its vectors trade places with the point's (and the
    // notes builder's previous row): storage circulates, nothing is copied or allocated per row.
    Row row;
    auto emit_row = [&](PointOut& o, std::size_t point) {
      std::swap(row.key, o.key);
      std::swap(row.cells, o.cells);
      row.point = point;
      // A row the worker found plain (every cell a finite binary64 number in its number column)
      // is not looked at again; otherwise each cell not plain goes through check_displayable.
      if (!o.displayable)
        for (std::size_t c = 0; c < row.cells.size() && c < t.cols.size(); ++c)
          if (!cell_check->plain(c, row.cells[c]))
            check_displayable(p_, row.cells[c], t.cols[c].type, t.cols[c].display, t.cols[c].span);
      // Consecutive rows mostly share their cells' deps: union only what is new (nothing, when
      // the worker saw this row's deps equal the previous row's).
      const bool known = o.delta.known && !t.search;
      if (!known || !o.delta.same_deps) {
        last_cell_deps.resize(row.cells.size(), ~DepSet{0});
        for (std::size_t c = 0; c < row.cells.size() && c < t.col_deps.size(); ++c)
          if (row.cells[c].deps != last_cell_deps[c]) {
            t.col_deps[c] = p_.deps.unite(t.col_deps[c], row.cells[c].deps);
            last_cell_deps[c] = row.cells[c].deps;
          }
      }
      if (o.has_text)
        row_text->table_row_text(t, o.text);
      else
        sink.table_row(t, row);
      if (!t.search) notes.add(row, t.row_count, known ? o.delta : RowDelta{});
      ++t.row_count;
    };
    auto offer_row_format = [&] {
      if (t.search || !begun || has_row_format_) return;
      std::shared_ptr<const RowFormat> f = row_text ? row_text->row_format(t) : nullptr;
      std::lock_guard<std::mutex> lock(format_mu_);
      cell_check_ = cell_check;
      if (!f) return;
      row_format_ = std::move(f);
      has_row_format_ = true;
    };
    Progress progress(opt_.progress && total >= 20000, t.name, total);
    std::vector<std::pair<std::size_t, PointOut>> best;  // searches: ranked candidates

    auto consume = [&](std::vector<PointOut>& outs, std::size_t first_point) {
      if (!t.search && !begun) {
        std::vector<PointOut*> sample;
        for (auto& o : outs)
          if (!o.filtered) sample.push_back(&o);
        if (!sample.empty()) begin_table(sample);
      }
      for (std::size_t k = 0; k < outs.size(); ++k) {
        PointOut& o = outs[k];
        if (k + 2 < outs.size()) prefetch(outs[k + 2]);
        for (auto& a : o.failed) asserts.push_back(std::move(a));
        if (o.filtered) {
          ++t.filtered;
          continue;
        }
        ++t.evaluated;
        if (!o.feasible) ++t.infeasible;
        if (!o.error.empty()) {
          auto it = std::find_if(t.errors.begin(), t.errors.end(), [&](const auto& r) { return r.first == o.error; });
          if (it == t.errors.end())
            t.errors.emplace_back(std::move(o.error), 1);
          else
            ++it->second;
          o.error.clear();
        }
        if (!t.search) {
          emit_row(o, first_point + k);
        } else if (o.feasible) {
          if (opt_.keep_search_points) keep_point(t, o, first_point + k);
          offer(best, first_point + k, std::move(o));
        }
      }
      offer_row_format();
      progress.update(first_point + outs.size());
    };
    const std::size_t nchunks = (total + kChunk - 1) / kChunk;
    if (opt_.shard_out) {
      shard(total, domains, ev, prog.get(), fast, nchunks);
      return;
    }
    if (opt_.shard_in)
      merge(total, domains, ev, fast, t, asserts, best, begun, begin_table, emit_row);
    else
      pipeline(total, domains, ev, prog.get(), fast, consume, 0, nchunks);
    progress.done();

    if (t.search) {
      if (opt_.keep_search_points) {
        // Each objective shown in the unit its largest kept value reads best in.
        for (std::size_t j = 0; j < objective_types_.size(); ++j) {
          double biggest = 0;
          for (const auto& sp : t.points)
            if (j < sp.objectives.size()) biggest = std::max(biggest, std::abs(sp.objectives[j]));
          t.objective_displays.push_back(display_for(scope_of(p_), objective_types_[j], biggest));
        }
      }
      if (pareto_) front_sort(best);
      std::vector<PointOut*> sample;
      for (auto& [i, o] : best) sample.push_back(&o);
      begin_table(sample);
      for (auto& [i, o] : best) emit_row(o, i);
    } else if (!begun) {
      begin_table({});
    }
    t.notes = notes.finish();
    sink.table_end(t);
  }

 private:
  using Domains = std::vector<std::vector<std::vector<Value>>>;

  // Domains are evaluated once, outside any point (exactly, unless the sweep is large). Fills
  // the table's key names; returns the number of points (refused beyond --max-points).
  std::size_t evaluate_domains(Table& t, Domains& domains) {
    std::size_t total = 1;
    Evaluator exact_ev(p_, cfg_, true);
    exact_ev.max_steps = opt_.max_steps;
    for (const auto& b : s_.bindings) {
      domains.push_back(domain(exact_ev, b));
      for (std::size_t i = 0; i < b.names.size(); ++i) t.key_names.push_back(sym_name(b.names[i]));
      const std::size_t n = domains.back().size();
      if (n == 0)
        throw DiagnosticError{make_diagnostic(ErrorKind::sweep_decl, b.span, "this sweep variable has no values")};
      if (n > opt_.max_points || total > opt_.max_points / n) {
        Diagnostic d = make_diagnostic(ErrorKind::sweep_too_large, s_.name_span,
                                       "'" + t.name + "' has more than " + std::to_string(opt_.max_points) + " points");
        d.help.push_back("raise the cap with --max-points N if this is intended");
        throw DiagnosticError{d};
      }
      total *= n;
    }
    for (const auto& b : s_.bindings) key_width_ += b.names.size();
    return total;
  }

  // The table's columns and a search's objective, from the body.
  void describe_columns(Table& t) {
    for (const auto& item : s_.body) {
      if (item.kind == BK::show)
        for (const auto& sh : item.shows) t.cols.push_back(Column{sh.label, ck_.show_type(&sh), {}, sh.span});
      if (item.kind == BK::subject) has_subject_ = true;
      if (item.kind == BK::maximize || item.kind == BK::minimize) {
        maximize_.push_back(item.kind == BK::maximize);
        t.objective = std::string(item.kind == BK::maximize ? "maximize " : "minimize ") +
                      std::string(p_.sources.slice(item.exprs[0]->span));
      }
      if (item.kind == BK::pareto) {
        pareto_ = true;
        maximize_ = item.maximize;
        t.objective = "pareto " + std::string(p_.sources.slice(item.span)).substr(7);
      }
      if (item.kind == BK::maximize || item.kind == BK::minimize || item.kind == BK::pareto)
        for (const auto& e : item.exprs) {
          t.objective_names.emplace_back(p_.sources.slice(e->span));
          objective_types_.push_back(ck_.expr_type(e.get()));
        }
      if (item.kind == BK::top) top_ = static_cast<std::size_t>(item.top);
    }
    if (has_subject_ && !t.search) t.cols.push_back(Column{"feasible", t_bool(), {}, s_.span});
    t.col_deps.assign(t.cols.size(), 0);
  }

  // A binary64 sweep keys its rows in binary64 too: an exact key value would be shared by
  // every row (its reference count bounced between threads) and printed through rationals.
  static void key_in_binary64(Domains& domains) {
    for (auto& d : domains)
      for (auto& tuple : d)
        for (auto& v : tuple)
          if (v.k == Value::K::num && v.n.exact()) v.n = Num::of_double(v.n.d);
  }

  // Large sweeps run compiled binary64 code; what the compiler does not support falls back
  // to the tree-walking evaluator (same results, slower). The table says which.
  std::unique_ptr<fast::SweepProgram> choose_engine(Table& t, const Domains& domains, Evaluator& ev, bool fast) {
    std::unique_ptr<fast::SweepProgram> prog;
    if (fast) prog = fast::SweepProgram::compile(p_, cfg_, ev, s_, domains, fallback_reason_);
    t.engine = !fast ? "exact" : prog ? "binary64, compiled" : "binary64, evaluator (" + fallback_reason_ + ")";
    if (prog && std::getenv("MLS_DEBUG_FAST"))
      std::fprintf(stderr, "compiled: %zu instructions\n", prog->instructions());
    return prog;
  }

  // Draws "name: 45% (450000/1000000 points)" on stderr, at most ten times a second.
  class Progress {
   public:
    Progress(bool on, std::string name, std::size_t total) : on_(on), name_(std::move(name)), total_(total) {}
    ~Progress() { done(); }  // an error or Ctrl-C leaves no half-drawn line behind
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    void update(std::size_t done) {
      if (!on_) return;
      const auto now = std::chrono::steady_clock::now();
      if (now - last_ < std::chrono::milliseconds(100)) return;
      last_ = now;
      std::fprintf(stderr, "\r%s: %3zu%% (%zu/%zu points)", name_.c_str(), done * 100 / total_, done, total_);
      std::fflush(stderr);
      drawn_ = true;
    }
    void done() {
      if (drawn_) std::fputs("\r\033[K", stderr);
      drawn_ = false;
    }

   private:
    bool on_;
    std::string name_;
    std::size_t total_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point last_{};
  };

  // Evaluates chunks of points on worker threads and hands them to `consume` in enumeration
  // order (an ordered parallel map, ordered_map.hpp: memory stays flat however large the sweep).
  // Chunks [first_chunk, end_chunk) only (a shard's share; all of them otherwise).
  template <typename Consume>
  void pipeline(std::size_t total, const std::vector<std::vector<std::vector<Value>>>& domains, Evaluator& ev,
                const fast::SweepProgram* prog, bool fast, Consume& consume, std::size_t first_chunk,
                std::size_t end_chunk) {
    const std::size_t nchunks = end_chunk;
    const unsigned threads = opt_.threads ? opt_.threads : std::max(1u, std::thread::hardware_concurrency());
    struct Chunk {
      std::vector<PointOut> outs;
      std::optional<std::pair<std::size_t, DiagnosticError>> error;
    };
    auto compute = [&](std::size_t c, Chunk& out, fast::PointRun& scratch, LocalSigs& local_sigs, CellMemo& memo,
                       EvalRun& eval_run) {
      const std::size_t begin = c * kChunk, end = std::min(total, begin + kChunk);
      // Points are refilled in place: a chunk's vectors keep their storage from chunk to chunk.
      out.error.reset();
      out.outs.resize(end - begin);
      // Compiled points run in blocks over the innermost binding where they can (run_block).
      std::size_t block = 0, block_end = 0;
      bool lanes = false;
      for (std::size_t i = begin; i < end; ++i) {
        try {
          if (interrupt_requested()) throw_interrupted(s_.name_span);
          if (prog && i >= block_end) {
            const std::size_t n = block_size(domains, i, end);
            if (n > 1) {
              block = i;
              block_end = i + n;
              lanes = run_block(*prog, domains, i, n, scratch);
            }
          }
          if (prog && i < block_end)
            block_point(ev, *prog, domains, block, i - block, lanes, scratch, local_sigs, out.outs[i - begin]);
          else if (prog)
            point_fast(ev, *prog, domains, i, scratch, local_sigs, out.outs[i - begin]);
          else
            point_reusing(ev, domains, i, fast, eval_run, out.outs[i - begin]);
        } catch (DiagnosticError& e) {
          // In a search a point that cannot be evaluated (an unstable queue, an error() of a
          // formula) is infeasible, as mlsysim's search skips it; its reason is counted.
          const ErrorKind k = e.diag.kind;
          if (s_.kind == SK::search && k != ErrorKind::interrupted && k != ErrorKind::internal &&
              k != ErrorKind::limit_output) {
            PointOut& o = out.outs[i - begin];
            o = PointOut{};
            o.feasible = false;
            o.error = std::string(info(k).code) + ": " + e.diag.message;
            continue;
          }
          out.error = std::make_pair(i, e);
          out.outs.resize(i - begin);
          return;
        }
      }
      format_rows(out.outs, memo);
    };
    auto fail = [&](std::pair<std::size_t, DiagnosticError>& e) {
      Diagnostic d = e.second.diag;
      d.help.insert(d.help.begin(), "in " + std::string(s_.kind == SK::search ? "search" : "sweep") + " '" +
                                        sym_name(s_.name) + "' at " + point_text(domains, e.first));
      throw DiagnosticError{d};
    };
    struct Scratch {
      fast::PointRun run;
      LocalSigs sigs;
      CellMemo memo;  // of the one row format this sweep uses
      EvalRun eval;   // the tree-walking path's previous point
    };
    ordered_parallel_map<Chunk, Scratch>(
        first_chunk, nchunks, threads,
        [&](std::size_t c, Chunk& out, Scratch& st) { compute(c, out, st.run, st.sigs, st.memo, st.eval); },
        [&](std::size_t c, Chunk& ch) {
          // The first failing point in enumeration order decides the error: deterministic.
          if (ch.error) fail(*ch.error);
          consume(ch.outs, c * kChunk);
        });
  }

  static constexpr std::size_t kChunk = 1024;  // points per unit of work (and of display sampling)

  // On a worker: the chunk's rows as the sink writes them, if the sink has said how yet, and
  // what the writer would otherwise find out by reading every cell again (PointOut::delta,
  // displayable), while the cells are in this core's cache.
  void format_rows(std::vector<PointOut>& outs, CellMemo& memo) {
    std::shared_ptr<const RowFormat> f;
    std::shared_ptr<const CellCheck> check;
    {
      std::lock_guard<std::mutex> lock(format_mu_);
      f = row_format_;
      check = cell_check_;
    }
    const PointOut* prev = nullptr;  // the chunk's previous row (a filtered point is none)
    for (PointOut& o : outs) {
      o.delta = RowDelta{};
      o.displayable = false;
      o.has_text = f && !o.filtered;
      if (o.filtered || s_.kind != SK::sweep) continue;
      if (prev) RowDelta::compare(o.delta, prev->cells, o.cells);
      prev = &o;
      o.displayable = check && check->plain(o.cells);
      if (!o.has_text) continue;
      o.text.clear();
      f->append(o.cells, o.text, memo);
    }
  }

  // A sharded run: this shard's chunks through the pipeline, every kept point (or, for a
  // search, the shard's best) to the shard writer; nothing to the sink.
  void shard(std::size_t total, const std::vector<std::vector<std::vector<Value>>>& domains, Evaluator& ev,
             const fast::SweepProgram* prog, bool fast, std::size_t nchunks) {
    const std::size_t k = opt_.shard_k - 1, n = opt_.shard_n;
    const std::size_t c0 = k * nchunks / n, c1 = (k + 1) * nchunks / n;
    ShardWriter& w = *opt_.shard_out;
    w.sweep(sym_name(s_.name), total, std::min(total, c0 * kChunk), std::min(total, c1 * kChunk));
    ShardCounts counts;
    std::vector<std::pair<std::size_t, PointOut>> best;
    ShardPoint sp;
    auto consume = [&](std::vector<PointOut>& outs, std::size_t first_point) {
      for (std::size_t i = 0; i < outs.size(); ++i) {
        PointOut& o = outs[i];
        for (std::size_t item : o.failed_items) counts.failed.emplace_back(first_point + i, item);
        if (o.filtered) {
          ++counts.filtered;
          continue;
        }
        ++counts.evaluated;
        if (!o.feasible) ++counts.infeasible;
        if (s_.kind == SK::sweep) {
          sp.index = first_point + i;
          sp.feasible = o.feasible;
          std::swap(sp.cells, o.cells);
          w.point(sp);
        } else if (o.feasible) {
          offer(best, first_point + i, std::move(o));
        }
      }
    };
    pipeline(total, domains, ev, prog, fast, consume, c0, c1);
    // In enumeration order: the merge offers every shard's best to one ranking in that order,
    // as the single run offered every point.
    std::sort(best.begin(), best.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto& [i, o] : best) {
      sp.index = i;
      sp.feasible = o.feasible;
      sp.cells = std::move(o.cells);
      sp.objectives = std::move(o.objectives);
      w.point(sp);
    }
    w.sweep_end(counts);
  }

  // A merge: the parts' points in enumeration order, through the same path as computed ones.
  // Sweeps are handed over chunk by chunk as the pipeline would (the display units are fitted
  // to the first chunk with rows); searches offer every shard's best to one ranking.
  template <typename Begin, typename Emit>
  void merge(std::size_t total, const std::vector<std::vector<std::vector<Value>>>& domains, Evaluator& ev, bool fast,
             Table& t, std::vector<AssertOutcome>& asserts, std::vector<std::pair<std::size_t, PointOut>>& best,
             bool& begun, Begin& begin_table, Emit& emit_row) {
    ShardReader& r = *opt_.shard_in;
    r.sweep(t.name, total);
    // One point evaluated here as in a run: assumption texts computed lazily by the evaluator
    // (a validation band) are then set before any row is printed.
    if (total > 0) (void)point(ev, domains, 0, fast);
    ShardPoint sp;
    std::vector<PointOut> outs;
    std::vector<std::size_t> index;
    auto flush = [&] {
      if (outs.empty()) return;
      if (!begun) {
        std::vector<PointOut*> sample;
        for (auto& o : outs) sample.push_back(&o);
        begin_table(sample);
      }
      for (std::size_t i = 0; i < outs.size(); ++i) emit_row(outs[i], index[i]);
      outs.clear();
      index.clear();
    };
    std::size_t last = 0;
    bool any = false;
    while (r.next(sp)) {
      if (sp.index >= total || (any && sp.index <= last))
        throw DiagnosticError{
            make_diagnostic(ErrorKind::merge_part, s_.name_span,
                            "the parts' points of '" + t.name + "' are out of order or out of range")};
      any = true;
      last = sp.index;
      PointOut o;
      o.key = key_of(domains, sp.index);
      o.feasible = sp.feasible;
      o.cells = std::move(sp.cells);
      o.objectives = std::move(sp.objectives);
      if (t.search) {
        if (o.feasible) offer(best, sp.index, std::move(o));
        continue;
      }
      if (!index.empty() && sp.index / kChunk != index.front() / kChunk) flush();
      outs.push_back(std::move(o));
      index.push_back(sp.index);
    }
    flush();
    const ShardCounts& c = r.counts();
    t.evaluated = c.evaluated;
    t.infeasible = c.infeasible;
    t.filtered = c.filtered;
    for (const auto& [i, item] : c.failed) {
      if (item >= s_.body.size() || s_.body[item].kind != BK::assert_ || i >= total)
        throw DiagnosticError{make_diagnostic(ErrorKind::merge_part, s_.name_span,
                                              "a part names an assert that '" + t.name + "' does not have")};
      asserts.push_back(failed_assert(s_.body[item], domains, i));
    }
  }

  void keep_point(Table& t, const PointOut& o, std::size_t index) const {
    if (t.points.size() >= kMaxSearchPoints) {
      ++t.points_dropped;
      return;
    }
    SearchPoint sp{index, {}, o.key};
    for (const auto& v : o.objectives) sp.objectives.push_back(v.k == Value::K::num ? v.n.d : 0.0);
    t.points.push_back(std::move(sp));
  }

  // Ranking for searches, kept to the best `top_` (or the Pareto front) as points stream in.
  bool better(const PointOut& a, const PointOut& b, std::size_t obj) const {
    const int c = compare(a.objectives[obj].n, b.objectives[obj].n);
    return maximize_[obj] ? c > 0 : c < 0;
  }

  void offer(std::vector<std::pair<std::size_t, PointOut>>& best, std::size_t index, PointOut o) {
    if (pareto_) {
      // Keep the non-dominated set; a point equal in both objectives to a kept one is kept too.
      for (const auto& [i, b] : best) {
        const bool no_worse = !better(o, b, 0) && !better(o, b, 1);
        if (no_worse && (better(b, o, 0) || better(b, o, 1))) return;
      }
      std::erase_if(best, [&](const auto& e) {
        const PointOut& b = e.second;
        return !better(b, o, 0) && !better(b, o, 1) && (better(o, b, 0) || better(o, b, 1));
      });
      best.emplace_back(index, std::move(o));
      return;
    }
    // Stable: a later point must be strictly better to overtake (ties keep enumeration order,
    // as Python's sorted() in mlsysim's DSE).
    auto pos = std::find_if(best.begin(), best.end(), [&](const auto& e) { return better(o, e.second, 0); });
    if (static_cast<std::size_t>(pos - best.begin()) >= top_) return;
    best.insert(pos, {index, std::move(o)});
    if (best.size() > top_) best.pop_back();
  }

  void front_sort(std::vector<std::pair<std::size_t, PointOut>>& best) const {
    std::stable_sort(best.begin(), best.end(), [&](const auto& a, const auto& b) {
      return better(a.second, b.second, 0) || (!better(b.second, a.second, 0) && a.first < b.first);
    });
  }

  std::string point_text(const std::vector<std::vector<std::vector<Value>>>& domains, std::size_t index) const {
    auto key = key_of(domains, index);
    std::string s;
    std::size_t k = 0;
    for (const auto& b : s_.bindings)
      for (std::size_t i = 0; i < b.names.size(); ++i, ++k) {
        if (!s.empty()) s += ", ";
        s += sym_name(b.names[i]) + " = " + format_value(key[k], Display{});
      }
    return s;
  }

  std::vector<std::vector<Value>> domain(Evaluator& ev, const Binding& b) {
    std::vector<std::vector<Value>> out;
    if (b.zip) {
      std::vector<Value> lists;
      for (const auto& d : b.domains) lists.push_back(ev.eval_in(*d, s_.nslots));
      if (lists.size() != b.names.size())
        throw DiagnosticError{make_diagnostic(
            ErrorKind::sweep_decl, b.span,
            "zip binds " + std::to_string(b.names.size()) + " names to " + std::to_string(lists.size()) + " lists")};
      const std::size_t n = lists[0].list().items.size();
      for (std::size_t i = 1; i < lists.size(); ++i)
        if (lists[i].list().items.size() != n)
          throw DiagnosticError{make_diagnostic(ErrorKind::sweep_decl, b.domains[i]->span,
                                                "zip lists differ in length: " + std::to_string(n) + " and " +
                                                    std::to_string(lists[i].list().items.size()))};
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<Value> tuple;
        for (const auto& l : lists) tuple.push_back(l.list().items[i]);
        out.push_back(std::move(tuple));
      }
      return out;
    }
    Value from = ev.eval_in(*b.domains[0], s_.nslots);
    if (!b.range_to) {
      for (const auto& x : from.list().items) out.push_back({x});
      return out;
    }
    Value to = ev.eval_in(*b.range_to, s_.nslots);
    Value step = b.step ? ev.eval_in(*b.step, s_.nslots) : Value::number(Num::of_int(1));
    const bool mul = b.step_op == '*';
    const Expr& at = *b.domains[0];
    if (mul ? compare(step.n, Num::of_int(1)) <= 0 : compare(step.n, Num::of_int(0)) <= 0)
      throw DiagnosticError{
          make_diagnostic(ErrorKind::sweep_decl, b.step ? b.step->span : b.span,
                          mul ? "a multiplicative step must be greater than 1" : "a range step must be positive")};
    if (mul && compare(from.n, Num::of_int(0)) <= 0)
      throw DiagnosticError{make_diagnostic(ErrorKind::sweep_decl, at.span, "a multiplicative range starts above 0")};
    // Long ranges are generated in binary64 (they run on the fast path anyway); each value is
    // from + i*step (or from * step^i), so errors do not accumulate.
    const double span = mul ? std::log(to.n.d / from.n.d) / std::log(step.n.d) : (to.n.d - from.n.d) / step.n.d;
    if (span > static_cast<double>(opt_.exact_limit)) {
      const double n = std::floor(span + 1e-9) + 1;
      if (n > static_cast<double>(opt_.max_points) + 1) {
        out.resize(opt_.max_points + 1);  // the caller reports the cap
        return out;
      }
      const DepSet d = ev.unite(from.deps, ev.unite(to.deps, step.deps));
      for (double i = 0; i < n; ++i) {
        const double x = mul ? from.n.d * std::pow(step.n.d, i) : from.n.d + i * step.n.d;
        if (x > to.n.d * (1 + 1e-12)) break;
        out.push_back({Value::number(Num::of_double(x), d)});
      }
      return out;
    }
    Value x = from;
    while (compare(x.n, to.n) <= 0) {
      out.push_back({x});
      if (out.size() > opt_.max_points) break;  // the caller reports the cap
      x = ev.arith(mul ? Op::mul : Op::add, x, step, at);
    }
    return out;
  }

  std::vector<Value> key_of(const std::vector<std::vector<std::vector<Value>>>& domains, std::size_t index) const {
    std::vector<std::size_t> pick;
    std::vector<Value> key;
    key_of(domains, index, pick, key);
    return key;
  }

  // Cartesian product, first binding outermost (itertools.product order): `key` receives the
  // point's values (assigned in place, keeping its storage), `pick` the element chosen from
  // each binding's domain.
  void key_of(const std::vector<std::vector<std::vector<Value>>>& domains, std::size_t index,
              std::vector<std::size_t>& pick, std::vector<Value>& key) const {
    pick.resize(domains.size());
    for (std::size_t b = domains.size(); b-- > 0;) {
      pick[b] = index % domains[b].size();
      index /= domains[b].size();
    }
    std::size_t width = 0;
    for (std::size_t b = 0; b < domains.size(); ++b) width += domains[b][pick[b]].size();
    key.resize(width);
    std::size_t k = 0;
    for (std::size_t b = 0; b < domains.size(); ++b)
      for (const auto& v : domains[b][pick[b]]) key[k++] = v;
  }

  // An `assert` inside the sweep body that is false at point `index`.
  AssertOutcome failed_assert(const BodyItem& item, const std::vector<std::vector<std::vector<Value>>>& domains,
                              std::size_t index) const {
    AssertOutcome a;
    a.ok = false;
    a.span = item.exprs[0]->span;
    a.text = std::string(p_.sources.slice(item.exprs[0]->span));
    a.message = item.message;
    a.detail = "at " + point_text(domains, index);
    return a;
  }

  // One point from scratch: point_reusing with no previous point, so every item is evaluated
  // (the careful re-run of a compiled point, a shard's first point, a bailed point's diagnostic).
  PointOut point(Evaluator& ev, const Domains& domains, std::size_t index, bool fast) {
    EvalRun fresh;
    PointOut o;
    point_reusing(ev, domains, index, fast, fresh, o);
    return o;
  }

  // Bit of binding b in the masks of point_reusing (the 64th binding and later share the last).
  static std::uint64_t binding_bit(std::size_t b) { return std::uint64_t{1} << std::min<std::size_t>(b, 63); }

  // Which bindings each body item depends on: the sweep variables it reads, directly or through
  // the `let`s before it (slots are never reused within a statement, so a slot is one variable).
  // A record's own items are computed inside the expression that reads them: they add nothing
  // of their own. A slot read before anything is known to write it depends on everything.
  void body_masks() {
    const std::size_t n = static_cast<std::size_t>(std::max(s_.nslots, 1));
    std::vector<std::uint64_t> slot(n, ~std::uint64_t{0});
    for (std::size_t b = 0; b < s_.bindings.size(); ++b)
      for (const int sl : s_.bindings[b].slots)
        if (sl >= 0 && static_cast<std::size_t>(sl) < n) slot[static_cast<std::size_t>(sl)] = binding_bit(b);
    item_mask_.assign(s_.body.size(), 0);
    for (std::size_t i = 0; i < s_.body.size(); ++i) {
      const BodyItem& item = s_.body[i];
      std::uint64_t m = 0;
      auto walk = [&](auto& self, const Expr& e) -> void {
        if (e.kind == EK::record)
          for (const auto& it : e.items)
            if (it.slot >= 0 && static_cast<std::size_t>(it.slot) < n) slot[static_cast<std::size_t>(it.slot)] = 0;
        if (e.kind == EK::name && e.ref.kind == RefKind::local)
          m |= e.ref.index < n ? slot[e.ref.index] : ~std::uint64_t{0};
        for_each_child(e, [&](const Expr& kid) { self(self, kid); });
      };
      for (const auto& x : item.exprs) walk(walk, *x);
      for (const auto& sh : item.shows) walk(walk, *sh.expr);
      item_mask_[i] = m;
      if (item.kind == BK::let && item.slot >= 0 && static_cast<std::size_t>(item.slot) < n)
        slot[static_cast<std::size_t>(item.slot)] = m;
    }
  }

  // One point, incrementally: a body item none of whose bindings changed since this worker last
  // evaluated it gives the values it gave then (its evaluation steps
  // are charged again, so the step budget runs out exactly where it would; when they would not
  // fit, the item is evaluated, to fail as it would). Points arrive in enumeration order, so
  // mostly only the innermost binding changed. `o` is refilled in place.
  void point_reusing(Evaluator& ev, const Domains& domains, std::size_t index, bool fast, EvalRun& st, PointOut& o) {
    const Evaluator::BudgetScope budget(ev);
    o.filtered = false;
    o.feasible = true;
    o.cells.clear();
    o.objectives.clear();
    o.failed.clear();
    o.failed_items.clear();
    o.error.clear();
    o.has_text = false;
    key_of(domains, index, st.pick, o.key);
    const std::size_t nbody = s_.body.size();
    std::uint64_t changed = 0;
    if (st.last_pick.size() != domains.size() || st.values.size() != nbody) {
      st.slots.assign(static_cast<std::size_t>(std::max(s_.nslots, 1)), Value{});
      st.stale.assign(nbody, 0);
      st.cost.assign(nbody, 0);
      st.valid.assign(nbody, 0);
      st.values.assign(nbody, {});
      changed = ~std::uint64_t{0};
    } else {
      for (std::size_t b = 0; b < domains.size(); ++b)
        if (st.pick[b] != st.last_pick[b]) changed |= binding_bit(b);
    }
    std::swap(st.pick, st.last_pick);
    Value* const slots = st.slots.data();
    std::size_t k = 0;
    for (std::size_t b = 0; b < s_.bindings.size(); ++b) {
      const Binding& bd = s_.bindings[b];
      const bool moved = (changed & binding_bit(b)) != 0;
      for (std::size_t j = 0; j < bd.slots.size(); ++j, ++k) {
        if (!moved) continue;
        Value& v = slots[static_cast<std::size_t>(bd.slots[j])];
        v = o.key[k];
        if (fast && v.k == Value::K::num) v.n = Num::of_double(v.n.d);
      }
    }
    const DepSet fast_deps = fast ? ev.overflow_deps() : 0;
    for (std::size_t i = 0; i < nbody; ++i) {
      const BodyItem& item = s_.body[i];
      if (item.kind == BK::top) continue;
      st.stale[i] |= changed;
      std::vector<Value>& vals = st.values[i];
      if (st.valid[i] && (st.stale[i] & item_mask_[i]) == 0 && st.cost[i] < Evaluator::steps_left()) {
        ev.charge(st.cost[i], item.span);
      } else {
        st.valid[i] = 0;
        vals.clear();
        const std::uint64_t before = Evaluator::steps_left();
        // Every condition of `subject` and objective of `pareto`, the one expression of the
        // others.
        const std::size_t nexprs = item.kind == BK::subject || item.kind == BK::pareto
                                       ? item.exprs.size()
                                       : std::min<std::size_t>(item.exprs.size(), 1);
        for (std::size_t x = 0; x < nexprs; ++x) vals.push_back(ev.eval(*item.exprs[x], slots, 0));
        for (const auto& sh : item.shows) {
          vals.push_back(ev.eval(*sh.expr, slots, 0));
          if (fast_deps) vals.back().deps = ev.unite(vals.back().deps, fast_deps);
        }
        st.cost[i] = before - Evaluator::steps_left();
        st.stale[i] = 0;
        st.valid[i] = 1;
      }
      switch (item.kind) {
        case BK::let: slots[static_cast<std::size_t>(item.slot)] = vals[0]; break;
        case BK::where:
          if (!vals[0].b) {
            o.filtered = true;
            return;
          }
          break;
        case BK::subject:
          for (const auto& v : vals)
            if (!v.b) o.feasible = false;
          break;
        case BK::show: o.cells.insert(o.cells.end(), vals.begin(), vals.end()); break;
        case BK::assert_:
          if (!vals[0].b) {
            o.failed.push_back(failed_assert(item, domains, index));
            o.failed_items.push_back(i);
          }
          break;
        case BK::maximize:
        case BK::minimize:
        case BK::pareto: o.objectives.insert(o.objectives.end(), vals.begin(), vals.end()); break;
        case BK::top: break;
      }
    }
    if (has_subject_ && s_.kind == SK::sweep) o.cells.push_back(Value::boolean(o.feasible));
  }

  // Moves `run`'s key to point `index` (one odometer step from its previous point, usually the
  // innermost binding only: only the bindings that moved are copied into the key, which
  // `run.key` keeps between points). Returns the key positions that changed: compiled code that
  // depends on none of them is not re-run.
  std::uint64_t advance(const Domains& domains, std::size_t index, fast::PointRun& run) const {
    std::uint64_t changed = 0;
    std::vector<std::size_t>& pick = run.last_pick;
    if (pick.size() == domains.size() && run.key.size() == key_width_ && index == run.last_index + 1) {
      // `from`: the binding that advanced without wrapping; every later one wrapped to 0.
      std::size_t from = domains.size() - 1;
      while (++pick[from] == domains[from].size() && from > 0) pick[from--] = 0;
      std::size_t k = 0;
      for (std::size_t j = 0; j < from; ++j) k += domains[j][pick[j]].size();
      for (std::size_t j = from; j < domains.size(); ++j)
        for (const auto& v : domains[j][pick[j]]) {
          run.key[k] = v;
          changed |= k < 64 ? std::uint64_t{1} << k : ~std::uint64_t{0};
          ++k;
        }
    } else {
      key_of(domains, index, pick, run.key);
      changed = ~std::uint64_t{0};
    }
    run.last_index = index;
    return changed;
  }

  // One point through the compiled program, on its own.
  void point_fast(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                  fast::PointRun& run, LocalSigs& local_sigs, PointOut& o) {
    const std::uint64_t changed = advance(domains, index, run);
    prog.run(run.key, changed, run);
    point_out(ev, prog, domains, index, run, kNoLane, local_sigs, o);
  }

  // Up to kLanes points [index, index + n) that differ only in the innermost binding (n > 1):
  // the work that depends on the outer bindings but not the innermost one once, then every
  // instruction that depends on the innermost binding once for all n points (run_lanes). Returns
  // whether that worked; if not, `run` is left so that the points run one by one (block_point:
  // the first one re-runs everything that depends on the innermost binding).
  bool run_block(const fast::SweepProgram& prog, const Domains& domains, std::size_t index, std::size_t n,
                 fast::PointRun& run) const {
    const std::uint64_t changed = advance(domains, index, run);
    prog.run(run.key, changed & ~inner_mask(domains), run, inner_mask(domains));
    const std::size_t pick = run.last_pick.back();
    std::array<const std::vector<Value>*, fast::kLanes> values{};
    for (std::size_t l = 0; l < n; ++l) values[l] = &domains.back()[pick + l];
    return prog.run_lanes(values.data(), n, key_width_ - domains.back()[0].size(), run);
  }

  // The key positions of the innermost binding.
  std::uint64_t inner_mask(const Domains& domains) const {
    const std::size_t inner = domains.back()[0].size();
    return ((std::uint64_t{1} << inner) - 1) << (key_width_ - inner);
  }

  // Points from `index` on (up to `end`) that can run as one block: they differ only in the
  // innermost binding, whose key positions fit the 64-bit masks. 1 when there is no block.
  std::size_t block_size(const Domains& domains, std::size_t index, std::size_t end) const {
    if (domains.empty() || key_width_ > 64) return 1;
    const std::size_t size = domains.back().size();
    return std::min({fast::kLanes, size - index % size, end - index});
  }

  // Point index + l of a block run_block started at `index`: read from lane l if the lanes ran,
  // otherwise run on its own (the block's first point with its innermost binding changed).
  void block_point(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                   std::size_t l, bool lanes, fast::PointRun& run, LocalSigs& local_sigs, PointOut& o) {
    const std::uint64_t changed = l > 0 ? advance(domains, index + l, run) : inner_mask(domains);
    if (!lanes) prog.run(run.key, changed, run);
    point_out(ev, prog, domains, index + l, run, lanes ? l : kNoLane, local_sigs, o);
  }

  static constexpr std::size_t kNoLane = ~std::size_t{0};

  // A compiled point's row, from `run` (kNoLane) or from lane `lane` of the last run_lanes.
  // Provenance comes from the signature cache; a new signature is evaluated once by the
  // tree-walker, which must agree bit for bit.
  void point_out(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                 fast::PointRun& run, std::size_t lane, LocalSigs& local_sigs, PointOut& o) {
    o.filtered = false;
    o.feasible = true;
    o.objectives.clear();
    o.failed.clear();
    o.failed_items.clear();
    o.key.assign(run.key.begin(), run.key.end());
    if (run.status == fast::Status::bail) {
      (void)point(ev, domains, index, true);  // raises the evaluator's own diagnostic
      throw DiagnosticError{
          make_diagnostic(ErrorKind::internal, s_.span, "compiled sweep failed where the evaluator did not")};
    }
    if (run.status == fast::Status::filtered) {
      o.filtered = true;
      return;
    }
    auto read = [&](const fast::Slot& sl) { return lane == kNoLane ? prog.read(sl, run) : prog.read(sl, run, lane); };
    const std::uint8_t* const sig_at = lane == kNoLane ? run.sig.data() : fast::SweepProgram::signature(run, lane);
    const std::size_t nsig = run.sig.size();
    auto value_of = [&](const fast::Slot& sl, DepSet d) {
      const double x = read(sl);
      if (sl.kind == fast::Slot::K::boolean) return Value::boolean(x != 0, d);
      if (sl.kind == fast::Slot::K::str) return Value::string(prog.string_of(x), d);
      return Value::number(Num::of_double(x), d);
    };
    for (const auto& f : prog.feasibility())
      if (read(f) == 0) o.feasible = false;
    for (const auto& ob : prog.objectives()) o.objectives.push_back(value_of(ob, 0));
    for (const auto& [cond, item] : prog.asserts())
      if (read(cond) == 0) {
        o.failed.push_back(failed_assert(s_.body[item], domains, index));
        o.failed_items.push_back(item);
      }
    // The previous point of this worker usually took the same branches.
    const std::vector<DepSet>* deps = nullptr;
    if (run.last_deps && run.last_sig.size() == nsig && std::equal(sig_at, sig_at + nsig, run.last_sig.begin()))
      deps = static_cast<const std::vector<DepSet>*>(run.last_deps);
    const std::string_view sig_bytes(reinterpret_cast<const char*>(sig_at), nsig);
    bool known_here = deps != nullptr;  // in local_sigs already (or as good as: the last point's)
    if (!deps)
      if (auto it = local_sigs.find(sig_bytes); it != local_sigs.end()) {
        deps = it->second;
        known_here = true;
      }
    const std::string sig = known_here ? std::string() : std::string(sig_bytes);
    if (!deps) {
      std::lock_guard<std::mutex> lock(sig_mu_);
      if (auto it = sigs_.find(sig); it != sigs_.end()) deps = &it->second;
    }
    if (!deps) {
      PointOut slow = point(ev, domains, index, true);
      std::vector<DepSet> d;
      for (std::size_t c = 0; c < prog.cells().size(); ++c) {
        const Value& sv = slow.cells[c];
        const Value fv = value_of(prog.cells()[c], 0);
        const bool same =
            sv.k == fv.k && (sv.k != Value::K::num || std::memcmp(&sv.n.d, &fv.n.d, sizeof(double)) == 0) &&
            (sv.k != Value::K::boolean || sv.b == fv.b) && (sv.k != Value::K::str || sv.str() == fv.str());
        if (!same)
          throw DiagnosticError{make_diagnostic(ErrorKind::internal, s_.body.empty() ? s_.span : s_.span,
                                                "compiled sweep disagrees with the evaluator in column " +
                                                    std::to_string(c + 1) + " at " + point_text(domains, index))};
        d.push_back(sv.deps);
      }
      std::lock_guard<std::mutex> lock(sig_mu_);
      deps = &sigs_.emplace(sig, std::move(d)).first->second;
    }
    if (!known_here) local_sigs.emplace(sig, deps);
    if (run.last_deps != deps) {
      run.last_sig.assign(sig_at, sig_at + nsig);
      run.last_deps = deps;
    }
    // Numbers are written into the cells in place (they are cleared only to be refilled).
    // The lane's rows, looked up once rather than per cell.
    const std::vector<fast::Slot>& cells = prog.cells();
    const std::size_t ncells = cells.size();
    const double* const regs = run.regs.data();
    const double* const rows = lane == kNoLane ? nullptr : run.lanes.data() + lane;
    const std::int32_t* const row_of =
        lane == kNoLane ? nullptr : run.lane_schedules[run.lane_schedule].row_of_reg.data();
    o.cells.resize(ncells);
    for (std::size_t c = 0; c < ncells; ++c) {
      const fast::Slot& sl = cells[c];
      Value& v = o.cells[c];
      if (sl.kind != fast::Slot::K::num) {
        v = value_of(sl, (*deps)[c]);
        continue;
      }
      double x = sl.value;
      if (!sl.constant) x = !rows || row_of[sl.reg] < 0 ? regs[sl.reg] : rows[row_of[sl.reg] * fast::kLanes];
      v.k = Value::K::num;
      v.n.d = x;
      v.n.sn = v.n.sd = 0;
      if (v.n.ex) v.n.ex.reset();
      if (v.h) v.h.reset();
      v.deps = (*deps)[c];
    }
    if (has_subject_ && s_.kind == SK::sweep) o.cells.push_back(Value::boolean(o.feasible));
  }

  Program& p_;
  Checker& ck_;
  const Config& cfg_;
  const RunOptions& opt_;
  const Stmt& s_;
  bool has_subject_ = false;
  std::string fallback_reason_;
  std::size_t key_width_ = 0;             // values per sweep point (zip bindings contribute several)
  std::vector<std::uint64_t> item_mask_;  // per body item: the bindings it depends on (point_reusing)
  std::mutex sig_mu_;
  std::mutex format_mu_;  // guards row_format_, set once by the consumer, read by the workers
  std::shared_ptr<const RowFormat> row_format_;
  std::shared_ptr<const CellCheck> cell_check_;  // guarded by format_mu_ too
  bool has_row_format_ = false;                  // the consumer's own flag (it alone sets row_format_)
  std::unordered_map<std::string, std::vector<DepSet>> sigs_;
  bool pareto_ = false;
  std::vector<TypeP> objective_types_;  // per objective (its display unit, for kept points)
  std::vector<bool> maximize_;
  std::size_t top_ = 5;
};

}  // namespace

void run_sweep(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const Stmt& s, RunSink& sink,
               std::vector<AssertOutcome>& asserts) {
  SweepRunner sr(p, ck, cfg, opt, s);
  sr.run(sink, asserts);
}

}  // namespace mls
