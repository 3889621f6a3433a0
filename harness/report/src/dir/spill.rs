//! The page's transcripts, kept on disk until index.html is written.
//!
//! index.html embeds every case's transcript as `[at_ms, dir, text]`
//! triples. Held in memory they were a large part of a run's heap (issue
//! #18), so each finished case's triples are appended, as JSON, to a
//! temporary file in the report directory, and read back one case at a
//! time while the page is written. The file is unlinked as soon as it is
//! created where the platform allows it (it lives on, unnamed, while open),
//! otherwise removed when the spill is dropped: none is left behind.
//!
//! A case whose triples could not be written keeps them in memory instead,
//! so the page is the same either way.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use mcpspec_model::TranscriptLine;
use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// One line as the page has it.
type Triple = (u64, String, String);

/// Where one case's triples are.
enum Stored {
    /// `len` bytes of JSON at `offset` in the file.
    Spilled { offset: u64, len: usize },
    /// The file could not take them.
    Kept(Vec<Triple>),
}

/// The transcripts of the finished cases, in the order they finished.
#[derive(Default)]
pub(super) struct Spill {
    /// The open file and, when it could not be unlinked at once, its path.
    file: Option<(File, Option<PathBuf>)>,
    /// The file's length so far.
    end: u64,
    cases: Vec<(String, Stored)>,
}

impl Spill {
    /// A spill file in `dir`; without one every case is kept in memory.
    pub(super) fn new(dir: &Path) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".transcripts.{}.{n}.tmp", std::process::id()));
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .ok()
            .map(|f| {
                // Unlinked while open (Unix): nothing to clean up, whatever happens.
                let named = std::fs::remove_file(&path).is_err().then_some(path);
                (f, named)
            });
        Spill {
            file,
            end: 0,
            cases: Vec::new(),
        }
    }

    /// Appends one finished case's lines.
    pub(super) fn push(&mut self, id: &str, lines: &[TranscriptLine]) {
        let stored = match self.append(lines) {
            Some(stored) => stored,
            None => Stored::Kept(
                lines
                    .iter()
                    .map(|l| (l.at_ms, l.dir.to_owned(), l.text.clone()))
                    .collect(),
            ),
        };
        self.cases.push((id.to_owned(), stored));
    }

    fn append(&mut self, lines: &[TranscriptLine]) -> Option<Stored> {
        let (file, _) = self.file.as_mut()?;
        let json = serde_json::to_vec(&Lines(lines)).ok()?;
        let offset = self.end;
        if file.seek(SeekFrom::Start(offset)).is_err() || file.write_all(&json).is_err() {
            return None;
        }
        self.end += json.len() as u64;
        Some(Stored::Spilled {
            offset,
            len: json.len(),
        })
    }

    /// One case's triples, read back.
    fn read(&self, stored: &Stored) -> std::io::Result<Vec<Triple>> {
        let (offset, len) = match stored {
            Stored::Kept(lines) => return Ok(lines.clone()),
            Stored::Spilled { offset, len } => (*offset, *len),
        };
        let Some((file, _)) = self.file.as_ref() else {
            return Err(std::io::Error::other("the transcript spill file is gone"));
        };
        let mut file: &File = file;
        let mut bytes = vec![0; len];
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(&mut bytes)?;
        serde_json::from_slice(&bytes).map_err(std::io::Error::from)
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if let Some((file, Some(path))) = self.file.take() {
            drop(file);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Serialises as the page's map: case id → `[at_ms, dir, text]` per line,
/// one case in memory at a time.
impl Serialize for Spill {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.cases.len()))?;
        for (id, stored) in &self.cases {
            let lines = self.read(stored).map_err(|e| {
                S::Error::custom(format!("reading the transcript of {id} back: {e}"))
            })?;
            map.serialize_entry(id, &lines)?;
        }
        map.end()
    }
}

/// A case's lines as triples.
struct Lines<'a>(&'a [TranscriptLine]);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for l in self.0 {
            seq.serialize_element(&(l.at_ms, l.dir, &l.text))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(at_ms: u64, dir: &'static str, text: &str) -> TranscriptLine {
        TranscriptLine {
            at_ms,
            dir,
            text: text.into(),
            transport: "stdio",
            raw: Some(b"{}".to_vec()),
        }
    }

    #[test]
    fn reads_back_what_it_took_and_leaves_no_file() {
        let dir = std::env::temp_dir().join(format!("mcpspec-spill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut spill = Spill::new(&dir);
        spill.push(
            "a@1",
            &[line(1, ">>", "x"), line(2, "<<", "</script>\u{2028}é")],
        );
        spill.push("b@1", &[]);
        // A case the file could not take is kept.
        spill.cases.push((
            "c@1".into(),
            Stored::Kept(vec![(3, "--".into(), "note".into())]),
        ));
        let json = serde_json::to_string(&spill).unwrap();
        assert_eq!(
            json,
            r#"{"a@1":[[1,">>","x"],[2,"<<","</script>\u2028é"]],"b@1":[],"c@1":[[3,"--","note"]]}"#
                .replace("\\u2028", "\u{2028}")
        );
        drop(spill);
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn without_a_file_every_case_is_kept() {
        let mut spill = Spill::new(Path::new("/nonexistent/mcpspec/spill"));
        assert!(spill.file.is_none());
        spill.push("a@1", &[line(1, ">>", "x")]);
        assert_eq!(
            serde_json::to_string(&spill).unwrap(),
            r#"{"a@1":[[1,">>","x"]]}"#
        );
    }
}
