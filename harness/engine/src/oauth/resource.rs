//! The canonical resource URI of an MCP server (RFC 8707 §2; the spec's
//! "Canonical Server URI", `basic/authorization#canonical-server-uri`, from
//! 2025-06-18): what a client sends as `resource` in authorization and token
//! requests, and what a server's Protected Resource Metadata names as its
//! `resource`.
//!
//! The canonical form is an absolute `http`/`https` URI with a host, without
//! a fragment, scheme and host in lowercase, the scheme's default port left
//! out, and no trailing slash on an empty path (`https://mcp.example.com`,
//! not `https://mcp.example.com/`). Uppercase scheme and host are accepted
//! on input (the spec asks implementations to accept them).

use url::Url;

/// Why a string is not a usable resource URI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceError {
    #[error("{0:?} is not an absolute URI")]
    NotAbsolute(String),
    #[error("{0:?} is not an http or https URI")]
    NotHttp(String),
    #[error("{0:?} has a fragment, which a resource indicator must not have")]
    Fragment(String),
}

/// Parses an absolute `http`/`https` URL with a host.
pub(crate) fn parse_http(text: &str) -> Result<Url, ResourceError> {
    let url = Url::parse(text).map_err(|_| ResourceError::NotAbsolute(text.to_owned()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(ResourceError::NotHttp(text.to_owned()));
    }
    Ok(url)
}

/// A parsed URL in canonical text form (see the module docs).
fn canonical_text(url: &Url) -> String {
    let mut text = url.to_string();
    if url.path() == "/" && url.query().is_none() {
        text.pop();
    }
    text
}

/// The canonical resource URI of the MCP server at `server_url` (its
/// endpoint URL, as the user gave it): a fragment is dropped.
pub fn canonical_resource(server_url: &str) -> Result<String, ResourceError> {
    let mut url = parse_http(server_url)?;
    url.set_fragment(None);
    Ok(canonical_text(&url))
}

/// Checks a `resource` value as sent (RFC 8707 §2: an absolute URI without a
/// fragment) and returns its canonical form.
pub fn check_resource(value: &str) -> Result<String, ResourceError> {
    let url = parse_http(value)?;
    if url.fragment().is_some() {
        return Err(ResourceError::Fragment(value.to_owned()));
    }
    Ok(canonical_text(&url))
}

/// Whether `resource` (a `resource` parameter or a metadata document's
/// `resource`) identifies the MCP server at `server_url`: equal canonical
/// forms. Case of scheme and host, a default port and the trailing slash of
/// an empty path make no difference; any other difference does.
pub fn names_server(resource: &str, server_url: &str) -> bool {
    match (check_resource(resource), canonical_resource(server_url)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether `resource` covers the server at `server_url`: the same origin and
/// a path that is the server's path or a parent of it on a segment boundary
/// (`https://h/api` covers `https://h/api/mcp`). RFC 8707 lets a client
/// name a less specific URI; the spec asks for the most specific one.
pub fn covers_server(resource: &str, server_url: &str) -> bool {
    let (Ok(r), Ok(s)) = (check_resource(resource), canonical_resource(server_url)) else {
        return false;
    };
    let (Ok(r), Ok(s)) = (Url::parse(&r), Url::parse(&s)) else {
        return false;
    };
    if r.origin() != s.origin() || (r.query().is_some() && r.query() != s.query()) {
        return false;
    }
    let rp = r.path().trim_end_matches('/');
    let sp = s.path().trim_end_matches('/');
    sp == rp || (sp.starts_with(rp) && sp.as_bytes().get(rp.len()) == Some(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms_of_the_spec_examples() {
        for (given, canonical) in [
            ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
            ("https://mcp.example.com", "https://mcp.example.com"),
            ("https://mcp.example.com/", "https://mcp.example.com"),
            (
                "https://mcp.example.com:8443",
                "https://mcp.example.com:8443",
            ),
            (
                "https://mcp.example.com:443/server/mcp",
                "https://mcp.example.com/server/mcp",
            ),
            ("HTTPS://MCP.Example.COM/Mcp", "https://mcp.example.com/Mcp"),
            (
                "http://127.0.0.1:8080/mcp#frag",
                "http://127.0.0.1:8080/mcp",
            ),
        ] {
            assert_eq!(
                canonical_resource(given).as_deref(),
                Ok(canonical),
                "{given}"
            );
        }
        assert!(matches!(
            canonical_resource("mcp.example.com"),
            Err(ResourceError::NotAbsolute(_))
        ));
        assert!(matches!(
            canonical_resource("urn:x:y"),
            Err(ResourceError::NotHttp(_))
        ));
    }

    #[test]
    fn a_sent_resource_has_no_fragment() {
        assert!(matches!(
            check_resource("https://mcp.example.com#fragment"),
            Err(ResourceError::Fragment(_))
        ));
        assert_eq!(
            check_resource("https://mcp.example.com/").as_deref(),
            Ok("https://mcp.example.com")
        );
    }

    #[test]
    fn naming_and_covering_a_server() {
        let server = "http://127.0.0.1:3000/mcp";
        assert!(names_server("http://127.0.0.1:3000/mcp", server));
        assert!(names_server("HTTP://127.0.0.1:3000/mcp", server));
        assert!(!names_server("http://127.0.0.1:3000/", server));
        assert!(!names_server("http://127.0.0.1:3001/mcp", server));
        assert!(
            !names_server("http://127.0.0.1:3000/mcp/", server),
            "a trailing slash on a path is significant"
        );
        assert!(covers_server("http://127.0.0.1:3000", server));
        assert!(covers_server("http://127.0.0.1:3000/mcp", server));
        assert!(!covers_server("http://127.0.0.1:3000/mc", server));
        assert!(!covers_server("http://localhost:3000/mcp", server));
        assert!(!covers_server("https://127.0.0.1:3000/mcp", server));
    }
}
