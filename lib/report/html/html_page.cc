// The page frame of the HTML reports: head (charset, viewport, generator,
// a Content-Security-Policy that forbids every request), the stylesheet, the
// footer and the script. The stylesheet and the script are literals here so
// that the page needs nothing beside itself; neither holds a URL, and the
// script is written without "//" comments so that the page source holds no
// "//" at all (the tests look for it).
#include "report/html/html_page.h"

#include "common/version.h"
#include "report/html/html_text.h"

namespace casefile::html {
namespace {

// Calm, light, system fonts; severity colours red / amber / blue. Narrow
// screens stack the filter bar and let wide tables scroll inside
// div.scroll; print hides the filter UI, shows every hidden element (closed
// details, filtered findings) and drops fixed widths. A bundle name without
// spaces wraps rather than widening the page (.subtitle .bundle, and h3:
// the inventory names each bundle in one).
// table.diff-list is the diff page's item table: on wide screens wide enough
// for its five columns (div.scroll scrolls it when the window is narrower);
// on narrow screens each item becomes a block, cells one under the other, so
// nothing is squeezed to a letter a line; in print no fixed width.
constexpr std::string_view kStyle = R"CSS(
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#ffffff;--soft:#f6f8fa;
--err:#c62828;--err-bg:#fdecea;--warn:#b26a00;--warn-bg:#fff4e0;--info:#1565c0;--info-bg:#e8f1fc;
--ok:#2e7d32;--mark:#fff1a8;}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;color:var(--fg);background:var(--bg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header,main,footer{max-width:1200px;margin:0 auto;padding:0 24px}
header{padding-top:24px;border-bottom:1px solid var(--line);padding-bottom:12px}
h1{font-size:1.6em;margin:0 0 4px}
h2{font-size:1.25em;margin:32px 0 12px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:1.05em;margin:20px 0 8px;overflow-wrap:anywhere}
.subtitle{margin:0;color:var(--muted)}
.subtitle .bundle{display:inline-block;margin-right:16px;max-width:100%;overflow-wrap:anywhere}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:0.9em}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:0.8em;font-weight:600;
line-height:1.6;vertical-align:baseline;border:1px solid transparent}
.badge.error,.badge.unreadable{color:var(--err);background:var(--err-bg);border-color:var(--err)}
.badge.warning,.badge.partial{color:var(--warn);background:var(--warn-bg);border-color:var(--warn)}
.badge.info{color:var(--info);background:var(--info-bg);border-color:var(--info)}
.badge.ok{color:var(--ok);background:#e8f5e9;border-color:var(--ok)}
.headline{font-size:1.15em;margin:16px 0;padding:12px 16px;border-left:4px solid var(--info);background:var(--soft)}
.headline.sev-error{border-left-color:var(--err);background:var(--err-bg)}
.headline.sev-warning{border-left-color:var(--warn);background:var(--warn-bg)}
ol.headline-list{padding-left:24px}
li.headline-item{margin:6px 0;font-size:1.05em}
li.headline-item .score{display:inline-block;min-width:2.2em;font-weight:600;color:var(--muted)}
.filters{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:8px 0 16px;padding:8px 12px;
background:var(--soft);border:1px solid var(--line);border-radius:6px}
.filters input[type=search]{flex:1 1 240px;min-width:0;padding:6px 8px;border:1px solid var(--line);border-radius:4px;font:inherit}
.filters label{white-space:nowrap}
.filters button{font:inherit;padding:4px 10px;border:1px solid var(--line);border-radius:4px;background:var(--bg);cursor:pointer}
article.finding{border:1px solid var(--line);border-left:4px solid var(--info);border-radius:6px;padding:12px 16px;margin:12px 0}
article.finding.sev-error{border-left-color:var(--err)}
article.finding.sev-warning{border-left-color:var(--warn)}
article.finding h4{margin:0 0 6px;font-size:1.05em}
article.finding .code{font-weight:600;margin-right:8px}
.summary{margin:6px 0}
ul.culprits{margin:6px 0;padding-left:20px}
.headline,article.finding h4,.summary,ul.culprits li,.recommendation,.empty,.more{overflow-wrap:anywhere}
.recommendation{margin:10px 0 0;padding:8px 12px;background:var(--soft);border-radius:4px}
.recommendation::before{content:"Recommendation: ";font-weight:600}
figure.evidence{margin:10px 0;border:1px solid var(--line);border-radius:4px;overflow:hidden}
figure.evidence figcaption{padding:4px 10px;background:var(--soft);border-bottom:1px solid var(--line);
font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.85em;overflow-wrap:anywhere}
pre{margin:0;padding:8px 10px;overflow-x:auto;white-space:pre;line-height:1.45}
pre .ln{display:inline-block;min-width:4.5em;color:var(--muted);user-select:none}
pre mark{display:inline-block;min-width:100%;background:var(--mark);color:inherit}
ul.evidence-list{margin:6px 0;padding-left:20px;font-size:0.9em}
ul.evidence-list li{overflow-wrap:anywhere}
.more{color:var(--muted);font-size:0.9em;margin:6px 0}
.more code{overflow-wrap:anywhere}
.empty{color:var(--muted);font-style:italic}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:8px 0;font-size:0.92em}
th,td{text-align:left;vertical-align:top;padding:4px 10px;border-bottom:1px solid var(--line)}
th{background:var(--soft);font-weight:600}
tbody tr:nth-child(even){background:#fafbfc}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.differs td:first-child{font-weight:600}
td.minority{background:var(--warn-bg);color:var(--warn);font-weight:600}
tr.diff-item td{overflow-wrap:anywhere}
table.diff-list{width:100%;min-width:48em}
table.diff-list td.score{white-space:nowrap}
table.diff-list td.key{min-width:12em}
table.diff-list .meta{color:var(--muted);font-size:0.9em}
table.diff-list .absent{color:var(--muted);font-style:italic;white-space:nowrap}
table.diff-list ul.evidence-list{margin:4px 0 0;padding-left:16px}
table.diff-list p{margin:0}
table.diff-list p.fields{margin-top:4px;color:var(--muted);font-size:0.85em}
.side-good{color:var(--ok)}
.side-bad{color:var(--err)}
figure.chart{margin:12px 0}
figure.chart figcaption{color:var(--muted);font-size:0.9em;margin-top:4px}
svg.chart{display:block;width:100%;height:auto;max-width:1100px;font-family:inherit}
svg.chart text{font-size:11px;fill:var(--fg)}
svg.chart .axis line,svg.chart .axis path{stroke:#8c959f;stroke-width:1}
svg.chart .grid line{stroke:#eaeef2;stroke-width:1}
svg.chart .series{fill:none;stroke-width:1.5}
svg.chart .mark line{stroke-dasharray:4 3;stroke-width:1.2}
svg.chart .nonfinite{stroke:var(--err);stroke-width:2}
svg.chart .hl rect.row-bg{fill:var(--warn-bg)}
details>summary{cursor:pointer;color:var(--muted)}
footer{margin-top:40px;padding:16px 24px 32px;color:var(--muted);font-size:0.85em;border-top:1px solid var(--line)}
.hidden{display:none !important}
@media (max-width:700px){
header,main,footer{padding-left:12px;padding-right:12px}
body{font-size:14px}
.filters{gap:8px 12px}
.filters input[type=search]{flex:1 1 100%}
article.finding{padding:10px}
th,td{padding:3px 6px}
table.diff-list{min-width:0}
table.diff-list thead{display:none}
table.diff-list tr,table.diff-list td{display:block}
table.diff-list td{border-bottom:0;padding:2px 6px}
table.diff-list td.score{text-align:left}
table.diff-list td.score::before{content:"score ";color:var(--muted)}
table.diff-list tr{border-bottom:1px solid var(--line);padding:6px 0}
table.diff-list td.good::before{content:"good: ";font-weight:600}
table.diff-list td.bad::before{content:"bad: ";font-weight:600}
}
@media print{
.filters,.noprint{display:none !important}
.hidden{display:block !important}
tr.hidden{display:table-row !important}
header,main,footer{max-width:none;padding:0}
body{font-size:11pt}
article.finding,figure.evidence,figure.chart,tr{break-inside:avoid}
pre{white-space:pre-wrap;overflow-wrap:anywhere;overflow:visible}
.scroll{overflow:visible}
svg.chart{max-width:100%}
details>*{display:block}
table.diff-list{min-width:0}
}
)CSS";

// Filtering by text and severity, expand/collapse all. The page is complete
// without it: every finding is shown and details can be opened by hand.
// No "//" comments in here (see the file comment).
constexpr std::string_view kScript = R"JS(
(function(){
  var items=function(){return document.querySelectorAll('article.finding, tr.diff-item');};
  var box=document.getElementById('filter');
  var toggles=document.querySelectorAll('input.sev-toggle');
  function apply(){
    var q=box?box.value.toLowerCase().trim():'';
    var off={};
    for(var i=0;i<toggles.length;i++){if(!toggles[i].checked){off[toggles[i].getAttribute('data-severity')]=true;}}
    var list=items();
    for(var j=0;j<list.length;j++){
      var el=list[j];
      var sev=el.getAttribute('data-severity');
      var hit=(!q||el.textContent.toLowerCase().indexOf(q)>=0)&&!(sev&&off[sev]);
      el.classList.toggle('hidden',!hit);
    }
  }
  if(box){box.addEventListener('input',apply);}
  for(var i=0;i<toggles.length;i++){toggles[i].addEventListener('change',apply);}
  function setAll(open){
    var d=document.querySelectorAll('details');
    for(var k=0;k<d.length;k++){d[k].open=open;}
  }
  var ex=document.getElementById('expand-all');
  var co=document.getElementById('collapse-all');
  if(ex){ex.addEventListener('click',function(){setAll(true);});}
  if(co){co.addEventListener('click',function(){setAll(false);});}
  window.addEventListener('beforeprint',function(){setAll(true);});
})();
)JS";

}  // namespace

