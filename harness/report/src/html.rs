//! `index.html`: one self-contained page (inline CSS and JS, no external
//! URL) that opens on the problem:
//!
//! ```text
//! ┌ header (sticky): verdict · target · totals ─────────────────────────┐
//! │ banner: no case could run (reason, probe) / interrupted              │
//! │ the case named by ?case= (landed here, open, below the header)       │
//! │ broken requirements: the rollup, MUST first, with an example each    │
//! │ areas × versions: a coloured cell per case, problem areas open       │
//! │ cases: problems first; filters; group by requirement or area         │
//! └──────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! The header, banners, rollup and matrix are written into the page here
//! ([`summary`], [`matrix`]): they need no script. The case list, its
//! filters and each case's findings and transcript are built by the page's
//! script (`html/page.js`) from the report document plus every transcript
//! as `[at_ms, dir, text]` triples, embedded as JSON in
//! `<script type="application/json" id="mcpspec-data">`. [`write_script_json`]
//! escapes `<`, `>`, `&` and U+2028/2029 inside it, so no text can close
//! the script element; the script puts every string into the DOM as text,
//! never as markup. The target under test controls transcript content:
//! nothing it sends can run in the page.
//!
//! The URL selects: `index.html?outcome=fail&area=server/tools&version=…&group=requirement&case=<id>`
//! (`#case=<id>` works too). The named case is moved to the top of the
//! page, open, rather than scrolled to: a page scrolled by its own script
//! at load hid the case under the sticky header, and Chromium's headless
//! screenshot of such a page came out blank. Clicking a matrix cell or an
//! example does the same; in-page links (`#req-<id>`) land below the
//! header (`scroll-margin-top`).

mod matrix;
mod summary;

use std::io::{self, Write};

use serde::Serialize;
#[cfg(test)]
use serde_json::Value;

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
/// the escapes mean the same). Written as it is serialised: a run's
/// transcripts are never one string in memory (issue #18).
pub fn write_script_json<W: Write, T: Serialize + ?Sized>(w: W, value: &T) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(w, ScriptSafe);
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// Compact JSON whose string contents escape what could end a script element.
struct ScriptSafe;

impl serde_json::ser::Formatter for ScriptSafe {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut done = 0;
        for (i, c) in fragment.char_indices() {
            let escaped = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            w.write_all(&fragment.as_bytes()[done..i])?;
            w.write_all(escaped.as_bytes())?;
            done = i + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[done..])
    }
}

