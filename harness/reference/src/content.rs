//! Content blocks beyond plain text, for the `media` prompt: an image, an
//! audio clip, embedded resources (text and binary), a resource link, all
//! with annotations, each offered only by the protocol versions that define it.
//!
//! | block           | from       | carries                                              |
//! |-----------------|------------|------------------------------------------------------|
//! | `text`          | 2024-11-05 | annotations (audience, priority; lastModified later) |
//! | `image`         | 2024-11-05 | a 1×1 PNG as base64, `image/png`                     |
//! | `audio`         | 2025-03-26 | eight samples of silence as a base64 WAV, `audio/wav`|
//! | `resource`      | 2024-11-05 | `mcpspec://static/1` as text, `mcpspec://blob` as blob|
//! | `resource_link` | 2025-06-18 | a link to `mcpspec://static/2` with its name         |
//!
//! The content faults (`image-data-url`, `audio-missing-mime-type`,
//! `embedded-resource-flat`, `resource-link-no-name`,
//! `annotation-priority-range`, `content-type-too-new`, and `blob-raw-bytes`
//! for the embedded blob) are applied here, each to its own block.

use mcpspec_engine::Version;
use serde_json::{json, Value};

use crate::b64;
use crate::fault::{Fault, FaultSet};
use crate::resources;

/// A 1×1 PNG image.
pub(crate) const PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0xf8, 0x5f,
    0x0f, 0x00, 0x02, 0x87, 0x01, 0x80, 0xeb, 0x47, 0xba, 0x92, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file: 8-bit mono PCM at 8 kHz, eight samples of silence.
pub(crate) fn wav() -> Vec<u8> {
    const SAMPLES: u32 = 8;
    const RATE: u32 = 8000;
    let mut w = Vec::with_capacity(44 + SAMPLES as usize);
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + SAMPLES).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&RATE.to_le_bytes());
    w.extend_from_slice(&RATE.to_le_bytes()); // bytes per second
    w.extend_from_slice(&1u16.to_le_bytes()); // block align
    w.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&SAMPLES.to_le_bytes());
    w.extend(std::iter::repeat_n(0x80u8, SAMPLES as usize));
    w
}

/// Annotations for a block meant for `audience`, as important as `priority`.
fn annotations(audience: &[&str], priority: f64, version: Version, faults: FaultSet) -> Value {
    let priority = if faults.has(Fault::AnnotationPriorityRange) {
        json!(8)
    } else {
        json!(priority)
    };
    let mut a = json!({ "audience": audience, "priority": priority });
    if version >= Version::V2025_06_18 {
        a["lastModified"] = json!("2025-01-12T15:00:58Z");
    }
    a
}

/// The blocks of the `media` prompt, each to go in its own message.
pub(crate) fn media_blocks(version: Version, faults: FaultSet) -> Vec<Value> {
    let too_new = faults.has(Fault::ContentTypeTooNew);
    let mut blocks = vec![json!({
        "type": "text",
        "text": "Describe the picture, the sound and the resources that follow.",
        "annotations": annotations(&["user", "assistant"], 1.0, version, faults)
    })];

    let png = b64::encode(&PNG);
    let data = if faults.has(Fault::ImageDataUrl) {
        format!("data:image/png;base64,{png}")
    } else {
        png
    };
    blocks.push(json!({
        "type": "image",
        "data": data,
        "mimeType": "image/png",
        "annotations": annotations(&["user"], 0.5, version, faults)
    }));

    if version >= Version::V2025_03_26 || too_new {
        let mut audio = json!({
            "type": "audio",
            "data": b64::encode(&wav()),
            "mimeType": "audio/wav",
            "annotations": annotations(&["assistant"], 0.25, version, faults)
        });
        if faults.has(Fault::AudioMissingMimeType) {
            if let Value::Object(a) = &mut audio {
                a.remove("mimeType");
            }
        }
        blocks.push(audio);
    }

    let text_resource = json!({
        "uri": "mcpspec://static/1",
        "mimeType": "text/plain",
        "text": "This is static resource number 1."
    });
    let embedded = if faults.has(Fault::EmbeddedResourceFlat) {
        let mut flat = text_resource;
        flat["type"] = json!("resource");
        flat
    } else {
        json!({ "type": "resource", "resource": text_resource })
    };
    blocks.push(embedded);
    let bytes: Vec<u8> = (0..32).collect();
    blocks.push(json!({
        "type": "resource",
        "resource": {
            "uri": resources::BLOB_URI,
            "mimeType": "application/octet-stream",
            "blob": resources::blob(&bytes, faults)
        },
        "annotations": annotations(&["assistant"], 0.0, version, faults)
    }));

    if version >= Version::V2025_06_18 || too_new {
        let mut link = json!({
            "type": "resource_link",
            "uri": "mcpspec://static/2",
            "name": "static-2",
            "description": "Static text resource number 2.",
            "mimeType": "text/plain"
        });
        if faults.has(Fault::ResourceLinkNoName) {
            if let Value::Object(l) = &mut link {
                l.remove("name");
            }
        }
        blocks.push(link);
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(version: Version, faults: &[Fault]) -> Vec<String> {
        media_blocks(version, FaultSet::new(faults))
            .iter()
            .map(|b| b["type"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn blocks_follow_the_version() {
        assert_eq!(
            types(Version::V2024_11_05, &[]),
            ["text", "image", "resource", "resource"]
        );
        assert_eq!(
            types(Version::V2025_03_26, &[]),
            ["text", "image", "audio", "resource", "resource"]
        );
        assert_eq!(
            types(Version::V2025_06_18, &[]),
            [
                "text",
                "image",
                "audio",
                "resource",
                "resource",
                "resource_link"
            ]
        );
        assert_eq!(
            types(Version::V2024_11_05, &[Fault::ContentTypeTooNew]),
            [
                "text",
                "image",
                "audio",
                "resource",
                "resource",
                "resource_link"
            ]
        );
    }

    #[test]
    fn media_is_well_formed() {
        let w = wav();
        assert_eq!(w.len(), 52);
        assert_eq!(&w[0..4], b"RIFF");
        assert_eq!(&PNG[1..4], b"PNG");
        for b in media_blocks(Version::V2025_11_25, FaultSet::default()) {
            let p = &b["annotations"]["priority"];
            assert!(p.is_null() || (0.0..=1.0).contains(&p.as_f64().unwrap_or(-1.0)));
        }
    }
}
