//! [`HttpMisbehaviour`]: the deliberate violations a reference client
//! switches on (see the table in [`super`]), and the `Accept` values they
//! change.

pub(crate) const POST_ACCEPT: &str = "application/json, text/event-stream";
pub(crate) const GET_ACCEPT: &str = "text/event-stream";
/// The `Accept` of the misbehaving POST and GET: one media type, the wrong
/// one for GET, too few for POST.
pub(crate) const JSON_ONLY: &str = "application/json";

/// Deliberate violations of the Streamable HTTP client's header rules,
/// each off by default (see the module docs' table). Only the switches
/// turned on change anything; a header that is not due anyway (the session
/// id before the server issued one, the version before it was set) stays
/// absent whatever the switches say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpMisbehaviour {
    /// POSTs accept `application/json` only (breaks `http.post.accept`:
    /// both `application/json` and `text/event-stream` must be listed).
    pub post_accept_json_only: bool,
    /// GET streams ask for `application/json` (breaks `http.get.accept`).
    pub get_accept_json: bool,
    /// The `Mcp-Session-Id` the server issued is never sent back (breaks
    /// `http.session.client-echo`).
    pub no_session_echo: bool,
    /// `MCP-Protocol-Version` is never sent (breaks
    /// `http.header.protocol-version`).
    pub no_version_header: bool,
    /// `Mcp-Method` and `Mcp-Name` are never sent (breaks
    /// `http.header.method`).
    pub no_routing_headers: bool,
    /// Sent as `MCP-Protocol-Version` wherever the header goes out, instead
    /// of the session's version or the one the request's `_meta` names
    /// (breaks `http.header.version-matches-meta` when they differ).
    pub version_header: Option<String>,
    /// No `Mcp-Param-*` headers (breaks `http.header.param-mirror`).
    pub no_param_headers: bool,
    /// `Mcp-Param-*` values as they are, never Base64-encoded (breaks
    /// `http.header.value-encoding`).
    pub plain_param_headers: bool,
    /// A cut response stream is resumed at once, whatever `retry` the
    /// server sent (breaks `http.sse.client-respects-retry`).
    pub resume_ignores_retry: bool,
    /// A cut response stream is resumed with a GET without `Last-Event-ID`
    /// (breaks `http.resume.last-event-id`).
    pub resume_without_last_event_id: bool,
    /// A cut response stream is never resumed (breaks
    /// `http.resume.last-event-id`: the client polls no more).
    pub no_resume: bool,
}

impl HttpMisbehaviour {
    /// True when no switch is on.
    pub fn is_off(&self) -> bool {
        *self == HttpMisbehaviour::default()
    }

    /// The `Accept` of a POST.
    pub(super) fn post_accept(&self) -> &'static str {
        if self.post_accept_json_only {
            JSON_ONLY
        } else {
            POST_ACCEPT
        }
    }

    /// The `Accept` of a GET stream.
    pub(super) fn get_accept(&self) -> &'static str {
        if self.get_accept_json {
            JSON_ONLY
        } else {
            GET_ACCEPT
        }
    }

    /// The `MCP-Protocol-Version` to send where `due` is the right one.
    pub(super) fn version<'a>(&'a self, due: Option<&'a str>) -> Option<&'a str> {
        if self.no_version_header {
            return None;
        }
        due.map(|v| self.version_header.as_deref().unwrap_or(v))
    }
}
