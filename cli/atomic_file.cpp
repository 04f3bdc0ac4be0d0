// atomic_file.cpp — atomic file output: a temporary file beside the target, flushed to disk, then
// renamed over it; links followed, devices and FIFOs written in place, temporaries removed when
// a signal ends the process, and those a killed process left removed by the next write.
#include "atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <random>
#include <set>

namespace mls {

namespace {

// ---- temporary files removed on a fatal signal ----------------------------------------------
// A signal that ends the process (SIGTERM from a job scheduler, SIGHUP when the terminal goes,
// SIGPIPE, Ctrl-C outside an evaluation, or a crash: SIGSEGV, SIGABRT, ...) would leave a
// `.NAME.tmpPID-RAND` of up to the output cap behind. While a temporary file exists, those
// signals first remove it, then take their default action. Paths live in static storage: the
// handler may only call async-signal-safe functions (unlink, sigaction, raise). What no handler
// sees (SIGKILL, a crash on an exhausted stack) is swept by the next write to the same target
// (sweep_stale below).
constexpr int kSlots = 8;
constexpr std::size_t kPathBytes = 4096;
char g_paths[kSlots][kPathBytes];
std::atomic<bool> g_used[kSlots];
int g_live = 0;  // slots in use (main thread only)

constexpr int kFatal[] = {SIGHUP,    SIGINT,  SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
                          SIGVTALRM, SIGPROF, SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGTRAP, SIGSYS};
constexpr int kFatalCount = sizeof kFatal / sizeof kFatal[0];
struct sigaction g_saved[kFatalCount];
bool g_installed[kFatalCount];

// The handler of a crash runs on this stack, so that an overflow of the main thread's stack
// still removes the file (other threads have none: their crash is swept by the next write).
alignas(16) char g_alt_stack[1 << 16];

extern "C" void remove_temporaries(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);  // delivered when the handler returns: the process ends as the signal says
}

// Handlers are installed while a temporary file exists and removed after, so they nest with
// the Ctrl-C handler of an evaluation (InterruptScope). A signal that already has a handler
// (Ctrl-C during a run stops it cleanly and the file is abandoned) or is ignored keeps it.
void install_handlers() {
  static const bool alt_stack = [] {
    stack_t st{};
    st.ss_sp = g_alt_stack;
    st.ss_size = sizeof g_alt_stack;
    return ::sigaltstack(&st, nullptr) == 0;
  }();
  for (int i = 0; i < kFatalCount; ++i) {
    struct sigaction old {};
    g_installed[i] = false;
    if (::sigaction(kFatal[i], nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
      continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries;
    sa.sa_flags = alt_stack ? SA_ONSTACK : 0;
    sigemptyset(&sa.sa_mask);
    g_installed[i] = ::sigaction(kFatal[i], &sa, &g_saved[i]) == 0;
  }
}

void restore_handlers() {
  for (int i = 0; i < kFatalCount; ++i)
    if (g_installed[i]) ::sigaction(kFatal[i], &g_saved[i], nullptr);
}

// Registers a path before the file is created (a signal in between finds nothing to remove).
int register_temporary(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    g_used[i].store(true);
    if (g_live++ == 0) install_handlers();
    return i;
  }
  return -1;  // more than kSlots at once: not removed on a signal (mls writes one at a time)
}

void unregister_temporary(int slot) {
  if (slot < 0) return;
  g_used[slot].store(false);
  if (--g_live == 0) restore_handlers();
}

// ---- where the output goes -------------------------------------------------------------------

// Follows symbolic links from `path` (at most 40, as the kernel does). A dangling link yields
// the path it points to, where the new file is then created; the link itself stays.
std::optional<std::string> follow_links(const std::string& path, std::string& error) {
  namespace fs = std::filesystem;
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(p, ec)) return p.string();
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) {
      error = "cannot follow the link '" + p.string() + "': " + ec.message();
      return std::nullopt;
    }
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  error = "cannot write '" + path + "': too many levels of symbolic links";
  return std::nullopt;
}

