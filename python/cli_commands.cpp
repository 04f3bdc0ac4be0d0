// cli_commands.cpp — `mls validate` and `mls list` inside the Python module: their handlers
// (cli/validate.cpp, cli/list.cpp) are compiled into the module as they are, so the JSON they give
// Python is the command line's by construction, and this file supplies the few services of the
// command line they call (cli/main.cpp and cli/args.cpp in the executable): the output goes to a
// string, the diagnostics become data for mls.Error, a usage error becomes a message.
#include "cli_commands.hpp"

#include "cli/commands.hpp"

namespace mls {

namespace {
thread_local binding::CliOutput* t_out = nullptr;
}  // namespace

Core::Options core_options() { return Core::Options{{}, "`mls.conventions()`"}; }

// The signature must match cli/commands.hpp exactly: a module may leave a symbol undefined at link
// time, so a mismatch shows only when Python imports it (ctest python/* catches it).
int emit(const Args&, const std::string& text, bool /*binary*/) {
  t_out->out += text;
  return 0;
}

int usage_error(const std::string& msg) {
  t_out->usage = msg;
  return info(ErrorKind::usage).exit_code;
}

int usage_error(const Args&, const std::string& msg) { return usage_error(msg); }

int report(const Scenario& s) {
  binding::Failure f;
  f.diags = binding::diag_data(s.sources(), s.diagnostics(), 0, &f.text);
  t_out->failure = std::move(f);
  const int code = s.diagnostics().exit_code();
  return code == 0 ? 70 : code;
}

Selection selection_of(const Args& a) {
  Selection sel;
  if (!a.presets.empty()) sel.preset = a.presets.front();
  sel.uses = a.uses;
  sel.sets = a.sets;
  return sel;
}

namespace binding {

namespace {

Args args_of(std::vector<std::string> positional, const Selection& sel) {
  Args a;
  a.format = "json";
  a.positional = std::move(positional);
  if (sel.preset) a.presets.push_back(*sel.preset);
  a.uses = sel.uses;
  a.sets = sel.sets;
  return a;
}

CliOutput run(int (*cmd)(const Args&), const Args& a) {
  CliOutput out;
  t_out = &out;
  try {
    out.rc = cmd(a);
  } catch (...) {
    t_out = nullptr;
    throw;
  }
  t_out = nullptr;
  return out;
}

}  // namespace

CliOutput validate(const Selection& sel) { return run(&cmd_validate, args_of({"validate"}, sel)); }

CliOutput list(const std::string& kind, const std::string& where, const Selection& sel) {
  Args a = args_of({"list", kind}, sel);
  a.where = where;
  return run(&cmd_list, a);
}

}  // namespace binding
}  // namespace mls
