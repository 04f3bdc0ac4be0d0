// sweep_table.hpp — a sweep's or search's table assembled from its points as they arrive in
// enumeration order (sweep.cpp's runner hands them over chunk by chunk). Internal to runtime/.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "interpreter/results/row_text.hpp"
#include "notes.hpp"
#include "search_group.hpp"
#include "search_rank.hpp"
#include "sweep_points.hpp"

namespace mls {

// The union of each column's cells' provenance over the rows written, kept up to date row by
// row. Consecutive rows mostly share their cells' deps, so only a cell whose deps differ from
// the last row's is united (nothing, when the worker saw the row's deps equal the previous
// row's). A compact row's deps are one vector per branch signature, shared by its rows and never
// changed: a vector whose cells were all united adds nothing the next time.
class ColumnDeps {
 public:
  ColumnDeps(Deps& table, std::vector<DepSet>& cols) : table_(table), cols_(cols) {}
  // A row of Values; `same`: its deps are the previous row's.
  void add(const std::vector<Value>& cells, bool same) {
    if (!same) unite(cells.size(), [&](std::size_t c) { return cells[c].deps; });
  }
  // A compact row of `width` cells, `deps` per cell (the feasibility cell has none).
  void add(const std::vector<DepSet>* deps, std::size_t width, bool same) {
    if (same) return;
    const std::vector<DepSet>*& united = united_[(reinterpret_cast<std::uintptr_t>(deps) >> 4) % united_.size()];
    if (united == deps) return;
    united = deps;
    unite(width, [&](std::size_t c) { return c < deps->size() ? (*deps)[c] : DepSet{0}; });
  }

 private:
  template <typename DepOf>
  void unite(std::size_t width, DepOf dep_of) {
    last_.resize(width, ~DepSet{0});
    for (std::size_t c = 0; c < width && c < cols_.size(); ++c) {
      const DepSet d = dep_of(c);
      if (d != last_[c]) {
        cols_[c] = table_.unite(cols_[c], d);
        last_[c] = d;
      }
    }
  }

  Deps& table_;
  std::vector<DepSet>& cols_;
  std::vector<DepSet> last_;                             // per column: the deps united last
  std::array<const std::vector<DepSet>*, 16> united_{};  // compact rows' deps vectors united whole
};

// What the workers read of the table once it has begun: the sink's row format (when it formats
// rows off its own thread, RowTextSink) and the cells a row may hold without a look (CellCheck).
// The consumer sets them; the workers take a copy per chunk.
class RowFormatShare {
 public:
  void set(std::shared_ptr<const RowFormat> format, std::shared_ptr<const CellCheck> check) {
    std::lock_guard<std::mutex> lock(mu_);
    check_ = std::move(check);
    if (format) format_ = std::move(format);
  }
  struct Snapshot {
    std::shared_ptr<const RowFormat> format;  // nullptr: the sink formats the rows itself
    std::shared_ptr<const CellCheck> check;   // nullptr: the table has not begun
  };
  [[nodiscard]] Snapshot get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {format_, check_};
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const RowFormat> format_;
  std::shared_ptr<const CellCheck> check_;
};

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

// Draws "name: 45% (450000/1000000 points)" on stderr, at most ten times a second.
class Progress {
 public:
  Progress(bool on, std::string name, std::size_t total) : on_(on), name_(std::move(name)), total_(total) {}
  ~Progress() { done(); }  // an error or Ctrl-C leaves no half-drawn line behind
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::size_t done);
  void done();

 private:
  bool on_;
  std::string name_;
  std::size_t total_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// The table of one sweep or search, assembled from its points in enumeration order: its columns'
// display units fitted to the first rows, each row checked displayable where the worker could
// not tell, its cells' provenance united into its column's (ColumnDeps), the row to the sink
// (formatted by the worker where the sink said how) and to the regime notes; a search's
// feasible points ranked and its best rows written at the end.
class TableAssembler {
 public:
  struct Setup {
    Program& p;
    const RunOptions& opt;
    const SweepPoints& pts;
    const SweepPoints::Domains& domains;
    bool compact;                               // chunks come as compact rows (a compiled sweep)
    const CompactCells& cells;                  // their cells
    const std::vector<TypeP>& objective_types;  // a search's, per objective (its kept points' units)
    RowFormatShare& share;
    std::size_t total;  // points
    // A search's feasible point's group (`top K per EXPR`: its identity, "" without groups),
    // taken from the point before it is ranked.
    const std::function<std::string(PointOut&, std::size_t)>& group_of;
  };
  // `best`: a search's ranking, made by the runner from the search's body.
  TableAssembler(const Setup& setup, Table& t, RunSink& sink, std::vector<AssertOutcome>& asserts,
                 GroupedRanking& best);

  // A chunk of points from `first_point` on: as PointOuts, or as compact rows (`rows`).
  void consume(std::vector<PointOut>& outs, CompactRows* rows, std::size_t first_point);
  // The table begins, its display units fitted to `sample` (the first rows).
  void begin_table(const std::vector<PointOut*>& sample);
  [[nodiscard]] bool begun() const { return begun_; }
  // Point `point` as a row (a sweep's, or one of a search's best at the end).
  void emit_row(PointOut& o, std::size_t point);
  // An error stopped the run in this table: if the run keeps going (RunOptions::keep_going), the
  // rows already out end as a table that says where it stopped.
  void stop(const DiagnosticError& e);
  // Every point is in: a search's best rows, the notes, the table's end.
  void finish();

 private:
  void begin_columns(const std::vector<double>& biggest);
  void consume_points(std::vector<PointOut>& outs, std::size_t first_point);
  void consume_compact(CompactRows& rows, std::size_t first_point);
  void emit(bool displayable, const RowDelta& delta, const std::string_view* text);
  void emit_compact(const CompactRows& rows, std::size_t r, std::size_t text_begin);
  void offer_row_format();
  void keep_point(const PointOut& o, std::size_t index);

  Program& p_;
  const RunOptions& opt_;
  const std::vector<TypeP>& objective_types_;
  const bool compact_;
  const CompactCells& cells_;
  RowFormatShare& share_;
  Table& t_;
  RunSink& sink_;
  std::vector<AssertOutcome>& asserts_;
  RowTextSink* const row_text_;  // the sink, if it can format rows off its own thread
  NotesBuilder notes_;
  ColumnDeps col_deps_;
  bool begun_ = false;
  bool has_row_format_ = false;                  // the sink said how it formats rows
  std::shared_ptr<const CellCheck> cell_check_;  // once the table has begun
  // One row object for the whole table. Its vectors trade places with the point's (and the
  // notes builder's previous row): storage circulates, nothing is copied or allocated per row.
  Row row_;
  // A compact chunk's rows that no worker formatted, handed to the sink as one block after the
  // chunk's rows (or before an error).
  ChunkRows block_;
  std::vector<Value> check_cells_;  // a compact row's Values, made to check it
  Progress progress_;
  const std::function<std::string(PointOut&, std::size_t)>& group_of_;
  GroupedRanking& best_;
};

}  // namespace mls
