// deps.hpp — provenance: what every value depends on.
// An atom is an assumption (a set parameter, a stdlib default, a registry field, a convention
// choice, an approximation) or a taken branch (site, arm) used for regime notes. A value carries
// an interned, sorted set of atoms (DepSet); every operation takes the union.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
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
  // A validation band (kind validation, docs/validation.md): its relative half-width (< 0: none
  // computed), the domain it was measured on or extrapolated to, and whether it is extrapolated.
  double band = -1;
  std::string domain;
  bool extrapolated = false;
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

// The atoms of a set, in increasing order: a view into the table for a small set, a copy gathered
// from its parts for a large one (Deps::atoms).
class AtomList {
 public:
  AtomList() = default;
  explicit AtomList(std::span<const AtomId> view) : view_(view) {}
  explicit AtomList(std::vector<AtomId> own) : own_(std::move(own)), view_(own_) {}
  AtomList(const AtomList& o) : own_(o.own_), view_(o.own_.empty() ? o.view_ : std::span<const AtomId>(own_)) {}
  AtomList(AtomList&& o) noexcept : own_(std::move(o.own_)), view_(o.view_) {}  // the buffer moves with own_
  AtomList& operator=(const AtomList&) = delete;
  AtomList& operator=(AtomList&&) = delete;
  ~AtomList() = default;
  [[nodiscard]] const AtomId* begin() const { return view_.data(); }
  [[nodiscard]] const AtomId* end() const { return view_.data() + view_.size(); }
  [[nodiscard]] std::size_t size() const { return view_.size(); }
  [[nodiscard]] bool empty() const { return view_.empty(); }
  [[nodiscard]] AtomId operator[](std::size_t i) const { return view_[i]; }
  operator std::vector<AtomId>() const { return {begin(), end()}; }  // NOLINT: a list of atoms is one
  friend bool operator==(const AtomList& a, const std::vector<AtomId>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  std::vector<AtomId> own_;
  std::span<const AtomId> view_;
};

class Deps {
 public:
  Deps();
  // Atoms are added under a lock into storage that never moves, so an evaluation may add one (a
  // validation band, created when its domain is first met) while other threads read others.
  AtomId add_assumption(Assumption a);
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

  // Set interning; thread-safe. Equal sets are the same DepSet.
  [[nodiscard]] DepSet single(AtomId a);
  [[nodiscard]] DepSet unite(DepSet a, DepSet b);
  [[nodiscard]] DepSet of(std::vector<AtomId> atoms);
  [[nodiscard]] AtomList atoms(DepSet s) const;
  [[nodiscard]] std::size_t size(DepSet s) const { return node(s).size; }
  // Sets interned so far (a test's measure of what unions cost).
  [[nodiscard]] std::uint32_t set_count() const { return count_.load(std::memory_order_acquire); }
  // Undo atoms, sites and sets added after a mark (REPL rollback of a failed input, each variant
  // of `mls sensitivity`): nothing made after the mark may be used after the rollback.
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
  // Append-only storage in fixed chunks: an element never moves, so readers need no lock while a
  // writer (holding add_mu_) appends; the size is published after the element is written.
  // Shrinking (REPL rollback) happens with no evaluation running.
  template <typename T>
  class Stable {
   public:
    Stable() : chunks_(new std::atomic<T*>[kChunks]) {
      for (std::size_t i = 0; i < kChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
    }
    ~Stable() {
      for (std::size_t i = 0; i < kChunks; ++i) delete[] chunks_[i].load(std::memory_order_relaxed);
    }
    Stable(const Stable&) = delete;
    Stable& operator=(const Stable&) = delete;
    [[nodiscard]] std::size_t size() const { return size_.load(std::memory_order_acquire); }
    T& operator[](std::size_t i) { return chunks_[i >> kBits].load(std::memory_order_acquire)[i & kMask]; }
    const T& operator[](std::size_t i) const { return chunks_[i >> kBits].load(std::memory_order_acquire)[i & kMask]; }
    void push_back(T v) {
      const std::size_t n = size_.load(std::memory_order_relaxed);
      if ((n >> kBits) >= kChunks) throw std::length_error("more than 16 million provenance atoms");
      T* chunk = chunks_[n >> kBits].load(std::memory_order_relaxed);
      if (!chunk) {
        chunk = new T[kMask + 1];
        chunks_[n >> kBits].store(chunk, std::memory_order_release);
      }
      chunk[n & kMask] = std::move(v);
      size_.store(n + 1, std::memory_order_release);
    }
    void resize_down(std::size_t n) {
      for (std::size_t i = n; i < size(); ++i) (*this)[i] = T{};
      size_.store(std::min(n, size()), std::memory_order_release);
    }

   private:
    static constexpr std::size_t kBits = 11, kMask = (std::size_t{1} << kBits) - 1, kChunks = std::size_t{1} << 13;
    std::unique_ptr<std::atomic<T*>[]> chunks_;
    std::atomic<std::size_t> size_{0};
  };
  Stable<Atom> atoms_;
  Stable<Assumption> assumptions_;
  std::vector<SiteRec> sites_;
  std::mutex add_mu_;

