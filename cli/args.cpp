// args.cpp — the command line read through the tables of command_table.hpp: flags matched whole
// (`--format csv`, `--format=csv`), each checked against the command's row, every usage error
// saying what was wrong; the usage text, `mls help` and the dispatch, all generated from the rows.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "grammar/diagnostic.hpp"
#include "interpreter/tooling/controls.hpp"

namespace mls {

namespace {

std::string flag_name(Flag f) { return spec(f).name; }

// "text, json or md" (messages) or "text|json|md" (usage lines).
std::string listed(const std::vector<const char*>& items, const char* sep, const char* last) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? last : sep) + std::string(items[i]);
  return out;
}

std::string filled(std::string text, const std::string& key, const std::string& value) {
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

std::string synopsis(const Command& c, const char* line) {
  return filled(line, "{formats}", listed(c.formats, "|", "|"));
}

// The rules of `c` for flag `f` (a flag may have several: --uncertainty needs text or json and
// excludes --shard).
std::vector<const FlagUse*> uses_of(const Command& c, Flag f) {
  std::vector<const FlagUse*> out;
  for (const FlagUse& u : c.flags)
    if (u.flag == f) out.push_back(&u);
  return out;
}

bool takes(const Command& c, Flag f) {
  if (f == Flag::format) return !c.formats.empty();
  return f == Flag::help || f == Flag::version || !uses_of(c, f).empty();
}

// "--top applies to sensitivity and report --sensitivity only", or, for a flag most commands
// take, "conventions does not take --use".
std::string not_taken(const Command& c, Flag f) {
  std::vector<std::string> where;
  for (const Command& o : command_table())
    for (const FlagUse* u : uses_of(o, f)) {
      where.push_back(std::string(o.name) + (*u->with ? std::string(" ") + u->with : ""));
      break;
    }
  if (where.empty() || where.size() > 3)
    return std::string(c.name) + " does not take " + flag_name(f) + " (`mls help " + c.name + "` lists its flags)";
  std::vector<const char*> names;
  for (const auto& w : where) names.push_back(w.c_str());
  return flag_name(f) + " applies to " + listed(names, ", ", " and ") + " only";
}

const char* count_word(int n) {
  static const char* words[] = {"no", "one", "two", "three"};
  return n >= 0 && n < 4 ? words[n] : "several";
}

// What is wrong with flag `f` as `c` takes it, or "".
std::string flag_problem(const Command& c, const Args& a, Flag f) {
  for (Flag r : c.refused)
    if (r == f) return c.refused_why;
  if (!takes(c, f)) return not_taken(c, f);
  for (const FlagUse* u : uses_of(c, f)) {
    if (u->max > 0 && a.given[static_cast<std::size_t>(f)] > u->max)
      return std::string(c.name) + " takes " +
             (u->max == 1 ? "one " : "at most " + std::string(count_word(u->max)) + " ") + flag_name(f);
    if (u->needs != Flag::none && !a.has(u->needs))
      return flag_name(f) + " needs " + flag_name(u->needs) +
             (spec(u->needs).value ? " " + std::string(spec(u->needs).value) : "");
    if (u->excludes != Flag::none && a.has(u->excludes))
      return flag_name(f) + " " + u->why + ": it cannot be combined with " + flag_name(u->excludes);
  }
  return "";
}

// A flag that works with some formats only, given with another: said once the format is known.
std::string format_problem(const Command& c, const Args& a) {
  for (const FlagUse& u : c.flags) {
    if (u.formats.empty() || !a.has(u.flag)) continue;
    bool ok = false;
    for (const char* f : u.formats) ok = ok || a.format == f;
    if (ok) continue;
    if (u.formats.size() == 1) return flag_name(u.flag) + " " + u.why + ": it needs --format " + u.formats[0];
    return flag_name(u.flag) + " " + u.why + ": use --format " + listed(u.formats, ", ", " or ");
  }
  return "";
}

// Reads one flag (argv[i], and its value from argv[i + 1] unless written `--flag=value`).
std::string read_flag(int argc, char** argv, int& i, Args& a) {
  const std::string arg = argv[i];
  const std::size_t eq = arg.find('=');
  const std::string name = arg.substr(0, eq);
  const FlagSpec* s = nullptr;
  for (const FlagSpec& f : flag_table())
    if (name == f.name) s = &f;
  if (name == "-h") s = &spec(Flag::help);
  if (!s) {
    std::vector<std::string> names;
    for (const FlagSpec& f : flag_table()) names.emplace_back(f.name);
    const std::string near = closest(name, names);
    return "unknown option '" + arg + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)");
  }
  ++a.given[static_cast<std::size_t>(s->id)];
  if (!s->value) {
    if (eq != std::string::npos) return std::string(s->name) + " takes no value, got '" + arg + "'";
    a.help = a.help || s->id == Flag::help;
    a.version = a.version || s->id == Flag::version;
    a.diff = a.diff || s->id == Flag::diff;
    return s->apply(a, "");
  }
  if (eq != std::string::npos) return s->apply(a, arg.substr(eq + 1));
  if (i + 1 >= argc) return std::string(s->name) + " needs a value (" + s->value + ")";
  return s->apply(a, argv[++i]);
}

