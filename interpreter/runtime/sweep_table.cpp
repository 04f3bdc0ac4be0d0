// sweep_table.cpp — a sweep's or search's table from its points in enumeration order
// (sweep_table.hpp).
#include "sweep_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sweep.hpp"

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

}  // namespace

void Progress::update(std::size_t done) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::fprintf(stderr, "\r%s: %3zu%% (%zu/%zu points)", name_.c_str(), done * 100 / total_, done, total_);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::done() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

TableAssembler::TableAssembler(const Setup& setup, Table& t, RunSink& sink, std::vector<AssertOutcome>& asserts,
                               GroupedRanking& best)
    : p_(setup.p),
      opt_(setup.opt),
      objective_types_(setup.objective_types),
      compact_(setup.compact),
      cells_(setup.cells),
      share_(setup.share),
      t_(t),
      sink_(sink),
      asserts_(asserts),
      row_text_(dynamic_cast<RowTextSink*>(&sink)),
      notes_(setup.p, t),
      col_deps_(setup.p.deps, t.col_deps),
      block_(setup.pts, setup.domains, setup.cells),
      progress_(setup.opt.progress && setup.total >= 20000, t.name, setup.total),
      group_of_(setup.group_of),
      best_(best) {
  // The notes make a compact row's key only where a note needs it.
  if (compact_)
    notes_.key_maker(
        [&pts = setup.pts, &domains = setup.domains, pick = std::vector<std::size_t>(), last = ~std::size_t{0}](
            std::size_t point, std::vector<Value>& key) mutable { pts.next_key(domains, point, pick, last, key); });
}

// One display unit per column, fitted to the largest magnitude of the first rows.
void TableAssembler::begin_columns(const std::vector<double>& biggest) {
  for (std::size_t c = 0; c < t_.cols.size(); ++c)
    t_.cols[c].display = display_for(scope_of(p_), t_.cols[c].type, c < biggest.size() ? biggest[c] : 0);
  sink_.table_begin(t_);
  begun_ = true;
  cell_check_ = std::make_shared<const CellCheck>(t_);
}

void TableAssembler::begin_table(const std::vector<PointOut*>& sample) {
  std::vector<double> biggest(t_.cols.size(), 0);
  for (std::size_t c = 0; c < t_.cols.size(); ++c)
    for (const PointOut* o : sample)
      if (c < o->cells.size() && o->cells[c].k == Value::K::num)
        biggest[c] = std::max(biggest[c], std::fabs(o->cells[c].n.d));
  begin_columns(biggest);
}

// `row_` (its key and cells set) to the sink and the notes: `text` is its text when the worker
// formatted it, `displayable` and `delta` what the worker found (PointOut's).
void TableAssembler::emit(bool displayable, const RowDelta& delta, const std::string_view* text) {
  // A row the worker found plain (every cell a finite binary64 number in its number column) is
  // not looked at again; otherwise each cell not plain goes through check_displayable.
  if (!displayable)
    for (std::size_t c = 0; c < row_.cells.size() && c < t_.cols.size(); ++c)
      if (!cell_check_->plain(c, row_.cells[c]))
        check_displayable(p_, row_.cells[c], t_.cols[c].type, t_.cols[c].display, t_.cols[c].span);
  const bool known = delta.known && !t_.search;
  col_deps_.add(row_.cells, known && delta.same_deps);
  if (text)
    row_text_->table_row_text(t_, *text);
  else
    sink_.table_row(t_, row_);
  if (!t_.search) notes_.add(row_, t_.row_count, known ? delta : RowDelta{});
  ++t_.row_count;
}

void TableAssembler::emit_row(PointOut& o, std::size_t point) {
  std::swap(row_.key, o.key);
  std::swap(row_.cells, o.cells);
  row_.point = point;
  const std::string_view text(o.text);
  emit(o.displayable, o.delta, o.has_text ? &text : nullptr);
}

// Row r of a compact chunk, its text from `text_begin` in the chunk's texts (else it joins
// `block_`): as emit, reading the row's numbers; Values are made only to check a row that is not
// plain. The chunk's rows go to the notes together, after the sink (consume_compact).
void TableAssembler::emit_compact(const CompactRows& rows, std::size_t r, std::size_t text_begin) {
  const CompactRows::Meta& m = rows.meta[r];
  const std::size_t width = rows.width;
  if (!(m.flags & CompactRows::displayable)) {
    cells_.materialize(rows, r, check_cells_);
    for (std::size_t c = 0; c < width && c < t_.cols.size(); ++c)
      if (!cell_check_->plain(c, check_cells_[c]))
        check_displayable(p_, check_cells_[c], t_.cols[c].type, t_.cols[c].display, t_.cols[c].span);
  }
  const RowDelta delta = rows.delta(r);
  col_deps_.add(m.deps, width, delta.known && delta.same_deps);
  if (rows.has_text)
    row_text_->table_row_text(t_, std::string_view(rows.text).substr(text_begin, m.text_end - text_begin));
  else
    block_.push(r);
  ++t_.row_count;
}

// Once the table has begun, a sink that can format rows off its own thread says how; the
// workers then format the rows of the chunks they compute next.
void TableAssembler::offer_row_format() {
  if (t_.search || !begun_ || has_row_format_) return;
  std::shared_ptr<const RowFormat> f = row_text_ ? row_text_->row_format(t_) : nullptr;
  has_row_format_ = f != nullptr;
  share_.set(std::move(f), cell_check_);
}

