//! `WWW-Authenticate` challenges: RFC 7235 §4.1 syntax (one header may carry
//! several challenges, each a scheme and either auth-params or a token68),
//! and the `Bearer` challenge of RFC 6750 §3 with the `resource_metadata`
//! parameter of RFC 9728 §5.1 that MCP servers use to point clients at their
//! Protected Resource Metadata.
//!
//! Parsing is lenient where RFC 7235 is (optional whitespace around `=` and
//! commas, empty list elements, case-insensitive scheme and parameter names)
//! and strict where a misreading would change meaning (an unterminated quoted
//! string, a parameter given twice, a value that is neither a token nor a
//! quoted string).

use std::fmt;

/// One challenge of a `WWW-Authenticate` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The auth-scheme as sent (compare case-insensitively).
    pub scheme: String,
    /// The token68 form (`Basic abc==`), when the challenge has one.
    pub token68: Option<String>,
    /// Auth-params in order, names lowercased, values unquoted.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Why a `WWW-Authenticate` header value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChallengeError {
    #[error("the header holds no challenge")]
    Empty,
    #[error("malformed challenge at byte {at}: {what}")]
    Malformed { at: usize, what: &'static str },
    #[error("parameter {0:?} appears twice in one challenge")]
    DuplicateParam(String),
    #[error("no Bearer challenge among the schemes {0:?}")]
    NoBearer(Vec<String>),
}

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

fn is_token68_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~+/".contains(&c)
}

struct Cursor<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }
    fn skip_ws_and_commas(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.pos += 1;
        }
    }
    fn token(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_some_and(is_tchar) {
            self.pos += 1;
        }
        // Only ASCII tchars were consumed, so the slice is valid UTF-8.
        std::str::from_utf8(&self.s[start..self.pos]).unwrap_or_default()
    }
    fn malformed(&self, what: &'static str) -> ChallengeError {
        ChallengeError::Malformed { at: self.pos, what }
    }
    /// A quoted-string, the cursor on its opening quote; backslash escapes
    /// the next character (RFC 7230 §3.2.6).
    fn quoted(&mut self) -> Result<String, ChallengeError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.malformed("unterminated quoted string")),
                Some(b'"') => {
                    self.pos += 1;
                    return String::from_utf8(out)
                        .map_err(|_| self.malformed("quoted string is not UTF-8"));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c) => out.push(c),
                        None => return Err(self.malformed("unterminated quoted string")),
                    }
                    self.pos += 1;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }
}

/// Parses every challenge of a `WWW-Authenticate` header value.
pub fn parse_challenges(header: &str) -> Result<Vec<Challenge>, ChallengeError> {
    let mut c = Cursor {
        s: header.as_bytes(),
        pos: 0,
    };
    let mut out: Vec<Challenge> = Vec::new();
    loop {
        c.skip_ws_and_commas();
        if c.peek().is_none() {
            break;
        }
        let scheme = c.token().to_owned();
        if scheme.is_empty() {
            return Err(c.malformed("expected an auth-scheme"));
        }
        let mut challenge = Challenge {
            scheme,
            token68: None,
            params: Vec::new(),
        };
        let after_scheme = c.pos;
        c.skip_ws();
        if c.pos == after_scheme && !matches!(c.peek(), None | Some(b',')) {
            return Err(c.malformed("expected a space after the auth-scheme"));
        }
        // token68: a run of token68 chars followed by '='s, then the end or a comma.
        let start = c.pos;
        while c.peek().is_some_and(is_token68_char) {
            c.pos += 1;
        }
        let body_end = c.pos;
        while c.peek() == Some(b'=') {
            c.pos += 1;
        }
        let mut probe = Cursor { s: c.s, pos: c.pos };
        probe.skip_ws();
        if body_end > start && matches!(probe.peek(), None | Some(b',')) {
            challenge.token68 = Some(header[start..c.pos].to_owned());
            c.pos = probe.pos;
            out.push(challenge);
            continue;
        }
        c.pos = start;
        // auth-params, until the end or the next challenge's scheme.
        loop {
            c.skip_ws_and_commas();
            let before = c.pos;
            let name = c.token().to_ascii_lowercase();
            if name.is_empty() {
                if c.peek().is_some() {
                    return Err(c.malformed("expected an auth-param name"));
                }
                break;
            }
            c.skip_ws();
            if c.peek() != Some(b'=') {
                // A bare token: the scheme of the next challenge.
                c.pos = before;
                break;
            }
            c.pos += 1;
            c.skip_ws();
            let value = match c.peek() {
                Some(b'"') => c.quoted()?,
                _ => {
                    let v = c.token().to_owned();
                    if v.is_empty() {
                        return Err(c.malformed("expected a token or a quoted string"));
                    }
                    v
                }
            };
            if challenge.params.iter().any(|(k, _)| *k == name) {
                return Err(ChallengeError::DuplicateParam(name));
            }
            challenge.params.push((name, value));
            c.skip_ws();
            match c.peek() {
                None | Some(b',') => {}
                _ => return Err(c.malformed("expected a comma between auth-params")),
            }
        }
        out.push(challenge);
    }
    if out.is_empty() {
        return Err(ChallengeError::Empty);
    }
    Ok(out)
}

