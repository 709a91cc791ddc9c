//! Images drawn in the terminal with the kitty graphics protocol or iTerm2's
//! inline images (which WezTerm reads too), when the terminal announces one.
//!
//! Which one, decided from the environment alone, conservatively
//! ([`protocol_in`]): `FOCUS_IMAGES=kitty`, `iterm2` or `none` decides; `NO_COLOR`,
//! tmux and screen mean none (a multiplexer passes graphics on only when
//! configured to, which the environment does not tell); else kitty for
//! `TERM=xterm-kitty` or `KITTY_WINDOW_ID`, iTerm2's for `TERM_PROGRAM`
//! `iTerm.app` or `WezTerm`, none otherwise.
//!
//! The screen counts the rows it draws, so an image takes a fixed number of
//! rows, reserved as blank rows, and is drawn from the last of them
//! ([`image_rows`]): the cursor is saved, moved up to the first reserved row
//! (in the column the row's text left it), the image placed there and the
//! cursor restored. The image never reaches
//! below the row the cursor is on, so the terminal never scrolls for it.
//! The payload is the image's own base64, checked by decoding it first: only
//! the base64 alphabet ever goes inside the escape sequence.

/// A terminal graphics protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// kitty's: PNG sent in chunks of 4096 base64 characters.
    Kitty,
    /// iTerm2's `OSC 1337 File=`: any format the terminal decodes.
    Iterm2,
}

/// [`protocol_in`] for the process's environment.
pub fn protocol() -> Option<Protocol> {
    protocol_in(&|name| std::env::var(name).unwrap_or_default())
}

/// The protocol an environment read by `var` (unset reads as empty)
/// announces, if any.
pub fn protocol_in(var: &dyn Fn(&str) -> String) -> Option<Protocol> {
    match var("FOCUS_IMAGES").as_str() {
        "kitty" => return Some(Protocol::Kitty),
        "iterm2" => return Some(Protocol::Iterm2),
        "none" => return None,
        _ => {}
    }
    if !var("NO_COLOR").is_empty() || !var("TMUX").is_empty() || var("TERM").starts_with("screen") {
        return None;
    }
    if var("TERM") == "xterm-kitty" || !var("KITTY_WINDOW_ID").is_empty() {
        return Some(Protocol::Kitty);
    }
    matches!(var("TERM_PROGRAM").as_str(), "iTerm.app" | "WezTerm").then_some(Protocol::Iterm2)
}

/// The most rows an image takes.
pub const MAX_ROWS: usize = 12;

/// The rows (and columns) an image of `width`×`height` pixels gets in a window
/// `columns` wide: about 20 pixels a row, at most [`MAX_ROWS`], fewer when its
/// width at that height (a cell about twice as tall as wide) would not fit.
pub fn cells_for(width: u32, height: u32, columns: usize) -> (usize, usize) {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let mut rows = (h / 20.0).ceil().clamp(1.0, MAX_ROWS as f64);
    let wide = |rows: f64| (rows * 2.0 * w / h).ceil();
    if wide(rows) > columns as f64 {
        rows = (columns as f64 * h / (2.0 * w)).floor().max(1.0);
    }
    let cols = wide(rows).clamp(1.0, columns.max(1) as f64);
    (rows as usize, cols as usize)
}

/// The rows that show an image: `rows - 1` blank ones, then one that draws it
/// over all of them (see the module's doc). `base64` must be what [`crate::base64::decode`]
/// accepted; `mime` its type (kitty takes PNG only: anything else gives `None`),
/// `bytes` its decoded length. kitty gets no image id: each image drawn is
/// one of its own (sending an id again would delete the image and every
/// placement of it, so the same picture shown twice would lose the first).
pub fn image_rows(
    protocol: Protocol,
    base64: &str,
    mime: &str,
    bytes: usize,
    (rows, cols): (usize, usize),
) -> Option<Vec<String>> {
    let rows = rows.max(1);
    if base64
        .bytes()
        .any(|b| !(b.is_ascii_alphanumeric() || b"+/=".contains(&b)))
    {
        return None;
    }
    let place = match protocol {
        Protocol::Kitty => {
            if mime != "image/png" {
                return None;
            }
            kitty(base64, rows, cols)
        }
        Protocol::Iterm2 => format!(
            "\x1b]1337;File=inline=1;size={bytes};width={cols};height={rows};preserveAspectRatio=1:{base64}\x07"
        ),
    };
    let up = if rows > 1 {
        format!("\x1b[{}A", rows - 1)
    } else {
        String::new()
    };
    let mut out = vec![String::new(); rows - 1];
    out.push(format!("\x1b7{up}{place}\x1b8"));
    Some(out)
}

/// `row` without the image an [`image_rows`] row draws (the rows of the live
/// area, redrawn at every frame, leave images out: an image is drawn once,
/// when its rows reach the scrollback). Other rows come back as they are.
pub fn without_image(row: String) -> String {
    if !row.ends_with("\x1b8") {
        return row;
    }
    let Some(start) = row.rfind("\x1b7") else {
        return row;
    };
    // After the saved cursor: the move up (if any), then the image.
    let mut rest = &row[start + 2..];
    if let Some(after) = rest.strip_prefix("\x1b[") {
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if let Some(image) = after[digits..].strip_prefix('A') {
            rest = image;
        }
    }
    if rest.starts_with("\x1b_G") || rest.starts_with("\x1b]1337;File=") {
        row[..start].to_string()
    } else {
        row
    }
}