std::string PageBegin(std::string_view title, std::string_view subtitle) {
  std::string out;
  out.reserve(16 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"casefile ";
  out += Escape(kVersionString);
  out += "\">\n";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n";
  out += "<title>";
  AppendEscaped(out, title);
  out += "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<header>\n<h1>";
  AppendEscaped(out, title);
  out += "</h1>\n<p class=\"subtitle\">";
  AppendEscaped(out, subtitle);
  out += "</p>\n</header>\n<main>\n";
  return out;
}

std::string PageBeginRaw(std::string_view title, std::string_view subtitle_html) {
  std::string out = PageBegin(title, "");
  const std::string_view empty_subtitle = "<p class=\"subtitle\"></p>";
  const size_t at = out.rfind(empty_subtitle);
  out.replace(at, empty_subtitle.size(),
              "<p class=\"subtitle\">" + std::string(subtitle_html) + "</p>");
  return out;
}

std::string PageEnd() {
  std::string out = "</main>\n<footer>Generated by casefile ";
  out += Escape(kVersionString);
  out +=
      ". A self-contained page: it loads nothing from the network. The JSON report "
      "(--format json) holds every finding and its evidence.</footer>\n<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

std::string SectionBegin(std::string_view id, std::string_view heading) {
  std::string out = "<section id=\"";
  AppendEscaped(out, id);
  out += "\">\n<h2>";
  AppendEscaped(out, heading);
  out += "</h2>\n";
  return out;
}

std::string SectionEnd() { return "</section>\n"; }

std::string MoreLine(int64_t n, std::string_view items, std::string_view command) {
  if (n <= 0) return "";
  std::string out = "<p class=\"more\">";
  out += std::to_string(n);
  out += " more ";
  AppendEscaped(out, items);
  out += ": <code>";
  AppendEscaped(out, command);
  out += "</code></p>\n";
  return out;
}

std::string FilterBar(std::string_view placeholder, bool severity_toggles, bool expand_buttons) {
  std::string out = "<div class=\"filters\" role=\"search\">\n";
  out += "<input id=\"filter\" type=\"search\" placeholder=\"";
  AppendEscaped(out, placeholder);
  out += "\" aria-label=\"";
  AppendEscaped(out, placeholder);
  out += "\">\n";
  if (severity_toggles) {
    for (const char* sev : {"error", "warning", "info"}) {
      out += "<label><input type=\"checkbox\" class=\"sev-toggle\" data-severity=\"";
      out += sev;
      out += "\" checked> ";
      out += sev;
      out += "</label>\n";
    }
  }
  if (expand_buttons) {
    out +=
        "<button type=\"button\" id=\"expand-all\">Expand all</button>\n"
        "<button type=\"button\" id=\"collapse-all\">Collapse all</button>\n";
  }
  out += "</div>\n";
  return out;
}

}  // namespace casefile::html
