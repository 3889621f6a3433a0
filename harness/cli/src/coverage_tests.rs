//! The coverage table and JSON: authorization rules in a block of their own.

use super::*;

fn counts(must: (usize, usize), should: (usize, usize), excluded: usize) -> Coverage {
    Coverage {
        must_covered: must.0,
        must_total: must.1,
        should_covered: should.0,
        should_total: should.1,
        excluded,
        ..Coverage::default()
    }
}

fn figures() -> Vec<PerVersion> {
    vec![
        PerVersion {
            version: Version::V2024_11_05,
            core: counts((50, 60), (5, 10), 3),
            extensions: Vec::new(),
            authorization: None,
        },
        PerVersion {
            version: Version::V2025_06_18,
            core: counts((90, 100), (8, 20), 4),
            extensions: Vec::new(),
            authorization: Some(counts((30, 41), (2, 9), 6)),
        },
    ]
}

#[test]
fn authorization_has_its_own_block_under_the_core_table() {
    let text = render(&figures(), Some(CoverageRole::Server));
    let lines: Vec<&str> = text.lines().collect();
    let core = lines
        .iter()
        .position(|l| l.starts_with("2025-06-18"))
        .expect("a core row");
    assert!(
        lines[core].contains("90/100") && lines[core].contains("8/20"),
        "{text}"
    );
    let block = lines
        .iter()
        .position(|l| l.starts_with("authorization (HTTP)"))
        .expect("the block");
    assert!(block > core, "{text}");
    let auth_row = lines[block + 1];
    assert!(auth_row.starts_with("2025-06-18"), "{text}");
    let cells: Vec<&str> = auth_row.split_whitespace().collect();
    // version, MUST, SHOULD, MAY, excluded, not yet covered (11 MUSTs + 7 SHOULDs).
    assert_eq!(
        cells,
        ["2025-06-18", "30/41", "2/9", "0/0", "6", "18"],
        "{text}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("2024-11-05")).count(),
        1,
        "no authorization row for a version without authorization: {text}"
    );
}

#[test]
fn no_block_without_authorization_rules() {
    let text = render(&figures()[..1], None);
    assert!(!text.contains("authorization (HTTP)"), "{text}");
}

#[test]
fn json_puts_authorization_apart_with_the_five_counts() {
    let doc = to_json(&figures());
    assert!(doc["2024-11-05"].get("authorization").is_none(), "{doc}");
    let v = &doc["2025-06-18"];
    assert_eq!(v["must_total"], 100, "{doc}");
    let auth = v["authorization"]
        .as_object()
        .expect("authorization counts");
    let keys: Vec<&str> = auth.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "must_covered",
            "must_total",
            "should_covered",
            "should_total",
            "excluded"
        ]
    );
    assert_eq!(
        (auth["must_covered"].as_u64(), auth["must_total"].as_u64()),
        (Some(30), Some(41))
    );
}
