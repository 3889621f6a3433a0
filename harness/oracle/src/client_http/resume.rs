//! A client's reconnection to a response stream the harness cut
//! (Streamable HTTP, 2025-03-26 … 2025-11-25).
//!
//! The runner reports each cut ([`crate::Observed::StreamCut`]) with the time
//! it ended the stream, on the clock that stamps the client's records; a
//! later GET whose `Last-Event-ID` names the cut stream's last event is the
//! client reconnecting to it:
//!
//! | rule | versions | what is checked |
//! |---|---|---|
//! | `http.sse.client-respects-retry` | 2025-11-25 | that GET comes no sooner than the `retry` the stream's last event carried (no slack below it) |
//!
//! Whether the client resumes at all, and with the right `Last-Event-ID`
//! (`http.resume.last-event-id`, a SHOULD), is the scenario's step to judge:
//! a GET without the header may be the client's own standing stream, which
//! it may open at any time, so nothing here blames one. The delay is the
//! time between the harness ending the stream and reading the GET's
//! headers: both on the harness's clock, the measure can only be longer
//! than what the client waited after it saw the end, never shorter.

use mcpspec_engine::{ids, Version};
use mcpspec_wire::event::HttpRecord;

use super::Finding;

/// A stream the harness cut, as the judge remembers it.
#[derive(Debug, Clone)]
pub(crate) struct CutSeen {
    post: u64,
    last_event_id: String,
    retry_ms: Option<u64>,
    at_ms: u64,
    /// A GET naming its last event came.
    resumed: bool,
}

/// The cut streams of a client's session.
#[derive(Debug, Default)]
pub(crate) struct Cuts(Vec<CutSeen>);

impl Cuts {
    /// The harness ended POST `post`'s stream at `at_ms`, its last event
    /// `last_event_id` (with `retry_ms`).
    pub(crate) fn cut(
        &mut self,
        post: u64,
        last_event_id: &str,
        retry_ms: Option<u64>,
        at_ms: u64,
    ) {
        self.0.push(CutSeen {
            post,
            last_event_id: last_event_id.to_owned(),
            retry_ms,
            at_ms,
            resumed: false,
        });
    }

    /// Judges a request record of the client's received at `at_ms`.
    pub(crate) fn judge(
        &mut self,
        version: Version,
        at_ms: u64,
        record: &HttpRecord,
    ) -> Option<Finding> {
        if record.method != "GET" {
            return None;
        }
        let named = record.request_header("last-event-id")?;
        let cut = self
            .0
            .iter_mut()
            .find(|c| !c.resumed && c.last_event_id == named)?;
        cut.resumed = true;
        let rule = &ids::HTTP_SSE_CLIENT_RESPECTS_RETRY;
        let retry = cut.retry_ms?;
        let waited = at_ms.saturating_sub(cut.at_ms);
        (rule.applies_to(version) && waited < retry).then(|| {
            (
                rule,
                format!(
                    "the client reconnected (GET, Last-Event-ID: {named}) {waited} ms after the harness ended the response stream of POST #{}, whose last event carried retry: {retry}: it must wait at least {retry} ms",
                    cut.post
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(last: Option<&str>) -> HttpRecord {
        let mut r = HttpRecord {
            method: "GET".into(),
            target: "/mcp".into(),
            status: Some(200),
            ..HttpRecord::default()
        };
        r.request_headers
            .push(("accept".into(), "text/event-stream".into()));
        if let Some(id) = last {
            r.request_headers.push(("last-event-id".into(), id.into()));
        }
        r
    }

    /// Through the one judge: the cut observed, then the client's GET.
    #[test]
    fn the_oracle_reports_an_early_reconnection() {
        use crate::{Observed, Oracle};
        use mcpspec_engine::Role;
        use mcpspec_wire::event::{Event, Transport, Via};
        let mut oracle = Oracle::new(Role::Client, Version::V2025_11_25, Transport::Http);
        let cut = Observed::StreamCut {
            post: 3,
            last_event_id: "3-1",
            retry_ms: Some(1500),
        };
        assert!(oracle.observe(1000, cut).is_empty());
        let event = Event::Http(Box::new(get(Some("3-1"))));
        let found = oracle.observe(
            1200,
            Observed::Received {
                via: Via::Get,
                event: &event,
            },
        );
        let rules: Vec<&str> = found.iter().map(|v| v.requirement.id).collect();
        assert_eq!(rules, [ids::HTTP_SSE_CLIENT_RESPECTS_RETRY.id], "{found:?}");
        assert_eq!(found[0].at_ms, 1200);
    }

    #[test]
    fn a_reconnection_sooner_than_retry_breaks_it_and_one_on_time_does_not() {
        let v = Version::V2025_11_25;
        let mut cuts = Cuts::default();
        cuts.cut(3, "3-1", Some(1500), 1000);
        // Another stream's id, or none: not this stream's reconnection.
        assert!(cuts.judge(v, 1100, &get(Some("0-4"))).is_none());
        assert!(cuts.judge(v, 1100, &get(None)).is_none());
        let (rule, detail) = cuts
            .judge(v, 2499, &get(Some("3-1")))
            .expect("1499 ms < 1500 ms");
        assert_eq!(rule.id, ids::HTTP_SSE_CLIENT_RESPECTS_RETRY.id);
        assert!(
            detail.contains("1499 ms") && detail.contains("POST #3"),
            "{detail}"
        );
        // Judged once per cut.
        assert!(cuts.judge(v, 2600, &get(Some("3-1"))).is_none());
        cuts.cut(5, "5-1", Some(1500), 4000);
        assert!(
            cuts.judge(v, 5500, &get(Some("5-1"))).is_none(),
            "exactly the delay"
        );
        // Before 2025-11-25 the rule does not exist.
        cuts.cut(6, "6-1", Some(1500), 6000);
        assert!(cuts
            .judge(Version::V2025_06_18, 6001, &get(Some("6-1")))
            .is_none());
    }
}
