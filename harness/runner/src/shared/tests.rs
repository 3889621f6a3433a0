//! The pool's and the sharing rules' unit tests: which cases share, how
//! targets are handed on and ended, and the bound on a version's targets.

use super::pool::PATIENCE;
use super::*;
use std::sync::Arc;
use std::time::Duration;

use mcpspec_transport::{CommandSpec, HttpOptions};

fn scenario(id: &str, steps: &str) -> Arc<Scenario> {
    let text =
        format!("id: {id}\ntitle: t\nrequirements: [ping.respond]\nlevel: must\nsteps:\n{steps}");
    Arc::new(mcpspec_scenario::parse("x.yaml", &text).unwrap_or_else(|e| panic!("{e}")))
}

fn cases() -> Vec<Case> {
    let plain = scenario("server/a", "  - send: { method: ping }\n");
    let silent = scenario(
        "server/b",
        "  - expect: { notification: notifications/message, within: 10ms }\n",
    );
    let other = scenario("server/c", "  - send: { method: tools/list }\n");
    let mut out = Vec::new();
    for v in [Version::ALL[0], Version::ALL[1]] {
        for s in [&plain, &silent, &other] {
            out.push(Case {
                id: s.case_id(v),
                scenario: Arc::clone(s),
                version: v,
            });
        }
    }
    out
}

fn stdio() -> Target {
    Target::Stdio(CommandSpec::new("true", Vec::<String>::new()))
}

fn ids(cases: &[Case]) -> Vec<&str> {
    cases.iter().map(|c| c.id.as_str()).collect()
}

#[test]
fn a_case_that_changes_the_session_takes_one_and_hands_none_on() {
    let taker = scenario(
        "server/t",
        "  - send: { method: logging/setLevel, params: { level: debug } }\n",
    );
    let case = Case {
        id: taker.case_id(Version::ALL[0]),
        scenario: Arc::clone(&taker),
        version: Version::ALL[0],
    };
    let (shared, alone) = shareable(vec![case.clone()], &stdio(), true, |_| false);
    assert_eq!((shared.len(), alone.len()), (1, 0));
    // It is among the cases idle targets are kept for: it may take one.
    let pool = Pool::new(&shared, 4, 2);
    assert_eq!(pool.state().to_come.get(&Version::ALL[0]), Some(&1));
}

#[test]
fn plain_requests_share_and_the_rest_run_alone() {
    let (shared, alone) = shareable(cases(), &stdio(), true, |_| false);
    assert_eq!(shared.len(), 4);
    assert!(shared.iter().all(|c| c.scenario.may_share()));
    assert_eq!(alone.len(), 2);
    assert!(ids(&alone).iter().all(|id| id.starts_with("server/b@")));
}

#[test]
fn isolate_client_targets_and_claimed_cases_share_nothing() {
    let (shared, alone) = shareable(cases(), &stdio(), false, |_| false);
    assert!(shared.is_empty());
    assert_eq!(alone.len(), 6);
    // A server over HTTP shares its sessions as a stdio one its processes.
    let http = Target::Http {
        url: "http://127.0.0.1:1/mcp".to_owned(),
        options: HttpOptions::default(),
    };
    let (shared, alone) = shareable(cases(), &http, true, |_| false);
    assert_eq!((shared.len(), alone.len()), (4, 2));
    // A client under test starts anew for every case.
    let client = Target::Client(mcpspec_transport::ClientCommand {
        command: CommandSpec::new("true", Vec::<String>::new()),
        shim: CommandSpec::new("true", Vec::<String>::new()),
    });
    let (shared, alone) = shareable(cases(), &client, true, |_| false);
    assert!(shared.is_empty());
    assert_eq!(alone.len(), 6);
    // Flaky cases under --retries keep their own retry loop.
    let (shared, alone) = shareable(cases(), &stdio(), true, |c| c.scenario.id == "server/a");
    assert_eq!(shared.len(), 2);
    assert_eq!(alone.len(), 4);
}

/// An idle target of `version` in `pool` (a process that says
/// nothing), with `used` ids.
async fn idle(pool: &Pool, version: Version, used: &[&str]) -> Live {
    let target = Target::Stdio(CommandSpec::new("sh", ["-c", "exec sleep 30"]));
    let proc = target
        .connect(1 << 20, Duration::from_secs(5))
        .await
        .expect("sh starts");
    Live {
        conn: Conn::new(proc, version, Duration::from_secs(5)),
        version,
        opening: Arc::new(Value::Null),
        tenure: Tenure {
            opened_by: "x".to_owned(),
            served: 1,
            used: used.iter().map(|s| (*s).to_owned()).collect(),
            held: pool.place(version),
        },
    }
}

