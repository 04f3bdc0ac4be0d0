// hf_config.cpp — reads a Hugging Face config.json (nlohmann::json, confined to this file) and
// maps its keys onto transformer()'s shape parameters for the model types mls knows: llama,
// mistral, qwen2 (dense, SwiGLU, GQA), mixtral (MoE), deepseek_v3 (MoE + MLA) and gpt2. Every
// value read becomes a registry assumption named `config(PATH).KEY` placed at the key in the file;
// a key the shape needs and the file lacks is an error naming it (hf.missing_key), a key one or two
// edits away from a key mls reads is taken for a misspelling (hf.unknown_key); other keys (token
// ids, rope scaling, dtype, ...) do not change the shape and are not read.
#include "hf_config.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "grammar/json_bounded.hpp"
#include "program.hpp"

namespace mls {

namespace {

using json = nlohmann::json;
using K = HfField::K;

const std::vector<HfFieldSpec> kSpecs = {
    {"name", K::str},
    {"model_type", K::str},
    {"layers", K::num},
    {"hidden", K::num},
    {"heads", K::num},
    {"kv_heads", K::num},
    {"ffn", K::num},
    {"vocab", K::num},
    {"mlp", K::str},
    {"experts", K::num},
    {"top_k", K::num},
    {"expert_ffn", K::num},
    {"shared_experts", K::num},
    {"dense_layers", K::num},
    {"head_dim", K::num},
    {"positions", K::num},
    {"tied_embeddings", K::flag},
    {"kv_lora_rank", K::num},
    {"q_lora_rank", K::num},
    {"rope_head_dim", K::num},
    {"v_head_dim", K::num},
    {"source", K::str},
};

constexpr std::size_t kMaxConfigBytes = 16u << 20;
// Larger than any real dimension (2^40): a bigger count is a broken file, not a model.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 40;

// A value as a message shows it: flat and bounded whatever the file holds (a 16 MiB string, an
// array nested 64 deep): a scalar as written, a string cut to a few dozen bytes, a container by
// its kind and size only.
std::string shown(const json& v) {
  constexpr std::size_t kMaxShown = 40;
  switch (v.type()) {
    case json::value_t::array:
      return v.empty() ? "an empty array" : "an array of " + std::to_string(v.size()) + " values";
    case json::value_t::object:
      return v.empty() ? "an empty object" : "an object of " + std::to_string(v.size()) + " keys";
    case json::value_t::string: {
      std::string t = v.get_ref<const std::string&>();
      if (t.size() <= kMaxShown) return json(t).dump(-1, ' ', false, json::error_handler_t::replace);
      std::size_t cut = kMaxShown;
      while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;  // whole characters
      t.resize(cut);
      std::string q = json(t).dump(-1, ' ', false, json::error_handler_t::replace);
      return q.insert(q.size() - 1, "...");
    }
    default: return v.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

// Where each top-level key and its value are in the text (the JSON library keeps no positions).
struct KeyPlace {
  std::uint32_t key_begin = 0, key_end = 0, value_begin = 0, value_end = 0;
};

std::map<std::string, KeyPlace> top_level_places(const std::string& t) {
  std::map<std::string, KeyPlace> out;
  int depth = 0;
  std::size_t i = 0;
  const std::size_t n = t.size();
  auto skip_string = [&](std::size_t at) {  // at: the opening quote; returns one past the closing
    std::size_t j = at + 1;
    while (j < n && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
    return std::min(j + 1, n);
  };
  auto skip_value = [&](std::size_t at) {  // one past the end of the value starting at `at`
    int d = 0;
    std::size_t j = at;
    while (j < n) {
      const char c = t[j];
      if (c == '"') {
        j = skip_string(j);
        if (d == 0) return j;
        continue;
      }
      if (c == '{' || c == '[') ++d;
      if (c == '}' || c == ']') {
        if (d == 0) return j;
        if (--d == 0) return j + 1;
      }
      if (d == 0 && (c == ',' || c == '\n' || c == ' ' || c == '\t' || c == '\r')) return j;
      ++j;
    }
    return j;
  };
  bool expect_key = false;
  while (i < n) {
    const char c = t[i];
    if (c == '"') {
      const std::size_t end = skip_string(i);
      if (depth == 1 && expect_key) {
        std::size_t j = end;
        while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) ++j;
        if (j < n && t[j] == ':') {
          ++j;
          while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) ++j;
          const std::size_t vend = skip_value(j);
          KeyPlace kp{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(end), static_cast<std::uint32_t>(j),
                      static_cast<std::uint32_t>(std::max(vend, j + 1))};
          out.emplace(t.substr(i + 1, end - i - 2), kp);
          i = vend;
          expect_key = false;
          continue;
        }
      }
      i = end;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      expect_key = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
    ++i;
  }
  return out;
}

// What one model type reads: required keys, optional keys (with what their absence means).
struct Reader {
  Program& p;
  const std::string& label;  // config(PATH)
  FileId file;
  Span call;
  const json& j;
  const std::map<std::string, KeyPlace>& places;
  std::string type;  // model_type, once read
  bool ok = true;
  std::vector<std::string> read;  // every key this model type reads (for the misspelling check)

  Span key_span(const std::string& key) const {
    const auto it = places.find(key);
    if (it == places.end()) return Span{file, 0, 1};
    return Span{file, it->second.value_begin, it->second.value_end};
  }
  Diagnostic& fail(ErrorKind k, Span at, std::string msg) {
    ok = false;
    auto& d = p.diags.error(k, at, std::move(msg));
    d.notes.push_back({call, "read by model_from_hf here"});
    return d;
  }
  AtomId atom(const std::string& key, std::string value, AssumptionKind kind) {
    Assumption a;
    a.kind = kind;
    a.name = label + "." + key;
    a.value = std::move(value);
    a.at = places.count(key) ? key_span(key) : Span{file, 0, 1};
    a.via = ViaKind::model_from_hf;
    return p.deps.add_assumption(std::move(a));
  }
  // A whole number >= `least` at `key`; nullopt (and an error, if `required`) when absent or bad.
  std::optional<std::int64_t> count(const std::string& key, bool required, std::int64_t least = 1) {
    read.push_back(key);
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required)
        fail(ErrorKind::hf_missing_key, Span{file, 0, 1}, "the config has no \"" + key + "\"")
            .help.push_back("model_from_hf reads this key for a \"" + type +
                            "\" model (docs/catalog.md lists the keys of each model type)");
      return std::nullopt;
    }
    if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t{1} << 40) ||
        it->get<std::int64_t>() < least || it->get<std::int64_t>() > kMaxCount) {
      fail(ErrorKind::hf_bad_value, key_span(key),
           "\"" + key + "\" must be a whole number from " + std::to_string(least) + " to 2^40, got " + shown(*it));
      return std::nullopt;
    }
    return it->get<std::int64_t>();
  }
  std::optional<bool> flag(const std::string& key) {
    read.push_back(key);
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) {
      fail(ErrorKind::hf_bad_value, key_span(key), "\"" + key + "\" must be true or false, got " + shown(*it));
      return std::nullopt;
    }
    return it->get<bool>();
  }
  std::optional<std::string> text(const std::string& key) {
    read.push_back(key);
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) {
      fail(ErrorKind::hf_bad_value, key_span(key), "\"" + key + "\" must be a string, got " + shown(*it));
      return std::nullopt;
    }
    return it->get<std::string>();
  }
};

