//! ndjson framing: any chunking of the same bytes gives the same frames and errors.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_wire::fuzzing::framing(data));
