// fuzz_hf_config.cpp — libFuzzer target over the Hugging Face config.json reader behind
// model_from_hf (interpreter/semantics/hf_config.cpp): the input is the file's bytes. Besides
// crashes and sanitizer reports, the target traps on broken promises: a rejected file without an
// error diagnostic, an accepted one without every field, or a diagnostic that does not render.
// Inputs may be recipes (structured.hpp): JSON of up to 16 MiB, nested millions deep.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "grammar/diagnostic.hpp"
#include "interpreter/semantics/hf_config.hpp"
#include "interpreter/semantics/program.hpp"
#include "structured.hpp"

namespace {

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_hf_config: %s\n%s\n", what, detail.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  std::string_view recipe;
  if (mls_fuzz::recipe_of(input, recipe)) input = mls_fuzz::expand(recipe);
  mls::Program p;
  p.reader = [&](const std::string& path) -> std::optional<std::string> {
    if (path == "config.json") return input;
    return std::nullopt;
  };
  const bool ok = mls::load_hf_config(p, "config.json", mls::Span{});
  const std::string rendered = mls::render_all(p.sources, p.diags);
  if (!ok && !p.diags.has_errors()) broken("rejected without a diagnostic", input);
  if (ok) {
    const auto it = p.hf_configs.find("config.json");
    if (it == p.hf_configs.end() || it->second.fields.size() != mls::hf_field_specs().size())
      broken("accepted without its fields", input);
    if (p.diags.has_errors()) broken("accepted with errors", rendered);
  }
  return 0;
}
