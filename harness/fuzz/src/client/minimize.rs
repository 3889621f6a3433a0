//! Replaying inputs against a fresh client, and shrinking them by delta
//! debugging (ddmin) while the same oracle still trips on the same kind of
//! message — the client counterpart of [`crate::minimize`].
//!
//! A client sequence always starts with the handshake (no input goes before
//! `initialize` is answered), so it is a plain list of inputs rather than a
//! [`crate::minimize::Sequence`]. Shrinking first tries no input at all
//! (for a client that never answers ping, or writes junk on its own: a
//! server fuzzer's session always has its inputs to blame), then shrinks
//! as the server fuzzer does ([`crate::minimize::shrink_around`]: the input
//! that tripped the oracle alone, then ddmin over the inputs before it),
//! within a time budget. Each trial starts a fresh client.

use std::time::Duration;

use tokio::time::Instant;

use super::driver::{ClientSession, SessionConfig};
use super::expect::{derive, kind};
use crate::input::Input;
use crate::minimize::{shrink_around, trips, with_kinds, within_budget, Tripped};
use crate::oracle::Oracle;

/// Runs `inputs` against a fresh client until an oracle trips or the
/// inputs end (then waits for owed answers; with no inputs, sends one sync
/// ping). `Err` when the client cannot be started or never sends
/// `initialize`.
pub async fn run_sequence(cfg: &SessionConfig, inputs: &[Input]) -> Result<Vec<Tripped>, String> {
    let mut s = ClientSession::connect(cfg).await?;
    if let Err(e) = s.handshake().await {
        s.end().await;
        return match e.verdict {
            Some(v) => Ok(with_kinds(vec![v], &[])),
            None => Err(e.message),
        };
    }
    let carried = s.take_carry();
    if !carried.is_empty() {
        s.end().await;
        return Ok(with_kinds(carried, &[]));
    }
    let mut kinds = Vec::new();
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let expects = derive(input, s.version(), s.capabilities());
        kinds.push(kind(&expects));
        out = s.exec(i as u64, input, &expects).await;
        if !out.is_empty() || s.exited() || s.wound_down() {
            break;
        }
    }
    if out.is_empty() && !s.exited() && !s.wound_down() {
        if inputs.is_empty() {
            out.extend(s.bare_ping().await);
        }
        out.extend(s.drain().await);
    }
    s.end().await;
    Ok(with_kinds(out, &kinds))
}

/// Whether `inputs` trip `oracle` on a message of `kind` again.
pub async fn reproduces(cfg: &SessionConfig, inputs: &[Input], oracle: Oracle, kind: &str) -> bool {
    run_sequence(cfg, inputs)
        .await
        .is_ok_and(|t| trips(&t, oracle, kind))
}

/// Whether a finding of `oracle` may need no input at all.
fn may_need_nothing(oracle: Oracle) -> bool {
    matches!(oracle, Oracle::Ping | Oracle::Alive | Oracle::Stdout)
}

/// Shrinks `inputs`, whose input `trigger` tripped `oracle` on `kind`,
/// within `budget`. Returns the smallest sequence found and whether it was
/// seen to reproduce with a fresh client.
pub async fn minimize(
    cfg: &SessionConfig,
    inputs: &[Input],
    trigger: usize,
    oracle: Oracle,
    kind: &str,
    budget: Duration,
) -> (Vec<Input>, bool) {
    let deadline = Instant::now() + budget;
    if may_need_nothing(oracle) && reproduces(cfg, &[], oracle, kind).await {
        return (Vec::new(), true);
    }
    if trigger >= inputs.len() {
        return (inputs.to_vec(), false);
    }
    shrink_around(
        trigger,
        deadline,
        |keep| keep.iter().map(|&i| inputs[i].clone()).collect::<Vec<_>>(),
        async |trial: &Vec<Input>| {
            let cfg = SessionConfig {
                max_wait: within_budget(cfg.max_wait, cfg.timeout, deadline),
                ..cfg.clone()
            };
            reproduces(&cfg, trial, oracle, kind).await
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Verdict;
    use mcpspec_engine::ids;

    #[test]
    fn kinds_come_from_the_subject_then_the_input() {
        let own = Verdict::new(Oracle::Ping, &ids::PING_RESPOND, String::new(), Some(0))
            .about("sync ping".to_owned());
        let input = Verdict::new(
            Oracle::Alive,
            &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
            String::new(),
            Some(1),
        );
        let none = Verdict::new(
            Oracle::Stdout,
            &ids::JSONRPC_MESSAGE_VALID,
            String::new(),
            None,
        );
        let kinds = vec!["notification".to_owned(), "unparsable".to_owned()];
        let t = with_kinds(vec![own, input, none], &kinds);
        let k: Vec<&str> = t.iter().map(|t| t.kind.as_str()).collect();
        assert_eq!(k, ["sync ping", "unparsable", "handshake"]);
        assert!(may_need_nothing(Oracle::Ping) && !may_need_nothing(Oracle::Unanswered));
    }
}
