//! Building the `http` step: one HTTP exchange a transport scenario writes
//! itself (method, URL, protocol headers, header overrides, body), and the
//! matcher its response object must satisfy. See `scenarios/README.md`
//! ("The `http` step") for the response object the runner builds.

use super::keys;
use super::reader::{suggest, Ctx, Fields};
use crate::error::ScenarioError;
use crate::matcher::compile::{compile, template};
use crate::model::{HeaderMode, HttpBody, HttpStep, HttpUrl, MetadataDoc};
use crate::template::check_str;
use crate::yaml::{Kind, Node};

/// The `http` step; `f` holds its modifiers (`as`, `expect`).
pub(super) fn http_step(
    ctx: &Ctx,
    node: &Node,
    f: &mut Fields,
    label: Option<String>,
) -> Result<HttpStep, ScenarioError> {
    let what = "`http`";
    let mut m = ctx.map(node, what)?;
    let method = match m.take("method") {
        None => "POST".to_owned(),
        Some(n) => {
            let method = ctx.nonempty_str(n, "`method` (an HTTP method)")?;
            if !method.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(ctx.err(
                    n.at,
                    format!("`method` {method:?} is not an HTTP method (letters only, e.g. POST)"),
                ));
            }
            method.to_ascii_uppercase()
        }
    };
    let url = match m.take("url") {
        None => HttpUrl::Endpoint,
        Some(n) => url(ctx, n)?,
    };
    let session = m
        .take("session")
        .map(|n| header_mode(ctx, n, "`session`"))
        .transpose()?
        .unwrap_or(HeaderMode::Auto);
    let protocol_version = m
        .take("protocol_version")
        .map(|n| header_mode(ctx, n, "`protocol_version`"))
        .transpose()?
        .unwrap_or(HeaderMode::Auto);
    let headers = m
        .take("headers")
        .map(|n| headers(ctx, n))
        .transpose()?
        .unwrap_or_default();
    let body_node = m.take("body");
    let raw_node = m.take("raw");
    let body = match (body_node, raw_node) {
        (Some(_), Some(r)) => {
            return Err(ctx.err(
                m.key_at("raw").unwrap_or(r.at),
                "`body` and `raw` cannot both be given: `body` is JSON, `raw` exact text",
            ))
        }
        (Some(b), None) => Some(HttpBody::Json(template(ctx, b)?)),
        (None, Some(r)) => {
            let text = ctx.str(r, "`raw` (the body, as text)")?;
            check_str(text, false).map_err(|msg| ctx.err(r.at, msg))?;
            Some(HttpBody::Text(text.to_owned()))
        }
        (None, None) => None,
    };
    let read_for = m
        .take("read_for")
        .map(|n| ctx.duration(n, "`read_for`"))
        .transpose()?;
    let keep_open = match m.take("keep_open") {
        None => false,
        Some(n) => {
            let keep = ctx.bool(n, "`keep_open`")?;
            if keep && method != "GET" {
                return Err(ctx.err(
                    n.at,
                    format!("`keep_open` keeps a GET stream open; this step's method is {method}"),
                ));
            }
            if keep && read_for.is_some() {
                return Err(ctx.err(
                    n.at,
                    "`keep_open` and `read_for` contradict each other: a kept stream is read for the whole case",
                ));
            }
            keep
        }
    };
    let judge = match m.take("judge") {
        None => None,
        Some(n) => {
            let word = ctx.nonempty_str(n, "`judge`")?;
            match MetadataDoc::ALL.into_iter().find(|d| d.as_str() == word) {
                Some(d) => Some(d),
                None => {
                    return Err(ctx.err(
                        n.at,
                        format!("`judge` is protected_resource_metadata or authorization_server_metadata, not {word:?}"),
                    ))
                }
            }
        }
    };
    m.finish(ctx, what, &keys::HTTP.names())?;
    let expect = f.take("expect").map(|n| compile(ctx, n)).transpose()?;
    Ok(HttpStep {
        method,
        url,
        session,
        protocol_version,
        headers,
        body,
        read_for,
        keep_open,
        label,
        expect,
        judge,
    })
}

fn url(ctx: &Ctx, node: &Node) -> Result<HttpUrl, ScenarioError> {
    let text = ctx.nonempty_str(node, "`url`")?;
    Ok(match text {
        "endpoint" => HttpUrl::Endpoint,
        "stream" => HttpUrl::Stream,
        "unknown_session" => HttpUrl::UnknownSession,
        _ if text.starts_with('/')
            || text.starts_with('?')
            || text.starts_with("http://")
            || text.starts_with("${") =>
        {
            check_str(text, false).map_err(|m| ctx.err(node.at, m))?;
            HttpUrl::Path(text.to_owned())
        }
        _ => {
            return Err(ctx.err(
                node.at,
                format!(
                "`url` {text:?} is neither a keyword ({}){} nor a path starting with `/` or `?`",
                keys::one_of(&HttpUrl::KEYWORDS),
                suggest(text, &HttpUrl::KEYWORDS)
            ),
            ))
        }
    })
}

fn header_mode(ctx: &Ctx, node: &Node, what: &str) -> Result<HeaderMode, ScenarioError> {
    let text = match &node.kind {
        // A bare number (`protocol_version: 2025`) is meant as text.
        Kind::Number(n) => n.to_string(),
        _ => ctx
            .str(node, &format!("{what} (auto, omit or a value)"))?
            .to_owned(),
    };
    Ok(match text.as_str() {
        "auto" => HeaderMode::Auto,
        "omit" => HeaderMode::Omit,
        _ => {
            check_header_value(ctx, node, &text)?;
            HeaderMode::Value(text)
        }
    })
}

