//! Opaque pagination cursors.
//!
//! A cursor names a list and an offset into it, and carries a checksum so that
//! a string the server did not hand out is rejected rather than misread:
//!
//! ```text
//!   base64url( "<list tag>.<offset>.<checksum as 8 hex digits>" )
//!   e.g. "t.2.1c9d44a0"  →  "dC4yLjFjOWQ0NGEw"
//! ```
//!
//! Clients must treat cursors as opaque; the tag stops a `tools/list` cursor
//! from being replayed against `prompts/list`. A cursor is only ever issued
//! for an offset inside the list, so the last page carries no `nextCursor`
//! (the clean server never issues offset 0, but accepts it: the
//! `pagination-loop` fault points back there).

use crate::b64;

/// The paginated lists (of the server's cursors, and of the reference
/// client's listings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ListKind {
    Tools,
    Resources,
    Templates,
    Prompts,
}

impl ListKind {
    /// The list request's method.
    pub(crate) fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Resources => "resources/list",
            ListKind::Templates => "resources/templates/list",
            ListKind::Prompts => "prompts/list",
        }
    }

    /// The member of the result holding the page's items.
    pub(crate) fn items_key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }

    fn tag(self) -> &'static str {
        match self {
            ListKind::Tools => "t",
            ListKind::Resources => "r",
            ListKind::Templates => "rt",
            ListKind::Prompts => "p",
        }
    }
}

/// FNV-1a, 32 bits: enough to tell a forged cursor from a real one.
fn checksum(tag: &str, offset: usize) -> u32 {
    format!("mcpspec-reference/{tag}/{offset}")
        .bytes()
        .fold(0x811c_9dc5u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
}

pub(crate) fn encode(list: ListKind, offset: usize) -> String {
    let tag = list.tag();
    b64::encode_url(format!("{tag}.{offset}.{:08x}", checksum(tag, offset)).as_bytes())
}

/// The offset a cursor stands for, if it is one this server issued for `list`
/// and it still points inside a list of `len` items.
pub(crate) fn decode(list: ListKind, cursor: &str, len: usize) -> Option<usize> {
    let bytes = b64::decode_url(cursor)?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let mut parts = text.split('.');
    let (tag, offset, check) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || tag != list.tag() {
        return None;
    }
    // Only canonical decimal: no sign, no leading zeros.
    if offset.is_empty()
        || !offset.bytes().all(|b| b.is_ascii_digit())
        || (offset.len() > 1 && offset.starts_with('0'))
    {
        return None;
    }
    let offset: usize = offset.parse().ok()?;
    let ok = check.len() == 8
        && u32::from_str_radix(check, 16).ok() == Some(checksum(tag, offset))
        && check == format!("{:08x}", checksum(tag, offset));
    (ok && offset < len).then_some(offset)
}

/// One page of a list: the item range and the cursor of the next page, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    pub start: usize,
    pub end: usize,
    pub next: Option<String>,
}

/// The page starting at `offset` of a list of `len` items.
pub(crate) fn page(list: ListKind, offset: usize, len: usize, page_size: usize) -> Page {
    let start = offset.min(len);
    let end = start.saturating_add(page_size.max(1)).min(len);
    let next = (end < len).then(|| encode(list, end));
    Page { start, end, next }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_per_list() {
        for list in [
            ListKind::Tools,
            ListKind::Resources,
            ListKind::Templates,
            ListKind::Prompts,
        ] {
            for offset in 1..10 {
                assert_eq!(decode(list, &encode(list, offset), 10), Some(offset));
            }
        }
    }

    #[test]
    fn forged_foreign_and_stale_cursors_are_rejected() {
        let tools = encode(ListKind::Tools, 2);
        assert_eq!(decode(ListKind::Prompts, &tools, 10), None, "other list");
        assert_eq!(decode(ListKind::Tools, &tools, 2), None, "past the end");
        let first = encode(ListKind::Tools, 0);
        assert_eq!(
            decode(ListKind::Tools, &first, 5),
            Some(0),
            "the loop fault's"
        );
        assert_eq!(decode(ListKind::Tools, &first, 0), None, "empty list");
        assert_eq!(decode(ListKind::Tools, "garbage", 10), None);
        assert_eq!(decode(ListKind::Tools, "", 10), None);
        let forged = b64::encode_url(b"t.3.00000000");
        assert_eq!(decode(ListKind::Tools, &forged, 10), None, "bad checksum");
        let padded = b64::encode_url(format!("t.02.{:08x}", checksum("t", 2)).as_bytes());
        assert_eq!(decode(ListKind::Tools, &padded, 10), None, "leading zero");
    }

    #[test]
    fn last_page_has_no_next_cursor() {
        let p = page(ListKind::Prompts, 2, 4, 2);
        assert_eq!((p.start, p.end, p.next), (2, 4, None));
        let p = page(ListKind::Prompts, 0, 5, 2);
        assert_eq!((p.start, p.end), (0, 2));
        assert_eq!(
            decode(ListKind::Prompts, &p.next.unwrap_or_default(), 5),
            Some(2)
        );
        assert_eq!(page(ListKind::Tools, 0, 3, 0).end, 1, "page size 0 means 1");
    }
}