/// kitty's transmit-and-display command, chunked: PNG (`f=100`), `rows`×`cols`
/// cells, the cursor left where it is (`C=1`), no replies (`q=2`, repeated in
/// every chunk, which kitty before 0.20 needed (kitty issue #3375): a reply would
/// arrive as keys).
fn kitty(base64: &str, rows: usize, cols: usize) -> String {
    const CHUNK: usize = 4096;
    let mut out = String::with_capacity(base64.len() + base64.len() / CHUNK * 16 + 64);
    let chunks: Vec<&[u8]> = base64.as_bytes().chunks(CHUNK).collect();
    let count = chunks.len().max(1);
    for i in 0..count {
        let chunk = chunks
            .get(i)
            .map_or("", |c| std::str::from_utf8(c).unwrap_or(""));
        let more = u8::from(i + 1 < count);
        if i == 0 {
            out.push_str(&format!(
                "\x1b_Ga=T,f=100,t=d,q=2,C=1,c={cols},r={rows},m={more};{chunk}\x1b\\"
            ));
        } else {
            out.push_str(&format!("\x1b_Gm={more},q=2;{chunk}\x1b\\"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> String + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map_or(String::new(), |(_, v)| v.to_string())
        }
    }

    #[test]
    fn announced_terminals_outside_multiplexers() {
        assert_eq!(
            protocol_in(&env(&[("TERM", "xterm-kitty")])),
            Some(Protocol::Kitty)
        );
        assert_eq!(
            protocol_in(&env(&[("KITTY_WINDOW_ID", "3")])),
            Some(Protocol::Kitty)
        );
        assert_eq!(
            protocol_in(&env(&[("TERM_PROGRAM", "WezTerm")])),
            Some(Protocol::Iterm2)
        );
        assert_eq!(
            protocol_in(&env(&[("TERM_PROGRAM", "iTerm.app")])),
            Some(Protocol::Iterm2)
        );
        assert_eq!(protocol_in(&env(&[("TERM", "xterm-256color")])), None);
        assert_eq!(
            protocol_in(&env(&[("TERM", "xterm-kitty"), ("TMUX", "/tmp/t,1,0")])),
            None
        );
        assert_eq!(
            protocol_in(&env(&[
                ("TERM", "screen-256color"),
                ("TERM_PROGRAM", "WezTerm")
            ])),
            None
        );
        assert_eq!(
            protocol_in(&env(&[("KITTY_WINDOW_ID", "3"), ("NO_COLOR", "1")])),
            None
        );
        assert_eq!(
            protocol_in(&env(&[("TMUX", "x"), ("FOCUS_IMAGES", "iterm2")])),
            Some(Protocol::Iterm2)
        );
        assert_eq!(
            protocol_in(&env(&[("TERM", "xterm-kitty"), ("FOCUS_IMAGES", "none")])),
            None
        );
    }

    #[test]
    fn sizes_fit_the_window() {
        assert_eq!(cells_for(640, 480, 200), (12, 32));
        assert_eq!(cells_for(16, 16, 80), (1, 2));
        // Very wide: fewer rows so the width fits.
        let (rows, cols) = cells_for(4000, 100, 60);
        assert!(rows >= 1 && cols <= 60, "{rows} {cols}");
        assert_eq!(cells_for(0, 0, 0), (1, 1));
    }

    #[test]
    fn kitty_rows_draw_from_the_last_reserved_row() {
        let data = "A".repeat(5000);
        let rows = image_rows(Protocol::Kitty, &data, "image/png", 3750, (3, 10)).unwrap();
        assert_eq!(rows.len(), 3);
        assert!(rows[..2].iter().all(String::is_empty));
        let last = &rows[2];
        assert!(last.starts_with("\x1b7\x1b[2A\x1b_Ga=T,f=100,t=d,q=2,C=1,c=10,r=3,m=1;"));
        assert!(last.contains("\x1b\\\x1b_Gm=0,q=2;AAAA"));
        assert!(last.ends_with("\x1b\\\x1b8"));
        assert_eq!(crate::width::visible_width(last), 0);
        assert_eq!(
            image_rows(Protocol::Kitty, "AAAA", "image/jpeg", 3, (1, 1)),
            None
        );
    }

    #[test]
    fn live_rows_leave_images_out() {
        for protocol in [Protocol::Kitty, Protocol::Iterm2] {
            let rows = image_rows(protocol, "QUJD", "image/png", 3, (3, 4)).unwrap();
            let last = format!("    {}", rows[2]);
            assert_eq!(without_image(last), "    ");
        }
        let plain = "a row \x1b[1mbold\x1b[0m".to_string();
        assert_eq!(without_image(plain.clone()), plain);
        let saved = "\x1b7text\x1b8".to_string();
        assert_eq!(without_image(saved.clone()), saved);
    }

    #[test]
    fn iterm2_takes_any_format_and_nothing_but_base64() {
        let rows = image_rows(Protocol::Iterm2, "QUJD", "image/jpeg", 3, (1, 4)).unwrap();
        assert_eq!(
            rows,
            ["\x1b7\x1b]1337;File=inline=1;size=3;width=4;height=1;preserveAspectRatio=1:QUJD\x07\x1b8"]
        );
        assert_eq!(crate::width::visible_width(&rows[0]), 0);
        for hostile in ["QU\x07JD", "QU\x1b\\", "QUJD\n", "QU JD"] {
            assert_eq!(
                image_rows(Protocol::Iterm2, hostile, "image/png", 3, (1, 4)),
                None
            );
        }
    }
}
