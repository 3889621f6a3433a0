//! Tests of the reference server, driven through its sans-IO API exactly as
//! the stdio driver drives it: bytes through `NdjsonDecoder`, time as an
//! argument. One integration-test binary; one module per feature.

#![allow(clippy::unwrap_used)]

mod support;

mod fault_detectors;
mod faults;
mod fixture_detectors;
mod input_required;
mod jsonrpc;
mod lifecycle;
mod listen;
mod lists;
mod logging;
mod media;
mod message_detectors;
mod prompts;
mod resources;
mod stateless;
mod stateless_detectors;
mod tasks;
mod tools;