#[tokio::test]
async fn the_pool_hands_a_target_to_its_version_only_and_ends_what_nothing_needs() {
    let [old, new] = [Version::ALL[0], Version::ALL[1]];
    let chosen = scenario("server/d", "  - send: { method: ping, id: \"mine\" }\n");
    let case = |s: &Arc<Scenario>, v: Version| Case {
        id: s.case_id(v),
        scenario: Arc::clone(s),
        version: v,
    };
    let plain = scenario("server/a", "  - send: { method: ping }\n");
    let cases = [case(&plain, old), case(&chosen, old), case(&plain, new)];
    let pool = Pool::new(&cases, 4, 2);
    // Nothing idle yet.
    assert!(pool.take(&cases[0]).is_none());
    let mine = ["\"mine\"".to_owned()];
    assert!(pool.may_wait(old, &mine), "no session used its id yet");
    // A target of the old version, on whose session "mine" was used.
    let given = pool.put(vec![idle(&pool, old, &["\"mine\""]).await]);
    assert!(given.is_empty(), "a case of its version is still to come");
    assert!(
        pool.done(&cases[0]).is_empty(),
        "and another after this one"
    );
    assert!(
        !pool.may_wait(old, &mine),
        "a session of its version used it"
    );
    assert!(pool.may_wait(new, &mine), "none of the other version did");
    assert!(pool.take(&cases[2]).is_none(), "another version's target");
    assert!(
        pool.take(&cases[1]).is_none(),
        "its chosen id was used there"
    );
    let mut live = pool.take(&cases[0]).expect("the idle target");
    assert!(idle_clean(&mut live).await);
    // The last case of the old version gives its target back: it waits
    // idle until that case is done, then goes with what else waits idle
    // of that version.
    assert!(pool.put(vec![live]).is_empty());
    let ended = pool.done(&cases[1]);
    assert_eq!(ended.len(), 1);
    end_all(ended).await;
    // Given back when nothing of its version is left to come: ended at once.
    let ended = pool.put(vec![idle(&pool, old, &[]).await]);
    assert_eq!(ended.len(), 1);
    end_all(ended).await;
    // At most `cap` wait idle in all, the oldest ended first.
    let three = [case(&plain, new), case(&plain, new), case(&plain, new)];
    let pool = Pool::new(&three, 1, 2);
    assert!(pool.put(vec![idle(&pool, new, &[]).await]).is_empty());
    let ended = pool.put(vec![idle(&pool, new, &["x"]).await]);
    assert_eq!(ended.len(), 1, "one waits idle at most");
    assert!(ended[0].tenure.used.is_empty(), "the oldest went");
    end_all(ended).await;
    // At most `per_version` of a version: cases run in a fresh process hand
    // theirs on too, and a version keeps no more than it may have up.
    let both = [case(&plain, old), case(&plain, new)];
    let pool = Pool::new(&both, 8, 1);
    let ended = pool.put(vec![
        idle(&pool, new, &[]).await,
        idle(&pool, new, &["y"]).await,
        idle(&pool, old, &[]).await,
    ]);
    assert_eq!(ended.len(), 1, "one of the new version's two");
    assert_eq!((ended[0].version, ended[0].tenure.used.len()), (new, 0));
    end_all(ended).await;
    assert_eq!(pool.state().idle.len(), 2, "one of each version waits");
    pool.close().await;
}

/// Whether `acquire` is still waiting after a while: it neither found a
/// target nor started one.
async fn waits(acquire: std::pin::Pin<&mut impl std::future::Future<Output = Seat>>) -> bool {
    tokio::time::timeout(Duration::from_millis(200), acquire)
        .await
        .is_err()
}

