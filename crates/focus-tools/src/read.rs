//! `read`: a text file by lines, or an image as image content.
//!
//! Text comes back capped ([`crate::output`]): at most 2,000 lines or 50 KB from
//! `offset`, lines over [`MAX_LINE_CHARS`] characters cut with a marker, and a
//! closing note that says exactly which `offset` reads the next part. A file
//! with a NUL byte in its first 8 KB is binary and refused with advice; PNG,
//! JPEG, GIF and WebP files (recognised by their magic bytes, not their names)
//! come back as base64 image content for models that take images.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::Content;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::open::{self, OpenError};
use crate::output::{self, MAX_BYTES, MAX_LINES};
use crate::path;
use crate::schema;
use crate::seen::{self, Seen, SeenFiles, StreamHash};
use crate::state::ToolState;

/// Lines longer than this many characters are cut (minified code, data blobs).
pub const MAX_LINE_CHARS: usize = 2000;
/// Largest image returned (providers reject larger base64 payloads).
pub const MAX_IMAGE_BYTES: u64 = 3_750_000;
/// How much of a file's start is checked for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8192;

/// The `read` tool.
pub struct ReadTool {
    cwd: PathBuf,
    state: ToolState,
}

impl ReadTool {
    /// A `read` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox, sharing its record of files seen.
    pub fn new(cwd: PathBuf, state: ToolState) -> ReadTool {
        ReadTool { cwd, state }
    }
}

impl Tool for ReadTool {
    fn name(&self) -> &str {
        "read"
    }

    fn description(&self) -> &str {
        "Read a file. Text comes back as-is (no line numbers), at most 2000 lines or 50KB per call; \
         lines over 2000 characters are cut. When more remains, a note at the end says which offset \
         to use next. Use offset (1-based line number) and limit (number of lines) to read part of a \
         large file. PNG, JPEG, GIF and WebP images come back as images. Binary files are refused."
    }

    fn parameters(&self) -> Value {
        schema::object(
            [
                ("path", schema::file_path()),
                (
                    "offset",
                    schema::integer(1, "Line number to start from (1-based)"),
                ),
                (
                    "limit",
                    schema::integer(1, "Maximum number of lines to read"),
                ),
            ],
            &["path"],
        )
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        run(&self.cwd, &self.state, args, &|| ctx.cancel.is_cancelled())
            .unwrap_or_else(ToolOutput::error)
    }

    fn is_read_only(&self, _args: &Value) -> bool {
        true
    }
}

