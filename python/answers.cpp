// answers.cpp — the rest of the extension (issue #35): a comparison of two runs (`mls diff`, and
// `mls report`'s diff page), `mls validate` and `mls list` (the command line's handlers, through
// cli_commands), the listings, and `Session`, the REPL's session (tooling/session.hpp) one input at
// a time. Every call releases the GIL (call_released, module.cpp).
#include <mutex>

#include "binding.hpp"
#include "cli_commands.hpp"
#include "grammar/diagnostic.hpp"
#include "interpreter/report/report.hpp"
#include "interpreter/results/diff.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/scenario.hpp"
#include "interpreter/tooling/session.hpp"

namespace mls::binding {

namespace {

Core::Options core_options() { return Core::Options{{}, "`mls.conventions()`"}; }

// ---- diff -------------------------------------------------------------------------------------

struct DiffSideSpec {
  std::string file;
  std::optional<std::string> text;
  Selection sel;
  std::string label;
};

DiffSideSpec side_of(const py::tuple& t) {
  // (name, text or None, preset or None, use, set, label)
  DiffSideSpec s;
  s.file = t[0].cast<std::string>();
  s.text = t[1].is_none() ? std::nullopt : std::optional<std::string>(t[1].cast<std::string>());
  s.sel = selection_of(t[2].is_none() ? std::nullopt : std::optional<std::string>(t[2].cast<std::string>()),
                       py::reinterpret_borrow<py::object>(t[3]), py::reinterpret_borrow<py::object>(t[4]));
  s.label = t[5].cast<std::string>();
  return s;
}

// Both sides loaded, checked and configured before either evaluates (as `mls diff`); the left
// side then splits each change among its causes. Returns (json, text, html, differs).
py::tuple diff(const py::tuple& left_spec, const py::tuple& right_spec) {
  const DiffSideSpec l = side_of(left_spec), r = side_of(right_spec);
  Scenario ls(core_options()), rs(core_options());
  std::optional<Failure> failed;
  std::string json, text, html;
  bool differs = false;
  call_released([&] {
    auto fail = [&](Scenario& s) {
      Failure f;
      f.diags = diag_data(s.sources(), s.diagnostics(), 0, &f.text);
      failed = std::move(f);
    };
    if (!ls.prepare(l.file, l.text)) return fail(ls);
    if (!rs.prepare(r.file, r.text)) return fail(rs);
    if (!ls.configure(l.sel)) return fail(ls);
    if (!rs.configure(r.sel)) return fail(rs);
    RunOptions opt;
    const auto lr = ls.run(opt);
    if (!lr) return fail(ls);
    const auto rr = rs.run(opt);
    if (!rr) return fail(rs);
    DiffReport d = compare(ComparedSide{&ls, &*lr, l.file, l.label}, ComparedSide{&rs, &*rr, r.file, r.label});
    if (!ls.split_changes(l.sel, *lr, opt, d)) return fail(ls);
    json = format_diff_json(d);
    text = format_diff_text(d);
    html = report_diff_html(d, *lr, *rr);
    differs = d.differs();
  });
  if (failed) raise_failure(*failed);
  return py::make_tuple(json, text, html, differs);
}

// ---- the command line's handlers ---------------------------------------------------------------

std::string cli_json(const std::function<CliOutput()>& cmd, bool any_rc) {
  CliOutput out;
  call_released([&] { out = cmd(); });
  if (!out.usage.empty()) raise_usage(out.usage);
  if (out.failure) raise_failure(*out.failure);
  if (out.rc != 0 && !any_rc) raise_usage("the command failed with exit code " + std::to_string(out.rc));
  return out.out;
}

std::string validate_json(const std::optional<std::string>& preset, const py::object& use, const py::object& set) {
  const Selection sel = selection_of(preset, use, set);
  // Exit code 1 says a case is outside its band: the JSON says which.
  return cli_json([&] { return validate(sel); }, true);
}

std::string list_json(const std::string& kind, const std::string& where, const std::optional<std::string>& preset,
                      const py::object& use, const py::object& set) {
  const Selection sel = selection_of(preset, use, set);
  return cli_json([&] { return list(kind, where, sel); }, false);
}

// `mls conventions` / `mls presets`.
std::string listing(bool presets) {
  std::string out;
  std::optional<Failure> failed;
  call_released([&] {
    Scenario s(core_options());
    if (!s.load_prelude()) {
      Failure f;
      f.diags = diag_data(s.sources(), s.diagnostics(), 0, &f.text);
      failed = std::move(f);
      return;
    }
    out = presets ? s.presets_listing() : s.conventions_listing();
  });
  if (failed) raise_failure(*failed);
  return out;
}

// A diagnostic with no place (what an input left when nothing was rendered).
DiagData plain_error(const std::string& code, const std::string& message) {
  DiagData d;
  d.severity = "error";
  d.code = code;
  d.message = d.text = message;
  return d;
}

// ---- Session ----------------------------------------------------------------------------------

// `mls repl` as an object: each input a transaction of the session core (a failing one leaves the
// session as it was). The diagnostics of an input are caught as data while the REPL renders them.
class SessionHandle {
 public:
  std::mutex mu;
  ReplSession s{RunOptions{}, "<session>", core_options()};
  std::vector<DiagData> seen;  // what the last input's rendering drew
  std::uint32_t line = 1;

