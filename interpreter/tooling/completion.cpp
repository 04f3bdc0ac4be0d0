// completion.cpp — Tab completion for the REPL. The context is read from the text before the
// cursor only (no parse of the whole line): a meta command, a field access, a unit after a
// number, a `use`/`preset` statement, or else a name.
#include "completion.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "driver.hpp"
#include "grammar/symbols.hpp"

namespace mls {

namespace {

const char* const kKeywords[] = {"let",    "set",  "use",    "preset", "show",    "assert",   "sweep",
                                 "search", "over", "in",     "where",  "subject", "maximize", "minimize",
                                 "top",    "per",  "pareto", "if",     "then",    "else",     "match",
                                 "with",   "and",  "or",     "not",    "true",    "false",    "zip"};

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Start of the identifier that ends at `end`.
std::size_t ident_start(std::string_view line, std::size_t end) {
  std::size_t i = end;
  while (i > 0 && is_ident(line[i - 1])) --i;
  return i;
}

void keep_prefixed(std::vector<std::string>& out, const std::vector<std::string>& all, std::string_view prefix) {
  for (const auto& c : all)
    if (c.size() >= prefix.size() && c.compare(0, prefix.size(), prefix) == 0) out.push_back(c);
}

Completion finish(std::size_t start, std::vector<std::string> c) {
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return Completion{start, std::move(c)};
}

std::vector<std::string> convention_names(const Program& p) {
  std::vector<std::string> out;
  for (const auto& c : p.conventions) out.push_back(sym_name(c.name));
  return out;
}

std::vector<std::string> choice_names(const Program& p, std::string_view conv) {
  std::vector<std::string> out;
  const int ci = p.convention_index(intern(conv));
  if (ci < 0) return out;
  for (const auto& ch : p.conventions[static_cast<std::size_t>(ci)].stmt->choices) out.push_back(sym_name(ch.name));
  return out;
}

std::vector<std::string> preset_names(const Program& p) {
  std::vector<std::string> out;
  for (const auto& pr : p.presets) out.push_back(sym_name(pr.name));
  return out;
}

// Names in scope; functions and natives come with their opening parenthesis.
std::vector<std::string> scope_names(const Program& p) {
  std::vector<std::string> out;
  for (const auto& [sym, d] : p.scope()) {
    const std::string& n = sym_name(sym);
    if (n.find('#') != std::string::npos) continue;  // hidden answers
    out.push_back(d.kind == RefKind::function || d.kind == RefKind::native ? n + "(" : n);
  }
  for (const char* k : kKeywords) out.emplace_back(k);
  return out;
}

// The expression before a '.' that ends at `dot`: names, dots and balanced brackets, as in
// `H100.hbm` or `train(8, tp = 2).step`.
std::string receiver(std::string_view line, std::size_t dot) {
  std::size_t i = dot;
  while (i > 0) {
    const char c = line[i - 1];
    if (is_ident(c) || c == '.') {
      --i;
      continue;
    }
    if (c == ')' || c == ']') {
      const char open = c == ')' ? '(' : '[';
      int depth = 0;
      std::size_t j = i;
      while (j > 0) {
        const char d = line[j - 1];
        if (d == c) ++depth;
        if (d == open && --depth == 0) break;
        --j;
      }
      if (j == 0) return "";
      i = j - 1;
      // A call: the function name before the parenthesis belongs to the receiver.
      continue;
    }
    break;
  }
  std::string r(line.substr(i, dot - i));
  // A number with a decimal point ("3.") is not a receiver.
  if (r.empty() || std::isdigit(static_cast<unsigned char>(r[0]))) return "";
  return r;
}

// True when the text before `pos` (after blanks) ends with a number literal: "3.35 ", "1e-6 ".
bool after_number(std::string_view line, std::size_t pos) {
  std::size_t i = pos;
  if (i == 0 || !is_blank(line[i - 1])) return false;
  while (i > 0 && is_blank(line[i - 1])) --i;
  const std::size_t end = i;
  while (i > 0 && (std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '.' || line[i - 1] == '_' ||
                   ((line[i - 1] == '-' || line[i - 1] == '+') && i > 1 && (line[i - 2] == 'e' || line[i - 2] == 'E'))))
    --i;
  const std::string_view tok = line.substr(i, end - i);
  if (tok.empty() || !std::isdigit(static_cast<unsigned char>(tok[0]))) return false;
  // Digits, '_', '.', and one exponent: anything else (`2x`) is not a number.
  for (char c : tok)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != 'e' && c != 'E' && c != '-' &&
        c != '+')
      return false;
  return true;
}

std::optional<Completion> complete_unit(const Program& p, std::string_view line) {
  // The unit written so far: no blanks inside a unit ("GB/s", "s^-1").
  std::size_t tok = line.size();
  while (tok > 0 && !is_blank(line[tok - 1]) &&
         std::string_view("(),[]{}+=<>!&|\"'#:").find(line[tok - 1]) == std::string_view::npos)
    --tok;
  if (!after_number(line, tok)) return std::nullopt;
  // Complete the last atom, after the last '/', '*' or '·'; nothing inside an exponent.
  std::size_t atom = tok;
  for (std::size_t i = tok; i < line.size(); ++i) {
    if (line[i] == '/' || line[i] == '*') atom = i + 1;
    if (line.compare(i, 2, "·") == 0) atom = i + 2;
  }
  if (line.substr(atom).find('^') != std::string_view::npos) return Completion{atom, {}};
  std::vector<std::string> out;
  keep_prefixed(out, p.units.all_unit_names(), line.substr(atom));
  return finish(atom, std::move(out));
}

std::vector<std::string> loadable_files(std::string_view prefix) {
  namespace fs = std::filesystem;
  const std::string dir_text =
      prefix.find('/') == std::string_view::npos ? "" : std::string(prefix.substr(0, prefix.rfind('/') + 1));
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir_text.empty() ? fs::path(".") : fs::path(dir_text), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    const bool dir = it->is_directory(ec);
    if (!dir && it->path().extension() != ".mls") continue;
    out.push_back(dir_text + name + (dir ? "/" : ""));
  }
  std::vector<std::string> kept;
  keep_prefixed(kept, out, prefix);
  return kept;
}