// ---- temporary names, and those a killed process left -----------------------------------------
// The temporary file of target NAME is `.NAME.tmpPID-RAND` in NAME's folder (RAND: 8 hex digits),
// so a leftover is recognisable by its target. A NAME longer than kMaxShownName bytes is cut and
// tagged with a hash of the whole (`.CUT~HASH.tmpPID-RAND`): the temporary name stays under
// NAME_MAX (255) whatever the target's.
constexpr std::size_t kMaxShownName = 200;
// A leftover whose process is alive (its PID, on this machine) but which nobody writes is removed
// after this long; a writer holds a lock on its temporary file, so it is never removed.
constexpr std::time_t kStaleSeconds = 3600;

std::string temporary_prefix(const std::string& name) {
  if (name.size() <= kMaxShownName) return "." + name + ".tmp";
  std::size_t cut = kMaxShownName / 2;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "." + name.substr(0, cut) + "~" + hex + ".tmp";
}

// The PID of a temporary name of `prefix` (`PID-RAND`, RAND 1 to 10 hex digits: older mls wrote
// decimal ones), or -1 when `entry` is not one.
long temporary_pid(const std::string& entry, const std::string& prefix) {
  if (entry.size() <= prefix.size() || entry.compare(0, prefix.size(), prefix) != 0) return -1;
  std::size_t i = prefix.size();
  long pid = 0;
  const std::size_t digits = i;
  for (; i < entry.size() && entry[i] >= '0' && entry[i] <= '9' && i - digits < 10; ++i)
    pid = pid * 10 + (entry[i] - '0');
  if (i == digits || i >= entry.size() || entry[i] != '-') return -1;
  const std::size_t rand = ++i;
  for (; i < entry.size() && std::isxdigit(static_cast<unsigned char>(entry[i])); ++i) {
  }
  if (i != entry.size() || i == rand || i - rand > 10) return -1;
  return pid;
}

// Removes the temporary files of `target` that no process writes any more: each writer holds an
// exclusive lock on its file (flock) from creation to rename, and the lock goes with the process,
// however it ends. A file is removed only when it is ours, its lock is free, and its process is
// gone (or, should its PID have been reused, it was last written over kStaleSeconds ago): a
// concurrent writer of the same target keeps its file. Best effort: nothing here fails a write.
void sweep_stale(const std::string& dir, const std::string& name) {
  // Once per target and process: the REPL rewrites its history file after every line.
  static std::set<std::string> swept;
  if (!swept.insert(dir + '/' + name).second) return;
  const std::string prefix = temporary_prefix(name);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const int dfd = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    const std::string entry = e->d_name;
    const long pid = temporary_pid(entry, prefix);
    if (pid < 0 || pid == ::getpid()) continue;
    const int fd = ::openat(dfd, entry.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) continue;
    struct stat st {};
    const bool gone = pid == 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
        ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        (gone || std::time(nullptr) - std::max(st.st_mtime, st.st_ctime) > kStaleSeconds))
      ::unlinkat(dfd, entry.c_str(), 0);
    ::close(fd);  // releases the lock taken to look
  }
  ::closedir(d);
}

std::string temporary_beside(const std::string& target) {
  namespace fs = std::filesystem;
  const fs::path t(target);
  const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
  std::random_device rd;
  char rand[16];
  std::snprintf(rand, sizeof rand, "%08x", static_cast<unsigned>(rd()));
  return (dir / (temporary_prefix(t.filename().string()) + std::to_string(::getpid()) + "-" + rand)).string();
}

std::string folder_of(const std::string& target) {
  const std::filesystem::path t(target);
  return t.has_parent_path() ? t.parent_path().string() : ".";
}

}  // namespace

