// list.cpp — `mls list [KIND] [--where EXPR] [--format text|json|csv|md]`: the catalogue as a
// table, one row per registry entry of a stdlib list (accelerators, systems, fabrics, links,
// models), key fields with units and the entry's source. Every number comes from the entry's
// record: the rows are an ordinary run of a generated sweep over the stdlib list (zipped with the
// entries' names, read from the list's declaration), so `--where` is any mls expression of `it`.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "commands.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/results/grid.hpp"

namespace mls {

namespace {

struct ListCol {
  const char* key;     // JSON/CSV name
  const char* header;  // text/Markdown header, unit included
  const char* expr;    // mls expression of `it`: a number (dimensionless), a string or a bool
};

struct Kind {
  const char* name;  // the stdlib list and the command-line word
  const char* what;
  std::vector<ListCol> cols;
};

// Columns: dense peaks (accelerators.mls convention), sizes and bandwidths with their units.
const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"accelerators",
       "datacenter accelerators (dense peaks; sparse figures are never stored)",
       {{"name", "name", "it.name"},
        {"vendor", "vendor", "it.vendor"},
        {"bf16_tflops", "bf16 TFLOP/s", "it.peak / 1 TFLOP/s"},
        {"fp8_tflops", "fp8 TFLOP/s", "it.precision_flops.fp8 / 1 TFLOP/s"},
        {"fp4_tflops", "fp4 TFLOP/s", "it.precision_flops.fp4 / 1 TFLOP/s"},
        {"fp64_tflops", "fp64 TFLOP/s", "it.precision_flops.fp64 / 1 TFLOP/s"},
        {"hbm_gb", "HBM GB", "it.hbm.size / 1 GB"},
        {"hbm_tbps", "HBM TB/s", "it.hbm.bw / 1 TB/s"},
        {"scaleup", "scale-up link", "it.scaleup"},
        {"scaleup_gbps", "scale-up GB/s/dir", "it.nvlink.bw / 1 GB/s"},
        {"tdp_w", "TDP W", "it.tdp / 1 W"},
        {"price_usd", "price USD", "it.unit_cost / 1 USD"},
        {"estimated", "estimated fields", "it.estimated"},
        {"source", "source", "it.source"}}},
      {"systems",
       "nodes and their scale-up domains",
       {{"name", "name", "it.name"},
        {"accelerator", "accelerator", "it.accelerator.name"},
        {"gpus", "per node", "it.gpus"},
        {"domain_gpus", "scale-up domain", "scaleup_domain(it).gpus"},
        {"domain_gbps", "domain GB/s/dir", "scaleup_domain(it).bw / 1 GB/s"},
        {"scaleup", "scale-up", "it.scaleup"},
        {"nics", "NICs", "it.nics"},
        {"host_memory_gb", "host GB", "it.host_memory / 1 GB"},
        {"estimated", "estimated fields", "it.estimated"},
        {"source", "source", "it.source"}}},
      {"fabrics",
       "scale-out fabrics (bandwidth per port, one NIC per accelerator)",
       {{"name", "name", "it.name"},
        {"gbps", "Gb/s", "it.bw / 1 Gbps"},
        {"latency_us", "latency us", "it.latency / 1 us"},
        {"oversubscription", "oversubscription", "it.oversubscription"},
        {"source", "source", "it.source"}}},
      {"links",
       "scale-up links (bandwidth per direction per accelerator)",
       {{"name", "name", "it.name"},
        {"gbytes_per_s", "GB/s/dir", "it.bw / 1 GB/s"},
        {"latency_ns", "latency ns", "it.latency / 1 ns"},
        {"source", "source", "it.source"}}},
      {"models",
       "transformer models (parameters derived from the shape unless a published count is kept)",
       {{"name", "name", "it.name"},
        {"params_b", "params B", "it.params / 1e9"},
        {"active_b", "active B", "it.active_params / 1e9"},
        {"layers", "layers", "it.layers"},
        {"hidden", "hidden", "it.hidden"},
        {"heads", "heads", "it.heads"},
        {"kv_heads", "kv heads", "it.kv_heads"},
        {"experts", "experts", "it.experts"},
        {"top_k", "top k", "it.top_k"},
        {"vocab", "vocab", "it.vocab"},
        {"kv_kib_per_token", "KV KiB/token (bf16)", "kv_cache_per_token(it, \"bf16\") / 1 KiB"},
        {"source", "source", "it.source"}}},
      {"grids",
       "electricity grids (sustainability.mls)",
       {{"name", "name", "it.name"},
        {"intensity_g_per_kwh", "g CO2/kWh", "it.intensity / 1 g/kWh"},
        {"pue", "PUE", "it.pue"},
        {"wue_l_per_kwh", "WUE L/kWh", "it.wue / 1 L/kWh"},
        {"source", "source", "grid_source"}}},
  };
  return k;
}