  SessionHandle() {
    s.renderer = [into = &seen](const Sources& src, const Diagnostic& d) {
      into->push_back(diag_data(src, d));
      return render(src, d);
    };
  }

  // One input (or the start); the outcome as data, or the failure raised.
  py::dict outcome(const std::function<Outcome()>& input) {
    Outcome o;
    std::string text, json;
    std::vector<std::string> result_html, table_html, result_texts;
    call_released([&] {
      const std::lock_guard<std::mutex> lock(mu);
      seen.clear();
      o = input();
      if (o.status == Outcome::Status::failed) return;
      text = s.format(o);
      Writer w(&json);
      const auto sink = make_formatter("json", s.core().scope(), w, "<session>");
      replay(o.run, *sink);
      w.flush();
      for (const Shown& r : o.run.results) {
        result_html.push_back(report_result_html(s.core().scope(), r));
        result_texts.push_back(value_with_unit(r.value, r.display));
      }
      for (std::size_t i = 0; i < o.run.tables.size(); ++i)
        table_html.push_back(report_table_html(s.core().scope(), o.run.tables[i], i, 50));
    });
    if (o.status == Outcome::Status::failed) {
      Failure f;
      for (const Severity want : {Severity::error, Severity::warning})
        for (const DiagData& d : seen)
          if ((d.severity == "error") == (want == Severity::error)) f.diags.push_back(d);
      f.text = o.diagnostics;
      if (f.diags.empty()) f.diags.push_back(plain_error("internal", o.message));
      raise_failure(f);
    }
    py::list defined, warnings;
    for (const Definition& d : o.defined)
      defined.append(py::dict(py::arg("label") = d.label,
                              py::arg("text") = value_with_unit(d.value, d.display ? *d.display : Display{})));
    for (const DiagData& d : seen)
      if (d.severity == "warning") warnings.append(to_dict(d));
    return py::dict(py::arg("json") = py::bytes(json), py::arg("text") = text, py::arg("defined") = defined,
                    py::arg("changes") = o.changes, py::arg("bare") = o.bare, py::arg("message") = o.message,
                    py::arg("warnings") = warnings, py::arg("result_html") = result_html,
                    py::arg("result_texts") = result_texts, py::arg("table_html") = table_html);
  }

  py::dict submit(const std::string& text, bool command_line) {
    const std::uint32_t first = line;
    for (char c : text) line += c == '\n' ? 1 : 0;
    if (text.empty() || text.back() != '\n') ++line;
    return outcome([&] { return s.submit(text, first, true, command_line); });
  }

  // An inspecting command (`:explain`, `:assumptions`, `:diff`): its text, or its error raised.
  std::string inspect(const std::function<bool(std::string&, std::string&)>& cmd) {
    std::string out, err;
    bool ok = false;
    call_released([&] {
      const std::lock_guard<std::mutex> lock(mu);
      seen.clear();
      ok = cmd(out, err);
    });
    if (!ok) {
      Failure f{seen, err};
      if (f.diags.empty()) f.diags.push_back(plain_error("usage", err));
      raise_failure(f);
    }
    return out;
  }
};

std::shared_ptr<SessionHandle> make_session(const std::vector<std::string>& files,
                                            const std::optional<std::string>& preset, const py::object& use,
                                            const py::object& set) {
  auto h = std::make_shared<SessionHandle>();
  (void)h->outcome([&] { return h->s.start(files); });
  // The choices of the constructor are the session's first input, as `mls repl --use` makes them.
  std::string choices;
  if (preset) choices += "preset " + *preset + "\n";
  for (const auto& [name, choice] : pairs_of(use)) choices += "use " + name + " = " + choice + "\n";
  for (const auto& [name, value] : pairs_of(set)) choices += "set " + name + " = " + value + "\n";
  if (!choices.empty()) (void)h->outcome([&] { return h->s.submit(choices, 1, true, true); });
  return h;
}

}  // namespace

void bind_answers(py::module_& m) {
  m.def("diff", &diff);
  m.def("validate", &validate_json);
  m.def("list", &list_json);
  m.def("listing", &listing);
  py::class_<SessionHandle, std::shared_ptr<SessionHandle>>(m, "SessionHandle")
      .def(py::init(&make_session))
      .def("submit", &SessionHandle::submit, py::arg("text"), py::arg("command_line") = false)
      .def("load", [](SessionHandle& h, const std::string& path) { return h.outcome([&] { return h.s.load(path); }); })
      .def("reset", [](SessionHandle& h) { return h.outcome([&] { return h.s.reset(); }); })
      .def("explain",
           [](SessionHandle& h, const std::string& text) {
             return h.inspect([&](std::string& out, std::string& err) { return h.s.explain(text, 1, out, err); });
           })
      .def("assumptions",
           [](SessionHandle& h, const std::string& text) {
             return h.inspect([&](std::string& out, std::string& err) { return h.s.assumptions(text, 1, out, err); });
           })
      .def("diff",
           [](SessionHandle& h, const std::string& text) {
             return h.inspect([&](std::string& out, std::string& err) { return h.s.diff(text, 1, out, err); });
           })
      .def("conventions", [](SessionHandle& h, const std::vector<std::string>& names) {
        return h.inspect([&](std::string& out, std::string& err) { return h.s.conventions(names, out, err); });
      });
}

}  // namespace mls::binding