bool write_atomically(const std::string& path, const std::string& data, std::string& error) {
  AtomicFile f(path);
  if (!f.ok()) {
    error = f.error();
    return false;
  }
  if (!data.empty() && std::fwrite(data.data(), 1, data.size(), f.file()) != data.size()) {
    const int saved = errno;
    f.abandon();
    error = "cannot write '" + path + "': " + std::strerror(saved);
    return false;
  }
  if (!f.commit()) {
    error = f.error();
    return false;
  }
  return true;
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) {
    file_ = stdout;
    return;
  }
  const auto target = follow_links(path_, error_);
  if (!target) return;
  target_ = *target;
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      error_ = "'" + path_ + "' is a directory";
      return;
    }
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) {
      // A device or a FIFO cannot be replaced, only written: renaming a file over it would
      // destroy it (as root, over /dev/null). Written in place, as a shell's `>` does.
      const int fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd >= 0) file_ = ::fdopen(fd, "wb");
      if (!file_) {
        error_ = "cannot write '" + path_ + "': " + std::strerror(errno);
        if (fd >= 0) ::close(fd);
      }
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      error_ = "cannot write '" + path_ + "': it is neither a regular file, a device nor a FIFO";
      return;
    }
    // Replacing a file keeps its permissions (applied again at commit, past the umask).
    mode_ = static_cast<int>(st.st_mode & 07777);
  }
  sweep_stale(folder_of(target_), std::filesystem::path(target_).filename().string());
  tmp_ = temporary_beside(target_);
  slot_ = register_temporary(tmp_);
  const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_ >= 0 ? mode_ : 0666);
  // Held until the rename: the file is being written (sweep_stale leaves it). A file system
  // without locks still gets its output.
  if (fd >= 0) (void)::flock(fd, LOCK_EX | LOCK_NB);
  if (fd >= 0) file_ = ::fdopen(fd, "wb");
  if (!file_) {
    error_ = "cannot create a temporary file in '" + folder_of(target_) + "': " + std::strerror(errno);
    if (fd >= 0) {
      ::close(fd);
      ::unlink(tmp_.c_str());
    }
    unregister_temporary(slot_);
    slot_ = -1;
  }
}

AtomicFile::~AtomicFile() {
  if (file_ && file_ != stdout) abandon();
}

bool AtomicFile::commit() {
  if (file_ == stdout) return std::fflush(stdout) == 0;
  if (!file_) return false;
  if (tmp_.empty()) {
    // A device or FIFO: nothing to rename; a failed write (ENOSPC on /dev/full) is an error.
    const bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
    const int saved = errno;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (ok && closed) return true;
    error_ = "cannot write '" + path_ + "': " + std::strerror(saved ? saved : errno);
    return false;
  }
  // Everything reaches the disk before the rename: a crash then leaves the old file or the
  // whole new one, never half of it. The file is renamed while still open, so its lock covers
  // it until it has its final name (sweep_stale never takes it for a leftover).
  bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
  const int fd = ::fileno(file_);
  if (ok && mode_ >= 0) ok = ::fchmod(fd, static_cast<mode_t>(mode_)) == 0;
  if (ok) ok = ::fsync(fd) == 0;
  const int saved = ok ? 0 : errno;
  bool renamed = false;
  if (ok) {
    renamed = ::rename(tmp_.c_str(), target_.c_str()) == 0;
    if (!renamed) error_ = "cannot replace '" + path_ + "': " + std::strerror(errno);
  }
  std::fclose(file_);  // flushed and synced above: nothing is left to fail
  file_ = nullptr;
  if (!ok) error_ = "cannot write '" + path_ + "': " + std::strerror(saved ? saved : EIO);
  if (!renamed) ::unlink(tmp_.c_str());
  unregister_temporary(slot_);
  slot_ = -1;
  return renamed;
}

void AtomicFile::abandon() {
  if (!file_ || file_ == stdout) return;
  std::fclose(file_);
  file_ = nullptr;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  unregister_temporary(slot_);
  slot_ = -1;
}

std::string same_file_as_input(const std::string& out, const std::vector<std::string>& inputs) {
  struct stat o {};
  if (out.empty() || ::stat(out.c_str(), &o) != 0 || !S_ISREG(o.st_mode)) return "";
  for (const auto& in : inputs) {
    struct stat i {};
    if (::stat(in.c_str(), &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino)
      return "--out '" + out + "' is '" + in + "', an input of this run; writing it would destroy the input";
  }
  return "";
}

}  // namespace mls
