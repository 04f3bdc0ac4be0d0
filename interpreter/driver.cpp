// driver.cpp — running the phases, and atomic file output.
#include "driver.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "stack.hpp"

namespace mls {

bool prepare(Session& s, const std::string& path, const std::optional<std::string>& text) {
  // Every phase recurses over the input's structure: run them on the pipeline stack, whose
  // size the depth limits were chosen for (see stack.hpp).
  bool result = false;
  run_on_pipeline_stack([&] {
    if (!s.prog.load_prelude()) return;
    const bool ok = text ? s.prog.load_main_text(path, *text) : s.prog.load_main(path);
    // Check even after parse or name errors: every independent error is reported in one go
    // (unresolved names have the error type, which silences follow-on messages).
    if (s.prog.main_file != kNoFile) s.ck.check_program();
    result = ok && !s.prog.diags.has_errors();
  });
  return result;
}

std::optional<RunResult> execute(Session& s, const Selection& sel, const RunOptions& opt, std::optional<Config>* cfg_out) {
  std::optional<RunResult> result;
  run_on_pipeline_stack([&] {
    auto cfg = configure(s.prog, s.ck, sel);
    if (!cfg || s.prog.diags.has_errors()) return;
    try {
      result = run_program(s.prog, s.ck, *cfg, opt);
      if (cfg_out) *cfg_out = std::move(cfg);
    } catch (DiagnosticError& e) {
      s.prog.diags.add(std::move(e.diag));
    }
  });
  return result;
}

bool check_output_size(Session& s, std::size_t bytes, const RunOptions& opt) {
  if (bytes <= opt.max_output_bytes) return true;
  auto& d = s.prog.diags.error(ErrorKind::limit_output, Span{},
                               "the output would be " + std::to_string(bytes) + " bytes, more than the cap of " +
                                   std::to_string(opt.max_output_bytes));
  d.help.push_back("show fewer values, or sweep fewer points");
  return false;
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

}  // namespace mls
