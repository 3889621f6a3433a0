//! Integration tests of the reference server over HTTP: the server runs
//! in-process on 127.0.0.1, port 0; requests go over raw TCP.

#![allow(clippy::unwrap_used)]

mod auth;
mod auth_server;
mod faults;
mod legacy;
mod param_faults;
mod stateless;
mod streamable;
mod support;
