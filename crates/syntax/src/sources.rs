//! The source text of a program, which may span several files
//! (LANGUAGE.md §8.2: a directory is a program).
//!
//! Every stage carries plain byte-offset [`Span`]s. A program of several
//! files is read as one text, the files one after the other with a line
//! break between them, and a [`SourceMap`] maps an offset back to the file
//! it falls in and a line and column there. A program of one file is a
//! map of one file, so its offsets are exactly the file's.
//!
//! [`crate::parse_map`] parses each file of a map on its own, with offsets
//! into that one text; the map then turns an offset back into
//! `file:line:col` wherever a position is shown: diagnostics
//! ([`crate::render_map`]), runtime errors and reports
//! ([`SourceMap::position`], [`SourceMap::locate`]).

use crate::span::{LineIndex, Span};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// One file of a [`SourceMap`].
#[derive(Clone, Debug)]
struct MappedFile {
    name: String,
    /// Offset of the file's first byte in the program text.
    start: usize,
    /// Offset just past its last byte.
    end: usize,
    lines: LineIndex,
}

/// The files of a program and their concatenated text.
#[derive(Clone, Debug)]
pub struct SourceMap {
    text: String,
    files: Vec<MappedFile>,
    /// The name of the whole program: its one file, or the directory.
    name: String,
}

/// A place in a program: file, 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'m> {
    /// The file's name as it was read.
    pub file: &'m str,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub col: usize,
}

impl SourceMap {
    /// A program of one file.
    pub fn single(name: &str, text: &str) -> SourceMap {
        SourceMap::from_files(name, vec![(name.to_string(), text.to_string())])
    }

    /// A program of several files, in the order given; `name` names the
    /// whole (a directory).
    pub fn from_files(name: &str, files: Vec<(String, String)>) -> SourceMap {
        let mut text = String::new();
        let mut mapped = Vec::new();
        for (i, (file, body)) in files.into_iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let start = text.len();
            text.push_str(&body);
            mapped.push(MappedFile {
                name: file,
                start,
                end: text.len(),
                lines: LineIndex::new(&body),
            });
        }
        SourceMap {
            text,
            files: mapped,
            name: name.to_string(),
        }
    }

    /// Reads a program from a `.tf` file, or from a directory: every
    /// `.tf` file below it, in path order.
    pub fn read(path: &Path) -> Result<SourceMap, String> {
        let read = |p: &Path| -> Result<String, String> {
            let bytes =
                std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            String::from_utf8(bytes).map_err(|_| format!("{} is not valid UTF-8 text", p.display()))
        };
        if !path.is_dir() {
            let text = read(path)?;
            return Ok(SourceMap::single(&path.display().to_string(), &text));
        }
        let mut found = Vec::new();
        collect_tf_files(path, &mut found)?;
        found.sort();
        if found.is_empty() {
            return Err(format!(
                "{} is a directory without `.tf` files; a program directory holds the program's `.tf` files",
                path.display()
            ));
        }
        let files = found
            .iter()
            .map(|p| Ok((p.display().to_string(), read(p)?)))
            .collect::<Result<Vec<_>, String>>()?;
        Ok(SourceMap::from_files(&path.display().to_string(), files))
    }

    /// The program text: every file, separated by a line break.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The name of the program (its file, or its directory).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names of its files, in order.
    pub fn file_names(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|f| f.name.as_str())
    }

    /// Whether the program has more than one file.
    pub fn is_multi_file(&self) -> bool {
        self.files.len() > 1
    }

    fn file_at(&self, offset: usize) -> Option<&MappedFile> {
        let i = self.files.partition_point(|f| f.start <= offset);
        self.files.get(i.checked_sub(1)?)
    }

    /// The file, line and column of a byte offset of the program text.
    pub fn locate(&self, offset: usize) -> Location<'_> {
        match self.file_at(offset) {
            Some(f) => {
                let local = offset.min(f.end) - f.start;
                let (line, col) = f.lines.line_col(&self.text[f.start..f.end], local);
                Location {
                    file: &f.name,
                    line,
                    col,
                }
            }
            None => Location {
                file: &self.name,
                line: 1,
                col: 1,
            },
        }
    }

    /// `line:col` of a span's start, with `file:` in front when the program
    /// has several files (for reports that name places in the program).
    pub fn position(&self, span: Span) -> String {
        let at = self.locate(span.start as usize);
        if self.is_multi_file() {
            format!("{}:{}:{}", at.file, at.line, at.col)
        } else {
            format!("{}:{}", at.line, at.col)
        }
    }

    /// The span's file and the span relative to that file, for rendering.
    pub(crate) fn split(&self, span: Span) -> (usize, std::ops::Range<usize>) {
        let start = span.start as usize;
        let (index, f) = match self.file_at(start) {
            Some(f) => (
                self.files
                    .iter()
                    .position(|g| g.start == f.start)
                    .unwrap_or(0),
                f,
            ),
            None => return (0, 0..0),
        };
        let len = f.end - f.start;
        let s = start.saturating_sub(f.start).min(len);
        let e = (span.end as usize).saturating_sub(f.start).clamp(s, len);
        (index, s..e)
    }

    /// The files as (name, text) pairs, in order.
    pub(crate) fn file_texts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files
            .iter()
            .map(|f| (f.name.as_str(), &self.text[f.start..f.end]))
    }

    /// The byte ranges of the files in the program text, in order.
    pub fn file_ranges(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.files.iter().map(|f| f.start..f.end)
    }
}

fn collect_tf_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let path = entry.path();
        if path.is_dir() {
            collect_tf_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "tf") {
            out.push(path);
        }
    }
    Ok(())
}

/// Anything a program's source can be given as to the reports: its text
/// alone (one anonymous file) or a [`SourceMap`].
pub trait AsSourceMap {
    /// The source as a map.
    fn as_source_map(&self) -> Cow<'_, SourceMap>;
}

impl AsSourceMap for SourceMap {
    fn as_source_map(&self) -> Cow<'_, SourceMap> {
        Cow::Borrowed(self)
    }
}

impl AsSourceMap for str {
    fn as_source_map(&self) -> Cow<'_, SourceMap> {
        Cow::Owned(SourceMap::single("", self))
    }
}

impl AsSourceMap for String {
    fn as_source_map(&self) -> Cow<'_, SourceMap> {
        Cow::Owned(SourceMap::single("", self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_back_to_their_files() {
        let map = SourceMap::from_files(
            "dir",
            vec![
                ("dir/a.tf".into(), "ab\ncd".into()),
                ("dir/b.tf".into(), "xy\nz".into()),
            ],
        );
        assert_eq!(map.text(), "ab\ncd\nxy\nz");
        let at = map.locate(4);
        assert_eq!((at.file, at.line, at.col), ("dir/a.tf", 2, 2));
        let at = map.locate(6);
        assert_eq!((at.file, at.line, at.col), ("dir/b.tf", 1, 1));
        let at = map.locate(9);
        assert_eq!((at.file, at.line, at.col), ("dir/b.tf", 2, 1));
        assert_eq!(map.position(Span::new(9, 10)), "dir/b.tf:2:1");
        assert_eq!(map.split(Span::new(9, 10)), (1, 3..4));
        let one = SourceMap::single("a.tf", "ab\ncd");
        assert_eq!(one.position(Span::new(4, 5)), "2:2");
    }
}
