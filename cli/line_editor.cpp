// line_editor.cpp — the REPL's line input. With libedit: emacs key bindings, Ctrl-R reverse
// history search, Tab completion and a history file saved atomically after every line; without
// it (a build on a system without libedit-dev), plain reads from stdin.
#include "line_editor.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "atomic_file.hpp"

#ifdef MLS_HAVE_LIBEDIT
#include <fcntl.h>
#include <histedit.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#endif

namespace mls {

std::string default_history_path() {
  if (const char* e = std::getenv("MLS_HISTORY")) return e;  // set but empty: no history
  const char* home = std::getenv("HOME");
  if (!home || !*home) {
    const passwd* pw = getpwuid(getuid());
    home = pw ? pw->pw_dir : nullptr;
  }
  return home && *home ? std::string(home) + "/.mls_history" : "";
}

#ifdef MLS_HAVE_LIBEDIT

namespace {

// A history file is a regular file of at most this size (1000 entries of ordinary lines are
// far less); a larger one is not read, and not replaced by the session's shorter history.
constexpr off_t kMaxHistoryBytes = off_t{16} << 20;

// False (with a warning in `error`) when `path` exists but is not a history file the REPL may
// read and replace: a FIFO blocked the REPL's start forever, a character device such as
// /dev/zero was read without end (3.9 GB in 8 s), and either would be replaced by the saved
// history (issue 38, item 9). Opened without blocking (a FIFO with no writer) and checked on
// the descriptor; a link to a regular file is fine (saving keeps the link).
bool usable_history_file(const std::string& path, std::string& error) {
  struct stat st {};
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  bool stated = false;
  if (fd >= 0) {
    stated = fstat(fd, &st) == 0;
    close(fd);
  } else {
    // Absent (made on the first save), or not readable: a regular file then gets the message
    // of a failed read; a socket, which cannot be opened, is refused below.
    stated = stat(path.c_str(), &st) == 0;
    if (!stated) return true;
  }
  if (!stated || !S_ISREG(st.st_mode)) {
    error = "the history file '" + path + "' is not a regular file: history is not read or saved this session";
    return false;
  }
  if (st.st_size > kMaxHistoryBytes) {
    error = "the history file '" + path + "' is larger than 16 MiB: history is not read or saved this session";
    return false;
  }
  return true;
}

}  // namespace

struct LineEditor::Impl {
  EditLine* el = nullptr;
  History* hist = nullptr;
  HistEvent ev{};
  std::string prompt;
  Completer completer;
  std::string path;
  bool interrupted = false;

  static Impl* of(EditLine* el) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    return static_cast<Impl*>(data);
  }
  static char* prompt_fn(EditLine* el) { return of(el)->prompt.data(); }

  // Ctrl-C reaches us as a character (ISIG is off while editing): drop the line.
  static unsigned char interrupt_fn(EditLine* el, int) {
    of(el)->interrupted = true;
    std::fputs("^C", stdout);
    return CC_EOF;
  }

  static unsigned char complete_fn(EditLine* el, int) {
    Impl* self = of(el);
    const LineInfo* li = el_line(el);
    const std::string before(li->buffer, static_cast<std::size_t>(li->cursor - li->buffer));
    const Completion c = self->completer(before);
    if (c.candidates.empty() || c.start > before.size()) return CC_REFRESH_BEEP;
    const std::string word = before.substr(c.start);
    const std::string common = common_prefix(c.candidates);
    if (common.size() > word.size()) {
      el_insertstr(el, common.substr(word.size()).c_str());
      return CC_REFRESH;
    }
    if (c.candidates.size() == 1) return CC_REFRESH_BEEP;  // already complete
    // Several candidates and nothing to add: list them in columns under the line.
    winsize ws{};
    const std::size_t width = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    std::size_t w = 0;
    for (const auto& s : c.candidates) w = std::max(w, s.size());
    const std::size_t per_row = std::max<std::size_t>(1, width / (w + 2));
    std::string out = "\n";
    for (std::size_t i = 0; i < c.candidates.size(); ++i) {
      std::string cell = c.candidates[i];
      if ((i + 1) % per_row != 0 && i + 1 != c.candidates.size()) cell.resize(w + 2, ' ');
      out += cell;
      if ((i + 1) % per_row == 0 || i + 1 == c.candidates.size()) out += "\n";
    }
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
    return CC_REDISPLAY;
  }