// The lines of `--help` for the flags: name and value, then the help text in a column.
std::string flag_lines(const std::vector<Flag>& flags, const Command* c) {
  std::string out;
  for (Flag f : flags) {
    const FlagSpec& s = spec(f);
    std::string head = std::string("  ") + s.name;
    if (f == Flag::format && c)
      head += " " + listed(c->formats, "|", "|");
    else if (s.value)
      head += std::string(" ") + s.value;
    std::string help = f == Flag::format && c ? "output format (default " + std::string(c->formats[0]) + ")" : s.help;
    if (head.size() < 30)
      head.resize(30, ' ');
    else
      head += "\n" + std::string(30, ' ');
    out += head + filled(help, "\n ", "\n" + std::string(30, ' ')) + "\n";
  }
  return out;
}

std::string usage_text() {
  std::string out = "usage: mls COMMAND [ARGS]   (`mls help COMMAND`: one command's usage and flags)\n\ncommands:\n";
  for (const Command& c : command_table()) {
    for (const char* line : c.synopses) out += "  " + synopsis(c, line) + "\n";
    out += "      " + filled(filled(c.summary, "{formats}", listed(c.formats, "|", "|")), "\n ", "\n      ") + "\n";
  }
  out += "\noptions:\n";
  std::vector<Flag> all;
  for (const FlagSpec& f : flag_table()) all.push_back(f.id);
  out += flag_lines(all, nullptr);
  out +=
      "\nexit codes: 0 ok, 1 assertion failed (run) or differences found (diff), 2 no feasible point (run),\n"
      "            64 usage, 65 input error, 66 input missing, 70 internal error, 73 cannot write output,\n"
      "            130 interrupted (Ctrl-C)\n";
  return out;
}

std::string command_text(const Command& c) {
  std::string out;
  for (std::size_t i = 0; i < c.synopses.size(); ++i)
    out += (i == 0 ? "usage: mls " : "       mls ") + synopsis(c, c.synopses[i]) + "\n";
  out += "\n" + filled(filled(c.summary, "{formats}", listed(c.formats, "|", "|")), "\n ", "\n") + "\n";
  std::vector<Flag> flags;  // in the flag table's order
  for (const FlagSpec& f : flag_table())
    if (f.id != Flag::help && f.id != Flag::version && takes(c, f.id)) flags.push_back(f.id);
  if (!flags.empty()) out += "\nflags:\n" + flag_lines(flags, &c);
  if (c.interruptible) out += "\nCtrl-C stops it as an error (exit 130); --out files are left as they were.\n";
  return out;
}

// The tables as JSON (`mls help --format json`), for tools: tests/gen_usage_goldens.py generates
// the golden tests of malformed command lines from it.
std::string tables_json() {
  auto strings = [](const std::vector<const char*>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_string(v[i]);
    return s + "]";
  };
  auto flag_or_null = [](Flag f) { return f == Flag::none ? std::string("null") : json_string(spec(f).name); };
  std::string out = "{\"flags\": [";
  for (std::size_t i = 0; i < flag_table().size(); ++i) {
    const FlagSpec& f = flag_table()[i];
    out += std::string(i ? ",\n  " : "\n  ") + "{\"name\": " + json_string(f.name) +
           ", \"value\": " + (f.value ? json_string(f.value) : "null") + ", \"example\": " + json_string(f.example) +
           ", \"bad_value\": " + json_string(f.bad_value) + "}";
  }
  out += "\n ],\n \"commands\": [";
  for (std::size_t i = 0; i < command_table().size(); ++i) {
    const Command& c = command_table()[i];
    std::vector<const char*> refused;
    for (Flag f : c.refused) refused.push_back(spec(f).name);
    std::vector<std::string> syn;
    for (const char* line : c.synopses) syn.push_back(synopsis(c, line));
    std::vector<const char*> syn_c;
    for (const auto& l : syn) syn_c.push_back(l.c_str());
    out += std::string(i ? ",\n  " : "\n  ") + "{\"name\": " + json_string(c.name) +
           ", \"synopses\": " + strings(syn_c) + ", \"formats\": " + strings(c.formats) +
           ", \"interruptible\": " + (c.interruptible ? "true" : "false") + ", \"refused\": " + strings(refused) +
           ", \"flags\": [";
    for (std::size_t k = 0; k < c.flags.size(); ++k) {
      const FlagUse& u = c.flags[k];
      out += std::string(k ? ", " : "") + "{\"name\": " + json_string(spec(u.flag).name) +
             ", \"max\": " + std::to_string(u.max) + ", \"needs\": " + flag_or_null(u.needs) +
             ", \"excludes\": " + flag_or_null(u.excludes) + ", \"formats\": " + strings(u.formats) + "}";
    }
    out += "]}";
  }
  return out + "\n ]}\n";
}

