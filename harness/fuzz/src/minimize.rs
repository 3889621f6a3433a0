//! Replaying an input sequence in a fresh process (or HTTP session), and shrinking it by delta
//! debugging (Zeller & Hildebrandt's ddmin) while the same oracle still trips
//! on the same kind of message.
//!
//! A sequence is the inputs of one session and where the handshake falls in
//! it (`handshake_at` inputs go before `initialize`). Shrinking first cuts
//! everything after the input that tripped the oracle, then tries that input
//! alone (most findings need nothing else), then runs ddmin over what is
//! left, within a time budget; the smallest sequence that still reproduced
//! is kept.

use std::time::Duration;

use mcpspec_engine::ids;
use tokio::time::Instant;

use crate::driver::{memory_verdict, Session, SessionConfig};
use crate::expect::{derive, Expect};
use crate::input::Input;
use crate::oracle::{Oracle, Verdict};

/// A sequence of inputs and the position of the handshake among them.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    pub inputs: Vec<Input>,
    pub handshake_at: usize,
}

/// A verdict with its deduplication key ([`key_of`]) and the message kind
/// it was seen with.
#[derive(Debug, Clone, PartialEq)]
pub struct Tripped {
    pub verdict: Verdict,
    /// The key findings are deduplicated by.
    pub kind: String,
    /// The message kind it was seen with ([`kind_at`]).
    pub seen: String,
}

/// The message kind of an input, for deduplication: what its bytes are,
/// read strictly (`unparsable`, `invalid json-rpc`, `request tools/call`,
/// `malformed tools/call`, `notification`, `batch`, `ambiguous`).
pub fn kind_of(expects: &[Expect]) -> String {
    let mut kind = None;
    let mut rank = 0;
    for e in expects {
        let (r, k) = match e {
            Expect::Owed { error: Some(w), .. }
                if w.requirement == &ids::JSONRPC_ERROR_METHOD_NOT_FOUND =>
            {
                (7, "unknown method".to_owned())
            }
            Expect::Owed {
                method,
                error: Some(_),
                ..
            } => (7, format!("malformed {method}")),
            Expect::Owed { batch: true, .. } => (6, "batch".to_owned()),
            Expect::Owed { method, .. } => (6, format!("request {method}")),
            Expect::Batch => (5, "batch".to_owned()),
            Expect::MayAnswer { error: Some(_), .. } | Expect::Echo { .. } => {
                (4, "invalid json-rpc".to_owned())
            }
            Expect::MayAnswer { error: None, .. } => (3, "ambiguous".to_owned()),
            Expect::Notification { .. } | Expect::Cancel { .. } => (2, "notification".to_owned()),
            Expect::NullIdError => (1, "unparsable".to_owned()),
        };
        if r > rank {
            rank = r;
            kind = Some(k);
        }
    }
    kind.unwrap_or_else(|| "empty".to_owned())
}

/// Runs `seq` in a fresh process (or HTTP session) until an oracle trips or
/// the sequence ends (then waits for owed answers). `Err` when the target
/// cannot be started or reached.
pub async fn run_sequence(cfg: &SessionConfig, seq: &Sequence) -> Result<Vec<Tripped>, String> {
    play(cfg, seq, false).await
}

/// Runs `seq` one input at a time in a fresh process, on past verdicts
/// that do not end a session, until one that does (or the end): how a
/// session that ended with inputs in flight is told which input it ended
/// on ([`crate::driver::Session::ended_in_window`]).
pub async fn run_to_end(cfg: &SessionConfig, seq: &Sequence) -> Result<Vec<Tripped>, String> {
    play(cfg, seq, true).await
}

async fn play(cfg: &SessionConfig, seq: &Sequence, to_end: bool) -> Result<Vec<Tripped>, String> {
    let mut s = Session::connect(cfg).await?;
    let mut kinds = Vec::new();
    let mut out = Vec::new();
    let mut rss_base = None;
    for (i, input) in seq.inputs.iter().enumerate() {
        if i == seq.handshake_at {
            if let Err(e) = s.handshake().await {
                s.end().await;
                if let (0, Some(why)) = (i, s.unreachable()) {
                    return Err(why.to_owned());
                }
                let mut v = e.verdict.into_iter().collect::<Vec<_>>();
                for x in &mut v {
                    x.exec = i.checked_sub(1).map(|p| p as u64);
                }
                return Ok(with_kinds(v, &kinds));
            }
            let carried = s.take_carry();
            if !carried.is_empty() {
                s.end().await;
                return Ok(with_kinds(carried, &kinds));
            }
            rss_base = s.rss_kib();
        }
        let expects = derive(input, s.expect_ctx());
        kinds.push(kind_of(&expects));
        let v = s.exec(i as u64, input, &expects).await;
        let ends = s.exited() || v.iter().any(|v| v.oracle.ends_session());
        if !v.is_empty() && (ends || !to_end) {
            out = v;
            break;
        }
    }
    if out.is_empty() && !s.exited() {
        if seq.handshake_at >= seq.inputs.len() && !s.initialized {
            match s.handshake().await {
                Err(_) if seq.inputs.is_empty() && s.unreachable().is_some() => {
                    return Err(s.unreachable().unwrap_or_default().to_owned());
                }
                Err(e) => out.extend(e.verdict.map(|mut v| {
                    v.exec = seq.inputs.len().checked_sub(1).map(|p| p as u64);
                    v
                })),
                Ok(()) => out.extend(s.take_carry()),
            }
        }
        out.extend(s.drain().await);
        let last = seq.inputs.len().checked_sub(1).map(|p| p as u64);
        if let (Some(base), Some(now)) = (rss_base, s.rss_kib()) {
            out.extend(memory_verdict(base, now, cfg.rss_growth_kib, last));
        }
    }
    s.end().await;
    Ok(with_kinds(out, &kinds))
}

