//! Reproducer files: a finding, minimised, in a small JSON format that a
//! person can read and `mcpspec replay` can run again.
//!
//! ```json
//! {
//!   "format": "mcpspec-fuzz-reproducer/1",
//!   "oracle": "alive",
//!   "requirement": "jsonrpc.robustness.survives-invalid",
//!   "level": "SHOULD",
//!   "kind": "unparsable",
//!   "seen": "the target exited with code 1",
//!   "version": "2025-11-25",
//!   "timeout_ms": 2000,
//!   "max_wait_ms": 60000,
//!   "handshake_at": 0,
//!   "confirmed": true,
//!   "transport": "stdio",
//!   "command": ["mcpspec", "reference", "server", "--fault", "exit-on-malformed"],
//!   "inputs": [
//!     { "level": "json", "label": "json/malformed", "hint": "exact",
//!       "bytes": { "text": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\n" } }
//!   ]
//! }
//! ```
//!
//! - `version`: the protocol version of the handshake; `handshake_at`: how
//!   many inputs are sent before it (`initialize`, its answer,
//!   `notifications/initialized`, then the target's lists are read);
//!   `confirmed`: the minimised inputs tripped the oracle again in a fresh
//!   process (false when the finding depends on timing); `timeout_ms` and
//!   `max_wait_ms` (absent in files written before it: 60 s): how long the
//!   run waited for the sync ping and for owed answers.
//! - `inputs`: sent in order, each followed by a `ping` that must be answered
//!   (the driver adds a final newline to an input that lacks one). `bytes` is
//!   `{"text": "..."}` when the bytes are UTF-8 (JSON escapes show control
//!   characters exactly) and `{"base64": "..."}` otherwise; `splits` are the
//!   offsets of separately flushed writes.
//! - `transport`: `stdio` (the default, for files written before HTTP
//!   targets), `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE); over
//!   HTTP each input is one POST body (see [`crate::post`]) and `url` is
//!   the endpoint or SSE stream URL.
//! - `command` (stdio) / `url` (HTTP): what was fuzzed; `mcpspec replay`
//!   runs the command given after `--` (or `--url`, `--sse-url`), or this one.
//!   Extra HTTP headers (`-H`) are not recorded: they may be credentials.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::input::Input;
use crate::target::Target;

pub const FORMAT: &str = "mcpspec-fuzz-reproducer/1";

/// One minimised finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reproducer {
    pub format: String,
    pub oracle: crate::oracle::Oracle,
    pub requirement: String,
    /// `MUST` or `SHOULD`.
    pub level: String,
    /// The key the finding was deduplicated by: its cause, or the message
    /// kind (see [`crate::minimize::key_of`]).
    pub kind: String,
    /// What the oracle saw.
    pub seen: String,
    pub version: String,
    pub timeout_ms: u64,
    /// The most an owed answer was waited for (`None`: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wait_ms: Option<u64>,
    pub handshake_at: usize,
    /// The minimised inputs tripped the oracle again in a fresh process.
    pub confirmed: bool,
    /// `stdio`, `http` or `sse`.
    #[serde(default = "stdio")]
    pub transport: String,
    /// The URL of an HTTP target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    pub inputs: Vec<Input>,
}

fn stdio() -> String {
    "stdio".to_owned()
}

impl Reproducer {
    /// How long the run waited for owed answers at most.
    pub fn max_wait(&self) -> std::time::Duration {
        self.max_wait_ms.map_or(
            crate::oracle::DEFAULT_MAX_WAIT,
            std::time::Duration::from_millis,
        )
    }
}

/// Reading or writing a reproducer failed.
#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    #[error("failed to read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("failed to write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a reproducer: {reason}")]
    Format { path: String, reason: String },
}