#[cfg(test)]
fn script_json(value: &Value) -> String {
    let mut out = Vec::new();
    write_script_json(&mut out, value).expect("writing to a Vec");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// `?case=<id>`, the id percent-encoded where a query needs it.
pub(crate) fn case_href(id: &str) -> String {
    let mut out = String::from("?case=");
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/@:".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What the page's script reads.
#[derive(Serialize)]
struct Data<'a, T: Serialize + ?Sized> {
    report: &'a Report,
    transcripts: &'a T,
}

/// Writes the page for `report` to `w`; `transcripts` serialises as a map
/// from case ids to their lines, each `[at_ms, dir, text]`.
pub fn write<W: Write, T: Serialize + ?Sized>(
    mut w: W,
    report: &Report,
    transcripts: &T,
) -> io::Result<()> {
    let s = &report.summary;
    let title = format!(
        "mcpspec: {} failed, {} blocked, {} warned, {} passed — {}",
        s.failed, s.blocked, s.warned, s.passed, report.run.target
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
    page.push_str("</style>\n</head>\n<body>\n");
    page.push_str(&summary::header(report));
    page.push_str(&summary::banners(report));
    page.push_str(
        "<section id=\"focus\" hidden><h2>Case <button type=\"button\" id=\"focus-close\">close</button></h2></section>\n",
    );
    page.push_str(&summary::rollup(report));
    page.push_str(&matrix::render(report));
    if !report.results.is_empty() {
        page.push_str(concat!(
            "<section id=\"list\"><h2>Cases</h2>\n<div class=\"filters\">\n",
            "<label>outcome <select id=\"f-outcome\" name=\"outcome\"><option value=\"\">all</option></select></label>\n",
            "<label>area <select id=\"f-area\" name=\"area\"><option value=\"\">all</option></select></label>\n",
            "<label>version <select id=\"f-version\" name=\"version\"><option value=\"\">all</option></select></label>\n",
            "<label>group by <select id=\"f-group\" name=\"group\"><option value=\"\">nothing (problems first)</option>",
            "<option value=\"requirement\">broken requirement</option><option value=\"area\">area</option></select></label>\n",
            "<label>search <input id=\"f-text\" type=\"search\" placeholder=\"id, title, message\"></label>\n",
            "<span class=\"meta\" id=\"shown\"></span>\n</div>\n",
            "<noscript><p>The case list needs JavaScript. The same data is in report.json, ",
            "summary.md and transcripts/.</p></noscript>\n",
            "<main id=\"cases\"></main>\n<p class=\"empty\" id=\"none\" hidden>No case matches the filters.</p>\n",
            "</section>\n",
        ));
    }
    page.push_str("<script type=\"application/json\" id=\"mcpspec-data\">");
    w.write_all(page.as_bytes())?;
    write_script_json(
        &mut w,
        &Data {
            report,
            transcripts,
        },
    )?;
    w.write_all(b"</script>\n<script>\n")?;
    w.write_all(JS.as_bytes())?;
    w.write_all(b"</script>\n</body>\n</html>\n")
}

/// The page, as a string (tests).
#[cfg(test)]
fn render(report: &Report, transcripts: &Value) -> String {
    let mut out = Vec::new();
    write(&mut out, report, transcripts).expect("writing to a Vec");
    String::from_utf8(out).expect("the page is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn target_text_in_the_banner_and_rollup_stays_text() {
        use mcpspec_engine::{Level, Version};
        use mcpspec_model::{CaseResult, Event, Finding, FindingSource, Outcome, Summary};
        let evil = "<script>document.title='pwned'</script><img src=x>";
        let mut log = crate::log::RunLog::new(false, None);
        log.observe(&Event::Probe {
            version: Version::V2025_06_18,
            supported: false,
            detail: evil.into(),
        });
        let case = CaseResult {
            id: "server/x@2025-06-18".into(),
            scenario: "server/x".into(),
            title: String::new(),
            version: Version::V2025_06_18,
            level: Level::Must,
            requirements: Vec::new(),
            outcome: Outcome::Fail,
            findings: vec![Finding {
                requirement: "ping.respond".into(),
                level: Level::Must,
                spec_url: "javascript:alert(1)".into(),
                summary: evil.into(),
                expected: vec![evil.into()],
                actual: evil.into(),
                location: None,
                source: FindingSource::Step,
            }],
            duration: std::time::Duration::ZERO,
            transcript: Vec::new(),
        };
        let mut summary = Summary::default();
        summary.add(&case.outcome);
        summary.unavailable = Some(evil.into());
        log.observe(&Event::CaseFinished(Box::new(case)));
        log.observe(&Event::RunFinished {
            summary,
            wall: std::time::Duration::ZERO,
            strict: false,
        });
        let page = render(
            &crate::model::build(&log, &|_| None),
            &serde_json::json!({}),
        );
        assert_eq!(page.matches("<script").count(), 2, "only the page's own");
        assert!(!page.contains("<img"), "no markup from the target");
        // The link is refused (the URL stays in the embedded data, as text).
        assert!(!page.contains("href=\"javascript:"));
        assert!(page.contains("<p class=\"reason\">&lt;script&gt;"));
        assert!(page.contains("<tr id=\"req-ping.respond\" class=\"l-must\">"));
    }

    #[test]
    fn case_links_encode_what_a_query_cannot_hold() {
        assert_eq!(
            case_href("server/tools/list/title@2025-06-18"),
            "?case=server/tools/list/title@2025-06-18"
        );
        assert_eq!(case_href("a b&c#d"), "?case=a%20b%26c%23d");
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