fn run(
    cwd: &std::path::Path,
    state: &ToolState,
    args: &Value,
    cancelled: &dyn Fn() -> bool,
) -> Result<ToolOutput, String> {
    let given = args::required_str(args, "path")?;
    let offset = args::optional_u64(args, "offset")?.unwrap_or(1).max(1) as usize;
    let limit = args::optional_u64(args, "limit")?.map(|n| n as usize);
    if limit == Some(0) {
        return Err("Argument \"limit\" must be at least 1.".to_string());
    }
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_read(&resolved)?;
    let shown = path::describe(given, &resolved);
    let (mut file, metadata) = match open::open_regular_checked(&resolved, &state.sandbox) {
        Ok(opened) => opened,
        Err(OpenError::Io(e)) => return Err(path::io_error("read", given, &resolved, &e)),
        Err(OpenError::NotRegular(open::DIRECTORY)) => {
            return Err(format!(
                "{shown} is a directory, not a file. Use ls to list it or find to search it."
            ))
        }
        Err(OpenError::NotRegular(kind)) => return Err(open::not_regular_text(&shown, kind)),
    };
    let failed = |e: std::io::Error| {
        if open::would_block(&e) {
            open::would_block_text(&shown)
        } else {
            path::io_error("read", given, &resolved, &e)
        }
    };
    let mut head = vec![0; BINARY_SNIFF_BYTES];
    let head_len = read_up_to(&mut file, &mut head).map_err(failed)?;
    head.truncate(head_len);

    if let Some(mime_type) = image_mime_type(&head) {
        if metadata.len() > MAX_IMAGE_BYTES {
            return Err(format!(
                "{shown} is a {mime_type} image of {}, larger than the {} an image may be. \
                 Use bash to make a smaller copy (for example with ImageMagick's convert -resize) and read that.",
                output::format_size(metadata.len() as usize),
                output::format_size(MAX_IMAGE_BYTES as usize)
            ));
        }
        let mut bytes = head;
        file.read_to_end(&mut bytes).map_err(failed)?;
        remember(
            &state.seen,
            &resolved,
            &file,
            bytes.len() as u64,
            seen::hash_blocks(&bytes),
        );
        return Ok(ToolOutput {
            content: vec![
                Content::text(format!("Read image file {shown} [{mime_type}]")),
                Content::Image {
                    data: base64_encode(&bytes).into(),
                    mime_type: mime_type.to_string(),
                },
            ],
            details: Value::Null,
            is_error: false,
        });
    }
    if head.contains(&0) {
        return Err(format!(
            "{shown} is a binary file ({}), not text. Inspect it with bash instead, \
             for example `file <path>` or `xxd <path> | head`.",
            output::format_size(metadata.len() as usize)
        ));
    }

    // Stream the lines: only the requested window is kept in memory, but every
    // line is counted so the note can say how many remain.
    let mut reader = BufReader::new(Hashing {
        inner: std::io::Cursor::new(head).chain(&file),
        hash: StreamHash::default(),
    });
    let last_wanted = limit.map_or(usize::MAX, |l| offset.saturating_add(l - 1));
    let mut selected: Vec<String> = Vec::new();
    let mut total_lines = 0usize;
    let mut line = Vec::new();
    loop {
        line.clear();
        let wanted =
            total_lines + 1 >= offset && total_lines < last_wanted && selected.len() <= MAX_LINES;
        if cancelled() {
            return Err("The read was cancelled.".to_string());
        }
        let (n, dropped_chars) =
            read_line_capped(&mut reader, &mut line, wanted).map_err(failed)?;
        if n == 0 {
            break;
        }
        total_lines += 1;
        if wanted {
            let text = String::from_utf8_lossy(&line);
            let text = text.strip_suffix('\n').unwrap_or(&text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            let clean = output::sanitize(text);
            if dropped_chars == 0 {
                selected.push(output::cut_line(&clean, MAX_LINE_CHARS).into_owned());
            } else {
                let kept: String = clean.chars().take(MAX_LINE_CHARS).collect();
                let dropped = clean.chars().count() - kept.chars().count() + dropped_chars;
                selected.push(format!("{kept}… [{dropped} more characters]"));
            }
        }
    }
    let hashed = reader.into_inner().hash;
    remember(&state.seen, &resolved, &file, hashed.len(), hashed.finish());
    if total_lines == 0 {
        return Ok(ToolOutput::text(format!("[{shown} is empty.]")));
    }
    if offset > total_lines {
        return Err(format!(
            "Offset {offset} is beyond the end of {shown} ({total_lines} lines total). \
             Use an offset between 1 and {total_lines}."
        ));
    }
    let window_end = total_lines.min(last_wanted);
    let cut = output::truncate_head_lines(&selected, MAX_LINES, MAX_BYTES);
    let mut text = cut.content;
    let first = offset;
    let last = offset + cut.kept_lines - 1;
    if cut.truncated {
        let reason = if cut.by_bytes {
            format!(" ({} limit)", output::format_size(MAX_BYTES))
        } else {
            String::new()
        };
        text.push_str(&format!(
            "\n\n[Showing lines {first}-{last} of {total_lines}{reason}. Use offset={} to continue.]",
            last + 1
        ));
    } else if window_end < total_lines {
        text.push_str(&format!(
            "\n\n[{} more lines in file. Use offset={} to continue.]",
            total_lines - window_end,
            window_end + 1
        ));
    }
    Ok(ToolOutput::text(text).with_details(json_object! {
        "totalLines" => total_lines,
        "firstLine" => first,
        "lastLine" => last,
        "truncated" => cut.truncated,
    }))
}

/// Records what was read ([`crate::seen`]) so that `edit` and `write` notice
/// a later change by someone else.
fn remember(seen: &SeenFiles, path: &std::path::Path, file: &std::fs::File, len: u64, hash: u64) {
    if let Ok(metadata) = file.metadata() {
        seen.record(path, Seen::new(&metadata, len, hash));
    }
}

/// A reader that hashes every byte passing through it.
struct Hashing<R> {
    inner: R,
    hash: StreamHash,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

/// Most bytes of one line held in memory; the rest is only counted, so a
/// gigabyte-long line (a minified bundle, a database dump) cannot exhaust memory.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// Reads one line (with its `\n`) into `line`, keeping at most
/// [`MAX_LINE_BYTES`] of it, or none when `keep` is false. Returns the bytes
/// consumed (0 at the end) and how many characters were dropped unkept.
fn read_line_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    keep: bool,
) -> std::io::Result<(usize, usize)> {
    let (mut consumed, mut dropped_chars) = (0, 0);
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((consumed, dropped_chars));
        }
        let (piece, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..=i], true),
            None => (chunk, false),
        };
        let room = if keep {
            MAX_LINE_BYTES.saturating_sub(line.len())
        } else {
            0
        };
        let kept = piece.len().min(room);
        line.extend_from_slice(&piece[..kept]);
        // Count characters by their first bytes (UTF-8 continuation bytes are 10xxxxxx).
        dropped_chars += piece[kept..]
            .iter()
            .filter(|&&b| b & 0xC0 != 0x80 && b != b'\n' && b != b'\r')
            .count();
        let len = piece.len();
        reader.consume(len);
        consumed += len;
        if done {
            return Ok((consumed, dropped_chars));
        }
    }
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The MIME type of an image recognised by its first bytes.
pub fn image_mime_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in cases {
            assert_eq!(base64_encode(input.as_bytes()), expected);
        }
    }

    #[test]
    fn images_are_recognised_by_magic_bytes() {
        assert_eq!(image_mime_type(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(
            image_mime_type(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some("image/jpeg")
        );
        assert_eq!(image_mime_type(b"GIF89a.."), Some("image/gif"));
        assert_eq!(image_mime_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_mime_type(b"RIFF\0\0\0\0WAVE"), None);
        assert_eq!(image_mime_type(b"fn main"), None);
    }
}
