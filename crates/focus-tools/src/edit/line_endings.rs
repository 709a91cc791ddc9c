//! The file as edits are matched against it, and the way back
//! ([`NormalisedFile`]): a BOM set aside and every CRLF turned into LF, so a
//! model that never saw a `\r` can still match; then the file rebuilt from its
//! own bytes, so only the replaced ranges change and every other line keeps its
//! ending (a file may mix CRLF and LF).

use crate::edit::plan::Planned;

/// A file's text with a BOM set aside and LF line endings, remembering where
/// each removed `\r` stood.
pub(super) struct NormalisedFile<'a> {
    /// The BOM the file starts with, or "".
    bom: &'a str,
    /// The file's text after the BOM, as it is on disk.
    body: &'a str,
    /// Whether new text takes CRLF endings ([`uses_crlf`]).
    crlf: bool,
    /// `body` with every `\r\n` turned into `\n`: what edits are matched against.
    text: String,
    /// Where each removed `\r` stood, in `text`'s offsets, so that a range found
    /// in `text` maps back to `body`.
    removed_cr: Vec<usize>,
}

impl<'a> NormalisedFile<'a> {
    /// Normalises `original`, the whole file.
    pub(super) fn new(original: &'a str) -> NormalisedFile<'a> {
        let (bom, body) = match original.strip_prefix('\u{FEFF}') {
            Some(rest) => ("\u{FEFF}", rest),
            None => ("", original),
        };
        let removed_cr: Vec<usize> = body
            .match_indices("\r\n")
            .enumerate()
            .map(|(i, (pos, _))| pos - i)
            .collect();
        NormalisedFile {
            bom,
            body,
            crlf: uses_crlf(body),
            text: body.replace("\r\n", "\n"),
            removed_cr,
        }
    }

    /// The text edits are matched against (LF line endings, no BOM).
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// The offset in the file's body of `offset` in [`NormalisedFile::text`].
    fn to_body(&self, offset: usize) -> usize {
        offset + self.removed_cr.partition_point(|&p| p < offset)
    }

    /// The new file: its own bytes with only the planned ranges replaced, new
    /// text taking the file's line ending (that of its first line), the BOM put
    /// back. `planned` is in file order.
    pub(super) fn rebuild(&self, planned: &[Planned]) -> String {
        let ending = if self.crlf { 2 } else { 1 };
        let added: usize = planned.iter().map(|p| p.new_text.len() * ending).sum();
        let mut file_text = String::with_capacity(self.bom.len() + self.body.len() + added);
        file_text.push_str(self.bom);
        let mut cursor = 0;
        for p in planned {
            let start = self.to_body(p.located.range.start);
            file_text.push_str(&self.body[cursor..start]);
            if self.crlf {
                file_text.push_str(&p.new_text.replace('\n', "\r\n"));
            } else {
                file_text.push_str(&p.new_text);
            }
            cursor = self.to_body(p.located.range.end);
        }
        file_text.push_str(&self.body[cursor..]);
        file_text
    }
}

/// Whether the file's first line ends with CRLF (the convention the file uses).
pub fn uses_crlf(text: &str) -> bool {
    match text.find('\n') {
        Some(i) => i > 0 && text.as_bytes()[i - 1] == b'\r',
        None => false,
    }
}