struct Builder {
  Reader& r;
  HfConfig cfg;
  HfField& field(const char* name) {
    for (auto& f : cfg.fields)
      if (f.name == name) return f;
    return cfg.fields.front();  // unreachable: every name is in kSpecs
  }
  // `name` from `key` (required or, if absent, `fallback` with the reason `absent`).
  // Returns the value read (nullopt when absent or bad).
  std::optional<std::int64_t> num(const char* name, const std::string& key, bool required, std::int64_t fallback = 0,
                                  const std::string& absent = "", std::int64_t least = 1) {
    HfField& f = field(name);
    const auto v = r.count(key, required, least);
    if (v) {
      f.n = Num::of_int(*v);
      f.atoms = {r.atom(key, std::to_string(*v), AssumptionKind::registry)};
    } else if (!required) {
      f.n = Num::of_int(fallback);
      if (!absent.empty()) f.atoms = {r.atom(key, "absent: " + absent, AssumptionKind::default_)};
    }
    return v;
  }
  void fixed(const char* name, std::int64_t v) { field(name).n = Num::of_int(v); }
  void str(const char* name, std::string v) { field(name).s = std::move(v); }
};

// Values each valid on its own that no model has together (each would still give a parameter
// count): grouped-query attention shares each key/value head among a whole group of query heads,
// so kv heads divide the heads; without head_dim a head is hidden / heads wide, a whole number;
// a token is routed to at most every expert.
void check_shape(Reader& r, std::optional<std::int64_t> hidden, std::optional<std::int64_t> heads,
                 std::optional<std::int64_t> kv_heads, std::optional<std::int64_t> head_dim,
                 std::optional<std::int64_t> experts, std::optional<std::int64_t> top_k, const std::string& hidden_key,
                 const std::string& heads_key) {
  if (heads && kv_heads && (*kv_heads > *heads || *heads % *kv_heads != 0))
    r.fail(ErrorKind::hf_bad_value, r.key_span("num_key_value_heads"),
           "num_key_value_heads " + std::to_string(*kv_heads) + " must divide " + heads_key + " " +
               std::to_string(*heads) + ": each key/value head serves a whole group of query heads")
        .help.push_back("grouped-query attention has heads / kv_heads query heads per key/value head");
  if (hidden && heads && !head_dim && *hidden % *heads != 0)
    r.fail(ErrorKind::hf_bad_value, r.key_span(heads_key),
           heads_key + " " + std::to_string(*heads) + " does not divide " + hidden_key + " " + std::to_string(*hidden) +
               ", and the config has no head_dim: a head would be " + std::to_string(*hidden / *heads) + " " +
               std::to_string(*hidden % *heads) + "/" + std::to_string(*heads) + " wide")
        .help.push_back("a head is hidden_size / num_attention_heads wide unless head_dim says otherwise");
  if (experts && top_k && *top_k > *experts)
    r.fail(ErrorKind::hf_bad_value, r.key_span("num_experts_per_tok"),
           "num_experts_per_tok " + std::to_string(*top_k) + " is more than the " + std::to_string(*experts) +
               " experts a token can be routed to");
}