/// Verdicts of a sequence (execs counted from 0), with their keys and kinds.
pub(crate) fn with_kinds(verdicts: Vec<Verdict>, kinds: &[String]) -> Vec<Tripped> {
    verdicts
        .into_iter()
        .map(|verdict| {
            let seen = kind_at(&verdict, 0, kinds);
            Tripped {
                kind: key_of(&verdict, &seen),
                verdict,
                seen,
            }
        })
        .collect()
}

/// The index, in a session that began at exec `session_start`, of the
/// input a verdict is attributed to.
pub(crate) fn index_in(v: &Verdict, session_start: u64) -> Option<usize> {
    v.exec
        .and_then(|e| usize::try_from(e.checked_sub(session_start)?).ok())
}

/// The key a verdict is deduplicated by: its cause when it names one (one
/// root cause seen with many inputs is one finding), else the message kind
/// it was seen with ([`kind_at`]).
pub fn key_of(v: &Verdict, seen: &str) -> String {
    v.cause.clone().unwrap_or_else(|| seen.to_owned())
}

/// The message kind a verdict was seen with: the oracle's subject, else
/// the kind of its input (`kinds`: the session's, in order), else
/// "handshake".
pub(crate) fn kind_at(v: &Verdict, session_start: u64, kinds: &[String]) -> String {
    v.subject.clone().unwrap_or_else(|| {
        index_in(v, session_start)
            .and_then(|i| kinds.get(i))
            .cloned()
            .unwrap_or_else(|| "handshake".to_owned())
    })
}

/// Whether running `seq` trips `oracle` on a message of `kind` again.
pub async fn reproduces(cfg: &SessionConfig, seq: &Sequence, oracle: Oracle, kind: &str) -> bool {
    run_sequence(cfg, seq)
        .await
        .is_ok_and(|t| trips(&t, oracle, kind))
}

/// Whether `oracle` tripped with the key `kind` among `tripped` (or on a
/// message of that kind: reproducers written before causes were keys).
pub(crate) fn trips(tripped: &[Tripped], oracle: Oracle, kind: &str) -> bool {
    tripped
        .iter()
        .any(|t| t.verdict.oracle == oracle && (t.kind == kind || t.seen == kind))
}

/// The sequence with only the inputs at `keep` (indices, ascending).
fn subset(seq: &Sequence, keep: &[usize]) -> Sequence {
    Sequence {
        inputs: keep.iter().map(|&i| seq.inputs[i].clone()).collect(),
        handshake_at: keep.iter().filter(|&&i| i < seq.handshake_at).count(),
    }
}

/// Shrinks `seq`, whose input `trigger` tripped `oracle` on `kind`, within
/// `budget`. Returns the smallest sequence found and whether it was seen to
/// reproduce in a fresh process.
pub async fn minimize(
    cfg: &SessionConfig,
    seq: &Sequence,
    trigger: usize,
    oracle: Oracle,
    kind: &str,
    budget: Duration,
) -> (Sequence, bool) {
    let deadline = Instant::now() + budget;
    let end = trigger.min(seq.inputs.len().saturating_sub(1));
    shrink_around(
        end,
        deadline,
        |keep| subset(seq, keep),
        async |trial: &Sequence| {
            let cfg = SessionConfig {
                max_wait: within_budget(cfg.max_wait, cfg.timeout, deadline),
                ..cfg.clone()
            };
            reproduces(&cfg, trial, oracle, kind).await
        },
    )
    .await
}

/// A trial waits for owed answers no longer than the budget has left (at
/// least a timeout): a target that leaves requests unanswered must not
/// make each trial last `--max-wait`.
pub(crate) fn within_budget(max_wait: Duration, timeout: Duration, deadline: Instant) -> Duration {
    max_wait.min(
        deadline
            .saturating_duration_since(Instant::now())
            .max(timeout),
    )
}

