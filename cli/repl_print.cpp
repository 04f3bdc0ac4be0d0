// repl_print.cpp — how `mls repl` draws errors: the caret under the prompt line (the text of
// answers, definitions and tables comes from ReplSession::format).
#include <algorithm>

#include "repl.hpp"

namespace mls {

namespace {

// Display width of UTF-8 text (lead bytes), for carets under multi-byte characters.
std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace

std::string render_at_prompt(const Sources& src, const Diagnostic& d, const PromptLine& pl) {
  const std::string lead = "command line: ";
  if (!d.span.valid()) {
    // No place (a file that cannot be read): at the REPL, "command line" would mislead.
    std::string text = render(src, d);
    return text.rfind(lead, 0) == 0 ? text.substr(lead.size()) : text;
  }
  if (!pl.active || src.get(d.span.file).text != pl.text + "\n") return render(src, d);
  const std::string_view line = pl.text;
  const std::size_t b = std::min<std::size_t>(d.span.begin, line.size());
  const std::size_t e = std::clamp<std::size_t>(d.span.end, b, line.size());
  auto underline = [&](std::size_t from, std::size_t to, char head, char tail, const std::string& label) {
    const std::size_t w = std::max<std::size_t>(1, columns(line.substr(from, to - from)));
    std::string s = std::string(pl.prompt_width + columns(line.substr(0, from)), ' ') + head + std::string(w - 1, tail);
    if (!label.empty()) s += " " + label;
    return s + "\n";
  };
  std::string out = underline(b, e, '^', '~', d.label);
  // Secondary spans on the same line get their own underline rows; the rest render as usual.
  Diagnostic rest = d;
  rest.notes.clear();
  for (const auto& n : d.notes) {
    if (n.span.valid() && n.span.file == d.span.file) {
      const std::size_t nb = std::min<std::size_t>(n.span.begin, line.size());
      out += underline(nb, std::clamp<std::size_t>(n.span.end, nb, line.size()), '-', '-', n.text);
    } else {
      rest.notes.push_back(n);
    }
  }
  rest.span = Span{};
  std::string tail = render(src, rest);
  // Without a place, render() starts with "command line: "; here the place is the line above.
  if (tail.rfind(lead, 0) == 0) tail.erase(0, lead.size());
  return out + tail;
}

}  // namespace mls
