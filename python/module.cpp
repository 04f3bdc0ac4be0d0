// module.cpp — the extension `mls._mls` (issue #35): a scenario run through the command line's
// facade (tooling/scenario.hpp), its output as the JSON `mls run --format json` prints (the same
// sink, the same bytes) plus what the JSON leaves out (asserts one by one, sweep variables, search
// points), and the questions asked after a run: the report's charts, explain, sensitivity.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "binding.hpp"
#include "grammar/diagnostic.hpp"
#include "interpreter/report/chart.hpp"
#include "interpreter/report/page.hpp"
#include "interpreter/report/report.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/explanation.hpp"
#include "interpreter/tooling/scenario.hpp"
#include "interpreter/tooling/sensitivity.hpp"

namespace mls::binding {

namespace {

// ---- Ctrl-C -----------------------------------------------------------------------------------

// The interrupt flag is the process's (Core::interrupt): it is cleared when the first call into
// mls starts and when the last one ends, never under a call that is running, so a Ctrl-C stops
// every call in progress and no later one.
std::mutex g_calls_mu;
int g_calls = 0;

struct CallScope {
  CallScope() {
    const std::lock_guard<std::mutex> lock(g_calls_mu);
    if (g_calls++ == 0) Core::clear_interrupt();
  }
  ~CallScope() {
    const std::lock_guard<std::mutex> lock(g_calls_mu);
    if (--g_calls == 0) Core::clear_interrupt();
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
};

bool on_main_thread() {
  const py::module_ threading = py::module_::import("threading");
  const py::object main_ident = threading.attr("main_thread")().attr("ident");
  return main_ident.equal(threading.attr("get_ident")());
}

}  // namespace

void call_released(const std::function<void()>& work) {
  const CallScope scope;
  if (!on_main_thread()) {
    const py::gil_scoped_release nogil;
    work();
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr failed;
  std::optional<py::error_already_set> signalled;  // what Python's signal handler raised
  {
    const py::gil_scoped_release nogil;
    std::thread worker([&] {
      try {
        work();
      } catch (...) {
        failed = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mu);
      done = true;
      cv.notify_one();
    });
    std::unique_lock<std::mutex> lock(mu);
    while (!cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
      if (signalled) continue;
      lock.unlock();
      {
        const py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
          signalled.emplace();  // takes the exception out of the thread state
          Core::interrupt();
        }
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (signalled) throw std::move(*signalled);
  if (failed) std::rethrow_exception(failed);
}

// ---- diagnostics ------------------------------------------------------------------------------

py::dict to_dict(const DiagData& d) {
  py::dict o;
  o["severity"] = d.severity;
  o["code"] = d.code;
  o["exit_code"] = d.exit_code;
  o["message"] = d.message;
  o["file"] = d.file.empty() ? py::object(py::none()) : py::object(py::str(d.file));
  o["line"] = d.line ? py::object(py::int_(d.line)) : py::object(py::none());
  o["col"] = d.col ? py::object(py::int_(d.col)) : py::object(py::none());
  o["end_line"] = d.end_line ? py::object(py::int_(d.end_line)) : py::object(py::none());
  o["end_col"] = d.end_col ? py::object(py::int_(d.end_col)) : py::object(py::none());
  o["at"] = d.at;
  o["label"] = d.label;
  o["help"] = d.help;
  o["suggestions"] = d.suggestions;
  o["subject"] = d.subject;
  o["expected"] = d.expected;
  o["got"] = d.got;
  py::list notes;
  for (const auto& [at, text] : d.notes) notes.append(py::dict(py::arg("at") = at, py::arg("text") = text));
  o["notes"] = notes;
  o["text"] = d.text;
  return o;
}

py::list to_list(const std::vector<DiagData>& ds) {
  py::list l;
  for (const auto& d : ds) l.append(to_dict(d));
  return l;
}

void raise_failure(const Failure& f) {
  if (!f.diags.empty() && f.diags.front().code == info(ErrorKind::interrupted).code) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  const py::object err = py::module_::import("mls._errors").attr("make_error")(to_list(f.diags), f.text);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
  throw py::error_already_set();
}

void raise_usage(const std::string& message) {
  const py::object err = py::module_::import("mls._errors").attr("UsageError")(message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
  throw py::error_already_set();
}

std::vector<std::pair<std::string, std::string>> pairs_of(const py::object& o) {
  std::vector<std::pair<std::string, std::string>> out;
  if (o.is_none()) return out;
  const py::object items = py::isinstance<py::dict>(o) || py::hasattr(o, "items") ? o.attr("items")() : o;
  for (const py::handle item : items) {
    const py::tuple t = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
    if (t.size() != 2) raise_usage("expected NAME=VALUE pairs (a dict or (name, value) tuples)");
    const py::object v = t[1];
    out.emplace_back(py::str(t[0]).cast<std::string>(), py::isinstance<py::bool_>(v)
                                                            ? (v.cast<bool>() ? "true" : "false")
                                                            : py::str(v).cast<std::string>());
  }
  return out;
}

Selection selection_of(const std::optional<std::string>& preset, const py::object& use, const py::object& set) {
  Selection sel;
  sel.preset = preset;
  sel.uses = pairs_of(use);
  sel.sets = pairs_of(set);
  return sel;
}

namespace {

// How help text below the binding names the listing of conventions.
Core::Options core_options() { return Core::Options{{}, "`mls.conventions()`"}; }

// ---- a run ------------------------------------------------------------------------------------

// Keeps what a run streams (the rows too: the charts and explain read them).
class Collector : public RunSink {
 public:
  RunResult r;
  void begin(const RunResult& h) override { r = h; }
  void result(const Shown& s) override {
    r.order.push_back({RunResult::Item::K::result, r.results.size()});
    r.results.push_back(s);
  }
  void table_begin(const Table& t) override {
    r.order.push_back({RunResult::Item::K::table, r.tables.size()});
    r.tables.push_back(t);
  }
  void table_row(const Table&, const Row& row) override { r.tables.back().rows.push_back(row); }
  void table_end(const Table& t) override {
    std::vector<Row> rows = std::move(r.tables.back().rows);
    r.tables.back() = t;
    r.tables.back().rows = std::move(rows);
  }
  void assertion(const AssertOutcome& a) override {
    r.order.push_back({RunResult::Item::K::assertion, r.asserts.size()});
    r.asserts.push_back(a);
  }
  void error(const Diagnostic& d) override { r.errors.push_back(d); }
  void end() override {}
};

// Both: the JSON formatter and the collector.
class Tee : public RunSink {
 public:
  Tee(RunSink& a, RunSink& b) : a_(a), b_(b) {}
  void begin(const RunResult& h) override { a_.begin(h), b_.begin(h); }
  void result(const Shown& s) override { a_.result(s), b_.result(s); }
  void table_begin(const Table& t) override { a_.table_begin(t), b_.table_begin(t); }
  void table_row(const Table& t, const Row& row) override { a_.table_row(t, row), b_.table_row(t, row); }
  void table_end(const Table& t) override { a_.table_end(t), b_.table_end(t); }
  void assertion(const AssertOutcome& x) override { a_.assertion(x), b_.assertion(x); }
  void error(const Diagnostic& d) override { a_.error(d), b_.error(d); }
  void end() override { a_.end(), b_.end(); }

 private:
  RunSink &a_, &b_;
};

std::string selection_text(const Selection& sel) {
  std::string s;
  if (sel.preset) s += "--preset " + *sel.preset;
  for (const auto& [n, c] : sel.uses) s += (s.empty() ? "" : " ") + std::string("--use ") + n + "=" + c;
  for (const auto& [n, v] : sel.sets) s += (s.empty() ? "" : " ") + std::string("--set ") + n + "=" + v;
  return s;
}

}  // namespace

// One run and its scenario, kept for the questions asked after it. The scenario is not shared:
// a question (explain, sensitivity) is asked under the handle's lock, with the GIL released.
class RunHandle {
 public:
  std::mutex mu;
  std::unique_ptr<Scenario> s = std::make_unique<Scenario>(core_options());
  Selection sel;
  RunOptions opt;
  std::string file;
  RunResult run;
  std::string json;
  std::vector<DiagData> errors, warnings;
  std::string error_text;

  // The scenario's diagnostics from `from` on, as a Failure to raise.
  Failure failure(std::size_t from = 0) const {
    Failure f;
    f.diags = diag_data(s->sources(), s->diagnostics(), from, &f.text);
    return f;
  }

  const Table& table(const std::string& name) const {
    for (const Table& t : run.tables)
      if (t.name == name) return t;
    throw py::key_error(name);
  }
};

namespace {

std::shared_ptr<RunHandle> run_scenario(const std::string& name, const std::optional<std::string>& text,
                                        const std::optional<std::string>& preset, const py::object& use,
                                        const py::object& set, std::size_t uncertainty, std::uint64_t seed,
                                        std::size_t max_points, unsigned threads) {
  auto h = std::make_shared<RunHandle>();
  h->sel = selection_of(preset, use, set);
  h->file = name;
  h->opt.keep_going = true;          // what evaluated is kept; the errors are listed (as `mls run`)
  h->opt.keep_search_points = true;  // a search is drawn among its evaluated points (as `mls report`)
  h->opt.uncertainty = uncertainty;
  h->opt.seed = seed;
  h->opt.max_points = max_points;
  h->opt.threads = threads;
  if (uncertainty > kMaxUncertaintySamples)
    raise_usage("uncertainty: at most " + std::to_string(kMaxUncertaintySamples) + " samples");
  std::optional<Failure> failed;
  call_released([&] {
    Scenario& s = *h->s;
    if (!s.prepare(name, text) || !s.configure(h->sel)) {
      failed = h->failure();
      return;
    }
    Collector keep;
    {
      Writer w(&h->json);
      const auto json = make_formatter("json", s.scope(), w, name);
      Tee both(*json, keep);
      if (!s.run(h->opt, both)) {
        failed = h->failure();
        return;
      }
      w.flush();
    }
    h->run = std::move(keep.r);
    Diagnostics errs;
    for (const Diagnostic& d : h->run.errors) errs.add(d);
    h->errors = diag_data(s.sources(), errs, 0, &h->error_text);
    for (const Diagnostic& d : s.diagnostics().items())
      if (d.severity == Severity::warning) h->warnings.push_back(diag_data(s.sources(), d));
  });
  if (failed) raise_failure(*failed);
  return h;
}

py::list asserts_of(RunHandle& h) {
  py::list out;
  for (const AssertOutcome& a : h.run.asserts)
    out.append(py::dict(py::arg("ok") = a.ok, py::arg("text") = a.text, py::arg("detail") = a.detail,
                        py::arg("message") = a.message,
                        py::arg("at") = a.span.valid() ? h.s->sources().where_col(a.span) : std::string()));
  return out;
}

// A search point's value of sweep variable k, typed as the table's cells are: a number (an int when
// whole, as the JSON rows read) in the unit of the column that shows it, or in base units when
// none does; a bool; a string; a record by its global name.
py::object key_cell(const Table& t, std::size_t k, const Value& v) {
  switch (v.k) {
    case Value::K::num: {
      Display d;
      for (const Column& c : t.cols)
        if (k < t.key_names.size() && c.name == t.key_names[k]) d = c.display;
      const double x = in_unit(v.n, d).d;
      if (std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 9007199254740992.0)
        return py::int_(static_cast<long long>(x));
      return py::float_(x);
    }
    case Value::K::boolean: return py::bool_(v.b);
    case Value::K::str: return py::str(v.str());
    default: return py::str(key_label(v));
  }
}

// What the JSON leaves out of a table: the sweep variables, the search's objectives and the
// points it evaluated (the rows of the table are its front or its best).
py::dict table_extra(const RunHandle& h, const std::string& name) {
  const Table& t = h.table(name);
  py::dict o;
  o["keys"] = t.key_names;
  o["search"] = t.search;
  o["objective_names"] = t.objective_names;
  py::list units, points;
  for (const Display& d : t.objective_displays) units.append(d.unit);
  o["objective_units"] = units;
  std::vector<std::size_t> front;
  for (const Row& r : t.rows) front.push_back(r.point);
  for (const SearchPoint& p : t.points) {
    py::list obj;
    for (std::size_t i = 0; i < p.objectives.size(); ++i)
      obj.append(i < t.objective_displays.size() ? in_unit(Num::of_double(p.objectives[i]), t.objective_displays[i]).d
                                                 : p.objectives[i]);
    py::list key;
    for (std::size_t k = 0; k < p.key.size(); ++k) key.append(key_cell(t, k, p.key[k]));
    const bool on = std::find(front.begin(), front.end(), p.point) != front.end();
    points.append(py::dict(py::arg("point") = p.point, py::arg("key") = key, py::arg("objectives") = obj,
                           py::arg("frontier") = on));
  }
  o["points"] = points;
  o["points_dropped"] = t.points_dropped;
  py::list row_points;
  for (const Row& r : t.rows) row_points.append(r.point);
  o["row_points"] = row_points;
  return o;
}

// The report layer's chart of a table (a search's among its evaluated points), or None.
py::object chart(RunHandle& h, const std::string& name, const std::string& x, const std::vector<std::string>& y,
                 int width) {
  const Table& t = h.table(name);
  std::optional<std::string> svg;
  std::optional<Failure> failed;
  {
    const py::gil_scoped_release nogil;
    const std::lock_guard<std::mutex> lock(h.mu);
    try {
      if (t.search && x.empty() && y.empty()) {
        if (const auto c = search_chart(t)) svg = chart_svg(*c, width);
      }
      if (!svg && (!x.empty() || !y.empty() || chartable(t))) svg = chart_svg(chart_of(t, ChartSpec{x, y}), width);
    } catch (DiagnosticError& e) {
      failed = Failure{{diag_data(h.s->sources(), e.diag)}, render(h.s->sources(), e.diag)};
    }
  }
  if (failed) raise_failure(*failed);
  return svg ? py::object(py::str(*svg)) : py::object(py::none());
}

py::list steps_of(const std::vector<ExplainStep>& steps) {
  py::list out;
  for (const ExplainStep& s : steps)
    out.append(py::dict(py::arg("text") = s.text, py::arg("value") = s.value, py::arg("at") = s.at,
                        py::arg("global") = s.global, py::arg("cached") = s.cached, py::arg("repeat") = s.repeat,
                        py::arg("steps") = steps_of(s.kids), py::arg("hidden") = s.hidden_kids + s.hidden_deep));
  return out;
}

py::dict explain(RunHandle& h, const std::string& name) {
  std::optional<Explanation> e;
  std::optional<Failure> failed;
  call_released([&] {
    const std::lock_guard<std::mutex> lock(h.mu);
    const std::size_t from = h.s->diagnostics().size();
    e = h.s->explain(h.run, name, h.opt);
    if (!e) failed = h.failure(from);
  });
  if (failed) raise_failure(*failed);
  py::list as;
  for (const AssumptionView& a : e->assumptions)
    as.append(py::dict(py::arg("kind") = kind_name(a.kind), py::arg("name") = a.name, py::arg("value") = a.value,
                       py::arg("at") = a.at, py::arg("via") = a.via.text()));
  return py::dict(py::arg("name") = e->name, py::arg("value") = e->value, py::arg("unit") = e->display.unit,
                  py::arg("what") = e->what, py::arg("formula") = e->formula,
                  py::arg("at") = e->span.valid() ? h.s->sources().where_col(e->span) : std::string(),
                  py::arg("steps") = steps_of(e->chain), py::arg("hidden") = e->hidden_kids,
                  py::arg("assumptions") = as, py::arg("text") = format_explanation(*e));
}

// `mls sensitivity --format json`, and the report's tornado chart of it.
py::tuple sensitivity(RunHandle& h, const std::string& name, std::size_t top) {
  std::optional<Sensitivity> r;
  std::optional<Failure> failed;
  std::string json, text, svg;
  call_released([&] {
    const std::lock_guard<std::mutex> lock(h.mu);
    const std::size_t from = h.s->diagnostics().size();
    r = h.s->sensitivity(h.sel, h.run, name, h.opt);
    if (!r) {
      failed = h.failure(from);
      return;
    }
    json = format_sensitivity_json(*r, top);
    text = format_sensitivity_text(*r, top);
    svg = tornado_svg(tornado_of(*r, std::min<std::size_t>(top, 20)));
  });
  if (failed) raise_failure(*failed);
  return py::make_tuple(json, text, svg);
}

std::string report_page(RunHandle& h) {
  const py::gil_scoped_release nogil;
  const std::lock_guard<std::mutex> lock(h.mu);
  return h.s->report_html(h.run, ReportInfo{h.file, selection_text(h.sel), {}});
}

// The report page's parts (report.hpp): one shown result, one table.
std::string result_html(RunHandle& h, std::size_t i) {
  if (i >= h.run.results.size()) throw py::index_error("no result " + std::to_string(i));
  const py::gil_scoped_release nogil;
  const std::lock_guard<std::mutex> lock(h.mu);
  return report_result_html(h.s->scope(), h.run.results[i]);
}

std::string table_html(RunHandle& h, const std::string& name, std::size_t max_rows) {
  const Table& t = h.table(name);
  const auto index = static_cast<std::size_t>(&t - h.run.tables.data());
  const py::gil_scoped_release nogil;
  const std::lock_guard<std::mutex> lock(h.mu);
  return report_table_html(h.s->scope(), t, index, max_rows);
}

std::string text_of(RunHandle& h, const std::string& assumptions) {
  FormatOptions f;
  const auto a = parse_assumptions(assumptions);
  if (!a) raise_usage("assumptions: one of none, changed, all (got '" + assumptions + "')");
  f.assumptions = *a;
  const py::gil_scoped_release nogil;
  const std::lock_guard<std::mutex> lock(h.mu);
  std::string out;
  Writer w(&out);
  w.escape_controls = true;
  const auto sink = make_formatter("text", h.s->scope(), w, h.file, f);
  replay(h.run, *sink);
  w.flush();
  return out;
}

}  // namespace

}  // namespace mls::binding

PYBIND11_MODULE(_mls, m) {
  using namespace mls::binding;
  using mls::binding::RunHandle;
  m.doc() = "mls: machine-learning-systems arithmetic (the extension under the Python package mls)";
  m.attr("version") = mls::kVersion;

  py::class_<RunHandle, std::shared_ptr<RunHandle>>(m, "RunHandle")
      .def_property_readonly("json", [](const RunHandle& h) { return py::bytes(h.json); })
      .def_property_readonly("file", [](const RunHandle& h) { return h.file; })
      .def_property_readonly("errors", [](const RunHandle& h) { return to_list(h.errors); })
      .def_property_readonly("error_text", [](const RunHandle& h) { return h.error_text; })
      .def_property_readonly("warnings", [](const RunHandle& h) { return to_list(h.warnings); })
      .def_property_readonly("selection", [](const RunHandle& h) { return selection_text(h.sel); })
      .def("asserts", &asserts_of)
      .def("result_texts",
           [](const RunHandle& h) {
             std::vector<std::string> out;
             for (const mls::Shown& s : h.run.results) out.push_back(mls::value_with_unit(s.value, s.display));
             return out;
           })
      .def("table_extra", &table_extra)
      .def("chart_svg", &chart, py::arg("table"), py::arg("x") = "", py::arg("y") = std::vector<std::string>{},
           py::arg("width") = 720)
      .def("explain", &explain)
      .def("sensitivity", &sensitivity)
      .def("report_html", &report_page)
      .def("result_html", &result_html)
      .def("table_html", &table_html, py::arg("table"), py::arg("max_rows") = 50)
      .def("text", &text_of, py::arg("assumptions") = "changed");

  m.def("run", &run_scenario, py::arg("name"), py::arg("text"), py::arg("preset"), py::arg("use"), py::arg("set"),
        py::arg("uncertainty") = 0, py::arg("seed") = 1, py::arg("max_points") = 1'000'000, py::arg("threads") = 0);
  m.def(
      "page_head", [] { return mls::page_head("mls"); }, "The report page's head: its inline style.");
  m.def("interrupt", &mls::Core::interrupt,
        "Stops every mls evaluation in progress in this process (as Ctrl-C does): each raises KeyboardInterrupt.");
  bind_answers(m);
}
