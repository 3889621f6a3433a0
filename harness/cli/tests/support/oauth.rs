//! Tokens from a demo authorization server (the reference server's, `mcpspec
//! reference server --http … --auth`, or an SDK example's), obtained as a
//! public client would: dynamic registration (`token_endpoint_auth_method:
//! none`), the authorization code flow with PKCE S256 (the authorize endpoint
//! approves at once), and the token request naming the resource (RFC 8707).
//! The requests are plain HTTP/1.1 over a TCP connection to the loopback
//! host of `base`, each bounded in time.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use mcpspec_engine::oauth::pkce;
use serde_json::{json, Value};

const VERIFIER: &str = "mcpspec-selftest-verifier-0123456789-abcdefghijklmnopqrstuvwxyz";
const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// A response: status, headers (names lowercased), body.
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

/// One request to `base` (`http://127.0.0.1:PORT`), `Connection: close`.
fn request(base: &str, method: &str, path: &str, content_type: &str, body: &str) -> Resp {
    let host = base.trim_start_matches("http://");
    let mut tcp = TcpStream::connect(host).expect("connect to the reference");
    tcp.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("read timeout");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).expect("write");
    tcp.write_all(body.as_bytes()).expect("write");
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).expect("read the response");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Resp {
        status,
        headers,
        body: body.to_owned(),
    }
}

fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// A token for `resource` (an absolute URL) from the server at `base`.
pub fn token_for(base: &str, resource: &str) -> String {
    let reg = request(
        base,
        "POST",
        "/register",
        "application/json",
        &json!({
            "redirect_uris": [REDIRECT],
            "client_name": "mcpspec self-validation",
            "token_endpoint_auth_method": "none",
        })
        .to_string(),
    );
    assert_eq!(reg.status, 201, "registration: {}", reg.body);
    let reg: Value = serde_json::from_str(&reg.body).expect("registration JSON");
    let client_id = reg["client_id"].as_str().expect("client_id").to_owned();
    let query = form(&[
        ("response_type", "code"),
        ("client_id", &client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", &pkce::s256_challenge(VERIFIER)),
        ("code_challenge_method", "S256"),
        ("state", "selftest"),
        ("resource", resource),
    ]);
    let auth = request(
        base,
        "GET",
        &format!("/authorize?{query}"),
        "text/plain",
        "",
    );
    let location = auth
        .headers
        .iter()
        .find(|(n, _)| n == "location")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("authorize answered {} without a redirect", auth.status));
    let code = url::Url::parse(&location)
        .expect("redirect URL")
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("no code in {location}"));
    let body = form(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("client_id", &client_id),
        ("redirect_uri", REDIRECT),
        ("code_verifier", VERIFIER),
        ("resource", resource),
    ]);
    let tok = request(
        base,
        "POST",
        "/token",
        "application/x-www-form-urlencoded",
        &body,
    );
    assert_eq!(tok.status, 200, "token: {}", tok.body);
    let tok: Value = serde_json::from_str(&tok.body).expect("token JSON");
    tok["access_token"]
        .as_str()
        .expect("access_token")
        .to_owned()
}
