// sweep.cpp — sweeps and searches. Points are independent (values are immutable), so they run
// on a thread pool and are merged back in enumeration order: output is identical for any
// thread count, and memory stays flat because only a window of chunks is in flight.
#include "sweep.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "grammar/symbols.hpp"
#include "interpreter/results/row_text.hpp"
#include "interrupt.hpp"
#include "notes.hpp"
#include "ordered_map.hpp"
#include "search_group.hpp"
#include "search_rank.hpp"
#include "solve.hpp"
#include "sweep_points.hpp"

namespace mls {
namespace {

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

// The rows of a compact chunk that go to a sink taking Rows (those not filtered nor formatted
// on a worker), as one RowBlock: their numbers as they are, their Values made on request.
class ChunkRows : public RowBlock {
 public:
  ChunkRows(const SweepPoints& pts, const SweepPoints::Domains& domains, const CompactCells& cells)
      : pts_(pts), domains_(domains), cells_(cells) {}
  void reset(const CompactRows& rows, std::size_t first_point) {
    rows_ = &rows;
    first_ = first_point;
    index_.clear();
    start_ = n_ = 0;
    listed_ = false;
  }
  // Rows of *rows_ in order. While they follow one another they are only counted (start_, n_);
  // the first gap lists them (index_).
  void push(std::size_t r) {
    if (!listed_) {
      if (n_ == 0) start_ = r;
      if (r == start_ + n_) {
        ++n_;
        return;
      }
      for (std::size_t k = 0; k < n_; ++k) index_.push_back(start_ + k);
      listed_ = true;
    }
    index_.push_back(r);
  }
  [[nodiscard]] std::size_t size() const override { return listed_ ? index_.size() : n_; }
  [[nodiscard]] std::size_t width() const override { return cells_.kinds.size(); }
  [[nodiscard]] bool number_column(std::size_t c) const override { return cells_.kinds[c] == fast::Slot::K::num; }
  [[nodiscard]] const double* numbers(std::size_t i) const override { return rows_->row(at(i)); }
  [[nodiscard]] const double* contiguous() const override { return listed_ || n_ == 0 ? nullptr : rows_->row(start_); }
  void row(std::size_t i, Row& out) const override {
    const std::size_t r = at(i);
    cells_.materialize(*rows_, r, out.cells);
    pts_.next_key(domains_, first_ + r, pick_, last_, out.key);
    out.point = first_ + r;
  }

 private:
  const SweepPoints& pts_;
  const SweepPoints::Domains& domains_;
  const CompactCells& cells_;
  const CompactRows* rows_ = nullptr;
  std::size_t first_ = 0;
  [[nodiscard]] std::size_t at(std::size_t i) const { return listed_ ? index_[i] : start_ + i; }
  std::vector<std::size_t> index_;  // rows of *rows_, once they do not follow one another
  std::size_t start_ = 0, n_ = 0;   // until then: rows start_, start_ + 1, ..., n_ of them
  bool listed_ = false;
  // The key of the row made last (next_key's odometer).
  mutable std::vector<std::size_t> pick_;
  mutable std::size_t last_ = ~std::size_t{0};
};

class SweepRunner {
 public:
  SweepRunner(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const Stmt& s)
      : p_(p), ck_(ck), cfg_(cfg), opt_(opt), s_(s), pts_(p, s) {}

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
    if (!prog) pts_.body_masks();

