// diag_data.cpp — see diag_data.hpp.
#include "diag_data.hpp"

#include "grammar/diagnostic.hpp"

namespace mls::binding {

DiagData diag_data(const Sources& src, const Diagnostic& d) {
  DiagData o;
  const ErrorKindInfo& k = info(d.kind);
  o.severity = d.severity == Severity::error ? "error" : "warning";
  o.code = k.code;
  o.exit_code = k.exit_code;
  o.message = d.message;
  o.label = d.label;
  o.subject = d.subject;
  o.expected = d.expected;
  o.got = d.got;
  o.help = d.help;
  o.suggestions = d.suggestions;
  o.text = d.span.valid() ? render(src, d) : render_unplaced(d);
  if (d.span.valid()) {
    const SourceFile& f = src.get(d.span.file);
    const LineCol b = f.locate(d.span.begin), e = f.locate(d.span.end);
    o.file = f.name;
    o.line = f.shown_line(b.line);
    o.col = b.col;
    o.end_line = f.shown_line(e.line);
    o.end_col = e.col;
    o.at = src.where_col(d.span);
  }
  for (const Label& l : d.notes) o.notes.emplace_back(l.span.valid() ? src.where_col(l.span) : "", l.text);
  return o;
}

std::vector<DiagData> diag_data(const Sources& src, const Diagnostics& ds, std::size_t from, std::string* text) {
  std::vector<DiagData> out;
  // Errors first (the exception is about the first), then warnings.
  for (const Severity sev : {Severity::error, Severity::warning})
    for (std::size_t i = from; i < ds.items().size(); ++i)
      if (ds.items()[i].severity == sev) out.push_back(diag_data(src, ds.items()[i]));
  if (text) {
    Diagnostics tail;
    for (std::size_t i = from; i < ds.items().size(); ++i) tail.add(ds.items()[i]);
    *text = render_all(src, tail);
  }
  return out;
}

}  // namespace mls::binding
