//! Themes: the colours of the interactive mode, by named slot.
//!
//! Two are built in (`dark`, the default, and `light`); the `theme` setting
//! (pi's key) names one of them or a theme file, `<name>.json` in the
//! project's `.focus/themes/` or in `<FOCUS_HOME>/themes/` (docs/tui.md has
//! the format). Colours are written at the depth the terminal has
//! ([`Depth::from_env`]): 24-bit, 256 colours, or the 16 basic ones, to which
//! any colour falls back (the nearest of the xterm palette). `NO_COLOR` is
//! [`Style`](crate::style::Style)'s business: with it, no colour is written.

use focus_core::json::Value;
use std::path::Path;

/// The colour slots a theme fills, in [`Theme::colours`] order.
pub const SLOTS: [&str; 6] = ["error", "success", "warning", "accent", "code", "keyword"];

/// One colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// One of the 16 basic colours (0-7, 8-15 bright), as the terminal's palette has it.
    Basic(u8),
    /// A colour of the 256-colour palette.
    Index(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

/// How many colours the terminal shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// The 16 basic colours (SGR 30-37, 90-97).
    Basic,
    /// The 256-colour palette (`TERM=*-256color`).
    Palette,
    /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
    TrueColor,
}

impl Depth {
    /// The depth the environment says the terminal has: `COLORTERM` first,
    /// then `TERM`; 16 colours when neither says more.
    pub fn from_env() -> Depth {
        let var = |name: &str| std::env::var(name).unwrap_or_default().to_ascii_lowercase();
        Depth::from_values(&var("COLORTERM"), &var("TERM"))
    }

    /// [`Depth::from_env`] on given values.
    pub fn from_values(colorterm: &str, term: &str) -> Depth {
        if colorterm == "truecolor" || colorterm == "24bit" || term.ends_with("-direct") {
            Depth::TrueColor
        } else if term.contains("256color") {
            Depth::Palette
        } else {
            Depth::Basic
        }
    }
}

/// A theme: a name and one colour per slot of [`SLOTS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Its name (`dark`, `light`, or the file's).
    pub name: &'static str,
    /// The colours, in [`SLOTS`] order.
    pub colours: [Colour; 6],
}

/// Six 24-bit colours from their `0xRRGGBB` values.
const fn rgb(values: [u32; 6]) -> [Colour; 6] {
    let mut colours = [Colour::Basic(0); 6];
    let mut i = 0;
    while i < 6 {
        let v = values[i];
        colours[i] = Colour::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8);
        i += 1;
    }
    colours
}

/// The default theme, for dark backgrounds; in 16 colours it is the
/// terminal's own red, green, yellow, blue, cyan and magenta.
pub static DARK: Theme = Theme {
    name: "dark",
    colours: rgb([0xff5f5f, 0x5fd75f, 0xffd75f, 0x5fafff, 0x5fd7d7, 0xd787ff]),
};

/// The theme for light backgrounds: darker colours that stay readable on white.
pub static LIGHT: Theme = Theme {
    name: "light",
    colours: rgb([0xaf0000, 0x008700, 0x875f00, 0x005faf, 0x005f87, 0x8700af]),
};

/// The basic colours of [`DARK`] and [`LIGHT`] in 16-colour terminals, slot
/// by slot (the terminal's palette suits its background already).
const BASIC_DEFAULTS: [u8; 6] = [1, 2, 3, 4, 6, 5];

/// The xterm palette's 16 basic colours, to find the nearest.
const XTERM16: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
];

/// The 16 names of the basic colours, as theme files write them.
const BASIC_NAMES: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "white",
    "brightBlack",
    "brightRed",
    "brightGreen",
    "brightYellow",
    "brightBlue",
    "brightMagenta",
    "brightCyan",
    "brightWhite",
];