    // Once the table has begun, a sink that can format rows off its own thread says how; the
    // workers then format the rows of the chunks they compute next.
    RowTextSink* const row_text = dynamic_cast<RowTextSink*>(&sink);
    NotesBuilder notes(p_, t);
    bool begun = false;
    std::shared_ptr<const CellCheck> cell_check;  // once the table has begun
    // Compiled sweeps keep their chunks' rows compact (CompactRows); their Values are made
    // here, one row at a time, in `row`.
    compact_ = prog && s_.kind == SK::sweep && !opt_.shard_out && !opt_.shard_in;
    if (compact_) {
      compact_width_ = pts_.compact_width(*prog);
      compact_cells_ = pts_.compact_cells(*prog);
    }
    // One display unit per column, fitted to the largest magnitude of the first rows.
    auto begin_columns = [&](const std::vector<double>& biggest) {
      for (std::size_t c = 0; c < t.cols.size(); ++c)
        t.cols[c].display = display_for(scope_of(p_), t.cols[c].type, c < biggest.size() ? biggest[c] : 0);
      sink.table_begin(t);
      begun = true;
      cell_check = std::make_shared<const CellCheck>(t);
    };
    auto begin_table = [&](const std::vector<PointOut*>& sample) {
      std::vector<double> biggest(t.cols.size(), 0);
      for (std::size_t c = 0; c < t.cols.size(); ++c)
        for (const PointOut* o : sample)
          if (c < o->cells.size() && o->cells[c].k == Value::K::num)
            biggest[c] = std::max(biggest[c], std::fabs(o->cells[c].n.d));
      begin_columns(biggest);
    };
    std::vector<DepSet> last_cell_deps;
    // One row object for the whole table. Its vectors trade places with the point's (and the
    // notes builder's previous row): storage circulates, nothing is copied or allocated per row.
    Row row;
    // `row` (its key and cells set) to the sink and the notes: `text` is its text when the
    // worker formatted it, `displayable` and `delta` what the worker found (PointOut's).
    auto emit = [&](bool displayable, const RowDelta& delta, const std::string_view* text) {
      // A row the worker found plain (every cell a finite binary64 number in its number column)
      // is not looked at again; otherwise each cell not plain goes through check_displayable.
      if (!displayable)
        for (std::size_t c = 0; c < row.cells.size() && c < t.cols.size(); ++c)
          if (!cell_check->plain(c, row.cells[c]))
            check_displayable(p_, row.cells[c], t.cols[c].type, t.cols[c].display, t.cols[c].span);
      // Consecutive rows mostly share their cells' deps: union only what is new (nothing, when
      // the worker saw this row's deps equal the previous row's).
      const bool known = delta.known && !t.search;
      if (!known || !delta.same_deps) {
        last_cell_deps.resize(row.cells.size(), ~DepSet{0});
        for (std::size_t c = 0; c < row.cells.size() && c < t.col_deps.size(); ++c)
          if (row.cells[c].deps != last_cell_deps[c]) {
            t.col_deps[c] = p_.deps.unite(t.col_deps[c], row.cells[c].deps);
            last_cell_deps[c] = row.cells[c].deps;
          }
      }
      if (text)
        row_text->table_row_text(t, *text);
      else
        sink.table_row(t, row);
      if (!t.search) notes.add(row, t.row_count, known ? delta : RowDelta{});
      ++t.row_count;
    };
    auto emit_row = [&](PointOut& o, std::size_t point) {
      std::swap(row.key, o.key);
      std::swap(row.cells, o.cells);
      row.point = point;
      const std::string_view text(o.text);
      emit(o.displayable, o.delta, o.has_text ? &text : nullptr);
    };
    // Row r of a compact chunk, its text from `text_begin` in the chunk's texts (else it joins
    // `block`, handed to the sink after the chunk's rows or before an error): as emit, reading
    // the row's numbers; Values are made only to check a row that is not plain. The chunk's
    // rows go to the notes together, after the sink (consume_compact).
    ChunkRows block(pts_, domains, compact_cells_);
    if (compact_)
      notes.key_maker(
          [&, pick = std::vector<std::size_t>(), last = ~std::size_t{0}](
              std::size_t point, std::vector<Value>& key) mutable { pts_.next_key(domains, point, pick, last, key); });
    std::vector<Value> check_cells;
    std::array<const std::vector<DepSet>*, 16> united_deps{};
    auto emit_compact = [&](const CompactRows& rows, std::size_t r, std::size_t text_begin) {
      const CompactRows::Meta& m = rows.meta[r];
      const std::size_t width = rows.width;
      if (!(m.flags & CompactRows::displayable)) {
        compact_cells_.materialize(rows, r, check_cells);
        for (std::size_t c = 0; c < width && c < t.cols.size(); ++c)
          if (!cell_check->plain(c, check_cells[c]))
            check_displayable(p_, check_cells[c], t.cols[c].type, t.cols[c].display, t.cols[c].span);
      }
      const RowDelta delta = rows.delta(r);
      // A deps vector (one per branch signature, shared by its rows, never changed) whose
      // cells were all united into the columns' deps adds nothing the next time.
      const std::vector<DepSet>*& united = united_deps[(reinterpret_cast<std::uintptr_t>(m.deps) >> 4) % 16];
      if ((!delta.known || !delta.same_deps) && united != m.deps) {
        united = m.deps;
        const std::vector<DepSet>& deps = *m.deps;
        last_cell_deps.resize(width, ~DepSet{0});
        for (std::size_t c = 0; c < width && c < t.col_deps.size(); ++c) {
          const DepSet d = c < deps.size() ? deps[c] : DepSet{0};
          if (d != last_cell_deps[c]) {
            t.col_deps[c] = p_.deps.unite(t.col_deps[c], d);
            last_cell_deps[c] = d;
          }
        }
      }
      if (rows.has_text)
        row_text->table_row_text(t, std::string_view(rows.text).substr(text_begin, m.text_end - text_begin));
      else
        block.push(r);
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
    GroupedRanking best(maximize_, pareto_, top_, group_expr_ != nullptr);  // searches: the best points so far

    auto consume_compact = [&](CompactRows& rows, std::size_t first_point) {
      if (!begun) {
        std::vector<double> biggest(t.cols.size(), 0);
        bool any = false;
        for (std::size_t r = 0; r < rows.size(); ++r) {
          if (rows.meta[r].flags & CompactRows::filtered) continue;
          any = true;
          const double* x = rows.row(r);
          for (std::size_t c = 0; c < t.cols.size() && c < rows.width; ++c)
            if (compact_cells_.kinds[c] == fast::Slot::K::num) biggest[c] = std::max(biggest[c], std::fabs(x[c]));
        }
        if (any) begin_columns(biggest);
      }
      std::size_t next_failed = 0, text_begin = 0;
      const std::size_t first_row = t.row_count;
      block.reset(rows, first_point);
      try {
        for (std::size_t r = 0; r < rows.size(); ++r) {
          for (; next_failed < rows.failed.size() && rows.failed[next_failed].first == r; ++next_failed)
            asserts.push_back(std::move(rows.failed[next_failed].second));
          const CompactRows::Meta& m = rows.meta[r];
          if (m.flags & CompactRows::filtered) {
            ++t.filtered;
            continue;
          }
          ++t.evaluated;
          if (m.flags & CompactRows::infeasible) ++t.infeasible;
          emit_compact(rows, r, text_begin);
          text_begin = m.text_end;
        }
      } catch (...) {
        // The rows before the one refused reach the sink, as they do one by one.
        if (block.size() > 0) sink.table_rows(t, block);
        throw;
      }
      if (block.size() > 0) sink.table_rows(t, block);
      // The regime notes read the chunk's rows after the sink (a refused row above ends the run).
      notes.add_chunk(compact_cells_, rows, first_point, first_row);
      offer_row_format();
      progress.update(first_point + rows.size());
    };
    auto consume = [&](std::vector<PointOut>& outs, CompactRows* rows, std::size_t first_point) {
      if (rows) {
        consume_compact(*rows, first_point);
        return;
      }
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
          const std::string group = take_group(o, domains, first_point + k);
          if (opt_.keep_search_points) keep_point(t, o, first_point + k);
          best.offer(group, first_point + k, std::move(o));
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
    if (opt_.shard_in) {
      merge(total, domains, ev, fast, t, asserts, best, begun, begin_table, emit_row);
    } else {
      try {
        pipeline(total, domains, ev, prog.get(), fast, consume, 0, nchunks);
      } catch (DiagnosticError& e) {
        // The run goes on after this sweep (keep_going): the rows already out end as a table
        // that says where it stopped, so every format stays whole.
        if (begun && keeps_going(opt_, e.diag.kind)) {
          progress.done();
          t.stopped = std::string(info(e.diag.kind).code) + ": " + e.diag.message;
          t.notes = notes.finish();
          sink.table_end(t);
        }
        throw;
      }
    }
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
      std::vector<std::pair<std::size_t, PointOut>> ranked = best.take_ranked();
      std::vector<PointOut*> sample;
      for (auto& [i, o] : ranked) sample.push_back(&o);
      begin_table(sample);
      for (auto& [i, o] : ranked) emit_row(o, i);
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
      mark_solved_keys(t, b);
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
    return total;
  }

  // Which of the binding's keys read a solve's answer (Table::key_solved).
  void mark_solved_keys(Table& t, const Binding& b) const {
    bool solved = false;
    for (const auto& d : b.domains) solved = solved || reads_solve(p_, *d);
    for (const auto* e : {b.range_to.get(), b.step.get()}) solved = solved || (e && reads_solve(p_, *e));
    t.key_solved.resize(t.key_names.size() - b.names.size(), false);
    t.key_solved.resize(t.key_names.size(), solved);
    if (std::find(t.key_solved.begin(), t.key_solved.end(), true) == t.key_solved.end()) t.key_solved.clear();
  }

  // The table's columns and a search's objective, from the body.
  void describe_columns(Table& t) {
    for (const auto& item : s_.body) {
      if (item.kind == BK::show)
        for (const auto& sh : item.shows) t.cols.push_back(Column{sh.label, ck_.show_type(&sh), {}, sh.span});
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
    describe_group(t);
    if (pts_.has_subject() && !t.search) t.cols.push_back(Column{"feasible", t_bool(), {}, s_.span});
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
      CompactRows rows;  // in place of outs, where compact_
      std::optional<std::pair<std::size_t, DiagnosticError>> error;
    };
    auto compute = [&](std::size_t c, Chunk& out, fast::PointRun& scratch, PointScratch& rows, CellMemo& memo,
                       EvalRun& eval_run, std::vector<Value>& cells) {
      const std::size_t begin = c * kChunk, end = std::min(total, begin + kChunk);
      // Points are refilled in place: a chunk's vectors keep their storage from chunk to chunk.
      out.error.reset();
      if (compact_)
        out.rows.reset(end - begin, compact_width_);
      else
        out.outs.resize(end - begin);
      auto dest = [&](std::size_t i, bool head_only = false) {
        return compact_ ? SweepPoints::Dest{nullptr, &out.rows, i - begin, head_only}
                        : SweepPoints::Dest{&out.outs[i - begin], nullptr, 0, false};
      };
      // Compiled points describe themselves (PointOut::described) against the chunk's previous
      // row, and as displayable once the table's units are known.
      std::shared_ptr<const CellCheck> check;
      if (prog) {
        std::lock_guard<std::mutex> lock(format_mu_);
        check = cell_check_;
      }
      rows.chunk(s_.kind == SK::sweep, check.get());
      // Compiled points run in blocks over the innermost binding, or the two innermost ones,
      // where they can (run_block); a wide block whose lanes cannot run together (a branch
      // they decide differently, ...) is tried again as a narrow one (block_size).
      std::size_t block = 0, block_end = 0;
      bool lanes = false;
      for (std::size_t i = begin; i < end; ++i) {
        try {
          if (interrupt_requested()) throw_interrupted(s_.name_span);
          if (prog && i >= block_end) {
            const std::size_t n = pts_.block_size(domains, i, end);
            if (n > 1) {
              block = i;
              block_end = i + n;
              lanes = pts_.run_block(*prog, domains, i, n, scratch);
              const std::size_t n1 = lanes ? n : pts_.block_size(domains, i, end, false);
              if (n1 < n) {
                block_end = i + n1;
                lanes = n1 > 1 && pts_.run_block(*prog, domains, i, n1, scratch);
              }
            }
          }
          if (prog && i < block_end) {
            // A lane block's compact rows: each row's head, then all their cells at once. (The
            // Dest goes by reference, a temporary: a named Dest copied to the call, 16 bytes at a
            // time over its 8-byte and 1-byte stores, stalled every point on stores that could
            // not be forwarded to the copy's loads.)
            const bool head_only = compact_ && lanes;
            pts_.block_point(ev, *prog, domains, block, i - block, lanes, scratch, rows, dest(i, head_only));
            if (head_only) {
              // The block's other heads in one loop (i follows them), then all its cells.
              pts_.lane_heads(ev, *prog, domains, block, block_end - block, scratch, rows, out.rows, block - begin, i);
              pts_.lane_rows(*prog, rows, out.rows, block - begin, block_end - block);
            }
          } else if (prog) {
            pts_.point_fast(ev, *prog, domains, i, scratch, rows, dest(i));
          } else {
            pts_.point_reusing(ev, domains, i, fast, eval_run, out.outs[i - begin]);
          }
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
          if (compact_)
            out.rows.truncate(i - begin);
          else
            out.outs.resize(i - begin);
          break;  // the points before it are formatted as usual: they reach the output first
        }
      }
      if (compact_)
        format_rows(out.rows, memo, cells);
      else
        format_rows(out.outs, memo);
    };
    auto fail = [&](std::pair<std::size_t, DiagnosticError>& e) {
      Diagnostic d = e.second.diag;
      d.help.insert(d.help.begin(), "in " + std::string(s_.kind == SK::search ? "search" : "sweep") + " '" +
                                        sym_name(s_.name) + "' at " + pts_.point_text(domains, e.first));
      throw DiagnosticError{d};
    };
    struct Scratch {
      fast::PointRun run;
      PointScratch rows;         // the signature cache's view, the chunk's previous row
      CellMemo memo;             // of the one row format this sweep uses
      EvalRun eval;              // the tree-walking path's previous point
      std::vector<Value> cells;  // a compact row's cells, made for its format
    };
    ordered_parallel_map<Chunk, Scratch>(
        first_chunk, nchunks, threads,
        [&](std::size_t c, Chunk& out, Scratch& st) { compute(c, out, st.run, st.rows, st.memo, st.eval, st.cells); },
        [&](std::size_t c, Chunk& ch) {
          // The first failing point in enumeration order decides the error: deterministic. The
          // rows before it go out first (a run that keeps going keeps them).
          consume(ch.outs, compact_ ? &ch.rows : nullptr, c * kChunk);
          if (ch.error) fail(*ch.error);
        });
  }

  static constexpr std::size_t kChunk = kSweepChunk;  // points per unit of work (and of display sampling)

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
      o.has_text = f && !o.filtered;
      if (!o.described) {
        o.delta = RowDelta{};
        o.displayable = false;
      }
      if (o.filtered || s_.kind != SK::sweep) continue;
      if (!o.described) {
        if (prev) RowDelta::compare(o.delta, prev->cells, o.cells);
        o.displayable = check && check->plain(o.cells);
      }
      prev = &o;
      if (!o.has_text) continue;
      o.text.clear();
      f->append(o.cells, o.text, memo);
    }
  }

