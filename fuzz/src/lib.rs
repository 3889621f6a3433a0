//! Checkers that cannot live in the library they check.
//!
//! The invariant checkers of the wire and engine layers are public `fuzzing`
//! modules of those crates (`mcpspec_wire::fuzzing`, `mcpspec_engine::fuzzing`).
//! The scenario loader's checker lives here instead, over the loader's public
//! API, and `harness/cli/tests/fuzz_corpus_scenario.rs` compiles this very
//! file (`#[path]`) to replay the committed corpus on stable.

mod scenario;

pub use scenario::scenario;
