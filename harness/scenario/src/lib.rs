//! # mcpspec-scenario — scenario files: model, loader, templates, matchers
//!
//! A scenario is a declarative script the runner plays against an MCP
//! implementation; `scenarios/README.md` is the format contract. This crate
//! is sans-IO apart from reading scenario folders: it turns text into a
//! validated, resolved [`Scenario`] and gives the runner what it needs to
//! play one — [`Template`]s to render and [`Matcher`]s to check.
//!
//! Loading goes in passes ([`parse`]): YAML → a node tree with positions
//! (module `yaml`) → the typed model ([`model`]), validated node by node so that
//! every [`ScenarioError`] points at `file:line:col` of the offending node.
//!
//! - [`template`] / [`bindings`]: `${name.path}` substitution and the
//!   variables a case binds.
//! - [`matcher`]: the `$type`, `$regex`, `$oneOf`, … patterns, compiled at
//!   load time, checked into a list of [`Mismatch`]es.
//! - [`file_schema`]: the JSON Schema of the file format for editors,
//!   generated from the loader's own tables of keys.
//! - [`corpus`]: embedded scenario files, `--scenarios DIR` folders, and the
//!   checks across files (id ↔ path, duplicates).

pub mod bindings;
pub mod corpus;
pub mod duration;
pub mod error;
pub mod file_schema;
pub(crate) mod load;
pub mod matcher;
pub mod model;
pub mod share;
pub mod template;
pub(crate) mod yaml;

pub use bindings::Bindings;
pub use corpus::{embedded, load_dir, Corpus};
pub use error::{Location, ScenarioError};
pub use file_schema::{scenario_file_schema, scenario_file_schema_text};
pub use load::parse;
pub use matcher::{Matcher, Mismatch};
pub use mcpspec_engine::{Level, Version};
pub use model::{
    AuthGate, AuthScript, CutStream, Discover, Expectation, HeaderMode, HttpBody, HttpStep,
    HttpUrl, MetadataDoc, RawBytes, RawStep, RepeatUntil, Reply, ReplyAnswer, Requires,
    ResponseExpect, Scenario, Selector, SendSpec, SendStep, SessionMode, Source, Step, StepKind,
    TransportKind, UniqueBy,
};
pub use share::SHAREABLE_METHODS;
pub use template::{Template, TemplateError};