Completion complete_code(ReplSession& s, std::string_view line);

Completion complete_meta(ReplSession& s, std::string_view line, std::size_t colon,
                         const std::vector<std::string>& meta) {
  const Program& p = s.core().session().prog;
  std::size_t cmd_end = colon;
  while (cmd_end < line.size() && !is_blank(line[cmd_end])) ++cmd_end;
  if (cmd_end == line.size()) {
    std::vector<std::string> out;
    keep_prefixed(out, meta, line.substr(colon));
    return finish(colon, std::move(out));
  }
  const std::string_view cmd = line.substr(colon, cmd_end - colon);
  std::size_t arg = cmd_end;
  while (arg < line.size() && is_blank(line[arg])) ++arg;
  const std::string_view text = line.substr(arg);
  std::vector<std::string> out;
  if (cmd == ":use") {
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos) {
      auto names = convention_names(p);
      for (auto& n : names) n += "=";
      keep_prefixed(out, names, text);
      return finish(arg, std::move(out));
    }
    std::string_view conv = text.substr(0, eq);
    while (!conv.empty() && is_blank(conv.back())) conv.remove_suffix(1);
    std::size_t c = arg + eq + 1;
    while (c < line.size() && is_blank(line[c])) ++c;
    keep_prefixed(out, choice_names(p, conv), line.substr(c));
    return finish(c, std::move(out));
  }
  if (cmd == ":conventions") {
    const std::size_t last = line.find_last_of(" \t") + 1;
    keep_prefixed(out, convention_names(p), line.substr(last));
    return finish(last, std::move(out));
  }
  if (cmd == ":preset") {
    keep_prefixed(out, preset_names(p), text);
    return finish(arg, std::move(out));
  }
  if (cmd == ":units") {
    std::vector<std::string> dims{"dimensionless"};
    for (const auto& d : p.units.dimensions()) dims.push_back(d.name);
    keep_prefixed(out, dims, text);
    return finish(arg, std::move(out));
  }
  if (cmd == ":load") return finish(arg, loadable_files(text));
  if (cmd == ":help") {
    keep_prefixed(out, meta, std::string(":") + std::string(text));
    for (auto& o : out) o.erase(0, 1);
    return finish(arg, std::move(out));
  }
  if (cmd == ":explain" || cmd == ":assumptions" || cmd == ":diff") return complete_code(s, line);
  return Completion{line.size(), {}};
}

Completion complete_code(ReplSession& s, std::string_view line) {
  const Program& p = s.core().session().prog;
  const std::size_t ws = ident_start(line, line.size());
  const std::string_view word = line.substr(ws);
  // A field: complete against the static type of the expression before the dot.
  if (ws > 0 && line[ws - 1] == '.') {
    const std::string recv = receiver(line, ws - 1);
    std::vector<std::string> out;
    if (recv.empty()) return Completion{ws, {}};
    TypeP t = s.type_of(recv);
    if (!t || t->k != Type::K::record) return Completion{ws, {}};
    std::vector<std::string> fields;
    for (const auto& [name, ft] : t->fields) fields.push_back(sym_name(name));
    keep_prefixed(out, fields, word);
    return finish(ws, std::move(out));
  }
  if (auto u = complete_unit(p, line)) return *u;
  // `use NAME = CHOICE` and `preset NAME` statements.
  std::size_t b = 0;
  while (b < line.size() && is_blank(line[b])) ++b;
  const std::string_view stmt = line.substr(b);
  std::vector<std::string> out;
  if (stmt.rfind("use ", 0) == 0) {
    const std::size_t eq = stmt.find('=');
    if (eq == std::string_view::npos) {
      keep_prefixed(out, convention_names(p), word);
    } else {
      std::string_view conv = stmt.substr(4, eq - 4);
      while (!conv.empty() && is_blank(conv.front())) conv.remove_prefix(1);
      while (!conv.empty() && is_blank(conv.back())) conv.remove_suffix(1);
      keep_prefixed(out, choice_names(p, conv), word);
    }
    return finish(ws, std::move(out));
  }
  if (stmt.rfind("preset ", 0) == 0) {
    keep_prefixed(out, preset_names(p), word);
    return finish(ws, std::move(out));
  }
  // A name; nothing for an empty word or inside a number ("1e" is not a name).
  if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0]))) return Completion{ws, {}};
  keep_prefixed(out, scope_names(p), word);
  return finish(ws, std::move(out));
}

}  // namespace

std::string common_prefix(const std::vector<std::string>& c) {
  if (c.empty()) return "";
  std::string pre = c.front();
  for (const auto& s : c) {
    std::size_t i = 0;
    while (i < pre.size() && i < s.size() && pre[i] == s[i]) ++i;
    pre.resize(i);
  }
  return pre;
}

Completion complete(ReplSession& s, std::string_view line, const std::vector<std::string>& meta) {
  std::size_t first = 0;
  while (first < line.size() && is_blank(line[first])) ++first;
  if (first < line.size() && line[first] == ':') return complete_meta(s, line, first, meta);
  return complete_code(s, line);
}

}  // namespace mls
