//! Images `read` returns as image content for models that take them: PNG,
//! JPEG, GIF and WebP, recognised by their magic bytes ([`image_mime_type`]),
//! not their names, sent as base64 ([`base64_encode`]), refused above
//! [`MAX_IMAGE_BYTES`].

use focus_core::json::Value;
use focus_core::message::Content;
use focus_core::tool::ToolOutput;

use crate::output;

/// Largest image returned (providers reject larger base64 payloads).
pub const MAX_IMAGE_BYTES: u64 = 3_750_000;

/// The refusal of an image of `len` bytes, larger than [`MAX_IMAGE_BYTES`], with
/// what to do instead.
pub(super) fn too_large_text(shown: &str, mime_type: &str, len: u64) -> String {
    format!(
        "{shown} is a {mime_type} image of {}, larger than the {} an image may be. \
         Use bash to make a smaller copy (for example with ImageMagick's convert -resize) and read that.",
        output::format_size(len as usize),
        output::format_size(MAX_IMAGE_BYTES as usize)
    )
}

/// The result for the image `bytes` of `mime_type`: a line naming it, then the
/// image itself.
pub(super) fn image_output(shown: &str, mime_type: &str, bytes: &[u8]) -> ToolOutput {
    ToolOutput {
        content: vec![
            Content::text(format!("Read image file {shown} [{mime_type}]")),
            Content::Image {
                data: base64_encode(bytes).into(),
                mime_type: mime_type.to_string(),
            },
        ],
        details: Value::Null,
        is_error: false,
    }
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
