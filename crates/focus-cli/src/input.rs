//! The first prompt's content: the message words, `@path` attachments (text
//! inline, images as image blocks) and piped stdin.

use focus_core::message::Content;
use focus_tools::read;
use std::io::Read;
use std::path::Path;

/// The largest text file attached inline; bigger ones are refused with a hint.
const MAX_TEXT_ATTACHMENT: u64 = 1024 * 1024;
/// The largest image attached.
const MAX_IMAGE_ATTACHMENT: u64 = 20 * 1024 * 1024;

/// The most bytes of piped stdin taken as a prompt: 32 MiB, some eight million
/// tokens, beyond any model's context window. Past it focus stops reading and
/// refuses, instead of reading `/dev/zero` until memory runs out.
pub const MAX_PIPED_STDIN: u64 = 32 * 1024 * 1024;

/// Reads all of stdin when it is not a terminal (piped or redirected); `None` when
/// it is a terminal or empty. More than [`MAX_PIPED_STDIN`] bytes is an error that
/// says so (nothing past the limit is read).
pub fn read_piped_stdin() -> Result<Option<String>, String> {
    if crate::terminal::is_tty(crate::terminal::STDIN) {
        return Ok(None);
    }
    read_prompt_from(std::io::stdin().lock(), MAX_PIPED_STDIN)
}

/// Reads at most `limit` bytes of `input` as a prompt (see [`read_piped_stdin`]).
pub fn read_prompt_from(input: impl Read, limit: u64) -> Result<Option<String>, String> {
    let mut bytes = Vec::new();
    input
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the prompt from stdin: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "stdin holds more than {} MiB, the most focus takes as a prompt; it stopped \
             reading there. Pipe a smaller input, or point the model at a file instead",
            limit / (1024 * 1024)
        ));
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok(if text.trim().is_empty() {
        None
    } else {
        Some(text)
    })
}

/// `/skill:name [args]` or `/template args` as the text it expands to (see
/// `focus_harness::prompt::commands`), `None` for any other text.
pub fn expand_typed_command(text: &str, cwd: &Path) -> Result<Option<String>, String> {
    focus_harness::prompt::commands::expand_command(
        text,
        &focus_harness::session::focus_home(),
        cwd,
    )
}

/// One attached file as content blocks: an image block, or the text wrapped in a
/// `<file name="…">` element so the model knows where it came from.
pub fn attach_file(path: &Path) -> Result<Content, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot attach @{}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!(
            "cannot attach @{}: it is a directory; attach files inside it instead",
            path.display()
        ));
    }
    if !meta.is_file() {
        // /dev/zero would be read until memory runs out, a FIFO would block forever.
        return Err(format!(
            "cannot attach @{}: it is not a regular file (a device, pipe or socket)",
            path.display()
        ));
    }
    if meta.len() > MAX_IMAGE_ATTACHMENT {
        return Err(format!(
            "cannot attach @{}: it is {} bytes; files over 20 MB are refused",
            path.display(),
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read @{}: {e}", path.display()))?;
    // Images are recognised by their first bytes, as the read tool does, so a
    // misnamed file is never sent to a provider as an image it would reject.
    if let Some(mime_type) = read::image_mime_type(&bytes) {
        return Ok(Content::Image {
            data: read::base64_encode(&bytes).into(),
            mime_type: mime_type.to_string(),
        });
    }
    if meta.len() > MAX_TEXT_ATTACHMENT {
        return Err(format!(
            "cannot attach @{}: it is {} bytes; files over 1 MB are refused (let the model read parts of it with the read tool)",
            path.display(),
            meta.len()
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        format!(
            "cannot attach @{}: it is not UTF-8 text (only text and png/jpg/gif/webp images can be attached)",
            path.display()
        )
    })?;
    Ok(Content::text(format!(
        "<file name=\"{}\">\n{}\n</file>",
        path.display(),
        text.trim_end_matches('\n')
    )))
}

/// Builds the content of the first prompt: attachments first, then the message
/// text, then piped stdin.
pub fn first_prompt_content(
    message: Option<&str>,
    files: &[std::path::PathBuf],
    stdin: Option<&str>,
) -> Result<Vec<Content>, String> {
    let mut content = Vec::new();
    for file in files {
        content.push(attach_file(file)?);
    }
    let mut text = message.unwrap_or("").to_string();
    if let Some(piped) = stdin {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(piped.trim_end_matches('\n'));
    }
    if !text.is_empty() {
        content.push(Content::text(text));
    }
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piped_input_past_the_limit_is_refused_without_reading_it_all() {
        // An endless source, like /dev/zero: the read must stop at the limit.
        let endless = std::io::repeat(b'x');
        let error = read_prompt_from(endless, 4 * 1024 * 1024).unwrap_err();
        assert!(error.contains("more than 4 MiB"), "{error}");
        let fits = read_prompt_from(&b"  hello\n"[..], 8).unwrap();
        assert_eq!(fits.as_deref(), Some("  hello\n"));
        assert_eq!(read_prompt_from(&b" \n"[..], 8).unwrap(), None);
    }

    #[test]
    fn text_and_image_attachments() {
        let dir = std::env::temp_dir().join(format!("focus-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("a.txt");
        std::fs::write(&text, "hello\n").unwrap();
        let image = dir.join("p.PNG");
        std::fs::write(&image, b"\x89PNG\r\n\x1a\n").unwrap();
        let misnamed = dir.join("fake.png");
        std::fs::write(&misnamed, "not really an image\n").unwrap();
        let content =
            first_prompt_content(Some("explain"), &[text.clone(), image], Some("piped\n")).unwrap();
        assert_eq!(
            content[0].as_text().unwrap(),
            format!("<file name=\"{}\">\nhello\n</file>", text.display())
        );
        assert_eq!(
            content[1],
            Content::Image {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into()
            }
        );
        assert_eq!(content[2].as_text(), Some("explain\n\npiped"));
        // A file named .png that is not an image is attached as text.
        let content = first_prompt_content(None, &[misnamed], None).unwrap();
        assert!(content[0]
            .as_text()
            .unwrap()
            .contains("not really an image"));
        let missing = first_prompt_content(None, &[dir.join("nope")], None).unwrap_err();
        assert!(missing.contains("cannot attach @"), "{missing}");
        let not_file = first_prompt_content(None, std::slice::from_ref(&dir), None).unwrap_err();
        assert!(not_file.contains("directory"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
