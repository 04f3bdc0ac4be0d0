// scenario.cpp — Scenario over the session core: the phases are the core's; here are the questions
// asked after a run, with their DiagnosticError turned into a diagnostic, so front ends need no try/catch.
#include "scenario.hpp"

#include <algorithm>
#include <mutex>

#include "diff_shares.hpp"
#include "driver.hpp"
#include "explain.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/report/report.hpp"
#include "interpreter/results/diff.hpp"
#include "interpreter/runtime/validation.hpp"
#include "listing.hpp"
#include "sensitivity.hpp"

namespace mls {

struct Scenario::Impl {
  // Paths read through the program's reader; sweep workers read traces, hence the lock.
  struct Read {
    std::mutex mu;
    std::vector<std::string> paths;
  };
  // `opt` with its reader (the disk when it has none) recording each path it is asked for.
  static Core::Options recording(Core::Options opt, const std::shared_ptr<Read>& read) {
    Core::Reader inner = opt.reader ? std::move(opt.reader) : Core::Reader(&Core::read_disk);
    opt.reader = [read, inner = std::move(inner)](const std::string& path) {
      {
        const std::lock_guard<std::mutex> lock(read->mu);
        if (std::find(read->paths.begin(), read->paths.end(), path) == read->paths.end()) read->paths.push_back(path);
      }
      return inner(path);
    };
    return opt;
  }

  explicit Impl(Core::Options opt) : core(recording(std::move(opt), read)) {}
  std::shared_ptr<Read> read = std::make_shared<Read>();  // before core: its reader records here
  Core core;

  Program& prog() { return core.session().prog; }
  Checker& ck() { return core.session().ck; }

  // `ask()`, or nullopt with its DiagnosticError (or a missing run) added to the diagnostics.
  template <class F>
  auto answer(F ask) -> std::optional<decltype(ask())> {
    if (!core.config()) {
      core.add(make_diagnostic(ErrorKind::internal, Span{}, "asked about a result before a successful run"));
      return std::nullopt;
    }
    try {
      return ask();
    } catch (DiagnosticError& e) {
      core.add(std::move(e.diag));
      return std::nullopt;
    }
  }
};

Scenario::Scenario(Core::Options opt) : impl_(std::make_unique<Impl>(std::move(opt))) {}

std::vector<std::string> Scenario::inputs() const {
  const std::lock_guard<std::mutex> lock(impl_->read->mu);
  return impl_->read->paths;
}
Scenario::~Scenario() = default;

bool Scenario::load_prelude() { return impl_->core.load_prelude(); }

bool Scenario::prepare(const std::string& path, const std::optional<std::string>& text) {
  return impl_->core.prepare(Input{path, text});
}

std::optional<RunResult> Scenario::run(const Selection& sel, const RunOptions& opt) {
  if (!impl_->core.configure(sel)) return std::nullopt;
  return impl_->core.run(opt);
}

bool Scenario::configure(const Selection& sel) { return impl_->core.configure(sel); }
std::optional<RunResult> Scenario::run(const RunOptions& opt) { return impl_->core.run(opt); }
bool Scenario::run(const RunOptions& opt, RunSink& sink) { return impl_->core.run(opt, sink); }

ResultScope Scenario::scope() const { return impl_->core.scope(); }
std::vector<std::string> Scenario::table_names() const { return impl_->core.table_names(); }
DepSet Scenario::dep_set(std::vector<AtomId> atoms) { return impl_->prog().deps.of(std::move(atoms)); }

std::optional<Explanation> Scenario::explain(const RunResult& r, const std::string& name, const RunOptions& opt) {
  return impl_->answer([&] { return mls::explain(impl_->prog(), impl_->ck(), *impl_->core.config(), r, name, opt); });
}

std::optional<Sensitivity> Scenario::sensitivity(const Selection& sel, const RunResult& r, const std::string& name,
                                                 const RunOptions& opt) {
  return impl_->answer([&] { return mls::sensitivity(impl_->core, sel, r, name, opt); });
}

bool Scenario::split_changes(const Selection& sel, const RunResult& r, const RunOptions& opt, DiffReport& d) {
  return impl_
      ->answer([&] {
        mls::split_changes(impl_->core, sel, r, opt, d);
        return true;
      })
      .has_value();
}

std::string Scenario::report_html(const RunResult& r, const ReportInfo& info) {
  return mls::report_html(scope_of(impl_->prog()), r, info);
}

DiffReport compare(const ComparedSide& left, const ComparedSide& right) {
  auto atoms = [](const ComparedSide& c) {
    Scenario::Impl& in = *c.scenario->impl_;
    return in.core.config() ? std::optional<ConfiguredAtoms>(configured_atoms(*in.core.config())) : std::nullopt;
  };
  const std::optional<ConfiguredAtoms> la = atoms(left), ra = atoms(right);
  auto side = [](const ComparedSide& c, const std::optional<ConfiguredAtoms>& a) {
    return DiffSide{scope_of(c.scenario->impl_->prog()), a ? &*a : nullptr, c.run, c.file, c.label};
  };
  return diff_runs(side(left, la), side(right, ra));
}

std::vector<std::string> Scenario::validation_families(const Selection& sel) {
  if (!configure(sel)) return {};
  return impl_->answer([&] { return validation_family_names(impl_->prog(), *impl_->core.config()); })
      .value_or(std::vector<std::string>{});
}

std::optional<ValidationTable> Scenario::validation(const Selection& sel, const std::string& family,
                                                    ValidationDepth depth) {
  if (!configure(sel)) return std::nullopt;
  return impl_->answer([&] {
    try {
      ValidationTable t = *validation_table(impl_->prog(), *impl_->core.config(), family, depth, true);
      return t;
    } catch (const validation_detail::BadCases& bad) {
      throw DiagnosticError{make_diagnostic(ErrorKind::runtime_error, Span{},
                                            "the validation cases of '" + family + "' cannot be read: " + bad.why)};
    }
  });
}

void Scenario::enable_validation_cache() { enable_validation_disk_cache(); }

std::vector<Assumption> Scenario::assumptions_in(DepSet d) const {
  const Deps& deps = impl_->prog().deps;
  std::vector<Assumption> out;
  for (AtomId a : deps.atoms(d))
    if (deps.is_assumption(a)) out.push_back(deps.assumption(a));
  return out;
}

std::vector<std::string> Scenario::convention_choices(const std::string& name) const {
  const Program& p = impl_->prog();
  const int ci = p.convention_index(intern(name));
  std::vector<std::string> out;
  if (ci < 0) return out;
  for (const auto& ch : p.conventions[static_cast<std::size_t>(ci)].stmt->choices) out.push_back(sym_name(ch.name));
  return out;
}

std::string Scenario::conventions_listing() const { return mls::conventions_listing(impl_->prog()); }
std::string Scenario::presets_listing() const { return mls::presets_listing(impl_->prog()); }

std::vector<std::string> Scenario::list_entries(const std::string& list) const {
  std::vector<std::string> out;
  for (const auto& g : impl_->prog().globals) {
    if (sym_name(g.name) != list || !g.stdlib || !g.stmt || !g.stmt->value) continue;
    for (const auto& e : g.stmt->value->kids)
      if (e->kind == EK::name) out.push_back(sym_name(e->name));
  }
  return out;
}

void Scenario::add(Diagnostic d) { impl_->prog().diags.add(std::move(d)); }
const Diagnostics& Scenario::diagnostics() const { return impl_->prog().diags; }
const Sources& Scenario::sources() const { return impl_->prog().sources; }

}  // namespace mls
