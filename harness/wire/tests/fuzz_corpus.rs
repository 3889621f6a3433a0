//! The committed fuzz corpora of the wire layer, replayed on stable: every
//! file of `fuzz/corpus/framing/`, `fuzz/corpus/jsonrpc/` and
//! `fuzz/corpus/sse/` goes through the same checker the fuzz target calls
//! ([`mcpspec_wire::fuzzing`], [`mcpspec_wire::sse::check_chunking`]), so CI
//! covers these targets without nightly or libFuzzer.

use std::fs;
use std::path::Path;

/// Runs `check` on every file of `fuzz/corpus/<target>/`; names the failures.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "{target} corpus has only {} files",
        files.len()
    );
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = fs::read(path).expect("readable corpus file");
            std::panic::catch_unwind(|| check(&data)).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(failed.is_empty(), "invariants broken by {failed:#?}");
}

#[test]
fn framing_corpus_holds_invariants() {
    replay("framing", mcpspec_wire::fuzzing::framing);
}

#[test]
fn jsonrpc_corpus_holds_invariants() {
    replay("jsonrpc", mcpspec_wire::fuzzing::jsonrpc);
}

#[test]
fn sse_corpus_holds_invariants() {
    replay("sse", mcpspec_wire::sse::check_chunking);
}