impl Theme {
    /// The SGR parameters that set slot `slot`'s colour at `depth` (`"31"`,
    /// `"38;5;203"`, `"38;2;255;95;95"`).
    pub fn sgr(&self, slot: usize, depth: Depth) -> String {
        let builtin = std::ptr::eq(self, &DARK) || std::ptr::eq(self, &LIGHT);
        let colour = self.colours[slot];
        match (depth, colour) {
            (Depth::Basic, _) if builtin => basic_sgr(BASIC_DEFAULTS[slot]),
            (Depth::Basic, c) => basic_sgr(nearest_basic(rgb_of(c))),
            (_, Colour::Basic(n)) => basic_sgr(n),
            (Depth::Palette, Colour::Index(n)) | (Depth::TrueColor, Colour::Index(n)) => {
                format!("38;5;{n}")
            }
            (Depth::Palette, Colour::Rgb(r, g, b)) => format!("38;5;{}", cube_index(r, g, b)),
            (Depth::TrueColor, Colour::Rgb(r, g, b)) => format!("38;2;{r};{g};{b}"),
        }
    }
}

fn basic_sgr(n: u8) -> String {
    if n < 8 {
        format!("3{n}")
    } else {
        format!("9{}", n - 8)
    }
}

/// The 24-bit value of a colour (palette entries as xterm shows them).
fn rgb_of(colour: Colour) -> (u8, u8, u8) {
    match colour {
        Colour::Rgb(r, g, b) => (r, g, b),
        Colour::Basic(n) => XTERM16[usize::from(n % 16)],
        Colour::Index(n) if n < 16 => XTERM16[usize::from(n)],
        Colour::Index(n) if n >= 232 => {
            let v = 8 + (n - 232) * 10;
            (v, v, v)
        }
        Colour::Index(n) => {
            let n = n - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(n / 36), level((n / 6) % 6), level(n % 6))
        }
    }
}

/// The nearest of the 16 basic colours.
fn nearest_basic((r, g, b): (u8, u8, u8)) -> u8 {
    let distance = |(x, y, z): (u8, u8, u8)| {
        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
        d(r, x) + d(g, y) + d(b, z)
    };
    (0..16u8)
        .min_by_key(|&i| distance(XTERM16[usize::from(i)]))
        .unwrap_or(7)
}

/// The nearest entry of the 256-colour palette's 6×6×6 cube.
fn cube_index(r: u8, g: u8, b: u8) -> u8 {
    let step = |v: u8| -> u8 {
        if v < 48 {
            0
        } else if v < 115 {
            1
        } else {
            (v - 35) / 40
        }
    };
    16 + 36 * step(r) + 6 * step(g) + step(b)
}

/// Reads one colour: `"#rrggbb"`, a palette index 0-255, or a basic colour's
/// name (`"red"`, `"brightBlue"`); a string naming one of `vars` stands for it.
fn parse_colour(value: &Value, vars: &Value) -> Result<Colour, String> {
    if let Some(n) = value.as_u64() {
        return u8::try_from(n)
            .map(Colour::Index)
            .map_err(|_| format!("palette index {n} is over 255"));
    }
    let text = value.as_str().ok_or_else(|| {
        format!(
            "expected \"#rrggbb\", 0-255 or a colour name, found {}",
            value.type_name()
        )
    })?;
    if let Some(hex) = text.strip_prefix('#') {
        let byte = |i: usize| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        };
        return match (hex.len(), byte(0), byte(2), byte(4)) {
            (6, Some(r), Some(g), Some(b)) => Ok(Colour::Rgb(r, g, b)),
            _ => Err(format!("{text:?} is not #rrggbb")),
        };
    }
    if let Some(n) = BASIC_NAMES.iter().position(|name| *name == text) {
        return Ok(Colour::Basic(n as u8));
    }
    match &vars[text] {
        Value::Null => Err(format!("unknown colour {text:?}")),
        // One level only: a variable is a colour, not another variable.
        var => parse_colour(var, &Value::Null),
    }
}

/// Reads a theme file's JSON: `{"name", "base": "dark"|"light", "vars": {…},
/// "colors": {slot: colour}}`; a slot left out keeps the base's colour. An
/// unknown slot is an error (a typo would silently do nothing).
///
/// # Errors
///
/// A `base` other than `"dark"` or `"light"`, `colors` that is not an object,
/// an unknown slot, or a colour that is not `"#rrggbb"`, an index 0-255, a
/// colour name or a variable of `vars` holding one; the message names the key.
pub fn parse_theme(name: &str, json: &Value) -> Result<Theme, String> {
    let base = match json["base"].as_str() {
        None | Some("dark") => &DARK,
        Some("light") => &LIGHT,
        Some(other) => return Err(format!("base: {other:?} is not dark or light")),
    };
    let mut colours = base.colours;
    if let Some(slots) = json["colors"].as_object() {
        for (slot, value) in slots.iter() {
            let at = SLOTS.iter().position(|s| *s == slot).ok_or_else(|| {
                format!("colors.{slot}: unknown slot (slots: {})", SLOTS.join(", "))
            })?;
            colours[at] =
                parse_colour(value, &json["vars"]).map_err(|e| format!("colors.{slot}: {e}"))?;
        }
    } else if !json["colors"].is_null() {
        return Err("colors: expected an object".into());
    }
    Ok(Theme {
        // Lives as long as focus: themes are loaded at start and on /reload.
        name: Box::leak(name.to_string().into_boxed_str()),
        colours,
    })
}

