//! The little language the message model is written in, and how it becomes JSON Schema.
//!
//! A [`Def`] is one named definition: a name, the versions in which the official schema
//! lists it under that name (its [`Span`]), and a type expression ([`Ty`]). Fields of an
//! object carry their own spans (when the field exists) and a second span saying in which
//! versions it is required, so one description covers all five versions.
//!
//! Emission ([`emit`]) walks a type expression for one version. A reference to a definition
//! that the version does not list by name (e.g. `CallToolRequestParams` before 2025-11-25,
//! when the official schema wrote request params inline) is inlined, so every emitted
//! document has exactly the official definition names and nothing else.

use mcpspec_engine::Version;
use serde_json::{json, Map, Value};

/// A set of versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span(u8);

const fn bit(v: Version) -> u8 {
    match v {
        Version::V2024_11_05 => 1,
        Version::V2025_03_26 => 2,
        Version::V2025_06_18 => 4,
        Version::V2025_11_25 => 8,
        Version::V2026_07_28 => 16,
    }
}

impl Span {
    pub const ALL: Span = Span(0b1_1111);
    pub const NONE: Span = Span(0);

    pub fn contains(self, v: Version) -> bool {
        self.0 & bit(v) != 0
    }
    pub const fn and(self, other: Span) -> Span {
        Span(self.0 & other.0)
    }
    pub const fn or(self, other: Span) -> Span {
        Span(self.0 | other.0)
    }
}

/// `v` and every later version.
pub const fn since(v: Version) -> Span {
    // Bits are in version order, so "v and later" is every bit at or above v's.
    Span(Span::ALL.0 & !(bit(v) - 1))
}
/// Every version before `v`.
pub const fn until(v: Version) -> Span {
    Span(bit(v) - 1)
}
/// Just `v`.
pub const fn only(v: Version) -> Span {
    Span(bit(v))
}
/// From `from` up to, not including, `to`.
pub const fn between(from: Version, to: Version) -> Span {
    since(from).and(until(to))
}

/// A type expression.
#[derive(Debug, Clone)]
pub enum Ty {
    /// Any JSON value (`{}`).
    Any,
    Str,
    Int,
    Num,
    Bool,
    /// A string with a `format` annotation (`uri`, `byte`, `uri-template`).
    Format(&'static str),
    /// A number in `[0, 1]` (priorities).
    Unit,
    /// An integer that is at least 0.
    NonNegInt,
    /// A value of one of several primitive JSON types (`["string", "integer"]`).
    Types(&'static [&'static str]),
    /// Exactly this string.
    Const(&'static str),
    /// Exactly this integer (error codes).
    Code(i64),
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// A named definition.
    Ref(&'static str),
    Array(Box<Ty>),
    /// An array of at most this many items.
    ArrayMax(Box<Ty>, u64),
    /// An object whose every member has this type.
    Map(Box<Ty>),
    Object(Object),
    /// Any of these; members absent from a version are left out.
    Union(Vec<(Span, Ty)>),
    /// All of these.
    AllOf(Vec<Ty>),
    /// The first arm whose span holds the version.
    Versioned(Vec<(Span, Ty)>),
}

/// An object type: declared members and what other members may be.
#[derive(Debug, Clone)]
pub struct Object {
    fields: Vec<Field>,
    open: bool,
}

/// One member of an object.
#[derive(Debug, Clone)]
pub struct Field {
    name: &'static str,
    ty: Ty,
    present: Span,
    required: Span,
}

impl Field {
    /// The member exists from `v` on.
    pub fn since(mut self, v: Version) -> Self {
        self.present = self.present.and(since(v));
        self
    }
    /// The member exists before `v` only.
    pub fn until(mut self, v: Version) -> Self {
        self.present = self.present.and(until(v));
        self
    }
    /// The member exists in `v` only.
    pub fn only(mut self, v: Version) -> Self {
        self.present = self.present.and(only(v));
        self
    }
    /// The member is required in these versions (and optional in the others).
    pub fn required_in(mut self, span: Span) -> Self {
        self.required = span;
        self
    }
}

/// A required member.
pub fn req(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        present: Span::ALL,
        required: Span::ALL,
    }
}
/// An optional member.
pub fn opt(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        present: Span::ALL,
        required: Span::NONE,
    }
}

