//! JSON-RPC classification: never panics; classify → serialize → classify is stable.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_wire::fuzzing::jsonrpc(data));