bool near_miss(const std::string& key, const std::vector<std::string>& read) {
  for (const auto& k : read)
    if (k != key && edit_distance(key, k) <= 2 && std::min(key.size(), k.size()) >= 5) return true;
  return false;
}

// The first error of a JSON text, located by the parser itself (a SAX pass that stops at the
// error: the library reports where it stopped and the token it read), so no place is recovered
// from the library's message text.
struct JsonError {
  std::uint32_t offset = 0;  // 0-based byte the caret points at
  std::string message;
};

class ErrorLocator final : public nlohmann::json_sax<json> {
 public:
  JsonError error;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  // `position`: bytes read, through the token that failed (`token`).
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex) override {
    if (ex.id == 406) {
      // A number too large for a double: the caret goes to the number's first character.
      error.offset = static_cast<std::uint32_t>(position >= token.size() ? position - token.size() : 0);
      error.message = "a number too large for a double";
      return false;
    }
    // A syntax error: the caret goes to the character that failed; the library's own wording
    // follows its "line L, column C: " prefix (our caret gives the place).
    error.offset = static_cast<std::uint32_t>(position == 0 ? 0 : position - 1);
    error.message = ex.what();
    if (const auto c = error.message.find(": ", error.message.find("column")); c != std::string::npos)
      error.message = error.message.substr(c + 2);
    // "; last read: 'TOKEN'" echoes the file's bytes (the first word of secret.txt): dropped. Its
    // extent is known from the token the parser hands over (`token`, the very text it quotes), so
    // no search in the message decides where the echo ends; what follows is the library's own
    // "; expected X", kept.
    const std::string echo = "; last read: '" + token + "'";
    if (const auto lr = error.message.find(echo); lr != std::string::npos) error.message.erase(lr, echo.size());
    return false;
  }
};

JsonError first_json_error(const std::string& text) {
  ErrorLocator loc;
  loc.error.message = "unreadable";
  (void)json::sax_parse(text, &loc);
  loc.error.offset = std::min(loc.error.offset, static_cast<std::uint32_t>(text.size()));
  return loc.error;
}

