//! `index.html`: one self-contained page (inline CSS and JS, no external
//! URL) to browse a run: totals, filters by outcome, area (`server/tools`)
//! and version, and per case its findings and transcript, expanded inline.
//!
//! The page's data is the report document plus every transcript as
//! `[at_ms, dir, text]` triples, embedded as JSON in
//! `<script type="application/json" id="mcpspec-data">`. [`script_json`]
//! escapes `<`, `>`, `&` and U+2028/2029 inside it, so no text can close
//! the script element; the page's script (`html/page.js`) puts every string
//! into the DOM as text, never as markup. The target under test controls
//! transcript content: nothing it sends can run in the page.
//!
//! An interrupted run (Ctrl-C) shows a banner under the totals, written
//! into the page itself (it needs no script).
//!
//! The URL selects: `index.html?outcome=fail&area=server/tools&version=…&case=<id>`
//! (`case` expands that case; `#case=<id>` works too).

use serde_json::{json, Map, Value};

use crate::model::Report;

const CSS: &str = include_str!("html/page.css");
const JS: &str = include_str!("html/page.js");

/// `text` safe in HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON that can sit inside a `<script>` element: `<`, `>`, `&`, U+2028
/// and U+2029 as `\u` escapes (they only occur inside JSON strings, where
/// the escapes mean the same).
pub fn script_json(value: &Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The page for `report`; `transcripts` maps case ids to their lines.
pub fn render(report: &Report, transcripts: Map<String, Value>) -> String {
    let data = json!({ "report": report, "transcripts": transcripts });
    let title = format!(
        "mcpspec: {} failed, {} passed — {}",
        report.summary.failed, report.summary.passed, report.run.target
    );
    let mut page = String::new();
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // No network: the page loads nothing, and may not.
    page.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    page.push_str(&format!("<title>{}</title>\n<style>\n", escape(&title)));
    page.push_str(CSS);
    page.push_str("</style>\n</head>\n<body>\n<header>\n<h1>mcpspec report: <span id=\"target\"></span></h1>\n");
    page.push_str(
        "<div class=\"meta\" id=\"meta\"></div>\n<div class=\"totals\" id=\"totals\"></div>\n",
    );
    if report.interrupted {
        page.push_str(&format!(
            "<p class=\"interrupted\" id=\"interrupted\">Interrupted ({}): {} of {} planned \
             cases finished; the others did not run.</p>\n",
            escape(report.run.interrupted_by.as_deref().unwrap_or("stopped")),
            report.results.len(),
            report.run.planned
        ));
    }
    page.push_str(concat!(
        "<div class=\"filters\">\n",
        "<label>outcome <select id=\"f-outcome\" name=\"outcome\"><option value=\"\">all</option></select></label>\n",
        "<label>area <select id=\"f-area\" name=\"area\"><option value=\"\">all</option></select></label>\n",
        "<label>version <select id=\"f-version\" name=\"version\"><option value=\"\">all</option></select></label>\n",
        "<label>search <input id=\"f-text\" type=\"search\" placeholder=\"id, title, message\"></label>\n",
        "<span class=\"meta\" id=\"shown\"></span>\n</div>\n</header>\n",
        "<noscript><p>This page needs JavaScript. The same data is in report.json, ",
        "summary.md and transcripts/.</p></noscript>\n",
        "<main id=\"cases\"></main>\n<p class=\"empty\" id=\"none\" hidden>No case matches the filters.</p>\n",
    ));
    page.push_str("<script type=\"application/json\" id=\"mcpspec-data\">");
    page.push_str(&script_json(&data));
    page.push_str("</script>\n<script>\n");
    page.push_str(JS);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_close_the_script() {
        let v = json!({ "t": "</script><script>alert(1)</script>&\u{2028}" });
        let s = script_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn html_text_is_escaped() {
        assert_eq!(
            escape("<a href='x'>\"&"),
            "&lt;a href=&#39;x&#39;&gt;&quot;&amp;"
        );
    }

    #[test]
    fn the_page_refers_to_nothing_outside() {
        for text in [CSS, JS] {
            assert!(
                !text.contains("http://") || !text.contains("src="),
                "no external asset"
            );
            assert!(!text.contains("@import") && !text.contains("url("));
        }
        assert!(!JS.contains("innerHTML") && !JS.contains("eval("));
    }
}
