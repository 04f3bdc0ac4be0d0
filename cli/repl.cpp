// repl.cpp — `mls repl [FILE...]`: interactive exploration at a prompt, or, when stdin is not
// a terminal, a script of statements read from stdin (answers printed without prompts).
// Exit codes: interactive 0; from stdin 0 if every input succeeded, else 65; a file given on
// the command line that does not load ends the session at once with its code (65, 66).
#include "repl.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "grammar/source.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/report/chart.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/controls.hpp"
#include "line_editor.hpp"

namespace mls {

namespace {

const std::vector<std::string> kMeta = {":assumptions", ":conventions", ":diff",   ":explain", ":help",
                                        ":load",        ":plot",        ":preset", ":quit",    ":reset",
                                        ":set",         ":units",       ":use"};

const char* kHelp = R"(Type a statement (let, set, use, preset, show, assert, sweep, search, ...) or an
expression; an expression is shown in a human unit with the assumptions it depends on, and
becomes `ans`. A statement left open (a bracket, a trailing operator) continues on the next
line. An input that fails changes nothing.

  :explain NAME        the formula chain behind NAME (or any expression): values, calls, assumptions
  :assumptions NAME    every assumption NAME depends on, with file:line
  :diff EXPR           EXPR under the current choices and under the defaults
  :use NAME=CHOICE     choose a convention (like the statement `use NAME = CHOICE`)
  :preset NAME         choose a preset (like `preset NAME`)
  :set NAME=VALUE      override a parameter or default by its printed name (like `set NAME = VALUE`)
  :conventions [NAME]  every convention (or the named ones), its choices and the current one
  :plot [TABLE] [--x COL] [--y COL,...]
                       a sweep's or search's table as a terminal chart (default: the last one)
  :units [DIMENSION]   the units of a dimension (or of a unit: `:units GB/s`); no argument: dimensions
  :load FILE           load a file's definitions and choices (its statements are not run)
  :reset               forget the inputs; reload the prelude and the loaded files from disk
  :help                this text
  :quit                leave (also Ctrl-D)

Names typed at the prompt can be redefined; later inputs see the new definition, earlier ones
keep theirs. Names from the prelude and from files cannot: `set NAME = VALUE` changes a
parameter everywhere it is used. Tab completes names, fields after `.`, units after a number
and choices after `:use`; Ctrl-R searches the history; Ctrl-C drops the current input.
)";

bool is_name(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

class Repl {
 public:
  Repl(ReplSession& s, bool interactive) : s_(s), interactive_(interactive) {
    s_.renderer = [this](const Sources& src, const Diagnostic& d) { return render_at_prompt(src, d, prompt_line_); };
  }

  // Prints an input's outcome; false if it failed (or an assertion in it failed).
  bool print(const Outcome& o) {
    out(format_outcome(s_.program(), o));
    err(o.diagnostics);
    return o.status != Outcome::Status::failed && !o.asserts_failed();
  }

  // A line starting with ':'. False if the command failed.
  bool meta(const std::string& line, std::uint32_t line_no) {
    const std::string text = trim(line);
    const std::size_t sp = text.find_first_of(" \t");
    const std::string cmd = text.substr(0, sp);
    const std::string arg = sp == std::string::npos ? "" : trim(text.substr(sp));
    std::string o, e;
    auto report = [&](bool ok) {
      out(o);
      err(e);
      return ok;
    };
    if (cmd == ":quit" || cmd == ":q") {
      quit = true;
      return true;
    }
    if (cmd == ":help" || cmd == ":h" || cmd == ":?") {
      out(kHelp);
      return true;
    }
    if (cmd == ":explain") return report(explain_expr(s_, arg.empty() ? "ans" : arg, line_no, o, e));
    if (cmd == ":assumptions") return report(assumptions_expr(s_, arg.empty() ? "ans" : arg, line_no, o, e));
    if (cmd == ":diff") return report(diff_expr(s_, arg.empty() ? "ans" : arg, line_no, o, e));
    if (cmd == ":conventions") return report(conventions_text(s_, words(arg), o, e));
    if (cmd == ":units") return report(units_text(s_, arg, o, e));
    if (cmd == ":use") {
      const std::size_t eq = arg.find('=');
      // `:use` alone lists the conventions; `:use NAME` shows that one's choices.
      if (arg.empty() || (eq == std::string::npos && is_name(arg)))
        return report(conventions_text(s_, words(arg), o, e));
      const std::string name = trim(arg.substr(0, eq));
      const std::string choice = eq == std::string::npos ? "" : trim(arg.substr(eq + 1));
      if (!is_name(name) || !is_name(choice)) {
        err("mls: usage: :use NAME=CHOICE (`:conventions` lists them)\n");
        return false;
      }
      return print(s_.submit("use " + name + " = " + choice + "\n", line_no));
    }
    if (cmd == ":set") {
      // `:set distributed.efficiency=0.7`: any name an assumption list prints; as `set NAME = VALUE`.
      const std::size_t eq = arg.find('=');
      const std::string name = eq == std::string::npos ? "" : trim(arg.substr(0, eq));
      const std::string value = eq == std::string::npos ? "" : trim(arg.substr(eq + 1));
      bool dotted = !name.empty() && name.front() != '.' && name.back() != '.';
      for (std::size_t i = 0, start = 0; dotted && i <= name.size(); ++i)
        if (i == name.size() || name[i] == '.') {
          dotted = is_name(name.substr(start, i - start));
          start = i + 1;
        }
      if (!dotted || value.empty() || value.find('\n') != std::string::npos) {
        err("mls: usage: :set NAME=VALUE (NAME as an assumption list prints it: distributed.efficiency)\n");
        return false;
      }
      return print(s_.submit("set " + name + " = " + value + "\n", line_no));
    }
    if (cmd == ":preset") {
      if (arg.empty()) {
        const Config* cfg = s_.config();
        std::string list;
        for (const auto& p : s_.program().presets) list += " " + sym_name(p.name);
        out("preset " + (cfg ? cfg->preset : std::string("?")) + "; the presets are:" + list + "\n");
        return true;
      }
      if (!is_name(arg)) {
        err("mls: usage: :preset NAME\n");
        return false;
      }
      return print(s_.submit("preset " + arg + "\n", line_no));
    }
    if (cmd == ":load") {
      if (arg.empty()) {
        err("mls: usage: :load FILE\n");
        return false;
      }
      return print(s_.load(arg));
    }
    if (cmd == ":reset") {
      const Outcome r = s_.reset();
      if (r.status != Outcome::Status::failed) tables_.tables.clear();  // they came from the inputs forgotten
      return print(r);
    }
    if (cmd == ":plot") return plot(words(arg));
    std::string msg = "mls: unknown command '" + cmd + "'";
    const std::string near = closest(cmd, kMeta);
    if (!near.empty()) msg += " (did you mean '" + near + "'?)";
    err(msg + "; :help lists the commands\n");
    return false;
  }

  // Feeds one line. Returns false when a finished input failed.
  bool line(const std::string& text, std::uint32_t line_no) {
    if (buffer_.empty()) {
      const std::string t = trim(text);
      if (t.empty() || t[0] == '#') return true;
      if (t[0] == ':') return meta(t, line_no);
      first_ = line_no;
      // Carets can go under the prompt only for a one-line input typed just now.
      prompt_line_ = PromptLine{interactive_, text, 5};
    } else {
      prompt_line_.active = false;
    }
    buffer_ += text + "\n";
    Outcome o = s_.submit(buffer_, first_);
    if (o.status == Outcome::Status::incomplete) return true;
    buffer_.clear();
    return print_and_keep(std::move(o));
  }

  // End of input (or two blank lines while a statement is open, interactively): report it.
  bool flush() {
    if (buffer_.empty()) return true;
    prompt_line_.active = false;
    Outcome o = s_.submit(buffer_, first_, true);
    buffer_.clear();
    return print_and_keep(std::move(o));
  }

  void drop() { buffer_.clear(); }
  [[nodiscard]] bool pending() const { return !buffer_.empty(); }
  bool quit = false;

 private:
  static void out(const std::string& text) {
    const std::string s = escape_controls(text);  // a string value cannot drive the terminal
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  static void err(const std::string& s) {
    std::fflush(stdout);
    std::fwrite(s.data(), 1, s.size(), stderr);
    std::fflush(stderr);
  }

  // Prints an outcome and keeps its tables for `:plot` (a table of the same name replaces the
  // older one; the most recent is last).
  bool print_and_keep(Outcome o) {
    const bool ok = print(o);
    for (Table& t : o.run.tables) {
      std::erase_if(tables_.tables, [&](const Table& k) { return k.name == t.name; });
      tables_.tables.push_back(std::move(t));
    }
    return ok;
  }

  // `:plot [TABLE] [--x COL] [--y COL,...]`: the chart `mls plot` draws, in braille.
  bool plot(const std::vector<std::string>& args) {
    std::string name;
    ChartSpec spec;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const bool flag = args[i] == "--x" || args[i] == "--y";
      if (flag && i + 1 < args.size()) {
        const std::string& v = args[++i];
        if (args[i - 1] == "--x") {
          spec.x = v;
        } else {
          for (std::size_t b = 0, e; b <= v.size(); b = e + 1) {
            e = std::min(v.find(',', b), v.size());
            if (e > b) spec.y.push_back(v.substr(b, e - b));
          }
        }
      } else if (!flag && args[i][0] != '-' && name.empty()) {
        name = args[i];
      } else {
        err("mls: usage: :plot [TABLE] [--x COL] [--y COL,...]\n");
        return false;
      }
    }
    if (name.empty()) {
      if (tables_.tables.empty()) {
        err("mls: no table to plot yet: run a sweep or a search first (:plot TABLE names one)\n");
        return false;
      }
      name = tables_.tables.back().name;
    }
    try {
      out(chart_text(chart_of(find_table(tables_, name), spec)));
      return true;
    } catch (const DiagnosticError& e) {
      err(s_.renderer(s_.program().sources, e.diag));
      return false;
    }
  }

  ReplSession& s_;
  RunResult tables_;  // the tables the session's inputs produced, for `:plot`
  bool interactive_;
  std::string buffer_;
  std::uint32_t first_ = 1;
  PromptLine prompt_line_;
};

int interactive_loop(ReplSession& s) {
  Repl repl(s, true);
  const std::vector<std::string>& meta = kMeta;
  LineEditor ed([&](std::string_view before) { return complete(s, before, meta); }, default_history_path());
  if (!ed.history_error().empty()) std::fprintf(stderr, "mls: warning: %s\n", ed.history_error().c_str());
  std::printf("mls %s — type an expression or a statement; :help lists the commands, :quit leaves\n", kVersion);
  std::uint32_t line_no = 0;
  bool blank_before = false;
  bool warned = !ed.history_error().empty();
  std::string line;
  while (!repl.quit) {
    const auto r = ed.read(repl.pending() ? "...> " : "mls> ", line);
    if (r == LineEditor::Read::eof) {
      std::fputs("\n", stdout);
      break;
    }
    if (r == LineEditor::Read::interrupted) {
      repl.drop();
      continue;
    }
    ed.remember(line);
    if (!warned && !ed.history_error().empty()) {
      std::fprintf(stderr, "mls: warning: %s\n", ed.history_error().c_str());
      warned = true;
    }
    ++line_no;
    const bool blank = trim(line).empty();
    // A way out of an input that never completes (an unclosed bracket): two blank lines.
    // While an input runs, Ctrl-C stops it (run.interrupted) and the session carries on.
    const InterruptScope ctrl_c;
    if (repl.pending() && blank && blank_before) {
      (void)repl.flush();
      blank_before = false;
      continue;
    }
    blank_before = blank;
    (void)repl.line(line, line_no);
  }
  return 0;
}

int script_loop(ReplSession& s) {
  Repl repl(s, false);
  bool ok = true;
  std::uint32_t line_no = 0;
  bool blank_before = false;
  std::string line;
  while (!repl.quit && std::getline(std::cin, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // A byte order mark before the first line is not part of the input.
    if (line_no == 1 && std::string_view(line).substr(0, kUtf8Bom.size()) == kUtf8Bom) line.erase(0, kUtf8Bom.size());
    // As at the prompt, two blank lines end an input left open (an unclosed bracket): it is
    // reported, and the next statement starts fresh instead of joining its syntax error.
    const bool blank = trim(line).empty();
    if (repl.pending() && blank && blank_before) {
      ok = repl.flush() && ok;
      blank_before = false;
      continue;
    }
    blank_before = blank;
    ok = repl.line(line, line_no) && ok;
  }
  if (!repl.quit) ok = repl.flush() && ok;
  return ok ? 0 : 65;
}

}  // namespace

int cmd_repl(const Args& a) {
  if (a.format != "text" || !a.out.empty()) {
    std::fputs("mls: repl prints to the terminal; --format and --out do not apply\n(run `mls --help` for usage)\n",
               stderr);
    return 64;
  }
  if (a.presets.size() > 1) {
    std::fputs("mls: repl takes one --preset\n(run `mls --help` for usage)\n", stderr);
    return 64;
  }
  const bool interactive = isatty(STDIN_FILENO) != 0;
  ReplSession s(a.run, interactive ? "<repl>" : "<stdin>");
  const std::vector<std::string> files(a.positional.begin() + 1, a.positional.end());
  const Outcome start = s.start(files);
  std::fputs(start.diagnostics.c_str(), stderr);
  if (start.status == Outcome::Status::failed) return start.exit_code ? start.exit_code : 65;
  if (interactive && !start.message.empty()) std::printf("%s\n", start.message.c_str());
  // Command-line choices become the session's first input, so `:use` can change them later.
  std::string choices;
  if (!a.presets.empty()) choices += "preset " + a.presets.front() + "\n";
  for (const auto& [name, choice] : a.uses) choices += "use " + name + " = " + choice + "\n";
  for (const auto& [name, value] : a.sets) choices += "set " + name + " = " + value + "\n";
  if (!choices.empty()) {
    const Outcome o = s.submit(choices, 1, true, "<command line>");
    std::fputs(o.diagnostics.c_str(), stderr);
    if (o.status == Outcome::Status::failed) return o.exit_code ? o.exit_code : 65;
  }
  return interactive ? interactive_loop(s) : script_loop(s);
}

}  // namespace mls
