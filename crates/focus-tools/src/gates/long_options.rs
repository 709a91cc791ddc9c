//! GNU-style long options, as the programs themselves read them.
//!
//! `getopt_long` (sed, sort, env, date…) and git's parse-options accept any
//! unambiguous prefix of a long option: `sed --in` is `sed --in-place`, `sort
//! --out=f` is `sort --output=f`, `git grep --open=sh` is `--open-files-in-pager`.
//! A judge that compares option names exactly is talked around by abbreviating.
//! So an option is resolved against the program's table first ([`resolve`]):
//! exact match, or the one entry it is a prefix of. An unknown or ambiguous
//! option is refused (the program would refuse it too, or mean something the
//! table does not list). Where only the dangerous options are listed
//! ([`abbreviates_any`]), any prefix of one counts as that option.

/// The table entry `arg` (`--name` or `--name=value`) names: the exact entry,
/// or the one entry it is a prefix of. `Err` for unknown or ambiguous names.
///
/// # Errors
///
/// `arg` names no entry, or is the prefix of several.
pub fn resolve(arg: &str, table: &[&'static str]) -> Result<&'static str, String> {
    let name = option_name(arg);
    if let Some(exact) = table.iter().find(|t| **t == name) {
        return Ok(exact);
    }
    let mut matches = table
        .iter()
        .filter(|t| t.starts_with(name) && name.len() > 2);
    match (matches.next(), matches.next()) {
        (Some(only), None) => Ok(only),
        (Some(a), Some(b)) => Err(format!(
            "option `{name}` is ambiguous (`{a}`, `{b}`…); cannot tell what it does"
        )),
        (None, _) => Err(format!("option `{name}` is not known to be safe")),
    }
}

/// The option's name without a `=value` part.
pub fn option_name(arg: &str) -> &str {
    arg.split_once('=').map_or(arg, |(name, _)| name)
}

/// The dangerous long option among `dangerous` that `arg` spells or
/// abbreviates (a prefix of at least `--` and one letter), if any.
pub fn abbreviates_any(arg: &str, dangerous: &[&'static str]) -> Option<&'static str> {
    if !arg.starts_with("--") || arg.len() < 3 {
        return None;
    }
    let name = option_name(arg);
    dangerous
        .iter()
        .find(|d| name.len() > 2 && d.starts_with(name))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_resolve_to_their_one_option() {
        let table = &["--in-place", "--expression", "--file", "--follow-symlinks"];
        assert_eq!(resolve("--in", table), Ok("--in-place"));
        assert_eq!(resolve("--expr=p", table), Ok("--expression"));
        assert_eq!(resolve("--file", table), Ok("--file"));
        assert!(resolve("--f", table).unwrap_err().contains("ambiguous"));
        assert!(resolve("--nope", table).unwrap_err().contains("not known"));
        assert!(resolve("--", table).is_err());
    }

    #[test]
    fn any_prefix_of_a_dangerous_option_counts() {
        let dangerous = &["--output", "--compress-program"];
        assert_eq!(abbreviates_any("--out=f", dangerous), Some("--output"));
        assert_eq!(
            abbreviates_any("--compress-prog=sh", dangerous),
            Some("--compress-program")
        );
        assert_eq!(abbreviates_any("--o", dangerous), Some("--output"));
        assert_eq!(abbreviates_any("--outputx", dangerous), None);
        assert_eq!(abbreviates_any("--", dangerous), None);
        assert_eq!(abbreviates_any("-o", dangerous), None);
    }
}
