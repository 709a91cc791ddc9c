//! Images in the conversation: what a tool returned (`read` on a PNG, JPEG,
//! GIF or WebP) or the user attached. Each shows as `[image WxH, N KB]`
//! (its size read from its header by focus-tui's
//! [`image_info`](focus_tui::image_info)), and, where the terminal announces a
//! graphics protocol ([`focus_tui::graphics::protocol`]), the image itself
//! under that line, a few rows high. The base64 is decoded once, when the
//! block is made; one that does not decode is only named.

use crate::terminal::style::Style;
use focus_core::message::{Content, SharedText};
use focus_tui::graphics::{cells_for, image_rows, Protocol};
use focus_tui::image_info::{image_info, image_label, ImageInfo};

/// The largest image drawn inline (a full redraw draws every image again).
const MAX_INLINE_BYTES: usize = 2 * 1024 * 1024;

/// One image as the screen shows it.
#[derive(Clone, Debug)]
pub struct ShownImage {
    /// The image's base64, when it decoded.
    data: Option<SharedText>,
    /// Its decoded length.
    bytes: usize,
    info: Option<ImageInfo>,
}

impl ShownImage {
    /// The image of a content block, if it is one.
    pub fn of(content: &Content) -> Option<ShownImage> {
        let Content::Image { data, .. } = content else {
            return None;
        };
        let decoded = focus_tui::base64::decode(data.as_str());
        let (bytes, info) = match &decoded {
            Some(bytes) => (bytes.len(), image_info(bytes)),
            None => (data.as_str().len() / 4 * 3, None),
        };
        Some(ShownImage {
            data: decoded.map(|_| data.clone()),
            bytes,
            info,
        })
    }

    /// Every image among `content`.
    pub fn all(content: &[Content]) -> Vec<ShownImage> {
        content.iter().filter_map(ShownImage::of).collect()
    }

    /// `[image WxH, N KB]`.
    pub fn label(&self) -> String {
        image_label(self.info, self.bytes)
    }

    /// The rows of the image `columns` wide: its label, then (with a protocol)
    /// the image itself.
    pub fn rows(&self, style: Style, columns: usize, protocol: Option<Protocol>) -> Vec<String> {
        let mut rows = vec![style.dim(&self.label())];
        if let (Some(protocol), Some(data), Some(info)) = (protocol, &self.data, self.info) {
            if self.bytes <= MAX_INLINE_BYTES {
                let cells = cells_for(info.width, info.height, columns);
                // The format the bytes have, not the one the content names.
                let mime = format!("image/{}", info.format);
                let drawn = image_rows(protocol, data.as_str(), &mime, self.bytes, cells);
                rows.extend(drawn.unwrap_or_default());
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_content(width: u32, height: u32) -> Content {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        Content::Image {
            data: focus_tools::read::base64_encode(&bytes).into(),
            mime_type: "image/png".into(),
        }
    }

    #[test]
    fn an_image_is_named_by_its_size() {
        let image = ShownImage::of(&png_content(640, 480)).unwrap();
        assert_eq!(image.label(), "[image 640x480, 33 B]");
        assert_eq!(
            image.rows(Style::PLAIN, 80, None),
            ["[image 640x480, 33 B]"]
        );
        let rows = image.rows(Style::PLAIN, 80, Some(Protocol::Kitty));
        assert_eq!(rows.len(), 1 + 12);
        assert!(rows[12].contains("\x1b_Ga=T,f=100"), "{:?}", rows[12]);
        assert!(ShownImage::of(&Content::text("x")).is_none());
        // A PNG said to be a JPEG is drawn as what it is.
        let Content::Image { data, .. } = png_content(64, 64) else {
            unreachable!()
        };
        let misnamed = Content::Image {
            data,
            mime_type: "image/jpeg".into(),
        };
        let rows = ShownImage::of(&misnamed)
            .unwrap()
            .rows(Style::PLAIN, 80, Some(Protocol::Kitty));
        assert!(rows.last().unwrap().contains("\x1b_Ga=T,f=100"), "{rows:?}");
    }

    /// Base64 that does not decode (a hostile or broken payload) is named,
    /// never written to the terminal.
    #[test]
    fn a_broken_payload_is_only_named() {
        let content = Content::Image {
            data: "QUJD\x1b]0;title\x07".into(),
            mime_type: "image/png".into(),
        };
        let image = ShownImage::of(&content).unwrap();
        let rows = image.rows(Style::PLAIN, 80, Some(Protocol::Iterm2));
        assert_eq!(rows, ["[image, 9 B]"]);
    }
}