std::string cell_text(const Value& v) {
  if (v.k == Value::K::str) return v.str();
  if (v.k == Value::K::boolean) return v.b ? "true" : "false";
  const double d = v.n.d;
  if (d == 0) return "-";  // the registries' "not listed"
  char b[40];
  if (std::abs(d) >= 1e5 || d == std::floor(d))
    std::snprintf(b, sizeof b, "%.0f", d);
  else
    std::snprintf(b, sizeof b, "%.5g", d);
  return b;
}

std::string json_cell(const Value& v) {
  if (v.k == Value::K::str) return json_string(v.str());
  if (v.k == Value::K::boolean) return v.b ? "true" : "false";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v.n.d);
  return b;
}

std::string render(const Kind& k, const std::vector<std::string>& ids, const std::vector<std::vector<Value>>& rows,
                   const std::string& format) {
  const std::size_t nc = k.cols.size();
  std::string out;
  if (format == "json") {
    out = "{\"kind\": " + json_string(k.name) + ", \"rows\": [";
    for (std::size_t r = 0; r < rows.size(); ++r) {
      out += std::string(r ? ",\n  " : "\n  ") + "{\"id\": " + json_string(ids[r]);
      for (std::size_t c = 0; c < nc; ++c) out += ", " + json_string(k.cols[c].key) + ": " + json_cell(rows[r][c]);
      out += "}";
    }
    return out + "\n]}\n";
  }
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> head = {"id"};
  for (const auto& c : k.cols) head.push_back(format == "csv" ? c.key : c.header);
  table.push_back(head);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> line = {ids[r]};
    for (std::size_t c = 0; c < nc; ++c)
      line.push_back(format == "csv" && rows[r][c].k == Value::K::num ? json_cell(rows[r][c]) : cell_text(rows[r][c]));
    table.push_back(line);
  }
  if (format == "csv") return csv_lines(table);
  if (format == "md") return md_table(table);
  return std::string(k.name) + ": " + k.what + " — " + std::to_string(rows.size()) + " rows\n" +
         aligned_text(table, GridStyle{.indent = "", .gap = "  ", .right = {}, .trim = false});
}

}  // namespace

int cmd_list(const Args& a) {
  if (a.positional.size() > 2) return usage_error(a, "list takes one KIND");
  if (a.positional.size() == 1) {
    std::string out = "catalogue kinds (mls list KIND [--where EXPR of `it`] [--format text|json|csv|md]):\n";
    for (const auto& k : kinds())
      out += "  " + std::string(k.name) + std::string(14 - std::string(k.name).size(), ' ') + k.what + "\n";
    return emit(a, out);
  }
  const std::string& want = a.positional[1];
  const Kind* kind = nullptr;
  std::vector<std::string> names;
  for (const auto& k : kinds()) {
    names.emplace_back(k.name);
    if (want == k.name) kind = &k;
  }
  if (!kind) {
    const std::string guess = closest(want, names);
    return usage_error(a, "no catalogue kind '" + want + "'" +
                              (guess.empty() ? "" : " (did you mean '" + guess + "'?)") +
                              "; kinds: accelerators, systems, fabrics, links, models, grids");
  }
  Scenario s(core_options());
  if (!s.load_prelude()) return report(s);
  const std::vector<std::string> ids = s.list_entries(kind->name);
  // The generated scenario: the stdlib list zipped with its entries' names; --where on a line of
  // its own, so that an error in it is shown with its own caret.
  std::string src = "sweep list over (id, it) in zip([";
  for (std::size_t i = 0; i < ids.size(); ++i) src += (i ? ", " : "") + json_string(ids[i]);
  src += "], " + std::string(kind->name) + ") {\n";
  if (!a.where.empty()) src += "  where " + a.where + "\n";
  src += "  show ";
  for (std::size_t c = 0; c < kind->cols.size(); ++c)
    src += std::string(c ? ", " : "") + kind->cols[c].key + " = " + kind->cols[c].expr;
  src += "\n}\n";
  Scenario table(core_options());
  if (!table.prepare("<list>", src)) return report(table);
  Selection sel = selection_of(a);
  RunOptions opt = a.run;
  opt.progress = false;
  const auto r = table.run(sel, opt);
  if (!r || table.diagnostics().has_errors() || r->tables.size() != 1) return report(table);
  std::vector<std::string> row_ids;
  std::vector<std::vector<Value>> rows;
  for (const Row& row : r->tables[0].rows) {
    row_ids.push_back(row.key.empty() ? "" : row.key[0].str());
    rows.push_back(row.cells);
  }
  return emit(a, render(*kind, row_ids, rows, a.format));
}

}  // namespace mls
