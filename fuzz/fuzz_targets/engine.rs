//! The sans-IO engine: any message sequence, either role: no panic, invariants hold.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_engine::fuzzing::engine(data));
