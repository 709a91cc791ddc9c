//! What an image is, read from its first bytes: the format and the size in
//! pixels from a PNG's `IHDR`, a GIF's screen descriptor, a JPEG's start of
//! frame (`SOF`) or a WebP's `VP8 `, `VP8L` or `VP8X` chunk. The bytes come
//! from outside (a file the model read, a paste): every read is bounds-checked,
//! a walk through JPEG segments always moves forward, and anything unexpected
//! means "size unknown", never a panic.

/// An image's format and size in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageInfo {
    /// `png`, `jpeg`, `gif` or `webp`.
    pub format: &'static str,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// The format and size of the image in `bytes`, when its header says them.
pub fn image_info(bytes: &[u8]) -> Option<ImageInfo> {
    let (format, width, height) = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        png(bytes)?
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        (
            "gif",
            u32::from(le16(bytes, 6)?),
            u32::from(le16(bytes, 8)?),
        )
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        jpeg(bytes)?
    } else if bytes.get(..4) == Some(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        webp(bytes)?
    } else {
        return None;
    };
    (width > 0 && height > 0).then_some(ImageInfo {
        format,
        width,
        height,
    })
}

/// `[image 640x480, 12 KB]` for an image of `len` bytes (`[image, 12 KB]`
/// when its size is unknown).
pub fn image_label(info: Option<ImageInfo>, len: usize) -> String {
    let size = if len < 1024 {
        format!("{len} B")
    } else if len < 10 * 1024 * 1024 {
        format!("{} KB", len.div_ceil(1024))
    } else {
        format!("{} MB", len / (1024 * 1024))
    };
    match info {
        Some(info) => format!("[image {}x{}, {size}]", info.width, info.height),
        None => format!("[image, {size}]"),
    }
}

/// A PNG's size, from the `IHDR` chunk that must come first.
fn png(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    if bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    Some(("png", be32(bytes, 16)?, be32(bytes, 20)?))
}

/// A JPEG's size, from its first start-of-frame segment.
fn jpeg(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let mut at = 2;
    loop {
        // Markers start with 0xFF, possibly repeated as fill.
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        while *bytes.get(at)? == 0xFF {
            at += 1;
        }
        let marker = *bytes.get(at)?;
        at += 1;
        match marker {
            // Markers without a length: restarts, start of image, TEM.
            0xD0..=0xD8 | 0x01 => continue,
            0xD9 | 0xDA => return None, // end of image, or scan data before a frame
            _ => {}
        }
        let length = usize::from(be16(bytes, at)?);
        if length < 2 {
            return None;
        }
        // SOF0..SOF15, less DHT (C4), JPG (C8) and DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let height = be16(bytes, at + 3)?;
            let width = be16(bytes, at + 5)?;
            return Some(("jpeg", u32::from(width), u32::from(height)));
        }
        at = at.checked_add(length)?;
    }
}