#[tokio::test]
async fn a_case_waits_for_a_busy_target_rather_than_start_one_beyond_the_bound() {
    let v = Version::ALL[0];
    let case = |s: &Arc<Scenario>| Case {
        id: s.case_id(v),
        scenario: Arc::clone(s),
        version: v,
    };
    let plain = scenario("server/a", "  - send: { method: ping }\n");
    let chosen = scenario("server/d", "  - send: { method: ping, id: \"mine\" }\n");
    let cases = [case(&plain), case(&plain), case(&plain), case(&chosen)];
    let pool = Pool::new(&cases, 4, 1);
    // The version's one place: a target in another case's hands, on whose
    // session "mine" was used by an earlier case.
    assert!(pool
        .put(vec![idle(&pool, v, &["\"mine\""]).await])
        .is_empty());
    let busy = pool.take(&cases[0]).expect("the idle target");
    let waiting = pool.acquire(&cases[1]);
    tokio::pin!(waiting);
    assert!(
        waits(waiting.as_mut()).await,
        "it waits rather than start a second target"
    );
    // A case whose chosen id was used on a session of its version starts
    // one beyond the bound at once: every target up may have used it.
    let Seat::Start(beyond) = pool.acquire(&cases[3]).await else {
        panic!("nothing was idle")
    };
    // The busy target handed back: the waiting case takes it.
    assert!(pool.put(vec![busy]).is_empty());
    let Seat::Idle(taken) = waiting.await else {
        panic!("it started a target beyond the bound")
    };
    // A place given back (the target ended) lets the next one start.
    drop(beyond);
    let next = pool.acquire(&cases[2]);
    tokio::pin!(next);
    assert!(waits(next.as_mut()).await, "the one place is still taken");
    end_all(vec![*taken]).await;
    assert!(matches!(next.await, Seat::Start(_)));
}

#[tokio::test]
async fn a_case_starts_one_beyond_the_bound_when_the_busy_targets_stay_busy() {
    let v = Version::ALL[0];
    let plain = scenario("server/a", "  - send: { method: ping }\n");
    let case = Case {
        id: plain.case_id(v),
        scenario: Arc::clone(&plain),
        version: v,
    };
    let pool = Pool::new(&[case.clone(), case.clone()], 4, 1);
    // The version's one place, held by a case that waits out a window.
    let busy = idle(&pool, v, &[]).await;
    let started = Instant::now();
    let seat = tokio::time::timeout(PATIENCE * 4, pool.acquire(&case))
        .await
        .expect("it gave up waiting");
    assert!(matches!(seat, Seat::Start(_)), "nothing was freed");
    assert!(
        started.elapsed() >= PATIENCE,
        "it waited {:?}, less than its patience",
        started.elapsed()
    );
    drop(seat);
    end_all(vec![busy]).await;
}

#[tokio::test]
async fn an_idle_target_that_exited_is_not_handed_on() {
    let target = Target::Stdio(CommandSpec::new("true", Vec::<String>::new()));
    let proc = target
        .connect(1 << 20, Duration::from_secs(5))
        .await
        .expect("true starts");
    let mut live = Live {
        conn: Conn::new(proc, Version::ALL[0], Duration::from_secs(5)),
        version: Version::ALL[0],
        opening: Arc::new(Value::Null),
        tenure: Tenure {
            opened_by: "x".to_owned(),
            served: 1,
            used: HashSet::new(),
            held: Pool::new(&[], 0, 1)
                .reserve(Version::ALL[0], true)
                .expect("a place"),
        },
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while live.conn.exit().is_none() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        live.conn.drain_ready().await;
    }
    assert!(!idle_clean(&mut live).await, "the target is gone");
}

/// A connection to `sh -c script`, after what it wrote had a moment to arrive.
async fn conn_of(script: &str) -> Conn {
    let target = Target::Stdio(CommandSpec::new("sh", ["-c", script]));
    let proc = target
        .connect(1 << 20, Duration::from_secs(5))
        .await
        .expect("sh starts");
    let mut conn = Conn::new(proc, Version::ALL[0], Duration::from_secs(5));
    let deadline = Instant::now() + Duration::from_secs(5);
    while conn.frames_received() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        conn.drain_ready().await;
    }
    conn
}

#[tokio::test]
async fn a_session_is_in_order_only_while_the_target_writes_json_rpc_that_a_step_took() {
    // A notification of its own accord is let go.
    let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
    let mut conn = conn_of(&format!("echo '{note}'; exec sleep 30")).await;
    assert_eq!(conn.frames_received(), 1);
    assert!(in_order(&mut conn), "a notification no step took");
    conn.end().await;
    // A line that is no JSON-RPC: whatever the verdict, nobody else plays there.
    let mut conn = conn_of("echo 'not json'; exec sleep 30").await;
    assert!(!in_order(&mut conn), "noise on stdout");
    conn.end().await;
    // An answer no step took (to a request nobody sent).
    let stray = r#"{"jsonrpc":"2.0","id":"mcpspec-nobody","result":{}}"#;
    let mut conn = conn_of(&format!("echo '{stray}'; exec sleep 30")).await;
    assert!(!in_order(&mut conn), "an answer no step took");
    conn.end().await;
}