/// The `Bearer` challenge of RFC 6750 §3 with the parameters MCP reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    pub realm: Option<String>,
    /// RFC 9728 §5.1: where the Protected Resource Metadata is.
    pub resource_metadata: Option<String>,
    /// Space-separated scopes the resource requires (RFC 6750 §3).
    pub scope: Option<String>,
    /// `invalid_request`, `invalid_token`, `insufficient_scope` (RFC 6750 §3.1).
    pub error: Option<String>,
    pub error_description: Option<String>,
    pub error_uri: Option<String>,
    /// Any other auth-params, in order.
    pub other: Vec<(String, String)>,
}

impl BearerChallenge {
    /// The first `Bearer` challenge (scheme compared case-insensitively) of a
    /// `WWW-Authenticate` header value.
    pub fn parse(header: &str) -> Result<Self, ChallengeError> {
        let all = parse_challenges(header)?;
        let Some(bearer) = all.iter().find(|c| c.scheme.eq_ignore_ascii_case("bearer")) else {
            return Err(ChallengeError::NoBearer(
                all.into_iter().map(|c| c.scheme).collect(),
            ));
        };
        let mut out = BearerChallenge::default();
        for (k, v) in &bearer.params {
            let slot = match k.as_str() {
                "realm" => &mut out.realm,
                "resource_metadata" => &mut out.resource_metadata,
                "scope" => &mut out.scope,
                "error" => &mut out.error,
                "error_description" => &mut out.error_description,
                "error_uri" => &mut out.error_uri,
                _ => {
                    out.other.push((k.clone(), v.clone()));
                    continue;
                }
            };
            *slot = Some(v.clone());
        }
        Ok(out)
    }

    /// The challenged scopes, split on spaces (empty when `scope` is absent).
    pub fn scopes(&self) -> Vec<&str> {
        self.scope
            .as_deref()
            .map(|s| s.split_whitespace().collect())
            .unwrap_or_default()
    }
}

/// Formats as a header value: `Bearer k="v", ...`, every value a quoted string.
impl fmt::Display for BearerChallenge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Bearer")?;
        let named = [
            ("realm", &self.realm),
            ("resource_metadata", &self.resource_metadata),
            ("scope", &self.scope),
            ("error", &self.error),
            ("error_description", &self.error_description),
            ("error_uri", &self.error_uri),
        ];
        let params = named
            .iter()
            .filter_map(|(k, v)| v.as_deref().map(|v| (*k, v)))
            .chain(self.other.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        for (i, (k, v)) in params.enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{k}=\"")?;
            for ch in v.chars() {
                if ch == '"' || ch == '\\' {
                    f.write_str("\\")?;
                }
                write!(f, "{ch}")?;
            }
            f.write_str("\"")?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "challenge_tests.rs"]
mod tests;