impl Reproducer {
    /// The target the reproducer names (no extra HTTP headers).
    pub fn target(&self) -> Result<Target, String> {
        let options = mcpspec_transport::HttpOptions::default();
        let url = || {
            self.url.clone().ok_or_else(|| {
                format!(
                    "the {} reproducer names no URL; give --url or --sse-url",
                    self.transport
                )
            })
        };
        match self.transport.as_str() {
            "stdio" => match self.command.split_first() {
                Some((p, a)) => Ok(Target::Stdio(mcpspec_transport::CommandSpec::new(
                    p.clone(),
                    a.iter().cloned(),
                ))),
                None => Err("the reproducer names no command; give one after --".into()),
            },
            "http" => Ok(Target::Http {
                url: url()?,
                options,
            }),
            "sse" => Ok(Target::Sse {
                url: url()?,
                options,
            }),
            other => Err(format!("unknown transport {other:?} in the reproducer")),
        }
    }

    pub fn load(path: &Path) -> Result<Self, ReproError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ReproError::Read {
            path: shown.clone(),
            source,
        })?;
        let r: Reproducer = serde_json::from_str(&text).map_err(|e| ReproError::Format {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        if r.format != FORMAT {
            return Err(ReproError::Format {
                path: shown,
                reason: format!("format {:?}, expected {FORMAT:?}", r.format),
            });
        }
        Ok(r)
    }

    pub fn save(&self, path: &Path) -> Result<(), ReproError> {
        let err = |source| ReproError::Write {
            path: path.display().to_string(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        std::fs::write(path, text).map_err(err)
    }
}

/// `{"text": …}` or `{"base64": …}` for exact bytes.
pub(crate) mod bytes_serde {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Repr {
        Text(String),
        Base64(String),
    }

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(bytes) {
            Ok(t) => Repr::Text(t.to_owned()),
            Err(_) => Repr::Base64(super::base64::encode(bytes)),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Text(t) => Ok(t.into_bytes()),
            Repr::Base64(b) => super::base64::decode(&b)
                .ok_or_else(|| serde::de::Error::custom("invalid base64 in `bytes`")),
        }
    }
}

/// Standard base64 with padding (RFC 4648 §4).
pub(crate) mod base64 {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;

    pub fn encode(bytes: &[u8]) -> String {
        STANDARD.encode(bytes)
    }

    pub fn decode(text: &str) -> Option<Vec<u8>> {
        STANDARD.decode(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Hint, Level};

    #[test]
    fn base64_round_trips() {
        for n in 0..40u8 {
            let b: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37) ^ 0xA5).collect();
            assert_eq!(base64::decode(&base64::encode(&b)), Some(b));
        }
        assert_eq!(base64::encode(b"Man"), "TWFu");
        assert_eq!(base64::encode(b"M"), "TQ==");
        assert_eq!(base64::decode("!!"), None);
    }

    #[test]
    fn reproducers_round_trip_through_files_with_exact_bytes() {
        let r = Reproducer {
            format: FORMAT.into(),
            oracle: crate::oracle::Oracle::Alive,
            requirement: "jsonrpc.robustness.survives-invalid".into(),
            level: "SHOULD".into(),
            kind: "unparsable".into(),
            seen: "exited".into(),
            version: "2025-11-25".into(),
            timeout_ms: 2000,
            max_wait_ms: Some(5000),
            handshake_at: 0,
            confirmed: true,
            transport: "stdio".into(),
            url: None,
            command: vec!["x".into()],
            inputs: vec![
                Input::new(
                    Level::Bytes,
                    "bytes/invalid-utf8",
                    Hint::Ambiguous,
                    b"{\xff}\r\n".to_vec(),
                ),
                Input::new(
                    Level::Json,
                    "json/malformed",
                    Hint::Exact,
                    b"{\"a\0\"\n".to_vec(),
                )
                .with_splits(vec![2]),
            ],
        };
        let dir = std::env::temp_dir().join(format!("mcpspec-fuzz-repro-{}", std::process::id()));
        let path = dir.join("r.json");
        r.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"base64\"") && text.contains("\"text\""));
        assert_eq!(Reproducer::load(&path).unwrap(), r);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
