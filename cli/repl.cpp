// repl.cpp — `mls repl [FILE...]`: interactive exploration at a prompt, or, when stdin is not
// a terminal, a script of statements read from stdin (answers printed without prompts).
// Exit codes: interactive 0; from stdin 0 if every input succeeded, else 65; a file given on
// the command line that does not load ends the session at once with its code (65, 66).
#include "repl.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "grammar/source.hpp"
#include "interpreter/report/chart.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/controls.hpp"
#include "line_editor.hpp"

namespace mls {

namespace {

const std::vector<std::string> kMeta = {":assumptions", ":conventions", ":diff", ":explain", ":help",
                                        ":load",        ":more",        ":plot", ":preset",  ":quit",
                                        ":reset",       ":rows",        ":set",  ":units",   ":use"};

// Rows of a table printed at the prompt before `:more` (a sweep can have a million).
constexpr std::size_t kDefaultRowCap = 50;
// Output is written in blocks this large, so Ctrl-C can stop it between two.
constexpr std::size_t kOutBlock = 16 * 1024;

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
  :more                the next rows of the table printed last (tables print 50 rows at a time)
  :rows [N|all]        how many rows of a table print at a time (`all`: every row)
  :units [DIMENSION]   the units of a dimension (or of a unit: `:units GB/s`); no argument: dimensions
  :load FILE           load a file's definitions and choices (its statements are not run)
  :reset               forget the inputs; reload the prelude and the loaded files from disk
  :help                this text
  :quit                leave (also Ctrl-D)

Names typed at the prompt can be redefined; later inputs see the new definition, earlier ones
keep theirs. Names from the prelude and from files cannot: `set NAME = VALUE` changes a
parameter everywhere it is used. Tab completes names, fields after `.`, units after a number
and choices after `:use`; Ctrl-R searches the history; Ctrl-C drops the current input, stops
a running input and stops output. An answer in a unit you asked for (`-> MB`) shows 6
significant digits (`@ 0.001` chooses the resolution); bytes show in the prefix family they
were written in (80 GiB stays 80 GiB).
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
    out(s_.format(o, [this](const Table& t) { return first_page(t); }));
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
    if (cmd == ":explain") return report(s_.explain(arg.empty() ? "ans" : arg, line_no, o, e));
    if (cmd == ":assumptions") return report(s_.assumptions(arg.empty() ? "ans" : arg, line_no, o, e));
    if (cmd == ":diff") return report(s_.diff(arg.empty() ? "ans" : arg, line_no, o, e));
    if (cmd == ":conventions") return report(s_.conventions(words(arg), o, e));
    if (cmd == ":units") return report(s_.units(arg, o, e));
    if (cmd == ":use") {
      const std::size_t eq = arg.find('=');
      // `:use` alone lists the conventions; `:use NAME` shows that one's choices.
      if (arg.empty() || (eq == std::string::npos && is_name(arg))) return report(s_.conventions(words(arg), o, e));
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
        out(s_.presets_line());
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
      if (r.status != Outcome::Status::failed) {
        tables_.tables.clear();  // they came from the inputs forgotten
        more_ = {};
      }
      return print(r);
    }
    if (cmd == ":plot") return plot(words(arg));
    if (cmd == ":more") return more();
    if (cmd == ":rows") return rows(arg);
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
      // (A multi-line input recalled from the history arrives as one text with newlines.)
      prompt_line_ = PromptLine{interactive_ && text.find('\n') == std::string::npos, text, 5};
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
    for (std::size_t at = 0; at < s.size(); at += kOutBlock) {
      if (interrupt_requested()) {
        std::fputs("\n(output stopped: Ctrl-C)\n", stdout);
        break;
      }
      std::fwrite(s.data() + at, 1, std::min(kOutBlock, s.size() - at), stdout);
    }
    std::fflush(stdout);
  }

  // A table at the prompt: its first rows_ rows and its footer; the rest on `:more`.
  std::string first_page(const Table& t) {
    TableSlice slice;
    slice.count = rows_;
    slice.stop = [] { return interrupt_requested(); };
    std::string text = s_.table_text(t, slice);
    if (slice.stopped) return text + "  (output stopped: Ctrl-C)\n";
    more_ = {};
    const std::size_t shown = std::min(rows_, t.rows.size());
    if (shown < t.rows.size()) {
      more_ = {t.name, shown};
      text += paging_line(0, shown, t.rows.size());
    }
    return text;
  }