// Every flag given, checked against the command's row; then --format against its formats.
std::string check_args(const Command& c, Args& a) {
  for (std::size_t f = 0; f < kFlagCount; ++f)
    if (a.given[f])
      if (std::string why = flag_problem(c, a, static_cast<Flag>(f)); !why.empty()) return why;
  if (!c.formats.empty()) {
    if (a.format.empty()) a.format = c.formats[0];
    bool ok = false;
    for (const char* f : c.formats) ok = ok || a.format == f;
    if (!ok) return filled(filled(c.format_error, "{formats}", listed(c.formats, ", ", " or ")), "{got}", a.format);
  }
  return format_problem(c, a);
}

}  // namespace

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "mls: %s\n(run `mls --help` for usage)\n", msg.c_str());
  return info(ErrorKind::usage).exit_code;
}

int usage_error(const Args& a, const std::string& msg) {
  if (!a.command || !a.command->synopsis_on_error) return usage_error(msg);
  std::string lines;
  for (std::size_t i = 0; i < a.command->synopses.size(); ++i)
    lines += (i == 0 ? "usage: mls " : "       mls ") + synopsis(*a.command, a.command->synopses[i]) + "\n";
  std::fprintf(stderr, "mls: %s\n%s", msg.c_str(), lines.c_str());
  return info(ErrorKind::usage).exit_code;
}

int cmd_help(const Args& a) {
  if (a.positional.size() > 2) return usage_error(a, "help takes one COMMAND");
  if (a.format == "json") return emit(a, tables_json());
  if (a.positional.size() == 1) return emit(a, usage_text());
  const Command* c = find_command(a.positional[1]);
  if (!c) return usage_error(a, "no command '" + a.positional[1] + "'");
  return emit(a, command_text(*c));
}

int dispatch(int argc, char** argv) {
  // Validation tables (the bands train() results carry) are kept on disk between runs
  // (docs/validation.md, "What it costs").
  Scenario::enable_validation_cache();
  Args a;
  std::string error;
  for (int i = 1; i < argc && error.empty(); ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 1 && arg[0] == '-' && arg != "-")
      error = read_flag(argc, argv, i, a);
    else
      a.positional.push_back(arg);
  }
  // A flag or value that cannot be read is said with the pointer to --help; what the command's
  // row refuses, with its usage lines when the row asks for them.
  if (!error.empty()) return usage_error(error);
  if (!a.positional.empty()) a.command = find_command(a.positional[0]);
  if (a.version) {
    std::printf("mls %s\n", kVersion);
    return 0;
  }
  if (a.positional.empty()) {
    const std::string text = usage_text();
    std::fputs(text.c_str(), a.help ? stdout : stderr);
    return a.help ? 0 : info(ErrorKind::usage).exit_code;
  }
  if (!a.command) {
    std::vector<std::string> names;
    for (const Command& c : command_table()) names.emplace_back(c.name);
    const std::string near = closest(a.positional[0], names);
    return usage_error("unknown command '" + a.positional[0] + "'" +
                       (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  if (a.help) {
    const std::string text = command_text(*a.command);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (const std::string why = check_args(*a.command, a); !why.empty()) return usage_error(a, why);
  if (!a.command->interruptible) return a.command->handler(a);
  // Ctrl-C stops the evaluation as an error (run.interrupted, exit 130): `--out` files are left
  // as they were and the progress line is cleared.
  const InterruptScope ctrl_c;
  return a.command->handler(a);
}

}  // namespace mls
