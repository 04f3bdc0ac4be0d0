// sweep.cpp — sweeps and searches. Points are independent (values are immutable), so they run
// on a thread pool and are merged back in enumeration order: output is identical for any
// thread count, and memory stays flat because only a window of chunks is in flight.
#include "sweep.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
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
#include "sweep_table.hpp"

namespace mls {
namespace {

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

    // Compiled sweeps keep their chunks' rows compact (CompactRows); their Values are made by
    // the table, one row at a time.
    compact_ = prog && s_.kind == SK::sweep && !opt_.shard_out && !opt_.shard_in;
    if (compact_) {
      compact_width_ = pts_.compact_width(*prog);
      compact_cells_ = pts_.compact_cells(*prog);
    }
    GroupedRanking best(maximize_, pareto_, top_, group_expr_ != nullptr);  // searches: the best points so far
    // A feasible search point's group (`top K per EXPR`), taken from it as it is ranked.
    const std::function<std::string(PointOut&, std::size_t)> group_of = [&](PointOut& o, std::size_t index) {
      return take_group(o, domains, index);
    };
    TableAssembler table({p_, opt_, pts_, domains, compact_, compact_cells_, objective_types_, share_, total, group_of},
                         t, sink, asserts, best);
    const std::size_t nchunks = (total + kChunk - 1) / kChunk;
    if (opt_.shard_out) {
      shard(total, domains, ev, prog.get(), fast, nchunks);
      return;
    }
    if (opt_.shard_in) {
      merge(total, domains, ev, fast, t, asserts, best, table);
    } else {
      auto consume = [&](std::vector<PointOut>& outs, CompactRows* rows, std::size_t first) {
        table.consume(outs, rows, first);
      };
      try {
        pipeline(total, domains, ev, prog.get(), fast, consume, 0, nchunks);
      } catch (DiagnosticError& e) {
        // The run goes on after this sweep (keep_going): the rows already out end as a table
        // that says where it stopped, so every format stays whole.
        table.stop(e);
        throw;
      }
    }
    table.finish();
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
      if (prog) check = share_.get().check;
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
    const auto [f, check] = share_.get();
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
    const std::shared_ptr<const RowFormat> f = share_.get().format;
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
  void merge(std::size_t total, const std::vector<std::vector<std::vector<Value>>>& domains, Evaluator& ev, bool fast,
             Table& t, std::vector<AssertOutcome>& asserts, GroupedRanking& best, TableAssembler& table) {
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
      if (!table.begun()) {
        std::vector<PointOut*> sample;
        for (auto& o : outs) sample.push_back(&o);
        table.begin_table(sample);
      }
      for (std::size_t i = 0; i < outs.size(); ++i) table.emit_row(outs[i], index[i]);
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
  RowFormatShare share_;  // what the workers read of the table once it has begun
  bool compact_ = false;  // chunks of compact rows (a compiled sweep)
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
