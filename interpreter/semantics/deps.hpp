// deps.hpp — provenance: what every value depends on.
// An atom is an assumption (a set parameter, a stdlib default, a registry field, a convention
// choice, an approximation) or a taken branch (site, arm) used for regime notes. A value carries
// an interned, sorted set of atoms (DepSet); every operation takes the union.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "grammar/source.hpp"

namespace mls {

using DepSet = std::uint32_t;  // interned set; 0 is the empty set
using AtomId = std::uint32_t;

// Printed in this order under a result.
// `validation`: a model's measured error band, computed from the validation set (validated()).
// `note`: a caveat written with note("...", value), listed first: it changes what the number means.
enum class AssumptionKind : std::uint8_t { note, convention, set, registry, default_, approx, validation };
[[nodiscard]] const char* kind_name(AssumptionKind k);

// Who chose an assumption's value (or a convention's choice, or the preset).
enum class ViaKind : std::uint8_t {
  none,           // nobody in particular (a note)
  stdlib,         // written in the prelude
  scenario,       // written in the scenario (or an input at the prompt)
  arithmetic,     // an approximation the arithmetic made
  model_from_hf,  // read from a Hugging Face config by model_from_hf()
  default_,       // a convention's default choice, or the default preset
  preset,         // a preset's `use` or `set` (Via::preset names it)
  command_line,   // --use, --set, --preset
};

struct Via {
  ViaKind kind = ViaKind::none;
  std::string preset;  // ViaKind::preset: which preset
  Via() = default;
  Via(ViaKind k) : kind(k) {}  // NOLINT: a kind is a Via (all but `preset` need nothing more)
  [[nodiscard]] static Via of_preset(std::string name) {
    Via v(ViaKind::preset);
    v.preset = std::move(name);
    return v;
  }
  // As printed: "", "stdlib", "scenario", "arithmetic", "model_from_hf", "default", "preset NAME",
  // "command line". Output only: no decision reads it back.
  [[nodiscard]] std::string text() const;
  // The choice nobody made: a convention's default, or the default preset (`mls`).
  [[nodiscard]] bool is_default() const;
  bool operator==(const Via& o) const = default;
  // In the order of their text (the order assumption lists have always had).
  bool operator<(const Via& o) const { return text() < o.text(); }
};

// How much of who-chose-it a listing states beside an assumption's value and place.
enum class ViaListing : std::uint8_t {
  full,     // `mls run`, `mls explain`, diffs: every choice someone made
  compact,  // the REPL's one-line lists: a default goes unsaid too
};
// The one rule of which `via` goes unsaid: a value simply written where it is (prelude,
// scenario), an approximation of the arithmetic, nobody; in compact listings a default as well.
[[nodiscard]] bool quiet(const Via& v, ViaListing l = ViaListing::full);

struct Assumption {
  AssumptionKind kind = AssumptionKind::default_;
  std::string name;   // "mtbf_model", "DGX_H100.nics", "reliability.R"
  std::string value;  // "node_series", "8", "300 s"
  Span at;            // where the value was written (invalid: command line)
  Via via;            // who chose it
};

// Where an assumption was written, as "file:line"; "command line" for command-line settings and
// "" for approximations that belong to no one place (exact arithmetic continued in binary64).
[[nodiscard]] std::string assumption_place(const Sources& src, const Assumption& a);

struct Site {
  Span span;
  std::string what;                    // "max(64, gpus)", "if t_memory > t_compute", "match mtbf_model"
  std::vector<std::string> arms;       // arm labels in arm order
  std::vector<std::string> full_arms;  // the same, not cut to a label's length (regime notes contrast them)
};

class Deps {
 public:
  Deps();
  // Atoms are created before evaluation starts (single-threaded); evaluation only reads them.
  AtomId add_assumption(Assumption a);
  // The one exception to "evaluation only reads": a validation atom is created before evaluation
  // with a placeholder and gets its text once, before any value carries it (Evaluator).
  void set_assumption_value(AtomId a, std::string value) {
    assumptions_[static_cast<std::size_t>(atoms_[a].assumption)].value = std::move(value);
  }
  std::uint32_t add_site(Site s);  // returns site id (>= 1); creates one atom per arm
  [[nodiscard]] AtomId branch_atom(std::uint32_t site, std::size_t arm) const {
    return sites_[site].first_atom + static_cast<AtomId>(arm);
  }

  [[nodiscard]] bool is_assumption(AtomId a) const { return atoms_[a].assumption >= 0; }
  [[nodiscard]] const Assumption& assumption(AtomId a) const {
    return assumptions_[static_cast<std::size_t>(atoms_[a].assumption)];
  }
  [[nodiscard]] std::uint32_t atom_site(AtomId a) const { return atoms_[a].site; }
  [[nodiscard]] std::uint32_t atom_arm(AtomId a) const { return atoms_[a].arm; }
  [[nodiscard]] const Site& site(std::uint32_t id) const { return sites_[id].site; }
  [[nodiscard]] std::size_t atom_count() const { return atoms_.size(); }
  [[nodiscard]] std::size_t site_count() const { return sites_.size(); }

  // Set interning; thread-safe.
  [[nodiscard]] DepSet single(AtomId a);
  [[nodiscard]] DepSet unite(DepSet a, DepSet b);
  [[nodiscard]] DepSet of(std::vector<AtomId> atoms);
  [[nodiscard]] const std::vector<AtomId>& atoms(DepSet s) const;
  // Undo atoms and sites added after a mark (REPL rollback of a failed input).
  struct Mark {
    std::size_t atoms, assumptions, sites;
    std::uint32_t sets;
  };
  [[nodiscard]] Mark mark() const {
    return {atoms_.size(), assumptions_.size(), sites_.size(), count_.load(std::memory_order_acquire)};
  }
  void rollback(Mark m);

 private:
  struct Atom {
    std::int32_t assumption = -1;
    std::uint32_t site = 0;
    std::uint32_t arm = 0;
  };
  struct SiteRec {
    Site site;
    AtomId first_atom = 0;
  };
  std::vector<Atom> atoms_;
  std::vector<Assumption> assumptions_;
  std::vector<SiteRec> sites_;

  // Interned sets live in fixed chunks so readers never see a reallocation.
  static constexpr std::size_t kChunkBits = 12;
  static constexpr std::size_t kChunks = 1u << 16;
  struct Chunk {
    std::array<std::vector<AtomId>, (1u << kChunkBits)> sets;
  };
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
  std::atomic<std::uint32_t> count_{0};
  std::mutex mu_;
  struct VecHash {
    std::size_t operator()(const std::vector<AtomId>& v) const;
  };
  std::unordered_map<std::vector<AtomId>, DepSet, VecHash> index_;
  std::uint64_t generation_;  // distinguishes this table in per-thread caches
  DepSet intern(std::vector<AtomId> v);

 public:
  ~Deps();
  Deps(const Deps&) = delete;
  Deps& operator=(const Deps&) = delete;
};

}  // namespace mls
