//! SSE decoding: any chunking of the same bytes gives the same events and errors.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_wire::sse::check_chunking(data));
