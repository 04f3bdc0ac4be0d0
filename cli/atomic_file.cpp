// atomic_file.cpp — atomic file output: a temporary file beside the target, flushed to disk, then
// renamed over it.
#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

namespace mls {

bool write_atomically(const std::string& path, const std::string& data, std::string& error) {
  // The data goes to a new file next to the target, is flushed to disk, and only then renamed
  // over the target: a failed or interrupted write (disk full, file-size limit, a signal)
  // leaves the old file as it was, and no reader ever sees half a file.
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    error = "cannot write '" + path + "': it is a directory";
    return false;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  const fs::path tmp =
      dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  // Replacing a file keeps its permissions; a new file gets the usual 0666 & ~umask.
  struct stat old {};
  const bool existed = ::stat(path.c_str(), &old) == 0;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existed ? (old.st_mode & 07777) : 0666);
  if (fd < 0) {
    error = "cannot create a file in '" + dir.string() + "': " + std::strerror(errno);
    return false;
  }
  auto fail = [&](const std::string& what) {
    error = what + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  };
  std::size_t done = 0;
  while (done < data.size()) {
    const ::ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("cannot write '" + path + "'");
    done += static_cast<std::size_t>(n);
  }
  if (existed && ::fchmod(fd, old.st_mode & 07777) != 0) return fail("cannot set the permissions of '" + path + "'");
  if (::fsync(fd) != 0) return fail("cannot write '" + path + "'");
  if (::close(fd) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot replace '" + path + "': " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) {
    file_ = stdout;
    return;
  }
  namespace fs = std::filesystem;
  const fs::path target(path_);
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    error_ = "'" + path_ + "' is a directory";
    return;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  tmp_ = (dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(rd())))
             .string();
  // Replacing a file keeps its permissions (applied again at commit, past the umask).
  struct stat old {};
  if (::stat(path_.c_str(), &old) == 0) mode_ = static_cast<int>(old.st_mode & 07777);
  const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_ >= 0 ? mode_ : 0666);
  if (fd >= 0) file_ = ::fdopen(fd, "wb");
  if (!file_) {
    error_ = "cannot create a temporary file in '" + dir.string() + "': " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
  }
}

AtomicFile::~AtomicFile() {
  if (file_ && file_ != stdout) abandon();
}

bool AtomicFile::commit() {
  if (file_ == stdout) return std::fflush(stdout) == 0;
  if (!file_) return false;
  // Everything reaches the disk before the rename: a crash then leaves the old file or the
  // whole new one, never half of it.
  bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
  const int fd = ::fileno(file_);
  if (ok && mode_ >= 0) ok = ::fchmod(fd, static_cast<mode_t>(mode_)) == 0;
  if (ok) ok = ::fsync(fd) == 0;
  const int saved = errno;
  ok = std::fclose(file_) == 0 && ok;
  file_ = nullptr;
  if (!ok) {
    error_ = "cannot write '" + path_ + "': " + std::strerror(saved ? saved : errno);
    std::remove(tmp_.c_str());
    return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) {
    error_ = "cannot replace '" + path_ + "': " + ec.message();
    std::remove(tmp_.c_str());
    return false;
  }
  return true;
}

void AtomicFile::abandon() {
  if (!file_ || file_ == stdout) return;
  std::fclose(file_);
  file_ = nullptr;
  std::remove(tmp_.c_str());
}

}  // namespace mls