  [[nodiscard]] std::string paging_line(std::size_t first, std::size_t end, std::size_t total) const {
    std::string s = "  rows " + std::to_string(first + 1) + "-" + std::to_string(end) + " of " + std::to_string(total);
    if (end == total) return s + " shown (the end of the table)\n";
    return s + " shown; :more shows the next " + std::to_string(std::min(rows_, total - end)) +
           ", :rows N (or all) sets how many\n";
  }

  // `:more`: the next rows of the table cut short last.
  bool more() {
    const auto it = std::find_if(tables_.tables.begin(), tables_.tables.end(),
                                 [&](const Table& t) { return t.name == more_.table; });
    if (more_.table.empty() || it == tables_.tables.end()) {
      err("mls: nothing more to show: :more continues the table printed last when it was cut short\n");
      return false;
    }
    TableSlice slice;
    slice.first = more_.next;
    slice.count = rows_;
    slice.footer = false;
    slice.stop = [] { return interrupt_requested(); };
    std::string text = s_.table_text(*it, slice);
    if (!text.empty() && text.front() == '\n') text.erase(0, 1);
    if (slice.stopped) {
      out(text + "  (output stopped: Ctrl-C)\n");
      return true;
    }
    const std::size_t end = std::min(more_.next + rows_, it->rows.size());
    text += paging_line(more_.next, end, it->rows.size());
    more_.next = end;
    if (end == it->rows.size()) more_ = {};
    out(text);
    return true;
  }

  // `:rows [N|all]`: how many rows of a table print at a time.
  bool rows(const std::string& arg) {
    if (arg.empty()) {
      out(rows_ == kAll ? "tables print every row\n" : "tables print " + std::to_string(rows_) + " rows at a time\n");
      return true;
    }
    if (arg == "all") {
      rows_ = kAll;
      return true;
    }
    std::size_t n = 0;
    bool ok = arg.size() <= 9;
    for (char c : arg) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (ok) n = std::stoul(arg);
    if (!ok || n == 0) {
      err("mls: usage: :rows N (a whole number of rows, at least 1) or :rows all\n");
      return false;
    }
    rows_ = n;
    return true;
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
      err(s_.render_diagnostic(e.diag));
      return false;
    }
  }

  static constexpr std::size_t kAll = static_cast<std::size_t>(-1);
  ReplSession& s_;
  RunResult tables_;  // the tables the session's inputs produced, for `:plot` and `:more`
  std::size_t rows_ = kDefaultRowCap;
  struct {
    std::string table;  // the table cut short last ("": none)
    std::size_t next = 0;
  } more_;
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
  std::string entry;  // the lines of the input being typed, for the history
  // An input ends (run, flushed or dropped): its lines become one history entry.
  auto remember_entry = [&] {
    if (!entry.empty()) ed.remember(entry.substr(0, entry.size() - 1));
    entry.clear();
  };
  while (!repl.quit) {
    const auto r = ed.read(repl.pending() ? "...> " : "mls> ", line);
    if (r == LineEditor::Read::eof) {
      std::fputs("\n", stdout);
      break;
    }
    if (r == LineEditor::Read::interrupted) {
      // A dropped input stays in the history (as one entry), to be recalled and fixed.
      remember_entry();
      repl.drop();
      continue;
    }
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
      remember_entry();
      blank_before = false;
      continue;
    }
    blank_before = blank;
    entry += line + "\n";
    (void)repl.line(line, line_no);
    // A multi-line input is one history entry: Up recalls the whole record or sweep.
    if (!repl.pending()) remember_entry();
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
  const bool interactive = isatty(STDIN_FILENO) != 0;
  Core::Options core;
  core.conventions_command = "`:conventions`";
  ReplSession s(a.run, interactive ? "<repl>" : "<stdin>", core);
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
    const Outcome o = s.submit(choices, 1, true, true);
    std::fputs(o.diagnostics.c_str(), stderr);
    if (o.status == Outcome::Status::failed) return o.exit_code ? o.exit_code : 65;
  }
  return interactive ? interactive_loop(s) : script_loop(s);
}

}  // namespace mls
