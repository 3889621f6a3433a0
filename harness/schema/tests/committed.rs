//! The committed documents in `schema/mcp/` are exactly what [`document`] generates.
//!
//! After changing the model, regenerate them with
//! `MCPSPEC_BLESS=1 cargo test -p mcpspec-schema --test committed`.

use std::path::PathBuf;

use mcpspec_engine::Version;
use mcpspec_schema::document_text;

fn committed_path(version: Version) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../schema/mcp")
        .join(format!("{version}.schema.json"))
}

#[test]
fn committed_documents_are_up_to_date() {
    let bless = std::env::var_os("MCPSPEC_BLESS").is_some_and(|v| v != "0");
    let mut stale = Vec::new();
    for version in Version::ALL {
        let path = committed_path(version);
        let fresh = document_text(version);
        if bless {
            std::fs::write(&path, &fresh).expect("write the generated schema");
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != fresh {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "generated schemas differ from the committed files:\n  {}\n\
         regenerate them with: MCPSPEC_BLESS=1 cargo test -p mcpspec-schema --test committed",
        stale.join("\n  ")
    );
}