void TableAssembler::consume(std::vector<PointOut>& outs, CompactRows* rows, std::size_t first_point) {
  if (rows)
    consume_compact(*rows, first_point);
  else
    consume_points(outs, first_point);
}

void TableAssembler::consume_compact(CompactRows& rows, std::size_t first_point) {
  if (!begun_) {
    std::vector<double> biggest(t_.cols.size(), 0);
    bool any = false;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows.meta[r].flags & CompactRows::filtered) continue;
      any = true;
      const double* x = rows.row(r);
      for (std::size_t c = 0; c < t_.cols.size() && c < rows.width; ++c)
        if (cells_.kinds[c] == fast::Slot::K::num) biggest[c] = std::max(biggest[c], std::fabs(x[c]));
    }
    if (any) begin_columns(biggest);
  }
  std::size_t next_failed = 0, text_begin = 0;
  const std::size_t first_row = t_.row_count;
  block_.reset(rows, first_point);
  try {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (; next_failed < rows.failed.size() && rows.failed[next_failed].first == r; ++next_failed)
        asserts_.push_back(std::move(rows.failed[next_failed].second));
      const CompactRows::Meta& m = rows.meta[r];
      if (m.flags & CompactRows::filtered) {
        ++t_.filtered;
        continue;
      }
      ++t_.evaluated;
      if (m.flags & CompactRows::infeasible) ++t_.infeasible;
      emit_compact(rows, r, text_begin);
      text_begin = m.text_end;
    }
  } catch (...) {
    // The rows before the one refused reach the sink, as they do one by one.
    if (block_.size() > 0) sink_.table_rows(t_, block_);
    throw;
  }
  if (block_.size() > 0) sink_.table_rows(t_, block_);
  // The regime notes read the chunk's rows after the sink (a refused row above ends the run).
  notes_.add_chunk(cells_, rows, first_point, first_row);
  offer_row_format();
  progress_.update(first_point + rows.size());
}

void TableAssembler::consume_points(std::vector<PointOut>& outs, std::size_t first_point) {
  if (!t_.search && !begun_) {
    std::vector<PointOut*> sample;
    for (auto& o : outs)
      if (!o.filtered) sample.push_back(&o);
    if (!sample.empty()) begin_table(sample);
  }
  for (std::size_t k = 0; k < outs.size(); ++k) {
    PointOut& o = outs[k];
    if (k + 2 < outs.size()) prefetch(outs[k + 2]);
    for (auto& a : o.failed) asserts_.push_back(std::move(a));
    if (o.filtered) {
      ++t_.filtered;
      continue;
    }
    ++t_.evaluated;
    if (!o.feasible) ++t_.infeasible;
    if (!o.error.empty()) {
      auto it = std::find_if(t_.errors.begin(), t_.errors.end(), [&](const auto& r) { return r.first == o.error; });
      if (it == t_.errors.end())
        t_.errors.emplace_back(std::move(o.error), 1);
      else
        ++it->second;
      o.error.clear();
    }
    if (!t_.search) {
      emit_row(o, first_point + k);
    } else if (o.feasible) {
      const std::string group = group_of_(o, first_point + k);
      if (opt_.keep_search_points) keep_point(o, first_point + k);
      best_.offer(group, first_point + k, std::move(o));
    }
  }
  offer_row_format();
  progress_.update(first_point + outs.size());
}

void TableAssembler::keep_point(const PointOut& o, std::size_t index) {
  if (t_.points.size() >= kMaxSearchPoints) {
    ++t_.points_dropped;
    return;
  }
  SearchPoint sp{index, {}, o.key};
  for (const auto& v : o.objectives) sp.objectives.push_back(v.k == Value::K::num ? v.n.d : 0.0);
  t_.points.push_back(std::move(sp));
}

void TableAssembler::stop(const DiagnosticError& e) {
  if (!begun_ || !keeps_going(opt_, e.diag.kind)) return;
  progress_.done();
  t_.stopped = std::string(info(e.diag.kind).code) + ": " + e.diag.message;
  t_.notes = notes_.finish();
  sink_.table_end(t_);
}

void TableAssembler::finish() {
  progress_.done();
  if (t_.search) {
    if (opt_.keep_search_points) {
      // Each objective shown in the unit its largest kept value reads best in.
      for (std::size_t j = 0; j < objective_types_.size(); ++j) {
        double biggest = 0;
        for (const auto& sp : t_.points)
          if (j < sp.objectives.size()) biggest = std::max(biggest, std::abs(sp.objectives[j]));
        t_.objective_displays.push_back(display_for(scope_of(p_), objective_types_[j], biggest));
      }
    }
    std::vector<std::pair<std::size_t, PointOut>> ranked = best_.take_ranked();
    std::vector<PointOut*> sample;
    for (auto& [i, o] : ranked) sample.push_back(&o);
    begin_table(sample);
    for (auto& [i, o] : ranked) emit_row(o, i);
  } else if (!begun_) {
    begin_table({});
  }
  t_.notes = notes_.finish();
  sink_.table_end(t_);
}

}  // namespace mls