  bool save(std::string& error) {
    if (path.empty()) return true;
    // Atomic, like --out: a crash or a second session never leaves a half-written history
    // file, a link to it stays a link, and a signal does not leave the temporary file behind.
    AtomicFile f(path);
    if (!f.ok() || history(hist, &ev, H_SAVE_FP, f.file()) < 0) {
      error = "cannot write the history file '" + path + "'" + (f.ok() ? "" : ": " + f.error());
      f.abandon();
      return false;
    }
    if (!f.commit()) {
      error = "cannot write the history file: " + f.error();
      return false;
    }
    return true;
  }
};

LineEditor::LineEditor(Completer completer, std::string history_path, int history_max)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.completer = std::move(completer);
  m.path = std::move(history_path);
  m.el = el_init("mls", stdin, stdout, stderr);
  m.hist = history_init();
  history(m.hist, &m.ev, H_SETSIZE, history_max);
  history(m.hist, &m.ev, H_SETUNIQUE, 1);
  el_set(m.el, EL_CLIENTDATA, &m);
  el_set(m.el, EL_PROMPT, &Impl::prompt_fn);
  el_set(m.el, EL_EDITOR, "emacs");
  el_set(m.el, EL_SIGNAL, 1);
  el_set(m.el, EL_HIST, history, m.hist);
  el_set(m.el, EL_SETTY, "-d", "-isig", nullptr);
  // The wide API keeps these static strings; the narrow el_set copies them and never frees
  // the copies (a leak LeakSanitizer reports at exit).
  el_wset(m.el, EL_ADDFN, L"mls-complete", L"complete a name, field, unit or choice", &Impl::complete_fn);
  el_wset(m.el, EL_ADDFN, L"mls-interrupt", L"drop the current input", &Impl::interrupt_fn);
  el_set(m.el, EL_BIND, "^I", "mls-complete", nullptr);
  el_set(m.el, EL_BIND, "^C", "mls-interrupt", nullptr);
  el_set(m.el, EL_BIND, "^R", "em-inc-search-prev", nullptr);
  el_source(m.el, nullptr);  // the user's ~/.editrc may rebind keys
  if (!m.path.empty() && !usable_history_file(m.path, history_error_)) m.path.clear();  // off for this session
  if (!m.path.empty() && access(m.path.c_str(), F_OK) == 0 && history(m.hist, &m.ev, H_LOAD, m.path.c_str()) < 0)
    history_error_ = "cannot read the history file '" + m.path + "'";
}

LineEditor::~LineEditor() {
  if (impl_->el) el_end(impl_->el);
  if (impl_->hist) history_end(impl_->hist);
}

bool LineEditor::editing() { return true; }

LineEditor::Read LineEditor::read(const std::string& prompt, std::string& line) {
  Impl& m = *impl_;
  m.prompt = prompt;
  m.interrupted = false;
  int count = 0;
  const char* s = el_gets(m.el, &count);
  if (m.interrupted) {
    std::fputs("\n", stdout);
    return Read::interrupted;
  }
  if (!s || count <= 0) return Read::eof;
  line.assign(s, static_cast<std::size_t>(count));
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return Read::line;
}

void LineEditor::remember(const std::string& line) {
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  history(impl_->hist, &impl_->ev, H_ENTER, line.c_str());
  std::string error;
  if (!impl_->save(error) && history_error_.empty()) history_error_ = error;
}

#else  // no libedit: plain lines, no editing, no history

struct LineEditor::Impl {};

LineEditor::LineEditor(Completer, std::string, int) : impl_(std::make_unique<Impl>()) {}
LineEditor::~LineEditor() = default;
bool LineEditor::editing() { return false; }

LineEditor::Read LineEditor::read(const std::string& prompt, std::string& line) {
  std::fputs(prompt.c_str(), stdout);
  std::fflush(stdout);
  if (!std::getline(std::cin, line)) return Read::eof;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return Read::line;
}

void LineEditor::remember(const std::string&) {}

#endif

}  // namespace mls
