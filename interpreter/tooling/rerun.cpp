// rerun.cpp — a result evaluated again under another selection, rolled back afterwards.
#include "rerun.hpp"

#include <cctype>
#include <cmath>

#include "explain.hpp"

namespace mls {

bool mentions_name(const std::string& text, const std::string& name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool before = at == 0 || !word(text[at - 1]);
    const bool after = at + name.size() >= text.size() || !word(text[at + name.size()]);
    if (before && after) return true;
  }
  return false;
}

std::optional<double> Rerun::value(const Selection& sel, std::string& why) {
  const auto n = number(sel, why);
  return n ? std::optional<double>(n->d) : std::nullopt;
}

std::optional<Num> Rerun::number(const Selection& sel, std::string& why) {
  const std::size_t first_diag = core_.diagnostics().size();
  const Core::Transaction t = core_.begin();
  Session& s = core_.session();
  std::optional<Num> out;
  try {
    // Only the number is wanted: no validation summaries, whose cases (serving simulations)
    // would otherwise be evaluated again under every variant's configuration.
    Selection numbers_only = sel;
    numbers_only.validation_summaries = false;
    if (core_.configure(numbers_only)) {
      Value v;
      ExplainOptions eo;
      eo.max_depth = 1;  // only the value is wanted
      eo.value = &v;
      (void)explain(s.prog, s.ck, *core_.config(), base_, name_, opt_, eo);
      if (v.k == Value::K::num && std::isfinite(v.n.d))
        out = v.n;
      else
        why = "the result is no longer a finite number";
    } else {
      why = first_error(first_diag);
    }
  } catch (DiagnosticError& e) {
    if (e.diag.kind == ErrorKind::interrupted) {
      core_.rollback(t);
      throw;
    }
    why = std::string(info(e.diag.kind).code) + ": " + e.diag.message;
  }
  core_.rollback(t);
  return out;
}

std::string Rerun::first_error(std::size_t from) const {
  const auto& items = core_.diagnostics().items();
  for (std::size_t i = from; i < items.size(); ++i)
    if (items[i].severity == Severity::error) return std::string(info(items[i].kind).code) + ": " + items[i].message;
  return "the change could not be applied";
}

}  // namespace mls
