//! The committed fuzz corpus of the engine, replayed on stable: every file of
//! `fuzz/corpus/engine/` goes through the checker the `engine` fuzz target
//! calls ([`mcpspec_engine::fuzzing::engine`]), for both roles.

use std::fs;
use std::path::Path;

#[test]
fn engine_corpus_holds_invariants() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/engine");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "engine corpus has only {} files",
        files.len()
    );
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = fs::read(path).expect("readable corpus file");
            std::panic::catch_unwind(|| mcpspec_engine::fuzzing::engine(&data)).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(failed.is_empty(), "invariants broken by {failed:#?}");
}