/// The theme `name`: a built-in one, or `<name>.json` in `<cwd>/.focus/themes/`
/// (first) or `<config_dir>/themes/`.
///
/// # Errors
///
/// A name that is a path, no such theme in either folder (the message lists
/// the themes there are), a file that cannot be read or is not valid JSON, or
/// a theme [`parse_theme`] refuses; each message names the file.
pub fn load(name: &str, config_dir: &Path, cwd: &Path) -> Result<&'static Theme, String> {
    match name {
        "dark" => return Ok(&DARK),
        "light" => return Ok(&LIGHT),
        _ => {}
    }
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(format!("theme {name:?}: a theme is named, not a path"));
    }
    let file = format!("{name}.json");
    let path = [
        cwd.join(".focus/themes").join(&file),
        config_dir.join("themes").join(file),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .ok_or_else(|| {
        format!(
            "theme {name:?}: no such theme (there are {}; a theme is NAME.json in .focus/themes/ or {})",
            names(config_dir, cwd).join(", "),
            config_dir.join("themes").display()
        )
    })?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json = focus_core::json::parse_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?;
    let theme = parse_theme(name, &json).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Box::leak(Box::new(theme)))
}

/// The names of the themes there are: the built-in ones, then the files.
pub fn names(config_dir: &Path, cwd: &Path) -> Vec<String> {
    let mut names = vec!["dark".to_string(), "light".to_string()];
    for dir in [cwd.join(".focus/themes"), config_dir.join("themes")] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut found: Vec<String> = entries
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".json")
                    .map(str::to_string)
            })
            .filter(|n| !names.contains(n) && !n.chars().any(char::is_control))
            .collect();
        found.sort();
        names.extend(found);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_follows_colorterm_then_term() {
        assert_eq!(Depth::from_values("truecolor", "xterm"), Depth::TrueColor);
        assert_eq!(Depth::from_values("", "xterm-256color"), Depth::Palette);
        assert_eq!(Depth::from_values("", "xterm"), Depth::Basic);
        assert_eq!(Depth::from_values("", "linux"), Depth::Basic);
    }

    #[test]
    fn built_in_themes_at_each_depth() {
        assert_eq!(DARK.sgr(0, Depth::Basic), "31");
        assert_eq!(LIGHT.sgr(3, Depth::Basic), "34");
        assert_eq!(DARK.sgr(0, Depth::TrueColor), "38;2;255;95;95");
        assert_eq!(DARK.sgr(0, Depth::Palette), "38;5;203");
    }

    #[test]
    fn a_theme_file_with_vars_names_and_fallbacks() {
        let json = focus_core::json::parse_str(
            r##"{"base":"light","vars":{"hot":"#ff0000"},"colors":{"error":"hot","code":"brightCyan","keyword":201}}"##,
        )
        .unwrap();
        let theme = parse_theme("mine", &json).unwrap();
        assert_eq!(theme.sgr(0, Depth::TrueColor), "38;2;255;0;0");
        assert_eq!(theme.sgr(0, Depth::Basic), "91", "nearest basic colour");
        assert_eq!(theme.sgr(4, Depth::TrueColor), "96");
        assert_eq!(theme.sgr(5, Depth::Palette), "38;5;201");
        assert_eq!(theme.colours[1], LIGHT.colours[1], "from the base");
        let bad = focus_core::json::parse_str(r#"{"colors":{"eror":"red"}}"#).unwrap();
        assert!(parse_theme("x", &bad)
            .unwrap_err()
            .contains("colors.eror: unknown slot"));
    }
}
