// format.cpp — text, JSON, CSV and Markdown formatters. Text is for people (aligned columns,
// assumptions under each number, notes under each table); JSON is the stable contract.
#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "grammar/symbols.hpp"
#include "interpreter/semantics/config.hpp"
#include "row_text.hpp"

namespace mls {

// ---- Writer ---------------------------------------------------------------------------------

// Unflushed output is dropped: a run that fails keeps its partial text off the terminal (up to
// one 64 KiB block), and callers flush explicitly on success.
Writer::~Writer() = default;

namespace {
// Control characters: C0 but newline and tab, DEL, and C1 (U+0080..U+009F, UTF-8 C2 80..C2 9F).
bool has_controls(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) return true;
  }
  return false;
}
}  // namespace

Diagnostic output_limit_exceeded(std::size_t limit) {
  return make_diagnostic(ErrorKind::limit_output, Span{}, "the output exceeds " + std::to_string(limit) + " bytes",
                         {"raise the cap with --max-output BYTES, or narrow the sweep"});
}

std::string escape_controls(std::string_view s) {
  if (!has_controls(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += fmt::format("\\x{:02X}", c);
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned char>(s[i + 1]));
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void Writer::put(std::string_view s) {
  if (escape_controls && has_controls(s)) {
    const std::string safe = mls::escape_controls(s);
    escape_controls = false;
    put(safe);
    escape_controls = true;
    return;
  }
  written_ += s.size();
  if (written_ > limit_) {
    throw DiagnosticError{output_limit_exceeded(limit_)};
  }
  if (into_) {
    into_->append(s);
    return;
  }
  buf_.append(s);
  if (buf_.size() >= (1u << 16)) flush();
}

void Writer::flush() {
  if (!file_ || buf_.empty()) return;
  std::fwrite(buf_.data(), 1, buf_.size(), file_);
  buf_.clear();
  std::fflush(file_);
}

// ---- shared helpers ---------------------------------------------------------------------------

// Every control character is escaped: C0 as JSON requires, and DEL and C1 (U+0080..U+009F, which
// a terminal showing the JSON would obey: U+009B is CSI) as \u00NN too. The JSON stays valid and
// reads back the same.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04x}", c);
        } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
          ++i;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string json_number(const Num& n) { return format_json(n.d); }

namespace {
// A compact row's number as the Value its formatters read (made only when a memo misses).
Value number_cell(double x) { return Value::number(Num::of_double(x)); }
}  // namespace

std::string json_cell(const Value& v, const Display& d) {
  switch (v.k) {
    case Value::K::num: return json_number(in_unit(v.n, d));
    case Value::K::boolean: return v.b ? "true" : "false";
    case Value::K::str: return json_string(v.str());
    default: return "null";
  }
}

std::string header_text(const Column& c) {
  return c.display.unit.empty() ? c.name : c.name + " [" + c.display.unit + "]";
}

std::string value_with_unit(const Value& v, const Display& d) {
  std::string s = format_value(v, d);
  if (v.k == Value::K::num && !d.unit.empty()) s += (d.unit == "%" ? "" : " ") + d.unit;
  return s;
}

std::string via_text(const AssumptionView& a) { return quiet(a.via) ? "" : "(" + a.via.text() + ")"; }

void assumption_block(std::string& out, const std::vector<AssumptionView>& as, const std::string& indent) {
  std::size_t wk = 0, wn = 0, wv = 0;
  for (const auto& a : as) {
    // A note is a sentence, not a name = value: its own line, outside the columns.
    if (a.kind == AssumptionKind::note) {
      out += indent + "note: " + a.value + (a.at.empty() ? "" : "  (" + a.at + ")") + "\n";
      continue;
    }
    wk = std::max(wk, std::string_view(kind_name(a.kind)).size());
    wn = std::max(wn, a.name.size());
    wv = std::max(wv, a.value.size() + (via_text(a).empty() ? 0 : via_text(a).size() + 1));
  }
  for (const auto& a : as) {
    if (a.kind == AssumptionKind::note) continue;
    std::string value = a.value;
    if (!via_text(a).empty()) value += " " + via_text(a);
    std::string line =
        indent + fmt::format("{:<{}}  {:<{}} = {:<{}}  {}", kind_name(a.kind), wk, a.name, wn, value, wv, a.at);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
}

namespace {

std::string table_counts(const Table& t) {
  if (t.search && !t.per.empty())
    return fmt::format("{}; {} point{} evaluated, {} infeasible, {} filtered; {} per {} shown, {} row{}", t.objective,
                       t.evaluated, t.evaluated == 1 ? "" : "s", t.infeasible, t.filtered,
                       t.per_top ? fmt::format("best {}", t.per_top) : std::string("front"), t.per, t.row_count,
                       t.row_count == 1 ? "" : "s");
  if (t.search)
    return fmt::format("{}; {} point{} evaluated, {} infeasible, {} filtered; best {} shown", t.objective, t.evaluated,
                       t.evaluated == 1 ? "" : "s", t.infeasible, t.filtered, t.row_count);
  std::string s = fmt::format("{} row{}", t.row_count, t.row_count == 1 ? "" : "s");
  if (t.filtered) s += fmt::format(", {} filtered out", t.filtered);
  if (t.infeasible) s += fmt::format(", {} infeasible (kept, feasible = false)", t.infeasible);
  if (!t.stopped.empty()) s += "; then stopped by " + t.stopped + ", see the errors";
  return s;
}

// ---- text -----------------------------------------------------------------------------------

// Whether `--assumptions changed` lists an assumption: something a choice of this run put there,
// or the validation band, which travels with every validated number whatever the mode (issue #11).
bool is_changed(const AssumptionView& a) {
  if (a.kind == AssumptionKind::note || a.kind == AssumptionKind::approx || a.kind == AssumptionKind::validation)
    return true;
  if (a.kind != AssumptionKind::set && a.kind != AssumptionKind::convention) return false;
  return !a.via.is_default();
}

// The assumptions of `as` that `mode` lists; `hidden` counts the others.
std::vector<AssumptionView> listed(std::vector<AssumptionView> as, FormatOptions::Assumptions mode,
                                   std::size_t& hidden) {
  if (mode == FormatOptions::Assumptions::all) return as;
  // A note changes what the number means: it is listed in every mode, `none` included.
  const auto keep =
      mode == FormatOptions::Assumptions::none
          ? std::stable_partition(as.begin(), as.end(), [](const auto& a) { return a.kind == AssumptionKind::note; })
          : std::stable_partition(as.begin(), as.end(), is_changed);
  hidden += static_cast<std::size_t>(as.end() - keep);
  as.erase(keep, as.end());
  return as;
}

std::string hidden_line(std::size_t hidden, FormatOptions::Assumptions mode, const std::string& indent) {
  if (!hidden || mode != FormatOptions::Assumptions::changed) return "";
  return fmt::format("{}+ {} unchanged assumption{} (defaults, registry values; --assumptions all)\n", indent, hidden,
                     hidden == 1 ? "" : "s");
}

// `--uncertainty`: the band under a shown value, and the inputs that drive it most.
std::string spread_text(const Spread& sp, const Display& d) {
  auto v = [&](double x) { return value_with_unit(Value::number(Num::of_double(x)), d); };
  std::string s = "    P50 " + v(sp.p50) + " [P10 " + v(sp.p10) + " – P90 " + v(sp.p90) + "]\n";
  const std::string noise = fmt::format("within sampling noise (|r| < {:.2f} = 2/√{})", sp.noise_threshold, sp.samples);
  if (!sp.drivers.empty()) {
    s += "    drivers (rank correlation):";
    for (std::size_t i = 0; i < sp.drivers.size(); ++i)
      s += fmt::format("{} {} {:+.2f}", i ? "," : "", sp.drivers[i].name, sp.drivers[i].rank_correlation);
    if (sp.within_noise) s += fmt::format("; {} more {}", sp.within_noise, noise);
    s += "\n";
  } else if (sp.within_noise) {
    s += "    drivers (rank correlation): none, every input " + noise + "\n";
  }
  return s;
}

// One aligned line of text output: cells padded to the column widths, trailing blanks cut.
std::string text_line(const std::vector<std::string>& v, const std::vector<std::size_t>& width,
                      const std::vector<bool>& right) {
  std::string s = "  ";
  for (std::size_t c = 0; c < v.size(); ++c) {
    if (c) s += "  ";
    s += right[c] ? fmt::format("{:>{}}", v[c], width[c]) : fmt::format("{:<{}}", v[c], width[c]);
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

// The column display units of a table, copied for a RowFormat (the table itself changes as rows
// come), or read in place by table_row: the row helpers below take either.
std::vector<Display> displays_of(const Table& t) {
  std::vector<Display> ds;
  for (const auto& c : t.cols) ds.push_back(c.display);
  return ds;
}
struct ColumnDisplays {
  const std::vector<Column>& cols;
  [[nodiscard]] const Display& operator[](std::size_t c) const { return cols[c].display; }
  [[nodiscard]] std::size_t size() const { return cols.size(); }
};

// Text rows once the column widths are fixed (after the first kWidthRows rows).
class TextRowFormat : public RowFormat {
 public:
  TextRowFormat(std::vector<Display> ds, std::vector<std::size_t> width, std::vector<bool> right)
      : ds_(std::move(ds)), width_(std::move(width)), right_(std::move(right)) {}
  void append(std::span<const Value> cells, std::string& out, CellMemo& memo) const override {
    std::vector<std::string> v(ds_.size());
    for (std::size_t c = 0; c < ds_.size(); ++c)
      memo.append(v[c], c, cells[c], [&](std::string& o) { append_value(o, cells[c], ds_[c]); });
    out += text_line(v, width_, right_);
  }
  bool append_numbers(std::span<const double> x, std::string& out, CellMemo& memo) const override {
    std::vector<std::string> v(ds_.size());
    for (std::size_t c = 0; c < ds_.size(); ++c)
      memo.append_binary64(v[c], c, x[c], [&](std::string& o) { append_value(o, number_cell(x[c]), ds_[c]); });
    out += text_line(v, width_, right_);
    return true;
  }

 private:
  std::vector<Display> ds_;
  std::vector<std::size_t> width_;
  std::vector<bool> right_;
};

class TextSink : public RunSink, public RowTextSink {
 public:
  TextSink(const ResultScope& p, Writer& w, std::string file, FormatOptions::Assumptions mode)
      : p_(p), w_(w), file_(std::move(file)), mode_(mode) {
    w_.escape_controls = true;
  }

  void begin(const RunResult& h) override {
    std::string s = "mls " + std::string(kVersion) + " · " + file_ + " · preset " + h.preset;
    s += h.preset_via.kind == ViaKind::default_ ? " (default: the scenario names no preset)\n"
                                                : " (" + h.preset_via.text() + ")\n";
    if (h.uncertainty_samples)
      s += fmt::format(
          "uncertainty: {} samples, seed {}, {} uncertain input{}; shown values get P50 [P10 – P90] "
          "(tables, asserts and solves at nominal inputs)\n",
          h.uncertainty_samples, h.uncertainty_seed, h.uncertain_inputs, h.uncertain_inputs == 1 ? "" : "s");
    w_.put(s);
  }
  void result(const Shown& sh) override {
    std::string s = "\n" + sh.name + " = " + value_with_unit(sh.value, sh.display) + "\n";
    if (sh.spread) s += spread_text(*sh.spread, sh.display);
    if (!sh.note.empty()) s += "    note: " + sh.note + "\n";
    std::size_t hidden = 0;
    assumption_block(s, listed(assumptions_of(p_, sh.value.deps), mode_, hidden), "    ");
    w_.put(s + hidden_line(hidden, mode_, "    "));
  }
  void table_begin(const Table& t) override {
    w_.put("\n" + std::string(t.search ? "search " : "table ") + t.name + "\n");
    heads_.clear();
    width_.clear();
    right_.assign(t.cols.size(), true);
    pending_.clear();
    started_ = false;
    for (const auto& c : t.cols) {
      heads_.push_back(header_text(c));
      width_.push_back(heads_.back().size());
    }
  }
  void table_row(const Table& t, const Row& r) override {
    std::vector<std::string> cells(t.cols.size());
    for (std::size_t c = 0; c < t.cols.size(); ++c) append_value(cells[c], r.cells[c], t.cols[c].display);
    if (started_) {
      line(cells);
      return;
    }
    // Column widths come from the header and the first rows; later rows keep them.
    if (pending_.empty())
      for (std::size_t c = 0; c < t.cols.size(); ++c)
        if (r.cells[c].k != Value::K::num) right_[c] = false;
    for (std::size_t c = 0; c < cells.size(); ++c) width_[c] = std::max(width_[c], cells[c].size());
    pending_.push_back(std::move(cells));
    if (pending_.size() >= kWidthRows) start();
  }
  std::shared_ptr<const RowFormat> row_format(const Table& t) override {
    if (!started_) return nullptr;
    return std::make_shared<TextRowFormat>(displays_of(t), width_, right_);
  }
  void table_row_text(const Table&, std::string_view text) override { w_.put(text); }
  void table_end(const Table& t) override {
    start();
    std::string s = "  (" + table_counts(t) + ")\n";
    for (const auto& [why, n] : t.errors) s += fmt::format("  {} infeasible: {}\n", n, why);
    if (t.search && t.row_count == 0) s += "  no feasible point (exit code 2)\n";
    // Assumptions once per column, grouping columns that share the same list.
    std::vector<std::pair<std::vector<AssumptionView>, std::vector<std::string>>> groups;
    std::vector<DepSet> all;
    for (std::size_t c = 0; c < t.cols.size() && c < t.col_deps.size(); ++c) {
      all.push_back(t.col_deps[c]);
      std::size_t ignored = 0;
      auto as = listed(assumptions_of(p_, t.col_deps[c]), mode_, ignored);
      if (as.empty()) continue;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == as; });
      if (it == groups.end())
        groups.push_back({as, {t.cols[c].name}});
      else
        it->second.push_back(t.cols[c].name);
    }
    if (!groups.empty()) s += "  assumptions:\n";
    for (const auto& [as, cols] : groups) {
      std::string names;
      for (const auto& c : cols) names += (names.empty() ? "" : ", ") + c;
      s += "    " + names + ":\n";
      assumption_block(s, as, "      ");
    }
    std::size_t hidden = 0;  // distinct over the table's columns
    (void)listed(assumptions_of(p_, all), mode_, hidden);
    s += hidden_line(hidden, mode_, "  ");
    if (!t.notes.empty()) s += "  notes:\n";
    for (const auto& n : t.notes) s += "    row " + std::to_string(n.row + 1) + " (" + n.key + "): " + n.text + "\n";
    w_.put(s);
  }
  void assertion(const AssertOutcome& a) override {
    ++asserts_;
    if (a.ok) return;
    ++failed_;
    std::string s = "\nassertion failed: " + a.text + (a.message.empty() ? "" : " — " + a.message) + "  (" +
                    p_.sources.where_col(a.span) + ")\n";
    if (!a.detail.empty()) s += "    " + a.detail + "\n";
    w_.put(s);
  }
  void error(const Diagnostic&) override { ++errors_; }
  // The rows so far, printed without the table's footer (a slice of a table).
  void rows_done() { start(); }
  void end() override {
    if (asserts_)
      w_.put(fmt::format("\n{} of {} assertion{} passed\n", asserts_ - failed_, asserts_, asserts_ == 1 ? "" : "s"));
    if (errors_)
      w_.put(fmt::format("\n{} value{} could not be evaluated: the error{} follow{} on stderr\n", errors_,
                         errors_ == 1 ? "" : "s", errors_ == 1 ? "" : "s", errors_ == 1 ? "s" : ""));
  }

 private:
  static constexpr std::size_t kWidthRows = 1000;

  void start() {
    if (started_) return;
    started_ = true;
    line(heads_);
    std::vector<std::string> rule;
    for (std::size_t w : width_) rule.push_back(std::string(w, '-'));
    line(rule);
    for (const auto& r : pending_) line(r);
    pending_.clear();
  }
  void line(const std::vector<std::string>& v) { w_.put(text_line(v, width_, right_)); }

  ResultScope p_;
  Writer& w_;
  std::string file_;
  FormatOptions::Assumptions mode_;
  std::vector<std::string> heads_;
  std::vector<std::size_t> width_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> pending_;
  bool started_ = false;
  std::size_t asserts_ = 0, failed_ = 0, errors_ = 0;
};

// ---- JSON -----------------------------------------------------------------------------------

std::string json_assumptions(const std::vector<AssumptionView>& as) {
  std::string out = "[";
  for (std::size_t i = 0; i < as.size(); ++i) {
    const auto& a = as[i];
    if (i) out += ", ";
    out += "{\"kind\": " + json_string(kind_name(a.kind)) + ", \"name\": " + json_string(a.name) +
           ", \"value\": " + json_string(a.value) + ", \"at\": " + json_string(a.at) +
           ", \"via\": " + json_string(a.via.text());
    // A validation band also as data: its half-width, domain and whether it is extrapolated.
    if (a.kind == AssumptionKind::validation && a.band >= 0) {
      char b[40];
      std::snprintf(b, sizeof b, "%.17g", a.band);
      out += std::string(", \"band\": ") + b + ", \"domain\": " + json_string(a.domain) +
             ", \"extrapolated\": " + (a.extrapolated ? "true" : "false");
    }
    out += "}";
  }
  return out + "]";
}

// Tables stream (a sweep may have a million rows), so they come first in the document and
// the shown results — few and small — are collected and written after them. JSON objects are
// unordered; within each array the order is the source order.
// JSON rows after the first (each led by the comma that separates it from the previous one).
class JsonRowFormat : public RowFormat {
 public:
  explicit JsonRowFormat(std::vector<Display> ds) : ds_(std::move(ds)) {}
  void append(std::span<const Value> cells, std::string& out, CellMemo& memo) const override {
    json_row(cells, ds_, true, out, &memo);
  }
  bool append_numbers(std::span<const double> x, std::string& out, CellMemo& memo) const override {
    out += ",\n       [";
    for (std::size_t c = 0; c < ds_.size(); ++c) {
      if (c) out += ", ";
      memo.append_binary64(out, c, x[c], [&](std::string& o) { o += json_cell(number_cell(x[c]), ds_[c]); });
    }
    out += ']';
    return true;
  }
  template <class Displays>
  static void json_row(std::span<const Value> cells, const Displays& ds, bool comma, std::string& out,
                       CellMemo* memo = nullptr) {
    out += comma ? ",\n       [" : "\n       [";
    for (std::size_t c = 0; c < ds.size(); ++c) {
      if (c) out += ", ";
      auto make = [&](std::string& o) { o += json_cell(cells[c], ds[c]); };
      if (memo)
        memo->append(out, c, cells[c], make);
      else
        make(out);
    }
    out += ']';
  }

 private:
  std::vector<Display> ds_;
};

class JsonSink : public RunSink, public RowTextSink {
 public:
  JsonSink(const ResultScope& p, Writer& w, std::string file) : p_(p), w_(w), file_(std::move(file)) {}

  void begin(const RunResult& h) override {
    std::string s = "{\n  \"mls\": " + json_string(kVersion) + ",\n  \"file\": " + json_string(file_) +
                    ",\n  \"preset\": " + json_string(h.preset) + ",\n  \"conventions\": {";
    for (std::size_t i = 0; i < h.conventions.size(); ++i)
      s += (i ? ", " : "") + json_string(h.conventions[i].first) + ": " + json_string(h.conventions[i].second);
    s += "},\n";
    if (h.uncertainty_samples)
      s += fmt::format("  \"uncertainty\": {{\"samples\": {}, \"seed\": {}, \"inputs\": {}}},\n", h.uncertainty_samples,
                       h.uncertainty_seed, h.uncertain_inputs);
    s += "  \"tables\": [";
    w_.put(s);
  }
  void result(const Shown& sh) override {
    results_.push_back("\n    {\"name\": " + json_string(sh.name) + ", \"value\": " + json_cell(sh.value, sh.display) +
                       ", \"unit\": " + json_string(sh.display.unit) +
                       ", \"assumptions\": " + json_assumptions(assumptions_of(p_, sh.value.deps)) +
                       (sh.spread ? json_spread(*sh.spread, sh.display) : "") +
                       (sh.note.empty() ? "" : ", \"note\": " + json_string(sh.note)) + "}");
  }
  static std::string json_spread(const Spread& sp, const Display& d) {
    auto v = [&](double x) { return json_cell(Value::number(Num::of_double(x)), d); };
    std::string s =
        ", \"uncertainty\": {\"p10\": " + v(sp.p10) + ", \"p50\": " + v(sp.p50) + ", \"p90\": " + v(sp.p90) +
        ", \"samples\": " + std::to_string(sp.samples) +
        fmt::format(", \"noise_threshold\": {:.4f}, \"within_noise\": {}", sp.noise_threshold, sp.within_noise) +
        ", \"drivers\": [";
    for (std::size_t i = 0; i < sp.drivers.size(); ++i)
      s += fmt::format("{}{{\"name\": {}, \"value\": {}, \"rank_correlation\": {:.4f}}}", i ? ", " : "",
                       json_string(sp.drivers[i].name), json_string(sp.drivers[i].value),
                       sp.drivers[i].rank_correlation);
    return s + "]}";
  }
  void table_begin(const Table& t) override {
    std::string s =
        std::string(tables_++ ? "," : "") + "\n    {\"name\": " + json_string(t.name) + ",\n     \"columns\": [";
    for (std::size_t c = 0; c < t.cols.size(); ++c)
      s += std::string(c ? ", " : "") + "{\"name\": " + json_string(t.cols[c].name) +
           ", \"unit\": " + json_string(t.cols[c].display.unit) + "}";
    s += "],\n     \"rows\": [";
    w_.put(s);
    rows_ = 0;
  }
  void table_row(const Table& t, const Row& r) override {
    std::string s;
    JsonRowFormat::json_row(r.cells, ColumnDisplays{t.cols}, rows_++ > 0, s);
    w_.put(s);
  }
  std::shared_ptr<const RowFormat> row_format(const Table& t) override {
    if (rows_ == 0) return nullptr;  // the first row has no comma before it
    return std::make_shared<JsonRowFormat>(displays_of(t));
  }
  void table_row_text(const Table&, std::string_view text) override {
    ++rows_;
    w_.put(text);
  }
  void table_end(const Table& t) override {
    std::string s = rows_ ? "\n     ],\n" : "],\n";
    s += "     \"assumptions\": {";
    for (std::size_t c = 0; c < t.cols.size(); ++c)
      s += std::string(c ? "," : "") + "\n       " + json_string(t.cols[c].name) + ": " +
           json_assumptions(assumptions_of(p_, c < t.col_deps.size() ? t.col_deps[c] : 0));
    s += t.cols.empty() ? "},\n" : "\n     },\n";
    s += "     \"notes\": [";
    for (std::size_t n = 0; n < t.notes.size(); ++n)
      s += std::string(n ? "," : "") + "\n       {\"row\": " + std::to_string(t.notes[n].row) +
           ", \"column\": " + json_string(t.notes[n].column) + ", \"key\": " + json_string(t.notes[n].key) +
           ", \"text\": " + json_string(t.notes[n].text) + "}";
    s += t.notes.empty() ? "]" : "\n     ]";
    if (t.search)
      s += fmt::format(
          ",\n     \"search\": {{\"objective\": {}, {}\"evaluated\": {}, \"infeasible\": {}, \"filtered\": {}, "
          "\"errors\": [{}]}}",
          json_string(t.objective),
          t.per.empty() ? std::string() : fmt::format("\"per\": {}, \"per_top\": {}, ", json_string(t.per), t.per_top),
          t.evaluated, t.infeasible, t.filtered, [&] {
            std::string e;
            for (const auto& [why, n] : t.errors)
              e += (e.empty() ? "" : ", ") + fmt::format("{{\"reason\": {}, \"count\": {}}}", json_string(why), n);
            return e;
          }());
    if (!t.stopped.empty()) s += ",\n     \"stopped\": " + json_string(t.stopped);
    s += ",\n     \"engine\": " + json_string(t.engine) + "}";
    w_.put(s);
  }
  void assertion(const AssertOutcome& a) override {
    ++asserts_;
    if (!a.ok) ++failed_;
  }
  void error(const Diagnostic& d) override {
    errors_.push_back("\n    {\"code\": " + json_string(info(d.kind).code) +
                      ", \"message\": " + json_string(d.message) +
                      ", \"at\": " + json_string(d.span.valid() ? p_.sources.where_col(d.span) : "") + "}");
  }
  void end() override {
    std::string s = tables_ ? "\n  ],\n" : "],\n";
    s += "  \"results\": [";
    for (std::size_t i = 0; i < results_.size(); ++i) s += (i ? "," : "") + results_[i];
    s += results_.empty() ? "],\n" : "\n  ],\n";
    s += fmt::format("  \"asserts\": {{\"passed\": {}, \"failed\": {}}},\n", asserts_ - failed_, failed_);
    // Values that failed at run time (the run went on): their diagnostics, as on stderr.
    s += "  \"errors\": [";
    for (std::size_t i = 0; i < errors_.size(); ++i) s += (i ? "," : "") + errors_[i];
    s += errors_.empty() ? "],\n" : "\n  ],\n";
    s += "  \"warnings\": []\n}\n";
    w_.put(s);
  }

 private:
  ResultScope p_;
  Writer& w_;
  std::string file_;
  std::vector<std::string> results_, errors_;
  std::size_t tables_ = 0, rows_ = 0, asserts_ = 0, failed_ = 0;
};

// ---- CSV and Markdown -------------------------------------------------------------------------

// A CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break). Control
// characters but tab and newline are written as text first, as text and Markdown do
// (escape_controls: `\x1B`, `\u009B`), so no CSV viewer or terminal receives a raw escape.
std::string csv_quote(const std::string& raw) {
  const std::string s = escape_controls(raw);
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// CSV: every table is a block led by a `# table NAME` line (readers skip it as a comment:
// pandas `comment="#"`), then its header row with units, then its rows; blocks are separated by a
// blank line. The shown values form the last block, `# table show`, one row per value
// (name, value, unit): a unit per row, as the values differ in dimension. `--table NAME` prints
// one block alone without the comment line, so any CSV reader takes it as it is.
// A number cell of column `c` (CSV and Markdown rows): through the column's memo when a worker
// formats the row, so an unchanged number reuses its text.
void append_number(std::string& out, std::size_t c, const Value& v, const Display& d, CellMemo* memo) {
  if (memo)
    memo->append(out, c, v, [&](std::string& o) { append_value(o, v, d); });
  else
    append_value(out, v, d);
}

// One CSV row: the cells in their display units, quoted where needed (numbers never are).
template <class Displays>
void csv_row(std::span<const Value> cells, const Displays& ds, std::string& out, CellMemo* memo = nullptr) {
  for (std::size_t c = 0; c < ds.size(); ++c) {
    if (c) out += ',';
    if (cells[c].k != Value::K::num)
      out += csv_quote(format_value(cells[c], ds[c]));
    else
      append_number(out, c, cells[c], ds[c], memo);
  }
  out += '\n';
}

class CsvRowFormat : public RowFormat {
 public:
  explicit CsvRowFormat(std::vector<Display> ds, bool active) : ds_(std::move(ds)), active_(active) {}
  void append(std::span<const Value> cells, std::string& out, CellMemo& memo) const override {
    if (active_) csv_row(cells, ds_, out, &memo);  // a table --table did not pick prints nothing
  }
  bool append_numbers(std::span<const double> x, std::string& out, CellMemo& memo) const override {
    if (!active_) return true;
    for (std::size_t c = 0; c < ds_.size(); ++c) {
      if (c) out += ',';
      memo.append_binary64(out, c, x[c], [&](std::string& o) { append_value(o, number_cell(x[c]), ds_[c]); });
    }
    out += '\n';
    return true;
  }

 private:
  std::vector<Display> ds_;
  bool active_;
};

class CsvSink : public RunSink, public RowTextSink {
 public:
  CsvSink(Writer& w, std::string only) : w_(w), only_(std::move(only)) {}
  void begin(const RunResult&) override {}
  void result(const Shown& sh) override {
    shown_.push_back(csv_quote(sh.name) + "," + csv_quote(format_value(sh.value, sh.display)) + "," +
                     csv_quote(sh.value.k == Value::K::num ? sh.display.unit : ""));
  }
  void table_begin(const Table& t) override {
    active_ = only_.empty() || only_ == t.name;
    if (!active_) return;
    std::string s = lead(t.name);
    for (std::size_t c = 0; c < t.cols.size(); ++c) s += (c ? "," : "") + csv_quote(header_text(t.cols[c]));
    w_.put(s + "\n");
  }
  void table_row(const Table& t, const Row& r) override {
    if (!active_) return;
    std::string s;
    csv_row(r.cells, ColumnDisplays{t.cols}, s);
    w_.put(s);
  }
  std::shared_ptr<const RowFormat> row_format(const Table& t) override {
    return std::make_shared<CsvRowFormat>(displays_of(t), active_);
  }
  void table_row_text(const Table&, std::string_view text) override {
    if (active_) w_.put(text);
  }
  void table_end(const Table&) override {}
  void assertion(const AssertOutcome&) override {}
  void end() override {
    if (shown_.empty() || !(only_.empty() || only_ == kShowTable)) return;
    std::string s = lead(kShowTable) + "name,value,unit\n";
    for (const auto& l : shown_) s += l + "\n";
    w_.put(s);
  }

 private:
  std::string lead(const std::string& name) {
    if (!only_.empty()) return "";
    return std::string(tables_++ ? "\n" : "") + "# table " + name + "\n";
  }
  Writer& w_;
  std::string only_;
  std::vector<std::string> shown_;
  bool active_ = true;
  std::size_t tables_ = 0;
};

std::string md_escape(const std::string& v) {
  std::string esc;
  for (char ch : v) esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return esc;
}

// One Markdown table row (numbers hold no `|` to escape).
template <class Displays>
void md_row(std::span<const Value> cells, const Displays& ds, std::string& out, CellMemo* memo = nullptr) {
  out += '|';
  for (std::size_t c = 0; c < ds.size(); ++c) {
    out += ' ';
    if (cells[c].k != Value::K::num)
      out += md_escape(format_value(cells[c], ds[c]));
    else
      append_number(out, c, cells[c], ds[c], memo);
    out += " |";
  }
  out += '\n';
}

class MdRowFormat : public RowFormat {
 public:
  explicit MdRowFormat(std::vector<Display> ds) : ds_(std::move(ds)) {}
  void append(std::span<const Value> cells, std::string& out, CellMemo& memo) const override {
    md_row(cells, ds_, out, &memo);
  }

 private:
  std::vector<Display> ds_;
};

class MdSink : public RunSink, public RowTextSink {
 public:
  MdSink(const ResultScope& p, Writer& w, std::string file) : p_(p), w_(w), file_(std::move(file)) {
    w_.escape_controls = true;
  }
  void begin(const RunResult& h) override { w_.put("# " + md_escape(file_) + " (preset " + h.preset + ")\n"); }
  void result(const Shown& s) override {
    w_.put("\n- **" + md_escape(s.name) + "** = " + md_escape(value_with_unit(s.value, s.display)) +
           (s.note.empty() ? "" : " (" + md_escape(s.note) + ")") + "\n");
  }
  void table_begin(const Table& t) override {
    std::string s = "\n## " + md_escape(t.name) + "\n\n|";
    for (const auto& c : t.cols) s += " " + md_escape(header_text(c)) + " |";
    w_.put(s + "\n");
    first_ = true;
  }
  void table_row(const Table& t, const Row& r) override {
    std::string s;
    if (first_) {
      s = "|";
      for (const auto& v : r.cells) s += v.k == Value::K::num ? " ---: |" : " --- |";
      s += "\n";
      first_ = false;
    }
    md_row(r.cells, ColumnDisplays{t.cols}, s);
    w_.put(s);
  }
  std::shared_ptr<const RowFormat> row_format(const Table& t) override {
    if (first_) return nullptr;  // the first row brings the alignment line
    return std::make_shared<MdRowFormat>(displays_of(t));
  }
  void table_row_text(const Table&, std::string_view text) override { w_.put(text); }
  void table_end(const Table& t) override {
    std::string s;
    if (first_) {
      s = "|";
      for (std::size_t c = 0; c < t.cols.size(); ++c) s += " --- |";
      s += "\n";
    }
    s += "\n" + table_counts(t) + "\n";
    for (const auto& n : t.notes)
      s += "\n> row " + std::to_string(n.row + 1) + " (" + md_escape(n.key) + "): " + md_escape(n.text) + "\n";
    std::vector<std::string> lines;
    for (std::size_t c = 0; c < t.cols.size() && c < t.col_deps.size(); ++c) {
      const auto as = assumptions_of(p_, t.col_deps[c]);
      if (as.empty()) continue;
      std::string l = "- `" + t.cols[c].name + "`: ";
      for (std::size_t i = 0; i < as.size(); ++i)
        l += (i ? "; " : "") + std::string(kind_name(as[i].kind)) + " " + as[i].name + " = " + as[i].value;
      lines.push_back(md_escape(l));
    }
    if (!lines.empty()) {
      s += "\nAssumptions:\n\n";
      for (const auto& l : lines) s += l + "\n";
    }
    w_.put(s);
  }
  void assertion(const AssertOutcome&) override {}
  void end() override {}

 private:
  ResultScope p_;
  Writer& w_;
  std::string file_;
  bool first_ = true;
};

}  // namespace

std::optional<FormatOptions::Assumptions> parse_assumptions(const std::string& s) {
  if (s == "none") return FormatOptions::Assumptions::none;
  if (s == "changed") return FormatOptions::Assumptions::changed;
  if (s == "all") return FormatOptions::Assumptions::all;
  return std::nullopt;
}

std::unique_ptr<RunSink> make_formatter(const std::string& format, const ResultScope& p, Writer& out,
                                        const std::string& file, const FormatOptions& opt) {
  if (format == "text") return std::make_unique<TextSink>(p, out, file, opt.assumptions);
  if (format == "json") return std::make_unique<JsonSink>(p, out, file);
  if (format == "csv") return std::make_unique<CsvSink>(out, opt.table);
  if (format == "md") return std::make_unique<MdSink>(p, out, file);
  return nullptr;
}

std::string format_table_text(const ResultScope& p, const Table& t) {
  TableSlice all;
  return format_table_text(p, t, all);
}

std::string format_table_text(const ResultScope& p, const Table& t, TableSlice& slice) {
  std::string s;
  {
    Writer w(&s);
    TextSink sink(p, w, "", FormatOptions::Assumptions::all);
    sink.table_begin(t);
    const std::size_t first = std::min(slice.first, t.rows.size());
    const std::size_t end = first + std::min(slice.count, t.rows.size() - first);
    slice.stopped = false;
    for (std::size_t i = first; i < end; ++i) {
      if ((i - first) % TableSlice::kStopEvery == 0 && slice.stop && slice.stop()) {
        slice.stopped = true;
        break;
      }
      sink.table_row(t, t.rows[i]);
    }
    if (slice.footer && !slice.stopped)
      sink.table_end(t);
    else
      sink.rows_done();
  }
  return s;
}

std::string format_result(const std::string& format, const ResultScope& p, const RunResult& r,
                          const std::string& file) {
  std::string s;
  Writer w(&s);
  auto sink = make_formatter(format, p, w, file);
  if (sink) replay(r, *sink);
  return s;
}

}  // namespace mls
