// page.cpp — see page.hpp.
#include "page.hpp"

#include "chart.hpp"
#include "interpreter/results/format.hpp"

namespace mls {

namespace {

// Readable on screen and on paper; colours from the Okabe-Ito set the charts use.
constexpr const char* kStyle = R"(
body{font:15px/1.45 system-ui,sans-serif;color:#222;max-width:1100px;margin:0 auto;padding:0 16px 40px}
h1{font-size:1.5em;margin:.8em 0 .2em}h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid #ccc}
code{font-family:ui-monospace,monospace}.meta{color:#555;margin:0}
nav ul{columns:2;padding-left:1.2em}
.result{margin:.15em 0}.result>summary{cursor:pointer}
.name{font-family:ui-monospace,monospace;font-weight:600}.value{font-weight:600}
.badge{display:inline-block;font-size:.78em;padding:0 .5em;border-radius:.7em;margin-left:.5em;border:1px solid}
.badge.validated{color:#005a8c;border-color:#0072B2}.badge.extrapolated{color:#6b5200;border-color:#b58900;border-style:dashed}.badge.regime{color:#8a3b00;border-color:#D55E00}
.badge.best{color:#00664a;border-color:#009E73}.badge.fail{color:#fff;background:#D55E00;border-color:#D55E00}
.kind{margin:.3em 0 .3em 1.2em}.kind h4{margin:.2em 0;font-size:.85em;text-transform:uppercase;color:#555}
table{border-collapse:collapse;margin:.4em 0;font-size:.92em}
th,td{padding:.15em .6em;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.data th button{font:inherit;font-weight:600;border:0;background:none;padding:0;cursor:pointer;color:inherit}
table.data th[aria-sort=ascending] button::after{content:" \25B2"}table.data th[aria-sort=descending] button::after{content:" \25BC"}
tr.regime td{background:#fbeee4}tr.best td{background:#e3f4ee}td.note{font-size:.88em;color:#8a3b00}
.chart{max-width:100%;height:auto;display:block;margin:.5em 0}
.counts{color:#555}.ok{color:#00664a}.failed{color:#b34700;font-weight:600}
.because{font-size:.88em;color:#444}.because code{white-space:nowrap}td.up{color:#8a3b00}td.down{color:#005a8c}
@media print{nav,table.data th button::after{display:none}section{break-inside:avoid-page}body{max-width:none}
a{color:inherit;text-decoration:none}}
)";

// Sorting by a column header (numbers by their data-v value, text otherwise; ties keep the
// original order), and every <details> opened before printing. The page reads without it.
constexpr const char* kScript = R"(
(function () {
  function key(td) { var v = td.getAttribute('data-v'); return v === null ? td.textContent : v; }
  var tables = document.querySelectorAll('table.data');
  for (var t = 0; t < tables.length; t++) (function (table) {
    var heads = table.tHead.rows[0].cells, body = table.tBodies[0];
    for (var i = 0; i < heads.length; i++) (function (th, col) {
      var b = th.querySelector('button');
      if (!b) return;
      b.addEventListener('click', function () {
        var asc = th.getAttribute('aria-sort') !== 'ascending';
        for (var h = 0; h < heads.length; h++) heads[h].removeAttribute('aria-sort');
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var x = key(r1.cells[col]), y = key(r2.cells[col]), nx = parseFloat(x), ny = parseFloat(y), c;
          if (!isNaN(nx) && !isNaN(ny)) c = nx - ny; else c = x < y ? -1 : x > y ? 1 : 0;
          if (c === 0) c = r1.getAttribute('data-i') - r2.getAttribute('data-i');
          else if (!asc) c = -c;
          return c;
        });
        for (var r = 0; r < rows.length; r++) body.appendChild(rows[r]);
      });
    })(heads[i], i);
  })(tables[t]);
  window.addEventListener('beforeprint', function () {
    var ds = document.querySelectorAll('details');
    for (var d = 0; d < ds.length; d++) ds[d].open = true;
  });
})();
)";

}  // namespace

std::string page_head(const std::string& title) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // Nothing may be fetched: the page is complete as it is (styles and script are inline).
  s += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'\">\n";
  s += "<title>" + xml_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  return s;
}

std::string page_foot() {
  return "<footer><p class=\"meta\">Made by <code>mls report</code> " + std::string(kVersion) +
         "; charts are SVG drawn by mls, the page needs no network and reads without JavaScript.</p></footer>\n"
         "<script>" +
         std::string(kScript) + "</script>\n</body>\n</html>\n";
}

}  // namespace mls