  // The same for a chunk of compact rows: their texts, one after another. What point_out did
  // not describe stays unknown (the writer's thread finds it out).
  void format_rows(CompactRows& rows, CellMemo& memo, std::vector<Value>& cells) {
    std::shared_ptr<const RowFormat> f;
    {
      std::lock_guard<std::mutex> lock(format_mu_);
      f = row_format_;
    }
    rows.has_text = f != nullptr;
    if (!f) return;
    // A row of numbers only is formatted from its numbers where the format can.
    bool numbers = true;
    for (const auto k : compact_cells_.kinds) numbers &= k == fast::Slot::K::num;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      CompactRows::Meta& m = rows.meta[r];
      if (!(m.flags & CompactRows::filtered) &&
          !(numbers && f->append_numbers(std::span<const double>(rows.row(r), rows.width), rows.text, memo))) {
        compact_cells_.materialize(rows, r, cells);
        f->append(cells, rows.text, memo);
      }
      m.text_end = static_cast<std::uint32_t>(rows.text.size());
    }
  }

  // A sharded run: this shard's chunks through the pipeline, every kept point (or, for a
  // search, the shard's best) to the shard writer; nothing to the sink.
  void shard(std::size_t total, const std::vector<std::vector<std::vector<Value>>>& domains, Evaluator& ev,
             const fast::SweepProgram* prog, bool fast, std::size_t nchunks) {
    const std::size_t k = opt_.shard_k - 1, n = opt_.shard_n;
    const std::size_t c0 = k * nchunks / n, c1 = (k + 1) * nchunks / n;
    ShardWriter& w = *opt_.shard_out;
    const auto [first, last] = shard_points(opt_.shard_k, n, total);  // chunks c0..c1, as a merge reads them
    w.sweep(sym_name(s_.name), total, first, last);
    ShardCounts counts;
    GroupedRanking best(maximize_, pareto_, top_, group_expr_ != nullptr);
    ShardPoint sp;
    auto consume = [&](std::vector<PointOut>& outs, CompactRows*, std::size_t first_point) {
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
          const std::string group = take_group(o, domains, first_point + i);
          best.offer(group, first_point + i, std::move(o));
        }
      }
    };
    pipeline(total, domains, ev, prog, fast, consume, c0, c1);
    // In enumeration order: the merge offers every shard's best to one ranking in that order,
    // as the single run offered every point.
    for (auto& [i, o] : best.take_in_order()) {
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
             Table& t, std::vector<AssertOutcome>& asserts, GroupedRanking& best, bool& begun, Begin& begin_table,
             Emit& emit_row) {
    ShardReader& r = *opt_.shard_in;
    // Each part's points are checked against the table: a cell of the wrong kind or a missing
    // one would be read past (or printed) as if computed here.
    ShardShape shape;
    shape.search = t.search;
    shape.objectives = objective_types_.size();
    for (const Column& c : t.cols) {
      const Type::K k = c.type ? c.type->k : Type::K::error;
      shape.cells.push_back(k == Type::K::num       ? std::optional(Value::K::num)
                            : k == Type::K::boolean ? std::optional(Value::K::boolean)
                            : k == Type::K::str     ? std::optional(Value::K::str)
                                                    : std::nullopt);
    }
    r.sweep(t.name, total, shape);
    // One point evaluated here as in a run: assumption texts computed lazily by the evaluator
    // (a validation band) are then set before any row is printed.
    if (total > 0) (void)pts_.point(ev, domains, 0, fast);
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
      o.key = pts_.key_of(domains, sp.index);
      o.feasible = sp.feasible;
      o.cells = std::move(sp.cells);
      o.objectives = std::move(sp.objectives);
      if (t.search) {
        // A part's point holds its group's cell already (the shard took it as a run does).
        if (o.feasible) {
          const std::string group = group_expr_ ? group_identity(o.cells[group_col_]) : std::string();
          best.offer(group, sp.index, std::move(o));
        }
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
      asserts.push_back(pts_.failed_assert(s_.body[item], domains, i));
    }
  }

  // `top K per EXPR` (search_group.hpp): the group's column, first, named by EXPR's text (a
  // record shows as its global name, a string column), unless a shown column of that name shows
  // that same expression (the checker refuses one of that name showing anything else).
  void describe_group(Table& t) {
    group_expr_ = search_group(s_);
    if (!group_expr_) return;
    group_key_ = search_group_key(s_);
    std::string name;
    for (const char ch : p_.sources.slice(group_expr_->span))
      if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') name += ch;
    t.per = name;
    t.per_top = pareto_ ? 0 : top_;
    for (std::size_t c = 0; c < t.cols.size(); ++c)
      if (t.cols[c].name == name) {
        group_col_ = c;
        return;
      }
    TypeP type = ck_.expr_type(group_expr_);
    if (!type || type->k == Type::K::record) type = t_str();
    t.cols.insert(t.cols.begin(), Column{name, type, {}, group_expr_->span});
    t.per_column = true;
    group_col_ = 0;
    group_added_ = true;
  }

  // A feasible search point's group: its key taken from the point's key or from after its
  // objectives, checked (a whole number; a record with a name), put in its column when the table
  // has one of its own, and returned as its identity. "" without groups.
  std::string take_group(PointOut& o, const Domains& domains, std::size_t index) const {
    if (!group_expr_) return {};
    Value g;
    if (group_key_) {
      g = o.key[*group_key_];
    } else {
      g = std::move(o.objectives.back());
      o.objectives.pop_back();
    }
    auto refuse = [&](const std::string& what) {
      Diagnostic d = make_diagnostic(ErrorKind::search_group, group_expr_->span,
                                     "the group key of `top " + std::to_string(top_) + " per " +
                                         std::string(p_.sources.slice(group_expr_->span)) + "` is " + what);
      d.help.push_back("in search '" + sym_name(s_.name) + "' at " + pts_.point_text(domains, index));
      d.help.push_back("group by a record, a string, a bool or a whole number");
      throw DiagnosticError{d};
    };
    if (g.k == Value::K::num && !(std::isfinite(g.n.d) && std::floor(g.n.d) == g.n.d && std::fabs(g.n.d) < 0x1p53))
      refuse(format_value(g, Display{}) + ", not a whole number");
    if (g.k == Value::K::record) {
      const std::string label = record_label(g);
      if (label.empty()) refuse("a record without a name (neither a global nor a `name` field)");
      const DepSet d = g.deps;
      g = Value::string(label, d);
    }
    std::string id = group_identity(g);
    if (group_added_) o.cells.insert(o.cells.begin(), std::move(g));
    return id;
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

  Program& p_;
  Checker& ck_;
  const Config& cfg_;
  const RunOptions& opt_;
  const Stmt& s_;
  SweepPoints pts_;  // how one point is evaluated (sweep_points.hpp)
  std::string fallback_reason_;
  std::mutex format_mu_;  // guards row_format_, set once by the consumer, read by the workers
  std::shared_ptr<const RowFormat> row_format_;
  std::shared_ptr<const CellCheck> cell_check_;  // guarded by format_mu_ too
  bool has_row_format_ = false;                  // the consumer's own flag (it alone sets row_format_)
  bool compact_ = false;                         // chunks of compact rows (a compiled sweep)
  std::size_t compact_width_ = 0;
  CompactCells compact_cells_;
  bool pareto_ = false;
  std::vector<TypeP> objective_types_;  // per objective (its display unit, for kept points)
  std::vector<bool> maximize_;
  std::size_t top_ = 5;
  const Expr* group_expr_ = nullptr;      // `top K per EXPR`: EXPR (search_group.hpp)
  std::optional<std::size_t> group_key_;  // ... when it is a sweep variable: its key position
  std::size_t group_col_ = 0;             // ... its column
  bool group_added_ = false;              // ... added for it (else a shown one)
};

}  // namespace

void run_sweep(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const Stmt& s, RunSink& sink,
               std::vector<AssertOutcome>& asserts) {
  SweepRunner sr(p, ck, cfg, opt, s);
  sr.run(sink, asserts);
}

}  // namespace mls