fn headers(ctx: &Ctx, node: &Node) -> Result<Vec<(String, Option<String>)>, ScenarioError> {
    let Kind::Map(entries) = &node.kind else {
        return Err(ctx.err(
            node.at,
            format!(
                "`headers` must be a map of header names to values, found {}",
                node.kind.describe()
            ),
        ));
    };
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for (k, v) in entries {
        let name = ctx.nonempty_str(k, "a header name")?;
        // A name may be (or hold) a template, `${param.header}`: the rest
        // of it must be a token.
        check_str(name, false).map_err(|msg| ctx.err(k.at, msg))?;
        let mut literal = String::new();
        let mut rest = name;
        while let Some(start) = rest.find("${") {
            literal.push_str(&rest[..start]);
            rest = rest[start..].split_once('}').map_or("", |(_, after)| after);
        }
        literal.push_str(rest);
        if !literal
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        {
            return Err(ctx.err(k.at, format!("{name:?} is not a valid HTTP header name")));
        }
        if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Err(ctx.err(k.at, format!("header {name:?} is given twice")));
        }
        let value = match &v.kind {
            Kind::Null => None,
            Kind::Number(n) => Some(n.to_string()),
            _ => {
                let text = ctx.str(
                    v,
                    &format!("the value of header {name:?} (text, or null to remove it)"),
                )?;
                check_header_value(ctx, v, text)?;
                Some(text.to_owned())
            }
        };
        out.push((name.to_owned(), value));
    }
    Ok(out)
}

/// Header values are one line of visible text (templates allowed).
fn check_header_value(ctx: &Ctx, node: &Node, text: &str) -> Result<(), ScenarioError> {
    if text.contains(['\r', '\n']) {
        return Err(ctx.err(node.at, "a header value must be one line"));
    }
    check_str(text, false).map_err(|m| ctx.err(node.at, m))
}

#[cfg(test)]
mod tests {
    use crate::model::{HeaderMode, HttpBody, HttpUrl, StepKind};

    fn load(steps: &str, transports: &str) -> Result<crate::Scenario, crate::ScenarioError> {
        let text = format!(
            "id: server/http/x\ntitle: t\nrequirements: [http.session.terminated-404]\nlevel: must\ntransports: {transports}\nsteps:\n{steps}"
        );
        crate::load::parse("x.yaml", &text)
    }

    #[test]
    fn reads_every_key() {
        let s = load(
            "  - http:\n      method: delete\n      url: unknown_session\n      session: omit\n      protocol_version: '1999-01-01'\n      headers: { Accept: text/plain, Content-Type: null }\n      raw: '{'\n      read_for: 2s\n    as: r\n    expect: { status: 404 }\n",
            "[http]",
        )
        .expect("loads");
        let StepKind::Http(h) = &s.steps[0].kind else {
            panic!("not an http step: {:?}", s.steps[0].kind)
        };
        assert_eq!(h.method, "DELETE");
        assert!(matches!(h.url, HttpUrl::UnknownSession));
        assert!(matches!(h.session, HeaderMode::Omit));
        assert!(matches!(&h.protocol_version, HeaderMode::Value(v) if v == "1999-01-01"));
        assert_eq!(
            h.headers,
            vec![
                ("Accept".to_owned(), Some("text/plain".to_owned())),
                ("Content-Type".to_owned(), None)
            ]
        );
        assert!(matches!(&h.body, Some(HttpBody::Text(t)) if t == "{"));
        assert_eq!(h.read_for, Some(std::time::Duration::from_secs(2)));
        assert_eq!(h.label.as_deref(), Some("r"));
        assert!(h.expect.is_some());
    }

    #[test]
    fn defaults() {
        let s = load(
            "  - http: { body: { jsonrpc: '2.0', method: ping, id: 1 } }\n",
            "[http, sse]",
        )
        .expect("loads");
        let StepKind::Http(h) = &s.steps[0].kind else {
            panic!("not an http step")
        };
        assert_eq!(h.method, "POST");
        assert!(matches!(h.url, HttpUrl::Endpoint));
        assert!(matches!(h.session, HeaderMode::Auto));
        assert!(matches!(h.body, Some(HttpBody::Json(_))));
        assert!(h.expect.is_none());
    }

    #[test]
    fn rejects_mistakes_with_positions() {
        let cases = [
            ("  - http: { body: {}, raw: x }\n", "[http]", "cannot both"),
            (
                "  - http: { url: endpiont }\n",
                "[http]",
                "did you mean `endpoint`",
            ),
            (
                "  - http: { method: 'GET /' }\n",
                "[http]",
                "not an HTTP method",
            ),
            (
                "  - http: { headers: { 'Bad Name': x } }\n",
                "[http]",
                "not a valid HTTP header name",
            ),
            (
                "  - http: { headers: { A: x, a: y } }\n",
                "[http]",
                "given twice",
            ),
            (
                "  - http: { methd: GET }\n",
                "[http]",
                "unknown key `methd`",
            ),
            ("  - http: {}\n", "all", "only over HTTP"),
            (
                "  - http: { keep_open: true }\n",
                "[http]",
                "method is POST",
            ),
            (
                "  - http: { method: GET, keep_open: true, read_for: 1s }\n",
                "[http]",
                "contradict",
            ),
            ("  - http: {}\n", "[stdio]", "only over HTTP"),
        ];
        for (steps, transports, want) in cases {
            let err = load(steps, transports).expect_err(steps).to_string();
            assert!(err.contains(want), "{steps}: {err}");
            assert!(err.contains("x.yaml:"), "{err}");
        }
    }
}
