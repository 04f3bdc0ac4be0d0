// lsp_stdio.cpp — `mls lsp` on stdin/stdout: the command line, the stdlib directory that
// definitions jump into, and unbuffered reads that can tell whether more input is waiting.
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "commands.hpp"
#include "grammar/diagnostic.hpp"
#include "interpreter/tooling/workspace.hpp"
#include "lsp.hpp"

namespace mls {

namespace {

class FdInput : public LspInput {
 public:
  explicit FdInput(int fd) : fd_(fd) {}
  std::size_t read(char* buf, std::size_t n) override {
    for (;;) {
      const ssize_t r = ::read(fd_, buf, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno != EINTR) return 0;
    }
  }
  bool pending() override {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
  }

 private:
  int fd_;
};

// The prelude's files on disk, for definitions: $MLS_STDLIB, then beside the binary (a build
// directory inside the repository, or an installation's share/mls/stdlib).
std::string default_stdlib_dir() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("MLS_STDLIB"); env && *env) candidates.emplace_back(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto dir = exe.parent_path();
    candidates.push_back((dir.parent_path() / "stdlib").string());
    candidates.push_back((dir.parent_path() / "share/mls/stdlib").string());
    candidates.push_back((dir / "stdlib").string());
  }
  return find_stdlib_dir(candidates);
}

}  // namespace

int cmd_lsp(const Args& a) {
  if (a.positional.size() > 1)
    return usage_error(a, "lsp takes only --stdio and --stdlib DIR, got '" + a.positional[1] + "'");
  LspOptions opt;
  // --stdio is what many clients pass; stdio is the only transport.
  if (a.has(Flag::stdlib)) {
    opt.stdlib_dir = find_stdlib_dir({a.stdlib});
    if (opt.stdlib_dir.empty())
      std::fprintf(stderr, "mls lsp: %s does not hold this version's stdlib; definitions stay out of the prelude\n",
                   a.stdlib.c_str());
  } else {
    opt.stdlib_dir = default_stdlib_dir();
  }
  FdInput in(0);
  return serve_lsp(
      in,
      [](std::string_view s) {
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fflush(stdout);
      },
      opt);
}

}  // namespace mls
