//! The scenario loader: no panic; every error points inside the file.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_fuzz_targets::scenario(data));