// The shape fields of a config of `type` (llama-like, deepseek_v3, gpt2), each from its key or a
// stated default; an unknown type is an error naming the ones read.
void read_shape(Builder& b, Reader& r, const std::string& type, FileId file,
                const std::map<std::string, KeyPlace>& places) {
  const bool llama_like = type == "llama" || type == "mistral" || type == "qwen2" || type == "mixtral";
  // The attention shape, for the checks of shapes no model has (below).
  std::optional<std::int64_t> hidden, heads, kv_heads, head_dim, experts, top_k;
  std::string hidden_key, heads_key;
  if (llama_like || type == "deepseek_v3") {
    b.num("layers", "num_hidden_layers", true);
    hidden = b.num("hidden", "hidden_size", true);
    heads = b.num("heads", "num_attention_heads", true);
    hidden_key = "hidden_size";
    heads_key = "num_attention_heads";
    b.num("vocab", "vocab_size", true);
    b.num("ffn", "intermediate_size", true);
    b.str("mlp", "swiglu");
    if (const auto act = r.text("hidden_act"); act && *act != "silu")
      r.fail(ErrorKind::hf_unsupported, r.key_span("hidden_act"),
             "hidden_act " + shown(*act) + ": model_from_hf models the SwiGLU MLP of \"silu\" " + type + " models");
    const auto tied = r.flag("tie_word_embeddings");
    b.field("tied_embeddings").b = tied.value_or(false);
    if (tied)
      b.field("tied_embeddings").atoms = {
          r.atom("tie_word_embeddings", *tied ? "true" : "false", AssumptionKind::registry)};
    b.fixed("experts", 1);
    b.fixed("top_k", 1);
  }
  if (llama_like) {
    kv_heads = b.num("kv_heads", "num_key_value_heads", false, 0, "multi-head attention (kv_heads = heads)");
    head_dim = b.num("head_dim", "head_dim", false, 0, "hidden_size / num_attention_heads");
    if (type == "mixtral") {
      experts = b.num("experts", "num_local_experts", true);
      top_k = b.num("top_k", "num_experts_per_tok", true);
    }
  } else if (type == "deepseek_v3") {
    b.num("expert_ffn", "moe_intermediate_size", true);
    experts = b.num("experts", "n_routed_experts", true);
    top_k = b.num("top_k", "num_experts_per_tok", true);
    head_dim = 0;  // MLA: heads have widths of their own (qk_nope_head_dim, v_head_dim)
    b.num("shared_experts", "n_shared_experts", false, 0, "no shared expert", 0);
    b.num("dense_layers", "first_k_dense_replace", false, 0, "every layer MoE", 0);
    b.num("kv_lora_rank", "kv_lora_rank", true);
    b.num("q_lora_rank", "q_lora_rank", false, 0, "full-rank queries");
    b.num("rope_head_dim", "qk_rope_head_dim", true);
    b.num("head_dim", "qk_nope_head_dim", true);
    b.num("v_head_dim", "v_head_dim", true);
    if (const auto freq = r.count("moe_layer_freq", false); freq && *freq != 1)
      r.fail(ErrorKind::hf_unsupported, r.key_span("moe_layer_freq"),
             "moe_layer_freq " + std::to_string(*freq) +
                 ": transformer() models an MoE layer after each of the first_k_dense_replace dense layers");
  } else if (type == "gpt2") {
    b.num("layers", "n_layer", true);
    hidden = b.num("hidden", "n_embd", true);
    heads = b.num("heads", "n_head", true);
    hidden_key = "n_embd";
    heads_key = "n_head";
    b.num("vocab", "vocab_size", true);
    b.num("positions", "n_positions", true);
    b.num("ffn", "n_inner", false, 0, "4 x n_embd");
    b.str("mlp", "gelu");
    const auto tied = r.flag("tie_word_embeddings");
    b.field("tied_embeddings").b = tied.value_or(true);
    b.field("tied_embeddings").atoms = {
        tied ? r.atom("tie_word_embeddings", *tied ? "true" : "false", AssumptionKind::registry)
             : r.atom("tie_word_embeddings", "absent: tied (GPT-2)", AssumptionKind::default_)};
    b.fixed("experts", 1);
    b.fixed("top_k", 1);
  } else if (r.ok) {
    const Span s = places.count("model_type") ? r.key_span("model_type") : Span{file, 0, 1};
    auto& d = r.fail(type.empty() ? ErrorKind::hf_missing_key : ErrorKind::hf_unsupported, s,
                     type.empty() ? std::string("the config has no \"model_type\"")
                                  : "model_type " + shown(type) + " is not one model_from_hf reads");
    d.help.push_back("model_from_hf reads llama, mistral, qwen2, mixtral, deepseek_v3 and gpt2 configs");
    suggest(d, type, std::vector<std::string>{"llama", "mistral", "qwen2", "mixtral", "deepseek_v3", "gpt2"}, '"');
  }
  check_shape(r, hidden, heads, kv_heads, head_dim, experts, top_k, hidden_key, heads_key);
}

}  // namespace