/// The shrinking both fuzzers do once input `end` tripped an oracle: that
/// input alone (most findings need nothing else), then everything up to
/// it, then ddmin over the inputs before it, `end` always kept. `make`
/// builds a trial from ascending input indices, `still` runs one afresh.
/// Returns the smallest trial found and whether it was seen to reproduce.
pub(crate) async fn shrink_around<T>(
    end: usize,
    deadline: Instant,
    make: impl Fn(&[usize]) -> T,
    mut still: impl AsyncFnMut(&T) -> bool,
) -> (T, bool) {
    let alone = make(&[end]);
    if still(&alone).await {
        return (alone, true);
    }
    if end == 0 {
        return (alone, false);
    }
    let whole = make(&(0..=end).collect::<Vec<_>>());
    if !still(&whole).await {
        return (whole, false);
    }
    let with_end = |keep: &[usize]| {
        let mut k = keep.to_vec();
        k.push(end);
        k
    };
    let kept = ddmin((0..end).collect(), deadline, async |keep: &[usize]| {
        still(&make(&with_end(keep))).await
    })
    .await;
    (make(&with_end(&kept)), true)
}

/// Delta debugging (ddmin): the smallest subset of `items` found before
/// `deadline` for which `still` holds (`still(items)` is known to). Each
/// round tries dropping one of `n` chunks; a success restarts from the
/// smaller set with fewer chunks, a failed round doubles `n`.
pub(crate) async fn ddmin(
    items: Vec<usize>,
    deadline: Instant,
    mut still: impl AsyncFnMut(&[usize]) -> bool,
) -> Vec<usize> {
    let mut current = items;
    let mut n = 2usize;
    while !current.is_empty() && Instant::now() < deadline {
        let chunk = current.len().div_ceil(n);
        let mut reduced = false;
        for start in (0..current.len()).step_by(chunk.max(1)) {
            if Instant::now() >= deadline {
                break;
            }
            let complement: Vec<usize> = current
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < start || *i >= start + chunk)
                .map(|(_, &x)| x)
                .collect();
            if still(&complement).await {
                current = complement;
                n = (n - 1).max(2);
                reduced = true;
                break;
            }
        }
        if !reduced {
            if n >= current.len() {
                break;
            }
            n = (n * 2).min(current.len());
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Hint, Level};
    use mcpspec_wire::Id;

    #[tokio::test]
    async fn ddmin_keeps_only_what_the_predicate_needs() {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut trials = 0;
        let kept = ddmin((0..10).collect(), deadline, async |keep: &[usize]| {
            trials += 1;
            keep.contains(&3) && keep.contains(&7)
        })
        .await;
        assert_eq!(kept, [3, 7]);
        assert!(trials < 40, "{trials} trials");
        // Nothing can go: the set comes back whole.
        let all = ddmin(vec![1, 2], deadline, async |keep: &[usize]| keep.len() == 2).await;
        assert_eq!(all, [1, 2]);
    }

    #[tokio::test]
    async fn shrinking_tries_the_trigger_alone_then_keeps_what_is_needed() {
        let deadline = Instant::now() + Duration::from_secs(5);
        let make = |keep: &[usize]| keep.to_vec();
        // The trigger alone reproduces: nothing else is tried.
        let mut trials = 0;
        let alone = shrink_around(5, deadline, make, async |t: &Vec<usize>| {
            trials += 1;
            t.contains(&5)
        })
        .await;
        assert_eq!((alone, trials), ((vec![5], true), 1));
        // It needs input 2 before it.
        let needs = shrink_around(5, deadline, make, async |t: &Vec<usize>| {
            t.contains(&2) && t.contains(&5)
        })
        .await;
        assert_eq!(needs, (vec![2, 5], true));
        // Nothing reproduces: everything up to the trigger, unconfirmed.
        let never = shrink_around(3, deadline, make, async |_: &Vec<usize>| false).await;
        assert_eq!(never, (vec![0, 1, 2, 3], false));
        // The first input: alone is all there is.
        let first = shrink_around(0, deadline, make, async |_: &Vec<usize>| false).await;
        assert_eq!(first, (vec![0], false));
    }

    #[test]
    fn a_trial_waits_no_longer_than_the_budget_has_left() {
        let (max, t) = (Duration::from_secs(60), Duration::from_secs(2));
        let soon = Instant::now() + Duration::from_secs(10);
        assert!(within_budget(max, t, soon) <= Duration::from_secs(10));
        assert_eq!(within_budget(max, t, Instant::now()), t);
        let later = Instant::now() + Duration::from_secs(600);
        assert_eq!(within_budget(max, t, later), max);
    }

    #[test]
    fn subsets_keep_the_handshake_position() {
        let inputs: Vec<Input> = (0..5)
            .map(|i| Input::new(Level::Bytes, format!("bytes/{i}"), Hint::Exact, vec![b'x']))
            .collect();
        let seq = Sequence {
            inputs,
            handshake_at: 2,
        };
        let s = subset(&seq, &[1, 3, 4]);
        assert_eq!(s.handshake_at, 1);
        assert_eq!(s.inputs[0].label, "bytes/1");
    }

    #[test]
    fn kinds_name_the_strongest_expectation() {
        assert_eq!(kind_of(&[Expect::NullIdError]), "unparsable");
        let owed = Expect::Owed {
            id: Id::from(1),
            method: "tools/call".into(),
            error: None,
            token: None,
            batch: false,
        };
        assert_eq!(kind_of(&[Expect::NullIdError, owed]), "request tools/call");
        assert_eq!(kind_of(&[]), "empty");
    }
}