/// A WebP's size, from its first chunk (lossy, lossless or extended).
fn webp(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let (width, height) = match bytes.get(12..16)? {
        b"VP8 " => {
            // A key frame: 3 bytes of tag, the start code, 14-bit sizes.
            if bytes.get(23..26)? != [0x9D, 0x01, 0x2A] {
                return None;
            }
            (
                u32::from(le16(bytes, 26)? & 0x3FFF),
                u32::from(le16(bytes, 28)? & 0x3FFF),
            )
        }
        b"VP8L" => {
            if *bytes.get(20)? != 0x2F {
                return None;
            }
            let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
            ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        b"VP8X" => (le24(bytes, 24)? + 1, le24(bytes, 27)? + 1),
        _ => return None,
    };
    Some(("webp", width, height))
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(
        bytes.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn le16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        bytes.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        bytes.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(3)?)?;
    Some(u32::from(b[0]) | (u32::from(b[1]) << 8) | (u32::from(b[2]) << 16))
}

/// Headers of tiny but well-formed images, for the tests of this crate.
#[cfg(test)]
pub(crate) mod samples {
    /// A PNG's signature and `IHDR` for `width`×`height` (no pixel data).
    pub fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(format: &'static str, width: u32, height: u32) -> Option<ImageInfo> {
        Some(ImageInfo {
            format,
            width,
            height,
        })
    }

    fn gif() -> Vec<u8> {
        b"GIF89a\x40\x01\xf0\x00\x80\x00\x00".to_vec()
    }

    fn jpeg() -> Vec<u8> {
        let mut bytes = vec![0xFF, 0xD8];
        // An APP0 segment of 16 bytes, fill bytes, then SOF2 for 1024x768.
        bytes.extend_from_slice(&[0xFF, 0xE0, 0x00, 0x10]);
        bytes.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        bytes.extend_from_slice(&[0xFF, 0xFF, 0xC2, 0x00, 0x11, 0x08, 0x03, 0x00, 0x04, 0x00]);
        bytes.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        bytes
    }

    fn webp(chunk: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut bytes = b"RIFF\0\0\0\0WEBP".to_vec();
        bytes.extend_from_slice(chunk);
        bytes.extend_from_slice(&(body.len() as u32).to_le_bytes());
        bytes.extend_from_slice(body);
        bytes
    }

    fn webps() -> Vec<Vec<u8>> {
        // Lossy: frame tag, start code, 400x300 (scale bits set, masked off).
        let lossy = webp(
            b"VP8 ",
            &[0, 0, 0, 0x9D, 0x01, 0x2A, 0x90, 0x41, 0x2C, 0x81],
        );
        // Lossless: signature, then width-1 = 99 and height-1 = 49 in 14 bits each.
        let bits: u32 = 99 | (49 << 14);
        let mut body = vec![0x2F];
        body.extend_from_slice(&bits.to_le_bytes());
        let lossless = webp(b"VP8L", &body);
        // Extended: flags, then 24-bit width-1 = 4999 and height-1 = 1.
        let extended = webp(b"VP8X", &[0, 0, 0, 0, 0x87, 0x13, 0, 1, 0, 0]);
        vec![lossy, lossless, extended]
    }

    #[test]
    fn each_format_tells_its_size() {
        assert_eq!(image_info(&samples::png(640, 480)), info("png", 640, 480));
        assert_eq!(image_info(&gif()), info("gif", 320, 240));
        assert_eq!(image_info(&jpeg()), info("jpeg", 1024, 768));
        let [lossy, lossless, extended] = &webps()[..] else {
            unreachable!()
        };
        assert_eq!(image_info(lossy), info("webp", 400, 300));
        assert_eq!(image_info(lossless), info("webp", 100, 50));
        assert_eq!(image_info(extended), info("webp", 5000, 2));
        assert_eq!(image_info(b"fn main() {}"), None);
        assert_eq!(image_info(&samples::png(0, 10)), None);
    }

    #[test]
    fn labels_say_size_and_bytes() {
        assert_eq!(
            image_label(info("png", 640, 480), 12_000),
            "[image 640x480, 12 KB]"
        );
        assert_eq!(image_label(None, 500), "[image, 500 B]");
        assert_eq!(image_label(None, 30 << 20), "[image, 30 MB]");
    }

    /// Every prefix of every sample, and each with random bytes written over
    /// it, is read without a panic; a prefix too short for the size reads as
    /// unknown.
    #[test]
    fn truncated_and_garbled_headers_never_panic() {
        let mut samples = vec![samples::png(7, 9), gif(), jpeg()];
        samples.extend(webps());
        for sample in &samples {
            let full = image_info(sample);
            assert!(full.is_some());
            for cut in 0..sample.len() {
                let _ = image_info(&sample[..cut]);
            }
        }
        let mut rng = focus_testkit::rng::Rng::new(33);
        for round in 0..20_000 {
            let mut bytes = samples[round % samples.len()].clone();
            for _ in 0..1 + rng.below(6) {
                let at = rng.below(bytes.len());
                bytes[at] = rng.below(256) as u8;
            }
            bytes.truncate(rng.below(bytes.len() + 1));
            let _ = image_info(&bytes);
        }
        // A JPEG whose segments chain past the end, or loop on zero lengths.
        let _ = image_info(&[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]);
        assert_eq!(image_info(&[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00]), None);
        assert_eq!(image_info(&[0xFF, 0xD8, 0xFF, 0xD0, 0xFF, 0xD9]), None);
    }
}