const std::vector<HfFieldSpec>& hf_field_specs() { return kSpecs; }

bool load_hf_config(Program& p, const std::string& literal, Span at) {
  if (const auto it = p.hf_configs.find(literal);
      it != p.hf_configs.end() && it->second.first_atom < p.deps.atom_count())
    return true;
  const std::filesystem::path dir =
      at.valid() ? std::filesystem::path(p.sources.get(at.file).name).parent_path() : std::filesystem::path();
  const std::string path = (dir / literal).lexically_normal().generic_string();
  auto text = p.reader(path);
  if (!text) {
    p.diags.error(ErrorKind::load_missing, at, "cannot read '" + path + "'")
        .help.push_back("model_from_hf paths are relative to the file that calls it");
    return false;
  }
  if (text->size() > kMaxConfigBytes) {
    p.diags.error(ErrorKind::load_too_large, at, "'" + path + "' is larger than 16 MiB");
    return false;
  }
  const FileId file = p.sources.add(path, std::move(*text), false);
  // Until the file shows it is a config (a JSON object with a string model_type), errors give
  // its places but never its bytes: model_from_hf("secret.txt") must not print a secret line.
  p.sources.set_opaque(file, true);
  const std::string& t = p.sources.get(file).text;
  // Nesting is bounded while parsing: a value nested millions deep is refused, never built
  // (nor printed in a message, nor destroyed by recursion).
  BoundedJson parsed = parse_bounded_json(t);
  if (parsed.too_deep) {
    const auto off = static_cast<std::uint32_t>(std::min(json_too_deep_at(t), t.size()));
    p.diags
        .error(ErrorKind::hf_parse, Span{file, off, off + 1},
               "not a config.json: arrays and objects nested deeper than " + std::to_string(kMaxJsonDepth) + " levels")
        .notes.push_back({at, "read by model_from_hf here"});
    return false;
  }
  if (parsed.too_many) {
    p.diags
        .error(ErrorKind::hf_parse, Span{file, 0, 1},
               "not a config.json: more than " + std::to_string(kMaxJsonValues) + " JSON values")
        .notes.push_back({at, "read by model_from_hf here"});
    return false;
  }
  if (!parsed.ok) {
    const JsonError e = first_json_error(t);
    auto& d = p.diags.error(ErrorKind::hf_parse, Span{file, e.offset, e.offset + 1}, "not valid JSON: " + e.message);
    d.notes.push_back({at, "read by model_from_hf here"});
    return false;
  }
  const json& j = parsed.value;
  if (!j.is_object()) {
    p.diags
        .error(ErrorKind::hf_parse, Span{file, 0, 1},
               "a config.json is one JSON object, got " + std::string(j.type_name()))
        .notes.push_back({at, "read by model_from_hf here"});
    return false;
  }
  const auto places = top_level_places(t);
  const std::string label = "config(" + literal + ")";
  Reader r{p, label, file, at, j, places, "", true, {}};
  Builder b{r, {}};
  b.cfg.first_atom = static_cast<AtomId>(p.deps.atom_count());
  for (const auto& s : kSpecs) b.cfg.fields.push_back({s.name, s.kind, Num::of_int(0), "", false, {}});
  b.str("source", literal);
  const std::string type = r.text("model_type").value_or("");
  if (!r.ok) return false;
  if (!type.empty()) p.sources.set_opaque(file, false);  // it claims to be a config: excerpts help
  r.type = type;
  b.str("model_type", type);
  b.str("name", r.text("_name_or_path").value_or(std::filesystem::path(path).parent_path().filename().string()));
  if (b.field("name").s.empty()) b.str("name", path);

  read_shape(b, r, type, file, places);
  // A key a letter or two away from one this model type reads is a misspelling, not a new key.
  for (const auto& [key, place] : places)
    if (std::find(r.read.begin(), r.read.end(), key) == r.read.end() && near_miss(key, r.read)) {
      std::vector<std::string> cands = r.read;
      auto& d = r.fail(ErrorKind::hf_unknown_key, Span{file, place.key_begin, place.key_end},
                       "unknown key \"" + key + "\" in a \"" + type + "\" config");
      suggest(d, key, cands, '"');
    }
  if (!r.ok) return false;
  p.hf_configs[literal] = std::move(b.cfg);
  return true;
}

}  // namespace mls
