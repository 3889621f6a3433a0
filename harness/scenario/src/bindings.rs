//! Variables a case binds while it runs: `version`, `init`, labels of sends,
//! `$capture`, `$collect`, `discover`.
//!
//! Names may be dotted paths (`call.id`, `tools.0.name`): numeric segments
//! index arrays, other segments name object members. Setting `call.id`
//! creates the object `call` when needed.
//!
//! A name's value is shared, not copied, between the bindings that hold it
//! ([`Bindings::set_shared`]): the target's `init` result is bound for
//! every case on a shared session, and bindings are cloned for `$oneOf`
//! branches; a write below a shared value copies it first.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

/// Name → JSON value. Cloning copies no value (each is shared until written).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bindings {
    root: HashMap<String, Arc<Value>>,
}

impl Bindings {
    pub fn new() -> Self {
        Self::default()
    }

    /// The value at a dotted path, or `None` when any segment is missing.
    pub fn get(&self, path: &str) -> Option<&Value> {
        let mut segments = path.split('.');
        let mut current = &**self.root.get(segments.next()?)?;
        for segment in segments {
            current = step(current, segment)?;
        }
        Some(current)
    }

    /// The value bound to the name `name` (no path), shared.
    pub fn get_shared(&self, name: &str) -> Option<Arc<Value>> {
        self.root.get(name).cloned()
    }

    /// Bind the name `name` (no path) to a value others hold too.
    pub fn set_shared(&mut self, name: &str, value: Arc<Value>) {
        self.root.insert(name.to_owned(), value);
    }

    /// Whether `path` is bound.
    pub fn contains(&self, path: &str) -> bool {
        self.get(path).is_some()
    }

    /// Bind `path` to `value`, creating intermediate objects. An intermediate
    /// segment that holds a non-container value is replaced by an object.
    pub fn set(&mut self, path: &str, value: Value) {
        let (parents, last) = match path.rsplit_once('.') {
            Some((parents, last)) => (Some(parents), last),
            None => (None, path),
        };
        let Some(parents) = parents else {
            self.root.insert(path.to_owned(), Arc::new(value));
            return;
        };
        let mut segments = parents.split('.');
        let first = segments.next().unwrap_or(parents);
        let mut current = Arc::make_mut(
            self.root
                .entry(first.to_owned())
                .or_insert_with(|| Arc::new(Value::Object(Map::new()))),
        );
        for segment in segments {
            current = child_mut(current, segment);
        }
        match current {
            Value::Array(items) => match last.parse::<usize>() {
                Ok(i) if i < items.len() => items[i] = value,
                Ok(i) if i == items.len() => items.push(value),
                _ => {
                    let mut map = Map::new();
                    map.insert(last.to_owned(), value);
                    *current = Value::Object(map);
                }
            },
            Value::Object(map) => {
                map.insert(last.to_owned(), value);
            }
            other => {
                let mut map = Map::new();
                map.insert(last.to_owned(), value);
                *other = Value::Object(map);
            }
        }
    }

    /// Remove the binding at `path` (a no-op when it is not bound).
    pub fn unset(&mut self, path: &str) {
        let Some((parents, last)) = path.rsplit_once('.') else {
            self.root.remove(path);
            return;
        };
        let mut segments = parents.split('.');
        let Some(mut current) = segments
            .next()
            .and_then(|s| self.root.get_mut(s))
            .map(Arc::make_mut)
        else {
            return;
        };
        for segment in segments {
            let next = match current {
                Value::Object(map) => map.get_mut(segment),
                Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
                _ => None,
            };
            let Some(next) = next else { return };
            current = next;
        }
        match current {
            Value::Object(map) => {
                map.shift_remove(last);
            }
            Value::Array(items) => {
                if let Ok(i) = last.parse::<usize>() {
                    if i < items.len() {
                        items.remove(i);
                    }
                }
            }
            _ => {}
        }
    }

    /// Append to the list at `path` (`$collect`): an array value is appended
    /// element by element. An unbound path starts an empty list; a bound
    /// non-array value becomes the first element.
    pub fn push(&mut self, path: &str, value: Value) {
        let mut list = match self.get(path) {
            Some(Value::Array(items)) => items.clone(),
            Some(other) => vec![other.clone()],
            None => Vec::new(),
        };
        match value {
            Value::Array(items) => list.extend(items),
            other => list.push(other),
        }
        self.set(path, Value::Array(list));
    }
}

fn step<'a>(value: &'a Value, segment: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map.get(segment),
        Value::Array(items) => items.get(segment.parse::<usize>().ok()?),
        _ => None,
    }
}

fn child_mut<'a>(value: &'a mut Value, segment: &str) -> &'a mut Value {
    let index = match (&*value, segment.parse::<usize>()) {
        (Value::Array(items), Ok(i)) if i < items.len() => Some(i),
        _ => None,
    };
    if let Some(i) = index {
        // In bounds of an array: checked just above, so indexing cannot panic.
        return &mut value[i];
    }
    if !value.is_object() {
        *value = Value::Null;
    }
    // Indexing `null` or an object by a string inserts the member (as `null`).
    &mut value[segment]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths() {
        let mut b = Bindings::new();
        b.set(
            "init",
            json!({"capabilities": {"tools": {}}, "list": [1, {"a": 2}]}),
        );
        assert_eq!(b.get("init.capabilities.tools"), Some(&json!({})));
        assert_eq!(b.get("init.list.1.a"), Some(&json!(2)));
        assert_eq!(b.get("init.list.5"), None);
        assert_eq!(b.get("nope"), None);
        b.set("call.id", json!(7));
        b.set("call.response", json!({"result": {}}));
        assert_eq!(
            b.get("call"),
            Some(&json!({"id": 7, "response": {"result": {}}}))
        );
        b.unset("call.id");
        assert_eq!(b.get("call.id"), None);
        b.unset("call");
        assert!(!b.contains("call"));
    }

    #[test]
    fn a_shared_value_is_copied_only_where_it_is_written() {
        let init = Arc::new(json!({"serverInfo": {"name": "t"}}));
        let mut a = Bindings::new();
        a.set_shared("init", Arc::clone(&init));
        let b = a.clone();
        assert!(Arc::ptr_eq(&b.get_shared("init").unwrap(), &init));
        a.set("init.serverInfo.name", json!("changed"));
        assert_eq!(a.get("init.serverInfo.name"), Some(&json!("changed")));
        assert_eq!(b.get("init.serverInfo.name"), Some(&json!("t")));
        assert_eq!(init["serverInfo"]["name"], json!("t"));
        a.unset("init.serverInfo");
        assert_eq!(b.get("init.serverInfo.name"), Some(&json!("t")));
    }

    #[test]
    fn push_appends_elementwise() {
        let mut b = Bindings::new();
        b.push("all", json!([1, 2]));
        b.push("all", json!(3));
        b.push("all", json!([4]));
        assert_eq!(b.get("all"), Some(&json!([1, 2, 3, 4])));
    }
}