/// An object with these members; other members are allowed but not described
/// (the official schemas never close an object).
pub fn obj(fields: impl Into<Vec<Field>>) -> Ty {
    Ty::Object(Object {
        fields: fields.into(),
        open: false,
    })
}
/// An object with these members that says outright that any other member is welcome.
pub fn open(fields: impl Into<Vec<Field>>) -> Ty {
    Ty::Object(Object {
        fields: fields.into(),
        open: true,
    })
}
/// An object that says nothing about its members.
pub fn any_obj() -> Ty {
    open([])
}
pub fn rf(name: &'static str) -> Ty {
    Ty::Ref(name)
}
pub fn arr(item: Ty) -> Ty {
    Ty::Array(Box::new(item))
}
pub fn map(value: Ty) -> Ty {
    Ty::Map(Box::new(value))
}
/// Any of these definitions, in every version.
pub fn any_of(names: &[&'static str]) -> Ty {
    Ty::Union(names.iter().map(|n| (Span::ALL, rf(n))).collect())
}
/// Any of these definitions, each in its span.
pub fn union(members: &[(&'static str, Span)]) -> Ty {
    Ty::Union(members.iter().map(|(n, s)| (*s, rf(n))).collect())
}
pub fn versioned(arms: impl Into<Vec<(Span, Ty)>>) -> Ty {
    Ty::Versioned(arms.into())
}

/// A named definition.
#[derive(Debug, Clone)]
pub struct Def {
    pub name: &'static str,
    /// The versions whose official schema lists this name.
    pub span: Span,
    pub ty: Ty,
}

impl Def {
    pub fn since(mut self, v: Version) -> Self {
        self.span = self.span.and(since(v));
        self
    }
    pub fn until(mut self, v: Version) -> Self {
        self.span = self.span.and(until(v));
        self
    }
    pub fn only(mut self, v: Version) -> Self {
        self.span = only(v);
        self
    }
}

pub fn def(name: &'static str, ty: Ty) -> Def {
    Def {
        name,
        span: Span::ALL,
        ty,
    }
}

/// Looks up definitions by name while emitting.
pub trait Defs {
    fn get(&self, name: &str) -> Option<&Def>;
}

/// The JSON Schema for `ty` in version `v`.
pub fn emit(ty: &Ty, v: Version, defs: &dyn Defs) -> Value {
    match ty {
        Ty::Any => json!({}),
        Ty::Str => json!({"type": "string"}),
        Ty::Int => json!({"type": "integer"}),
        Ty::Num => json!({"type": "number"}),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Format(f) => json!({"type": "string", "format": f}),
        Ty::Unit => json!({"type": "number", "minimum": 0, "maximum": 1}),
        Ty::NonNegInt => json!({"type": "integer", "minimum": 0}),
        Ty::Types(t) => json!({ "type": t }),
        Ty::Const(c) => json!({"type": "string", "const": c}),
        Ty::Code(c) => json!({"type": "integer", "const": c}),
        Ty::Enum(e) => json!({"type": "string", "enum": e}),
        Ty::Ref(name) => match defs.get(name) {
            Some(d) if !d.span.contains(v) => emit(&d.ty, v, defs),
            // A dangling name stays a dangling `$ref`; the model tests catch it.
            _ => json!({ "$ref": format!("#/$defs/{name}") }),
        },
        Ty::Array(item) => json!({"type": "array", "items": emit(item, v, defs)}),
        Ty::ArrayMax(item, max) => {
            json!({"type": "array", "items": emit(item, v, defs), "maxItems": max})
        }
        Ty::Map(value) => json!({"type": "object", "additionalProperties": emit(value, v, defs)}),
        Ty::Object(o) => emit_object(o, v, defs),
        Ty::Union(members) => {
            let any: Vec<Value> = members
                .iter()
                .filter(|(s, _)| s.contains(v))
                .map(|(_, t)| emit(t, v, defs))
                .collect();
            json!({ "anyOf": any })
        }
        Ty::AllOf(parts) => {
            json!({"allOf": parts.iter().map(|t| emit(t, v, defs)).collect::<Vec<_>>()})
        }
        Ty::Versioned(arms) => match arms.iter().find(|(s, _)| s.contains(v)) {
            Some((_, t)) => emit(t, v, defs),
            // No arm for this version: the model tests reject such a hole.
            None => json!(false),
        },
    }
}

fn emit_object(o: &Object, v: Version, defs: &dyn Defs) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    let mut props = Map::new();
    let mut required = Vec::new();
    for f in o.fields.iter().filter(|f| f.present.contains(v)) {
        props.insert(f.name.into(), emit(&f.ty, v, defs));
        if f.required.contains(v) {
            required.push(json!(f.name));
        }
    }
    if !props.is_empty() {
        out.insert("properties".into(), Value::Object(props));
    }
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    if o.open {
        out.insert("additionalProperties".into(), json!(true));
    }
    Value::Object(out)
}
