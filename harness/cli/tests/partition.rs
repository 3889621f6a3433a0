//! `--partition` and `mcpspec report combine`: the shards of a run against
//! the reference server with a fault, combined, give the report directory
//! the unsharded run gives (everything but time: start, durations, the
//! `at Nms` of oracle findings), its exit code included, with a baseline
//! applied alike; and directories that are not the shards of one run are
//! refused with exit 2.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use support::{mcpspec, path, temp_dir, Run, BIN};

const LIMIT: Duration = Duration::from_secs(120);

/// `mcpspec server` on a slice of the corpus against a server whose pings
/// answer wrongly, with a baseline listing one of the failures.
fn run(dir: &Path, name: &str, partition: Option<&str>) -> (Run, PathBuf) {
    let baseline = dir.join("baseline.yaml");
    std::fs::write(
        &baseline,
        "server/lifecycle/ping/operating@2025-06-18: known, fixed upstream\n",
    )
    .expect("baseline written");
    let out = dir.join(name);
    let mut args = vec![
        "server",
        "--filter",
        "server/lifecycle/",
        "--filter",
        "server/pagination/",
        "--expected-failures",
        path(&baseline),
        "--report-dir",
        path(&out),
    ];
    if let Some(p) = partition {
        args.extend_from_slice(&["--partition", p]);
    }
    args.extend_from_slice(&[
        "--",
        BIN,
        "reference",
        "server",
        "--fault",
        "ping-non-empty",
    ]);
    (mcpspec(&args, LIMIT), out)
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

/// `at 12ms: text` → `text`.
fn untimed(text: &str) -> String {
    match text.strip_prefix("at ").and_then(|r| r.split_once("ms: ")) {
        Some((n, rest)) if n.bytes().all(|b| b.is_ascii_digit()) => rest.to_owned(),
        _ => text.to_owned(),
    }
}

/// report.json without what depends on time.
fn timeless(mut doc: Value) -> Value {
    for key in ["started_at", "wall_ms", "jobs"] {
        doc["run"].as_object_mut().expect("run").remove(key);
    }
    doc["summary"]
        .as_object_mut()
        .expect("summary")
        .remove("wall_ms");
    for r in doc["results"].as_array_mut().expect("results") {
        let r = r.as_object_mut().expect("a result");
        r.remove("duration_ms");
        r.remove("transcript_lines");
        for f in r["findings"].as_array_mut().expect("findings") {
            f["actual"] = Value::from(untimed(f["actual"].as_str().unwrap_or_default()));
        }
        if let Some(m) = r.get("message").and_then(Value::as_str).map(untimed) {
            r.insert("message".into(), Value::from(m));
        }
    }
    for e in doc["rollup"].as_array_mut().expect("rollup") {
        let actual = untimed(e["example"]["actual"].as_str().unwrap_or_default());
        e["example"]["actual"] = Value::from(actual);
    }
    doc
}

/// The shards of `scheme` (`hash` or `count`) of 3, combined, equal the whole.
fn combined_equals_unsharded(scheme: &str) {
    let dir = temp_dir(&format!("partition-{scheme}"));
    let (whole, whole_dir) = run(&dir, "whole", None);
    assert_eq!(whole.code, Some(1), "{}{}", whole.stdout, whole.stderr);
    let mut shards = Vec::new();
    for k in 1..=3 {
        let (shard, out) = run(&dir, &format!("shard{k}"), Some(&format!("{scheme}:{k}/3")));
        assert!(
            matches!(shard.code, Some(0 | 1)),
            "{}{}",
            shard.stdout,
            shard.stderr
        );
        assert_eq!(
            read(&out.join("report.json"))["run"]["partition"],
            format!("{scheme}:{k}/3")
        );
        shards.push(out);
    }
    let out = dir.join("combined");
    let mut args = vec!["report", "combine"];
    args.extend(shards.iter().map(|s| path(s)));
    args.extend_from_slice(&["--out", path(&out)]);
    let combined = mcpspec(&args, LIMIT);
    assert_eq!(
        combined.code, whole.code,
        "{}{}",
        combined.stdout, combined.stderr
    );

    let earliest = shards
        .iter()
        .map(|s| read(&s.join("report.json"))["run"]["started_at"].clone())
        .min_by(|a, b| a.as_str().cmp(&b.as_str()));
    assert_eq!(
        Some(read(&out.join("report.json"))["run"]["started_at"].clone()),
        earliest
    );

    let mut expect = timeless(read(&whole_dir.join("report.json")));
    expect["run"]
        .as_object_mut()
        .expect("run")
        .remove("partition");
    let got = timeless(read(&out.join("report.json")));
    assert_eq!(got["summary"], expect["summary"]);
    assert_eq!(got["baseline"], expect["baseline"]);
    assert_eq!(got["rollup"], expect["rollup"]);
    assert_eq!(got, expect);
    assert!(
        got["summary"]["expected_failures"].as_u64() == Some(1),
        "{got}"
    );

    // The other reports follow from the same log; spot-check them.
    let results = |d: &Path| {
        read(&d.join("sarif.json"))["runs"][0]["results"]
            .as_array()
            .map(Vec::len)
    };
    assert_eq!(results(&out), results(&whole_dir));
    assert_eq!(
        read(&out.join("badge.json")),
        read(&whole_dir.join("badge.json"))
    );
    let junit = |d: &Path| {
        let xml = std::fs::read_to_string(d.join("junit.xml")).expect("junit.xml");
        let r = quick_junit::Report::deserialize_from_str(&xml).expect("parses");
        (r.tests, r.failures, r.errors)
    };
    assert_eq!(junit(&out), junit(&whole_dir));
    let transcripts = |d: &Path| {
        let mut names: Vec<String> = walk(&d.join("transcripts"));
        names.sort();
        names
    };
    assert_eq!(transcripts(&out), transcripts(&whole_dir));
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("a directory").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(
                walk(&p)
                    .into_iter()
                    .map(|n| format!("{}/{n}", e.file_name().to_string_lossy())),
            );
        } else {
            out.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn hash_shards_combine_into_the_unsharded_report() {
    combined_equals_unsharded("hash");
}

#[test]
fn count_shards_combine_into_the_unsharded_report() {
    combined_equals_unsharded("count");
}

#[test]
fn directories_that_are_not_the_shards_of_one_run_are_refused() {
    let dir = temp_dir("partition-refused");
    let (_, whole) = run(&dir, "whole", None);
    let (_, one) = run(&dir, "one", Some("count:1/2"));
    let (_, two) = run(&dir, "two", Some("count:2/2"));
    let (_, other) = run(&dir, "other", Some("hash:2/2"));
    let out = dir.join("out");
    for (dirs, says) in [
        (vec![&one], "missing shard(s): count:2/2"),
        (vec![&one, &one], "given twice"),
        (vec![&one, &other], "not of the same partition"),
        (vec![&whole, &two], "not a shard"),
    ] {
        let mut args = vec!["report", "combine"];
        args.extend(dirs.iter().map(|d| path(d)));
        args.extend_from_slice(&["--out", path(&out)]);
        let r = mcpspec(&args, LIMIT);
        assert_eq!(r.code, Some(2), "{dirs:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(says), "{dirs:?}: {}", r.stderr);
    }
}
