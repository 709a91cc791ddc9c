//! The prompts a user types as commands, expanded before they are sent, as pi
//! does:
//!
//! - `/skill:NAME [args]` loads the skill's `SKILL.md` on demand, as
//!   `<skill name="NAME" location="…">…</skill>` followed by the arguments;
//! - `/NAME args` expands the prompt template `NAME.md` from the project's
//!   `.focus/prompts/` or the config directory's `prompts/` (the project wins):
//!   `$1`…`$9`, `$@` and `$ARGUMENTS` (all arguments), `${@:N}` and `${@:N:L}`
//!   (from the N-th, L of them). Arguments are split like a shell's words, quotes
//!   honoured. A front matter block (`---` … `---`) at the top is dropped.
//!
//! Anything else is left as it is ([`expand_command`] gives `None`).

use super::skills::discover_skills;
use std::path::{Path, PathBuf};

/// The text `text` expands to, `None` when it is no skill or template command, or
/// an error naming what is missing.
///
/// # Errors
///
/// A skill or template the command names cannot be read; the message names it.
pub fn expand_command(text: &str, config_dir: &Path, cwd: &Path) -> Result<Option<String>, String> {
    let Some(command) = text.trim_start().strip_prefix('/') else {
        return Ok(None);
    };
    let (name, args) = command
        .split_once(char::is_whitespace)
        .map_or((command, ""), |(n, a)| (n, a.trim()));
    if let Some(skill) = name.strip_prefix("skill:") {
        return expand_skill(skill, args, config_dir, cwd).map(Some);
    }
    if !is_template_name(name) {
        return Ok(None);
    }
    let Some(path) = template_path(name, config_dir, cwd) else {
        return Ok(None);
    };
    let template = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the prompt template {}: {e}", path.display()))?;
    Ok(Some(fill(drop_front_matter(&template), &split_words(args))))
}

/// Whether `name` can name a template (`/NAME`): letters, digits, `-`, `_`.
pub fn is_template_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The names of the prompt templates offered (for `/help` and completion).
pub fn template_names(config_dir: &Path, cwd: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for dir in super::resource_dirs::resource_dirs("prompts", config_dir, cwd) {
        let Ok(read) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in read.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "md") {
                if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                    if !names.iter().any(|n| n == stem) {
                        names.push(stem.to_string());
                    }
                }
            }
        }
    }
    names.sort();
    names
}

/// The file of template `name`: the project's, else the config directory's,
/// else one in the settings' `prompts` directories.
pub(crate) fn template_path(name: &str, config_dir: &Path, cwd: &Path) -> Option<PathBuf> {
    super::resource_dirs::resource_dirs("prompts", config_dir, cwd)
        .into_iter()
        .map(|dir| dir.join(format!("{name}.md")))
        .find(|path| path.is_file())
}

fn expand_skill(name: &str, args: &str, config_dir: &Path, cwd: &Path) -> Result<String, String> {
    let (skills, _) = discover_skills(config_dir, cwd);
    let Some(skill) = skills.iter().find(|s| s.name == name) else {
        let known: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        return Err(format!(
            "no skill named {name:?} (known: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
    };
    let text = std::fs::read_to_string(&skill.path)
        .map_err(|e| format!("cannot read {}: {e}", skill.path.display()))?;
    let dir = skill.path.parent().unwrap_or(Path::new("."));
    let mut out = format!(
        "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
        skill.name,
        skill.path.display(),
        dir.display(),
        drop_front_matter(&text).trim()
    );
    if !args.is_empty() {
        out.push_str("\n\n");
        out.push_str(args);
    }
    Ok(out)
}

/// The text after a front matter block, or all of it.
pub(crate) fn drop_front_matter(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---\n") else {
        return text;
    };
    match rest.find("\n---") {
        Some(end) => rest[end + 4..].trim_start_matches(['\r', '\n']),
        None => text,
    }
}

/// Splits arguments like a shell's words: spaces separate, quotes group.
fn split_words(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

/// Replaces the argument placeholders of `template` with `args`.
fn fill(template: &str, args: &[String]) -> String {
    let all = args.join(" ");
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(&all);
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('@') {
            out.push_str(&all);
            rest = tail;
        } else if let Some(range) = after.strip_prefix("{@:") {
            match range.split_once('}') {
                Some((spec, tail)) => {
                    let mut parts = spec.split(':').map(|n| n.trim().parse::<usize>().ok());
                    let from = parts.next().flatten().unwrap_or(1).max(1) - 1;
                    let len = parts.next().flatten();
                    let picked: Vec<&str> = args
                        .iter()
                        .skip(from)
                        .take(len.unwrap_or(usize::MAX))
                        .map(String::as_str)
                        .collect();
                    out.push_str(&picked.join(" "));
                    rest = tail;
                }
                None => {
                    out.push('$');
                    rest = after;
                }
            }
        } else if let Some(d) = after
            .chars()
            .next()
            .filter(|c| c.is_ascii_digit() && *c != '0')
        {
            let n = d.to_digit(10).unwrap_or(1) as usize;
            out.push_str(args.get(n - 1).map_or("", String::as_str));
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(tag: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("focus-cmds-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (config, cwd) = (root.join("config"), root.join("project"));
        std::fs::create_dir_all(config.join("prompts")).unwrap();
        std::fs::create_dir_all(cwd.join(".focus/skills/review")).unwrap();
        (config, cwd)
    }

    #[test]
    fn templates_fill_their_arguments() {
        let (config, cwd) = dirs("tpl");
        std::fs::write(
            config.join("prompts/fix.md"),
            "---\ndescription: Fix an issue\n---\nFix issue $1 in $2 (all: $@; rest: ${@:2}; one: ${@:2:1}); cost $5.\n",
        )
        .unwrap();
        let out = expand_command(r#"/fix 42 "the parser" now"#, &config, &cwd)
            .unwrap()
            .unwrap();
        assert_eq!(
            out,
            "Fix issue 42 in the parser (all: 42 the parser now; rest: the parser now; one: the parser); cost .\n"
        );
        assert_eq!(template_names(&config, &cwd), ["fix"]);
        assert_eq!(
            expand_command("/unknown thing", &config, &cwd).unwrap(),
            None
        );
        assert_eq!(expand_command("no command", &config, &cwd).unwrap(), None);
        assert_eq!(
            expand_command("/../etc/passwd", &config, &cwd).unwrap(),
            None
        );
    }

    #[test]
    fn a_skill_loads_on_demand() {
        let (config, cwd) = dirs("skill");
        std::fs::write(
            cwd.join(".focus/skills/review/SKILL.md"),
            "---\nname: review\ndescription: Review code carefully\n---\nRead every line twice.\n",
        )
        .unwrap();
        let out = expand_command("/skill:review src/main.rs", &config, &cwd)
            .unwrap()
            .unwrap();
        assert!(
            out.starts_with("<skill name=\"review\" location=\""),
            "{out}"
        );
        assert!(
            out.contains("Read every line twice.\n</skill>\n\nsrc/main.rs"),
            "{out}"
        );
        let error = expand_command("/skill:nope", &config, &cwd).unwrap_err();
        assert!(
            error.contains("no skill named \"nope\" (known: review)"),
            "{error}"
        );
    }
}
