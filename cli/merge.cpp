// merge.cpp — scale-out: `mls run FILE --shard K/N --format json --out part_K.json` writes one
// shard's points as a part, and `mls merge part_*.json [--format F]` reads the parts back and
// prints exactly what one `mls run FILE --format F` prints. The part format, its writer and its
// checked, streamed reader are results/shard_part; here: the parts must be of one run and whole
// (same identity, shards 1..N, the scenario unchanged, each digest right) before the merge
// re-runs the program with every sweep reading their points instead of computing them.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/results/shard_part.hpp"

namespace mls {
namespace {

int part_error(const std::string& message) {
  const ErrorKindInfo& k = info(ErrorKind::merge_part);
  std::fprintf(stderr, "mls: error[%s]: %s\n", k.code, message.c_str());
  return k.exit_code;
}

}  // namespace

std::unique_ptr<RunSink> make_part_writer(const ResultScope& scope, Writer& w, const Args& a, const std::string& file,
                                          ShardWriter*& shard) {
  PartIdentity id;
  id.file = file;
  id.source_hash = part_source_hash(file);
  if (!a.presets.empty()) id.preset = a.presets.front();
  id.uses = a.uses;
  id.sets = a.sets;
  id.k = a.run.shard_k;
  id.n = a.run.shard_n;
  id.exact_limit = a.run.exact_limit;
  id.max_points = a.run.max_points;
  return make_part_writer(scope, w, id, shard);
}

int cmd_merge(const Args& a) {
  if (a.positional.size() < 2) return usage_error("merge expects the part files of one sharded run");
  std::vector<std::unique_ptr<PartFile>> parts;
  try {
    for (std::size_t i = 1; i < a.positional.size(); ++i) parts.push_back(std::make_unique<PartFile>(a.positional[i]));
    const PartIdentity& h0 = parts.front()->identity();
    for (const auto& part : parts)
      if (!part->identity().same_run(h0))
        throw PartError(part->path() + ": from another run than " + parts.front()->path() +
                        " (file, preset, --use, --set, limits or shard count differ)");
    std::sort(parts.begin(), parts.end(),
              [](const auto& x, const auto& y) { return x->identity().k < y->identity().k; });
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (parts[i]->identity().k != i + 1)
        throw PartError("parts of " + std::to_string(h0.n) + " shards are needed, shard " + std::to_string(i + 1) +
                        " of them is missing or another is given twice");
    if (parts.size() != h0.n)
      throw PartError("parts of " + std::to_string(h0.n) + " shards are needed, " + std::to_string(parts.size()) +
                      " given");
    if (part_source_hash(h0.file) != h0.source_hash)
      throw PartError(part_excerpt(h0.file, 200) +
                      " has changed since the parts were written (or another mls wrote them)");
    for (const auto& part : parts) check_part_digest(part->path());
  } catch (const PartError& e) {
    return part_error(e.what());
  }
  const PartIdentity& h = parts.front()->identity();
  const std::vector<std::string> part_paths(a.positional.begin() + 1, a.positional.end());
  Scenario s(core_options());
  if (!s.prepare(h.file)) return report(s);
  if (const int rc = refuse_output_over_input(a, s, part_paths)) return rc;
  if (const int rc = check_table(a, s)) return rc;
  Selection sel;
  sel.preset = h.preset;
  sel.uses = h.uses;
  sel.sets = h.sets;
  if (!s.configure(sel)) return report(s);
  PartsReader reader(parts, s.scope().deps, [&s](std::vector<AtomId> atoms) { return s.dep_set(std::move(atoms)); });
  RunOptions opt = a.run;
  opt.exact_limit = h.exact_limit;
  opt.max_points = h.max_points;
  opt.shard_in = &reader;
  AtomicFile out(a.out);
  if (!out.ok()) return io_error(out.error());
  bool failed_assert = false;
  bool ok = false;
  try {
    Writer w(out.file(), a.max_output);
    auto sink = make_formatter(a.format, s.scope(), w, h.file, format_options(a));
    auto watch = watch_asserts(*sink, failed_assert);
    ok = s.run(opt, *watch);
    if (ok) {
      reader.finish();
      w.flush();
    }
  } catch (const PartError& e) {
    out.abandon();
    return part_error(e.what());
  }
  if (!ok) {
    out.abandon();
    return report(s);
  }
  if (const int rc = refuse_output_over_input(a, s, part_paths)) return rc;  // and what the run read (traces)
  if (!out.commit()) return io_error(out.error());
  return failed_assert ? info(ErrorKind::assert_failed).exit_code : 0;
}

}  // namespace mls
