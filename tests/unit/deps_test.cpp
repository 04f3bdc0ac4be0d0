// deps_test.cpp — provenance: interned dependency sets and their union.
#include "interpreter/semantics/deps.hpp"

#include <doctest/doctest.h>

#include <thread>
#include <vector>

using namespace mls;

namespace {
AtomId assume(Deps& d, const char* name) {
  Assumption a;
  a.name = name;
  return d.add_assumption(a);
}
}  // namespace

TEST_CASE("union of dependency sets") {
  Deps d;
  const AtomId a = assume(d, "a"), b = assume(d, "b"), c = assume(d, "c");
  const DepSet sa = d.single(a), sb = d.single(b), sc = d.single(c);
  CHECK(d.atoms(0).empty());  // 0 is the empty set
  CHECK(d.unite(sa, 0) == sa);
  CHECK(d.unite(0, sa) == sa);
  CHECK(d.unite(sa, sa) == sa);                                         // idempotent
  CHECK(d.unite(sa, sb) == d.unite(sb, sa));                            // commutative
  CHECK(d.unite(d.unite(sa, sb), sc) == d.unite(sa, d.unite(sb, sc)));  // associative
  const auto& abc = d.atoms(d.unite(d.unite(sc, sa), sb));
  CHECK(abc == std::vector<AtomId>{a, b, c});                    // sorted, once each
  CHECK(d.of({c, a, c, b, a}) == d.unite(d.unite(sa, sb), sc));  // interned: same set, same id
  CHECK(d.single(a) == sa);
}

TEST_CASE("branch atoms are not assumptions") {
  Deps d;
  const AtomId a = assume(d, "a");
  const std::uint32_t site = d.add_site(Site{{}, "max(a, b)", {"a", "b"}, {}});
  CHECK(d.is_assumption(a));
  CHECK_FALSE(d.is_assumption(d.branch_atom(site, 0)));
  CHECK(d.atom_site(d.branch_atom(site, 1)) == site);
  CHECK(d.atom_arm(d.branch_atom(site, 1)) == 1);
}

TEST_CASE("union is thread-safe and gives the same ids on every thread") {
  Deps d;
  std::vector<DepSet> singles;
  for (int i = 0; i < 64; ++i) singles.push_back(d.single(assume(d, "x")));
  // Every thread builds the unions of all pairs; the interned ids must agree.
  std::vector<std::vector<DepSet>> seen(4);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < seen.size(); ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = 0; i < singles.size(); ++i)
        for (std::size_t j = 0; j < singles.size(); ++j) seen[t].push_back(d.unite(singles[i], singles[j]));
    });
  for (auto& th : pool) th.join();
  for (std::size_t t = 1; t < seen.size(); ++t) CHECK(seen[t] == seen[0]);
  CHECK(d.atoms(seen[0][1]).size() == 2);
}
