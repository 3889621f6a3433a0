//! Everything the server emits goes through an [`Outbox`]: JSON-RPC messages
//! become exact stdout lines, diagnostics go to stderr, and an exit request
//! ends the list. Faults that only change *how* a message is written
//! (`drop-jsonrpc`, `stringify-ids`, `embedded-newlines`,
//! `notification-with-id`) are applied here,
//! once, so the handlers never need to know about them.

use std::sync::atomic::{AtomicU64, Ordering};

use mcpspec_wire::{encode_line, Message};
use serde_json::Value;

use crate::fault::{Fault, FaultSet};
use crate::Output;

/// Collects the outputs of one call into the server.
#[derive(Debug)]
pub(crate) struct Outbox {
    faults: FaultSet,
    out: Vec<Output>,
}

impl Outbox {
    pub(crate) fn new(faults: FaultSet) -> Self {
        Outbox {
            faults,
            out: Vec::new(),
        }
    }

    /// Writes one message as one line.
    pub(crate) fn send(&mut self, msg: &Message) {
        let value = self.shape(msg);
        self.write_value(&value);
    }

    /// Writes the responses to a batch as one JSON array line.
    pub(crate) fn send_batch(&mut self, msgs: &[Message]) {
        let value = Value::Array(msgs.iter().map(|m| self.shape(m)).collect());
        self.write_value(&value);
    }

    /// Writes raw bytes to stdout (only faults do this).
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.out.push(Output::Write(bytes.to_vec()));
    }

    pub(crate) fn stderr(&mut self, line: impl Into<String>) {
        self.out.push(Output::Stderr(line.into()));
    }

    pub(crate) fn exit(&mut self, code: i32) {
        self.out.push(Output::Exit(code));
    }

    pub(crate) fn exited(&self) -> bool {
        self.out.iter().any(|o| matches!(o, Output::Exit(_)))
    }

    pub(crate) fn finish(self) -> Vec<Output> {
        self.out
    }

    fn shape(&self, msg: &Message) -> Value {
        let mut value = msg.to_value();
        if let (Message::Notification(_), Value::Object(obj)) = (msg, &mut value) {
            if self.faults.has(Fault::NotificationWithId) {
                // Unique across the process, so that only the notification
                // rule is broken (not the uniqueness of request ids).
                static NEXT: AtomicU64 = AtomicU64::new(1);
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                obj.insert("id".into(), Value::from(format!("notification-{n}")));
            }
        }
        if let (Message::Response(_), Value::Object(obj)) = (msg, &mut value) {
            if self.faults.has(Fault::DropJsonrpc) {
                obj.remove("jsonrpc");
            }
            if self.faults.has(Fault::StringifyIds) {
                if let Some(id @ Value::Number(_)) = obj.get_mut("id") {
                    *id = Value::String(id.to_string());
                }
            }
        }
        value
    }

    fn write_value(&mut self, value: &Value) {
        let text = if self.faults.has(Fault::EmbeddedNewlines) {
            // Serialising a `Value` cannot fail (its keys are strings); fall
            // back to the compact form rather than lose the message.
            serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
        } else {
            value.to_string()
        };
        self.out.push(Output::Write(encode_line(&text)));
    }
}
