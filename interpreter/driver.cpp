// driver.cpp — running the phases, and atomic file output.
#include "driver.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

namespace mls {

bool prepare(Session& s, const std::string& path, const std::optional<std::string>& text) {
  if (!s.prog.load_prelude()) return false;
  const bool ok = text ? s.prog.load_main_text(path, *text) : s.prog.load_main(path);
  // Check even after parse or name errors: every independent error is reported in one go
  // (unresolved names have the error type, which silences follow-on messages).
  if (s.prog.main_file != kNoFile) s.ck.check_program();
  if (!ok) return false;
  return !s.prog.diags.has_errors();
}

std::optional<RunResult> execute(Session& s, const Selection& sel, const RunOptions& opt, std::optional<Config>* cfg_out) {
  auto cfg = configure(s.prog, s.ck, sel);
  if (!cfg || s.prog.diags.has_errors()) return std::nullopt;
  try {
    RunResult r = run_program(s.prog, s.ck, *cfg, opt);
    if (cfg_out) *cfg_out = std::move(cfg);
    return r;
  } catch (DiagnosticError& e) {
    s.prog.diags.add(std::move(e.diag));
    return std::nullopt;
  }
}

bool write_atomically(const std::string& path, const std::string& data, std::string& error) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  const fs::path tmp = dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = "cannot create '" + tmp.string() + "'";
      return false;
    }
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      error = "cannot write '" + tmp.string() + "'";
      std::error_code ec;
      fs::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    error = "cannot replace '" + path + "': " + ec.message();
    fs::remove(tmp, ec);
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
  tmp_ = (dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(rd()))).string();
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) error_ = "cannot create a temporary file in '" + dir.string() + "'";
}

AtomicFile::~AtomicFile() {
  if (file_ && file_ != stdout) abandon();
}

bool AtomicFile::commit() {
  if (file_ == stdout) return std::fflush(stdout) == 0;
  if (!file_) return false;
  const bool flushed = std::fflush(file_) == 0 && !std::ferror(file_);
  std::fclose(file_);
  file_ = nullptr;
  if (!flushed) {
    error_ = "cannot write '" + tmp_ + "'";
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
