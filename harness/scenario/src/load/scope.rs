//! Pass 3 check: every `${x}` a step uses must be bound by the runner or by
//! an earlier step — otherwise the case could only end in a scenario error.
//!
//! The check is by root name (`call` of `call.response`) and errs on the side
//! of acceptance: a name any earlier step *may* bind counts as bound (a
//! `$capture` inside `$oneOf` or on an `$optional` member may not fire; that
//! is for the runner to report). Optional `${x?}` uses are not checked.

use crate::error::ScenarioError;
use crate::model::{RawBytes, Scenario, SessionMode, Step, StepKind};
use crate::template::str_variables;
use crate::Matcher;

/// The names the runner binds before the steps (`auth`: for a client case
/// with an `auth` block, what the scripted authorization server saw; for a
/// server case with `requires.auth`, the tokens and what discovery found).
fn runner_bound(session: SessionMode, canary: bool, auth: bool) -> Vec<String> {
    let mut names: Vec<String> = match session {
        SessionMode::Initialized => vec![
            "version".into(),
            "transport".into(),
            "init".into(),
            "capabilities".into(),
        ],
        SessionMode::Fresh => vec!["version".into(), "transport".into()],
    };
    if canary {
        names.push("canary".into());
    }
    if auth {
        // Client cases: what the scripted authorization server saw, refreshed
        // before each step; server cases: the tokens and what discovery found.
        names.push("auth".into());
    }
    names
}

/// Note what a matcher uses and what it may bind.
fn matcher(m: Option<&Matcher>, used: &mut Vec<String>, binds: &mut Vec<String>) {
    if let Some(m) = m {
        used.extend(m.variables());
        binds.extend(m.binds());
    }
}

/// An error at `step`'s place in the file.
fn at_step(step: &Step, text: &str, message: String) -> ScenarioError {
    ScenarioError::at(&step.at.file, text, step.at.line, step.at.column, message)
}

pub(super) fn check(s: &Scenario, text: &str) -> Result<(), ScenarioError> {
    let mut bound = runner_bound(
        s.session,
        s.uses_canary(),
        s.auth.is_some() || s.requires.auth.is_some(),
    );
    for step in &s.steps {
        let mut used: Vec<String> = Vec::new();
        let mut binds: Vec<String> = Vec::new();
        match &step.kind {
            StepKind::Send(send) => {
                for t in send.params.iter().chain(&send.id) {
                    used.extend(t.required_variables());
                }
                if let Some(label) = &send.label {
                    // The label is bound as soon as the request is sent.
                    bound.push(label.clone());
                }
                if let Some(e) = &send.expect {
                    matcher(e.result.as_ref(), &mut used, &mut binds);
                    matcher(e.error.as_ref(), &mut used, &mut binds);
                }
            }
            StepKind::Notify { params, .. } => {
                used.extend(params.iter().flat_map(|t| t.required_variables()));
            }
            StepKind::Raw(raw) => {
                if let RawBytes::Text(text) = &raw.bytes {
                    used.extend(str_variables(text));
                }
                if let Some(e) = &raw.expect {
                    used.extend(e.id.iter().flat_map(|t| t.required_variables()));
                    matcher(e.result.as_ref(), &mut used, &mut binds);
                    matcher(e.error.as_ref(), &mut used, &mut binds);
                }
            }
            StepKind::Expect(e) => {
                if let Some(label) = &e.label {
                    // Bound once the request arrives; its params matcher may use it.
                    bound.push(label.clone());
                }
                matcher(e.result.as_ref(), &mut used, &mut binds);
                matcher(e.error.as_ref(), &mut used, &mut binds);
                matcher(e.params.as_ref(), &mut used, &mut binds);
            }
            StepKind::RepeatUntil(r) => {
                binds.extend(r.expect.result.iter().flat_map(Matcher::binds));
                binds.extend(r.expect.error.iter().flat_map(Matcher::binds));
                // Iterations bind for the next one: the loop's own captures count.
                bound.extend(binds.iter().cloned());
                used.extend(r.send.params.iter().flat_map(|t| t.required_variables()));
                matcher(r.expect.result.as_ref(), &mut used, &mut binds);
                matcher(r.expect.error.as_ref(), &mut used, &mut binds);
            }
            StepKind::Discover(d) => {
                matcher(d.filter.as_ref(), &mut used, &mut binds);
                binds.push(d.into.clone());
                binds.extend(d.header_param.iter().cloned());
            }
            StepKind::Assert {
                value,
                matches,
                within,
            }
            | StepKind::Assume {
                value,
                matches,
                within,
                ..
            } => {
                used.extend(value.required_variables());
                matcher(Some(matches), &mut used, &mut binds);
                let waits_for_auth = s.auth.is_some()
                    && value
                        .required_variables()
                        .iter()
                        .any(|v| v.split('.').next() == Some("auth"));
                if within.is_some() && !waits_for_auth {
                    return Err(at_step(
                        step,
                        text,
                        format!(
                            "`within` waits for a value that changes while the step waits; only `${{auth}}` does, in a client scenario with `auth:` (this `{}` would wait its full time and change nothing)",
                            step.key()
                        ),
                    ));
                }
            }
            StepKind::ExpectSilence { params, .. } => {
                matcher(params.as_ref(), &mut used, &mut binds);
            }
            StepKind::Http(h) => {
                use crate::model::{HeaderMode, HttpBody, HttpUrl};
                if let HttpUrl::Path(p) = &h.url {
                    used.extend(str_variables(p));
                }
                for mode in [&h.session, &h.protocol_version] {
                    if let HeaderMode::Value(v) = mode {
                        used.extend(str_variables(v));
                    }
                }
                used.extend(h.headers.iter().flat_map(|(n, v)| {
                    str_variables(n)
                        .into_iter()
                        .chain(v.iter().flat_map(|v| str_variables(v)))
                }));
                match &h.body {
                    Some(HttpBody::Json(t)) => used.extend(t.required_variables()),
                    Some(HttpBody::Text(t)) => used.extend(str_variables(t)),
                    None => {}
                }
                if let Some(label) = &h.label {
                    bound.push(label.clone());
                }
                matcher(h.expect.as_ref(), &mut used, &mut binds);
            }
            StepKind::Reply(r) => {
                use crate::model::ReplyAnswer;
                if let ReplyAnswer::Result(t) | ReplyAnswer::Error(t) = &r.answer {
                    used.extend(t.required_variables());
                }
            }
            StepKind::Sleep(_)
            | StepKind::ExpectNoFetch(_)
            | StepKind::Disconnect
            | StepKind::ExpectExit { .. } => {}
        }
        // A matcher may use what it captured earlier in the same message.
        let visible = |name: &str| {
            let root = name.split('.').next().unwrap_or(name);
            let is_root = |b: &String| b.split('.').next() == Some(root);
            bound.iter().any(is_root) || binds.iter().any(is_root)
        };
        if let Some(name) = used.iter().find(|n| !visible(n)) {
            return Err(at_step(
                step,
                text,
                format!(
                    "this `{}` step uses `${{{name}}}`, which neither the runner nor an earlier step binds (bound here: {})",
                    step.key(),
                    bound.join(", ")
                ),
            ));
        }
        bound.extend(binds);
    }
    Ok(())
}
