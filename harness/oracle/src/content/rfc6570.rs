//! `resources.templates.rfc6570`: a `uriTemplate` is an RFC 6570 URI
//! template. The syntax of section 2: literals (no control characters,
//! space, `"`, `'`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`; `%` only as a
//! percent-encoding) and expressions `{` optional operator, variable list `}`,
//! each variable a name (letters, digits, `_`, `.`, percent-encodings) with
//! an optional prefix modifier `:1`..`:9999` or explode `*`.

use mcpspec_engine::ids;
use serde_json::Value;

use super::Out;

/// Judges the `uriTemplate` of every template in a templates list result.
pub(super) fn templates(result: &Value, out: &mut Out<'_>) {
    let items = result.get("resourceTemplates").and_then(Value::as_array);
    for (i, t) in items.into_iter().flatten().enumerate() {
        if let Some(template) = t.get("uriTemplate").and_then(Value::as_str) {
            if let Err(why) = check(template) {
                out.flag(
                    &ids::RESOURCES_TEMPLATES_RFC6570,
                    format!("resource template {i} has uriTemplate {template:?}, not an RFC 6570 template: {why}"),
                );
            }
        }
    }
}

/// Whether `t` is an RFC 6570 URI template, and why not.
pub(super) fn check(t: &str) -> Result<(), String> {
    let mut rest = t;
    while let Some(c) = rest.chars().next() {
        match c {
            '{' => {
                let end = rest
                    .find('}')
                    .ok_or_else(|| "an expression is not closed".to_owned())?;
                expression(&rest[1..end])?;
                rest = &rest[end + 1..];
            }
            '%' => {
                percent(rest)?;
                rest = &rest[3..];
            }
            c if c.is_control()
                || matches!(
                    c,
                    ' ' | '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '|' | '}'
                ) =>
            {
                return Err(format!("{c:?} may not appear outside an expression"));
            }
            c => rest = &rest[c.len_utf8()..],
        }
    }
    Ok(())
}

fn percent(s: &str) -> Result<(), String> {
    let b = s.as_bytes();
    if b.len() >= 3 && b[1].is_ascii_hexdigit() && b[2].is_ascii_hexdigit() {
        Ok(())
    } else {
        Err("a '%' is not a percent-encoding".to_owned())
    }
}

fn expression(body: &str) -> Result<(), String> {
    let body = body
        .strip_prefix(['+', '#', '.', '/', ';', '?', '&'])
        .unwrap_or(body);
    if body.starts_with(['=', ',', '!', '@', '|']) {
        return Err(format!("operator {:?} is reserved", &body[..1]));
    }
    for var in body.split(',') {
        let name = if let Some(n) = var.strip_suffix('*') {
            n
        } else if let Some((n, len)) = var.split_once(':') {
            let ok = !len.is_empty()
                && len.len() <= 4
                && len.bytes().all(|b| b.is_ascii_digit())
                && !len.starts_with('0');
            if !ok {
                return Err(format!("prefix modifier {len:?} is not 1 to 9999"));
            }
            n
        } else {
            var
        };
        varname(name)?;
    }
    Ok(())
}

fn varname(name: &str) -> Result<(), String> {
    if name.is_empty() || name.starts_with('.') || name.ends_with('.') || name.contains("..") {
        return Err(format!("{name:?} is not a variable name"));
    }
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if c == '%' {
            percent(rest)?;
            rest = &rest[3..];
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            rest = &rest[1..];
        } else {
            return Err(format!("{c:?} may not appear in variable name {name:?}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn templates_of_rfc_6570() {
        for ok in [
            "file:///{path}",
            "test://template/{id}/data",
            "http://example.com/{+path}{?q,lang}{#frag}",
            "x://{var:30}/{list*}/{a.b}/%20",
            "plain://no/expressions",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for bad in [
            "x://{id",
            "x://{}",
            "x://{a b}",
            "x://{id:0}",
            "x://a b",
            "x://}",
            "x://{=x}",
            "x://%zz",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }
}