  // A set of at most kSmall atoms is stored as its sorted atoms. A larger one is a node of a
  // binary trie over the atoms' bits: its two halves (each a set again) split at the highest bit
  // in which its smallest and largest atoms differ. The form of a set follows from its atoms
  // alone, so equal sets are one DepSet; and a union shares the parts of its operands that it
  // does not change. Sorted vectors for every set made a chain of N growing sets (a value
  // summed over N inputs, `set x = x + 1` N times) cost N^2 / 2 atoms, twice over: 40,000 sets
  // took 6.4 GB (issue 38, item 7); now each costs a path of nodes and one small set.
  static constexpr std::uint32_t kSmall = 128;
  struct Node {
    std::uint32_t size = 0;      // atoms in the set
    AtomId lo = 0, hi = 0;       // its smallest and largest atom
    DepSet left = 0, right = 0;  // a large set's halves
  };
  // Interned sets live in fixed chunks so readers never see a reallocation.
  static constexpr std::size_t kChunkBits = 12;
  static constexpr std::size_t kChunks = 1u << 16;
  struct Chunk {
    std::array<std::vector<AtomId>, (1u << kChunkBits)> sets;  // a small set's atoms
    std::array<Node, (1u << kChunkBits)> nodes;
  };
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
  std::atomic<std::uint32_t> count_{0};
  std::mutex mu_;
  struct VecHash {
    std::size_t operator()(const std::vector<AtomId>& v) const;
  };
  std::unordered_map<std::vector<AtomId>, DepSet, VecHash> index_;  // small sets by their atoms
  std::unordered_map<std::uint64_t, DepSet> halves_index_;          // large sets by their halves
  std::uint64_t generation_;                                        // distinguishes this table in per-thread caches
  [[nodiscard]] const Node& node(DepSet s) const {
    return chunks_[s >> kChunkBits].load(std::memory_order_acquire)->nodes[s & ((1u << kChunkBits) - 1)];
  }
  [[nodiscard]] const std::vector<AtomId>& small(DepSet s) const {
    return chunks_[s >> kChunkBits].load(std::memory_order_acquire)->sets[s & ((1u << kChunkBits) - 1)];
  }
  DepSet add(std::vector<AtomId> small_atoms, Node n);  // under mu_
  DepSet intern(std::vector<AtomId> v);                 // a small set, sorted
  DepSet intern_halves(DepSet l, DepSet r);             // a large set by its halves
  DepSet make(const AtomId* begin, const AtomId* end);  // any set, from sorted atoms
  DepSet merge(DepSet a, DepSet b);
  std::pair<DepSet, DepSet> split(DepSet s, unsigned bit);
  DepSet join(DepSet l, DepSet r);
  void gather(DepSet s, std::vector<AtomId>& out) const;

 public:
  ~Deps();
  Deps(const Deps&) = delete;
  Deps& operator=(const Deps&) = delete;
};

}  // namespace mls
