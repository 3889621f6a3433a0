//! What the target offers, learnt once per session after the handshake:
//! the first page of its tools (with input schemas), prompts (with their
//! arguments) and resources, for the MCP-level generator. A list still
//! unanswered when its wait ends is noted and left unknown (a slow answer
//! is not a missing one).

use mcpspec_wire::Message;
use serde_json::{json, Value};

use super::Session;
use crate::gen::{Prompt, Tool};
use crate::oracle::Verdict;

impl Session {
    pub(super) async fn discover(&mut self) -> Result<(), Vec<Verdict>> {
        let caps = self.capabilities.clone().unwrap_or(Value::Null);
        if caps.get("tools").is_some() {
            if let Some(Message::Response(r)) = self.list("tools/list").await? {
                for t in r
                    .outcome
                    .ok()
                    .and_then(|v| v.get("tools").cloned())
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default()
                {
                    if let Some(name) = t.get("name").and_then(Value::as_str) {
                        let input_schema = t.get("inputSchema").cloned().unwrap_or(json!({}));
                        self.know.tools.push(Tool {
                            name: name.to_owned(),
                            input_schema,
                        });
                    }
                }
            }
        }
        if caps.get("prompts").is_some() {
            if let Some(Message::Response(r)) = self.list("prompts/list").await? {
                for p in r
                    .outcome
                    .ok()
                    .and_then(|v| v.get("prompts").cloned())
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default()
                {
                    if let Some(name) = p.get("name").and_then(Value::as_str) {
                        let arguments = p
                            .get("arguments")
                            .and_then(Value::as_array)
                            .map(|a| {
                                a.iter()
                                    .filter_map(|x| {
                                        let n = x.get("name")?.as_str()?.to_owned();
                                        Some((
                                            n,
                                            x.get("required")
                                                .and_then(Value::as_bool)
                                                .unwrap_or(false),
                                        ))
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        self.know.prompts.push(Prompt {
                            name: name.to_owned(),
                            arguments,
                        });
                    }
                }
            }
        }
        if caps.get("resources").is_some() {
            if let Some(Message::Response(r)) = self.list("resources/list").await? {
                for x in r
                    .outcome
                    .ok()
                    .and_then(|v| v.get("resources").cloned())
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default()
                {
                    if let Some(uri) = x.get("uri").and_then(Value::as_str) {
                        self.know.resources.push(uri.to_owned());
                    }
                }
            }
        }
        Ok(())
    }

    /// The driver's own list request: `None` when it was waited for to the
    /// end (noted by `call`), an error with what tripped otherwise.
    async fn list(&mut self, method: &str) -> Result<Option<Message>, Vec<Verdict>> {
        let noted = self.timed_out.len();
        match self.call("list", method, None).await {
            Ok(m) => Ok(Some(m)),
            Err(v) if v.is_empty() && self.exit.is_none() && self.timed_out.len() > noted => {
                Ok(None)
            }
            Err(v) => Err(v),
        }
    }
}
