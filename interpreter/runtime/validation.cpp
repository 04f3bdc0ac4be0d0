// validation.cpp — the validation set under a configuration: the registry of families
// (`validation_families`, stdlib/validation.mls) names the lists holding each family's cases, an
// exact evaluator of its own reads them, validation_fit.cpp adds the leave-one-source-out errors,
// and the table is kept per process and configuration (and on disk, validation_store.cpp). Every
// validated() result gets the band of its own domain from it (Evaluator::validation_deps).
#include "validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "eval.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/results/format.hpp"

namespace mls {

namespace validation_detail {

namespace {

const Value* field(const Value& r, const char* name) {
  if (r.k != Value::K::record) return nullptr;
  return r.rec().get(intern(name));
}

std::string str_field(const Value& r, const char* name, const std::string& dflt = "") {
  const Value* v = field(r, name);
  return v && v->k == Value::K::str ? v->str() : dflt;
}

double num_field(const Value& r, const char* name, double dflt = 0) {
  const Value* v = field(r, name);
  return v && v->k == Value::K::num ? v->n.d : dflt;
}

bool bool_field(const Value& r, const char* name, bool dflt = false) {
  const Value* v = field(r, name);
  return v && v->k == Value::K::boolean ? v->b : dflt;
}

Value global_named(Evaluator& ev, const std::string& name, bool& found) {
  const Decl* d = ev.program().lookup(intern(name));
  found = d && d->kind == RefKind::global;
  return found ? ev.global(d->index) : Value{};
}

}  // namespace

CaseDomain domain_of(const Value& d) {
  CaseDomain out;
  out.accelerator = str_field(d, "accelerator");
  out.generation = str_field(d, "generation");
  out.vendor = str_field(d, "vendor");
  out.precision = str_field(d, "precision");
  out.framework = str_field(d, "framework");
  out.scale = str_field(d, "scale");
  out.moe = bool_field(d, "moe");
  return out;
}

std::optional<FamilyEntry> family_entry(Evaluator& ev, const std::string& name, std::string& why) {
  bool found = false;
  const Value reg = global_named(ev, "validation_families", found);
  if (!found || reg.k != Value::K::list) {
    why = "no validation registry (the global validation_families is missing)";
    return std::nullopt;
  }
  for (const Value& e : reg.list().items) {
    if (str_field(e, "name") != name) continue;
    FamilyEntry out;
    out.name = name;
    out.family = str_field(e, "family");
    out.quantity = str_field(e, "quantity");
    out.calibration = str_field(e, "calibration");
    if (const Value* l = field(e, "lists"); l && l->k == Value::K::list)
      for (const Value& s : l->list().items)
        if (s.k == Value::K::str) out.lists.push_back(s.str());
    return out;
  }
  why = "validation_families has no entry '" + name + "'";
  return std::nullopt;
}

std::vector<std::string> family_names(Evaluator& ev) {
  bool found = false;
  const Value reg = global_named(ev, "validation_families", found);
  std::vector<std::string> out;
  if (found && reg.k == Value::K::list)
    for (const Value& e : reg.list().items) out.push_back(str_field(e, "name"));
  return out;
}

std::vector<CaseRow> read_cases(Evaluator& ev, const FamilyEntry& e, bool keep_deps) {
  std::vector<CaseRow> out;
  for (std::size_t li = 0; li < e.lists.size(); ++li) {
    bool found = false;
    const Value cases = global_named(ev, e.lists[li], found);
    if (!found || cases.k != Value::K::list) continue;
    const auto& items = cases.list().items;
    for (std::size_t item = 0; item < items.size(); ++item) {
      const Value& c = items[item];
      if (c.k != Value::K::record || str_field(c, "family") != e.family) continue;
      const std::string quantity = str_field(c, "quantity");
      if (!e.quantity.empty() && quantity != e.quantity) continue;
      // The case's error and band verdict come from the case itself (validation.mls: case_error,
      // within_band), the same fields `mls validate` prints: one rule, written once.
      const Value* err = field(c, "error");
      const Value* within = field(c, "within");
      if (!err || err->k != Value::K::num || !within || within->k != Value::K::boolean)
        throw BadCases{"a " + e.family +
                       " case has no numeric `error` or boolean `within`: build cases with validation.mls's "
                       "case_error and within_band"};
      CaseRow r;
      r.id = str_field(c, "id");
      r.family = e.family;
      r.quantity = quantity;
      r.source = str_field(c, "source");
      // A case's id begins with its source's key ("megatron21_1.7b": megatron21).
      r.source_key = r.id.substr(0, r.id.find('_'));
      r.system = str_field(c, "system");
      r.metric = str_field(c, "metric");
      r.unit = str_field(c, "unit_text");
      r.held_out = bool_field(c, "held_out");
      r.fits = bool_field(c, "fits", true);
      r.within = bool_field(c, "within", true);
      r.expressible = bool_field(c, "expressible", true);
      r.reason = str_field(c, "reason");
      r.measured = num_field(c, "measured");
      r.band = num_field(c, "band");
      r.error = num_field(c, "error");
      r.utilization = num_field(c, "utilization");
      r.utilization_measured = num_field(c, "utilization_measured");
      if (const Value* p = field(c, "predicted"); p && p->k == Value::K::num) {
        r.predicted = p->n.d;
        if (keep_deps) r.deps = p->deps;
      }
      if (const Value* d = field(c, "domain")) r.domain = domain_of(*d);
      r.loso_error = r.error;
      r.lodo_error = r.error;
      r.list_index = li;
      r.item_index = item;
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace validation_detail

using namespace validation_detail;

namespace {

// Set while this thread evaluates validation cases: the validated models they call must not wait
// for (or attach) the summary being computed.
thread_local bool t_validating = false;
struct Validating {
  bool saved = t_validating;
  Validating() { t_validating = true; }
  ~Validating() { t_validating = saved; }
  Validating(const Validating&) = delete;
  Validating& operator=(const Validating&) = delete;
};

std::uint64_t fnv(std::string_view s, std::uint64_t h = 1469598103934665603ull) {
  for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(std::uint64_t h) {
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

std::string one_line(std::string_view s) {
  std::string o;
  for (const char c : s) o += c == '\n' ? std::string("\\n") : std::string(1, c);
  return o;
}

// What a table depends on, as text that means the same in every process: mls's version, the
// stdlib's text, each convention's choice and every `set` (its target and the text of its value;
// a `set` written outside the stdlib may name the scenario's own definitions, so then the text of
// every non-stdlib file counts too).
std::string stable_key(const Program& p, const Config& cfg, const std::string& family, bool full_fit) {
  std::uint64_t stdlib = 1469598103934665603ull, user = stdlib;
  for (std::size_t f = 0; f < p.sources.size(); ++f) {
    const SourceFile& sf = p.sources.get(static_cast<FileId>(f));
    std::uint64_t& h = sf.is_stdlib ? stdlib : user;
    h = fnv(sf.text, fnv(sf.name, h));
  }
  std::string k = std::string("mls ") + kVersion + "\nstdlib " + hex(stdlib) + "\nfamily " + family +
                  (full_fit ? " (full fit)" : "") + "\npreset " + cfg.preset + "\n";
  for (std::size_t i = 0; i < cfg.conv.size() && i < p.conventions.size(); ++i) {
    const ConventionDef& c = p.conventions[i];
    k += "use " + sym_name(c.name) + "=" +
         sym_name(c.stmt->choices[static_cast<std::size_t>(cfg.conv[i].choice)].name) + "\n";
  }
  bool outside = false;
  auto add = [&](const Override& o) {
    std::string path;
    for (const Sym s : o.path) path += (path.empty() ? "" : ".") + sym_name(s);
    k += "set " + path + "=" + one_line(o.value ? p.sources.slice(o.value->span) : "") + "\n";
    if (o.value && o.value->span.valid() && !p.sources.get(o.value->span.file).is_stdlib) outside = true;
  };
  for (const auto& ovs : cfg.overrides)
    for (const Override& o : ovs) add(o);
  std::vector<std::int32_t> atoms;
  for (const auto& [atom, o] : cfg.literal_overrides) atoms.push_back(atom);
  std::sort(atoms.begin(), atoms.end());
  for (const std::int32_t a : atoms) add(cfg.literal_overrides.at(a));
  if (outside) k += "user " + hex(user) + "\n";
  return k;
}

// Tables computed in this process, by stable key (every Program with the same stdlib and
// configuration shares them: the REPL's inputs, the LSP's analyses, the fuzzer's inputs).
struct ProcessTables {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const ValidationTable>> tables;
};
ProcessTables& process_tables() {
  static ProcessTables t;
  return t;
}

// The cases of a family that a result's domain would be compared with, for rows whose provenance
// is wanted: evaluated here by an exact evaluator without summaries.
std::shared_ptr<ValidationTable> evaluate_table(Program& p, const Config& cfg, const FamilyEntry& e, bool with_deps) {
  const Validating guard;
  Evaluator ev = Evaluator::for_validation(p, cfg);
  const Evaluator::BudgetScope budget(ev);
  auto t = std::make_shared<ValidationTable>();
  t->family = e.name;
  t->cases = read_cases(ev, e, with_deps);
  return t;
}

}  // namespace

std::vector<std::string> validation_family_names(Program& p, const Config& cfg) {
  const Validating guard;
  Evaluator ev = Evaluator::for_validation(p, cfg);
  const Evaluator::BudgetScope budget(ev);
  return family_names(ev);
}

std::shared_ptr<const ValidationTable> validation_table(Program& p, const Config& cfg, const std::string& name,
                                                        ValidationDepth depth, bool with_deps) {
  const bool full_fit = depth == ValidationDepth::fitted;
  std::optional<FamilyEntry> entry;
  {
    const Validating guard;
    Evaluator ev = Evaluator::for_validation(p, cfg);
    const Evaluator::BudgetScope budget(ev);
    std::string why;
    entry = family_entry(ev, name, why);
    if (!entry) {
      auto t = std::make_shared<ValidationTable>();
      t->family = name;
      return t;
    }
  }
  if (depth == ValidationDepth::cases) return evaluate_table(p, cfg, *entry, with_deps);
  const std::string key = stable_key(p, cfg, name, full_fit);
  ProcessTables& pt = process_tables();
  std::shared_ptr<const ValidationTable> known;
  {
    std::lock_guard<std::mutex> lock(pt.mu);
    auto it = pt.tables.find(key);
    if (it != pt.tables.end()) known = it->second;
  }
  if (!known) {
    if (auto text = disk_get(key))
      if (auto t = deserialize(*text); t && t->family == name) known = t;
  }
  if (known && !with_deps) return known;
  // Evaluated here: rows with provenance, and (when nothing is known yet) the cross-validation.
  auto t = evaluate_table(p, cfg, *entry, with_deps);
  if (known) {
    // The cross-validated errors of the known table, on rows that carry their provenance.
    std::map<std::string, const CaseRow*> by_id;
    for (const CaseRow& c : known->cases) by_id[c.id] = &c;
    for (CaseRow& c : t->cases)
      if (auto it = by_id.find(c.id); it != by_id.end()) {
        c.loso_error = it->second->loso_error;
        c.lodo_error = it->second->lodo_error;
        c.lodo = it->second->lodo;
      }
    t->fit = known->fit;
    t->loss = known->loss;
    t->fitted_loss = known->fitted_loss;
    t->fit_iterations = known->fit_iterations;
    return t;
  }
  {
    const Validating guard;
    cross_validate(p, cfg, *entry, *t, full_fit);
  }
  auto stored = std::make_shared<ValidationTable>(*t);
  for (CaseRow& c : stored->cases) c.deps = 0;  // provenance belongs to this process's program
  {
    std::lock_guard<std::mutex> lock(pt.mu);
    pt.tables.emplace(key, stored);
  }
  disk_put(key, serialize(*stored));
  return t;
}

// ---- the band a validated() result carries ----

namespace {

// What a summary depends on within this process: every convention's choice and every `set` (an
// override's value is an expression of the program, named by its address: Program::rollback()
// empties the memo before any address can be reused).
std::string process_key(const Config& cfg) {
  std::string k = "conv";
  for (const ConvSel& c : cfg.conv) k += " " + std::to_string(c.choice);
  auto add = [&k](const Override& o) {
    for (const Sym s : o.path) k += " " + sym_name(s);
    char buf[48];
    std::snprintf(buf, sizeof buf, "=%p%s", static_cast<const void*>(o.value), o.reads_prior ? "+" : "");
    k += buf;
  };
  k += "|set";
  for (const auto& ovs : cfg.overrides)
    for (const Override& o : ovs) add(o);
  std::vector<std::int32_t> atoms;
  for (const auto& [atom, o] : cfg.literal_overrides) atoms.push_back(atom);
  std::sort(atoms.begin(), atoms.end());
  k += "|literal";
  for (const std::int32_t a : atoms) add(cfg.literal_overrides.at(a));
  return k;
}

}  // namespace

DepSet Evaluator::validation_deps(const std::string& family, const Value* domain) {
  if (t_validating || !validation_on_) return 0;
  CaseDomain want;
  if (domain) want = domain_of(*domain);
  const std::string seen_key = family + "\x1f" + (domain ? want.key() : std::string("-"));
  {
    std::lock_guard<std::mutex> lock(validation_mu_);
    if (auto it = validation_seen_.find(seen_key); it != validation_seen_.end()) return it->second;
  }
  Program::ValidationMemo& memo = *p_.validation_memo;
  std::unique_lock<std::mutex> memo_lock(memo.mu);
  const std::string key = process_key(cfg_) + "|" + seen_key;
  AtomId atom = 0;
  if (auto it = memo.atoms.find(key); it != memo.atoms.end()) {
    atom = it->second;
  } else {
    Assumption v;
    v.kind = AssumptionKind::validation;
    v.name = family;
    v.via = ViaKind::stdlib;
    for (const auto& [f, at] : p_.validated_families)
      if (f == family) v.at = at;
    try {
      // The cases get a budget of their own, not what is left of the evaluation that met
      // validated(): the table is shared by the whole process.
      const auto t = validation_table(p_, cfg_, family);
      const DomainBand b = domain_band(*t, domain ? &want : nullptr);
      v.value = b.text;
      v.band = b.band;
      v.domain = b.domain;
      v.extrapolated = b.extrapolated;
    } catch (const DiagnosticError& err) {
      if (err.diag.kind == ErrorKind::interrupted) throw;  // not a property of the configuration
      v.value =
          "not computed: the validation cases fail under this configuration (" + err.diag.message + "); `mls validate`";
    } catch (const BadCases& bad) {
      v.value = "no validation set (" + bad.why + ")";
    }
    atom = p_.deps.add_assumption(std::move(v));
    memo.atoms.emplace(key, atom);
  }
  memo_lock.unlock();
  const DepSet d = p_.deps.single(atom);
  std::lock_guard<std::mutex> lock(validation_mu_);
  validation_seen_.emplace(seen_key, d);
  return d;
}

}  // namespace mls
