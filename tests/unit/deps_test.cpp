// deps_test.cpp — provenance: interned dependency sets and their union.
#include "interpreter/semantics/deps.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
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

TEST_CASE("large sets: one DepSet per set however it is built, atoms sorted") {
  // Sets above the small-set size are tries over the atoms' bits (issue 38, item 7): built from
  // a list, by unions in any order, or by adding one atom at a time, a set is one DepSet.
  Deps d;
  std::vector<DepSet> singles;
  for (int i = 0; i < 3000; ++i) singles.push_back(d.single(assume(d, "x")));
  std::uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>(seed >> 33);
  };
  for (int round = 0; round < 40; ++round) {
    CAPTURE(round);
    std::set<AtomId> want;
    const std::size_t n = next() % 1500 + 1;
    std::vector<AtomId> list;
    for (std::size_t k = 0; k < n; ++k) {
      const auto a = static_cast<AtomId>(next() % singles.size());
      list.push_back(a);
      want.insert(a);
    }
    // One atom at a time, in the list's order.
    DepSet one_by_one = 0;
    for (AtomId a : list) one_by_one = d.unite(one_by_one, singles[a]);
    // Two halves of the list, united the other way round.
    DepSet left = 0, right = 0;
    for (std::size_t k = 0; k < list.size(); ++k)
      (k % 2 ? right : left) = d.unite(k % 2 ? right : left, singles[list[k]]);
    const DepSet halves = d.unite(right, left);
    const DepSet listed = d.of(list);
    CHECK(one_by_one == listed);
    CHECK(halves == listed);
    CHECK(d.size(listed) == want.size());
    CHECK(d.atoms(listed) == std::vector<AtomId>(want.begin(), want.end()));
  }
}

TEST_CASE("a chain of growing sets shares its parts") {
  // x_k = x_{k-1} + {a_k}: as sorted vectors the chain stored k atoms at step k (N^2 / 2 in
  // all); as tries each step adds a path of nodes and one small set.
  Deps d;
  const std::uint32_t before = d.set_count();
  DepSet x = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) x = d.unite(x, d.single(assume(d, "s")));
  CHECK(d.size(x) == static_cast<std::size_t>(n));
  CHECK(d.set_count() - before < 40u * n);
  const AtomList all = d.atoms(x);
  CHECK(all.size() == static_cast<std::size_t>(n));
  CHECK(std::is_sorted(all.begin(), all.end()));
}

TEST_CASE("rollback forgets the sets made after the mark") {
  Deps d;
  std::vector<DepSet> singles;
  for (int i = 0; i < 500; ++i) singles.push_back(d.single(assume(d, "x")));
  DepSet base = 0;
  for (DepSet s : singles) base = d.unite(base, s);
  const Deps::Mark m = d.mark();
  // A variant: one new atom in place of one of the old ones, the sums made again.
  const DepSet extra = d.single(assume(d, "set"));
  DepSet variant = extra;
  for (std::size_t i = 1; i < singles.size(); ++i) variant = d.unite(variant, singles[i]);
  CHECK(d.set_count() > m.sets);
  d.rollback(m);
  CHECK(d.set_count() == m.sets);
  // The table works on: the same unions give the same sets as before, new ones are new.
  DepSet again = 0;
  for (DepSet s : singles) again = d.unite(again, s);
  CHECK(again == base);
  const DepSet other = d.single(assume(d, "other"));
  CHECK(d.atoms(d.unite(base, other)).size() == singles.size() + 1);
}
