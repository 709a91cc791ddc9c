//! Skills: folders holding a `SKILL.md` whose front matter gives a `name` and a
//! `description`. The prompt lists them (name, description, path); the model reads
//! a skill's file when a task matches, so the full instructions cost tokens only
//! when used.
//!
//! Looked for in `<cwd>/.focus/skills/` first, then `<config dir>/skills/`, then
//! the directories of the settings' `skills` key ([`super::resource_dirs`]); on
//! a name collision the earlier skill wins and a warning says so.

use std::path::{Path, PathBuf};

/// A skill found on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    /// Its name (front matter `name`, else the folder name).
    pub name: String,
    /// When to use it.
    pub description: String,
    /// The `SKILL.md` file.
    pub path: PathBuf,
}

/// Finds the skills for `cwd`. Problems (a missing description, a bad front matter,
/// a duplicate name) are returned as warnings, never fatal.
pub fn discover_skills(config_dir: &Path, cwd: &Path) -> (Vec<Skill>, Vec<String>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut warnings = Vec::new();
    for root in super::resource_dirs::resource_dirs("skills", config_dir, cwd) {
        let Ok(read) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = read
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            let path = dir.join("SKILL.md");
            let Some(Ok(text)) = crate::files::read_regular_file(&path)
                .map(|read| read.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
            else {
                continue;
            };
            let folder = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match parse_skill(&text, &folder) {
                Ok((name, description)) => {
                    if let Some(existing) = skills.iter().find(|s| s.name == name) {
                        warnings.push(format!(
                            "skill {name:?} in {} is hidden by {}",
                            path.display(),
                            existing.path.display()
                        ));
                        continue;
                    }
                    skills.push(Skill {
                        name,
                        description,
                        path,
                    });
                }
                Err(why) => warnings.push(format!("skipped skill {}: {why}", path.display())),
            }
        }
    }
    (skills, warnings)
}

/// Reads `name` and `description` from the front matter (a block between `---`
/// lines at the top). Only the flat `key: value` subset of YAML is needed; indented
/// continuation lines are joined to the value above.
///
/// # Errors
///
/// The file does not start with a `---` line, or its front matter is not closed by one.
pub fn parse_skill(text: &str, folder: &str) -> Result<(String, String), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("no front matter (the file must start with a --- line)".into());
    }
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = fields.last_mut() {
                if !value.is_empty() {
                    value.push(' ');
                }
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim();
            let value = if matches!(value, ">" | "|" | ">-" | "|-") {
                ""
            } else {
                value
            };
            fields.push((key.trim().to_string(), unquote(value).to_string()));
        }
    }
    if !closed {
        return Err("front matter is not closed by a --- line".into());
    }
    let get = |key: &str| {
        fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let description = get("description").ok_or("front matter has no description")?;
    let name = get("name").unwrap_or_else(|| folder.to_string());
    Ok((name, description))
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// The prompt block listing skills, or an empty string when there are none.
pub fn skills_block(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n\nThe following skills give specialized instructions for specific tasks. When a task matches a skill's description, read its file with the read tool before starting, and follow it.\n\n<available_skills>\n",
    );
    for skill in skills {
        out.push_str(&format!(
            "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n  </skill>\n",
            escape_xml(&skill.name),
            escape_xml(&skill.description),
            escape_xml(&skill.path.to_string_lossy())
        ));
    }
    out.push_str("</available_skills>");
    out
}

fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_read_and_problems_are_named() {
        let text = "---\nname: pdf-tools\ndescription: >\n  Extract text\n  from PDFs\n---\nBody";
        assert_eq!(
            parse_skill(text, "x").unwrap(),
            ("pdf-tools".into(), "Extract text from PDFs".into())
        );
        assert_eq!(
            parse_skill("---\ndescription: 'Quoted'\n---\n", "folder").unwrap(),
            ("folder".into(), "Quoted".into())
        );
        assert_eq!(
            parse_skill("---\nname: x\n---\n", "x").unwrap_err(),
            "front matter has no description"
        );
        assert!(parse_skill("no front matter", "x").is_err());
        assert!(parse_skill("---\nname: x\n", "x")
            .unwrap_err()
            .contains("not closed"));
    }

    #[test]
    fn block_escapes_xml() {
        let block = skills_block(&[Skill {
            name: "a&b".into(),
            description: "use <when> needed".into(),
            path: PathBuf::from("/s/SKILL.md"),
        }]);
        assert!(block.contains("<name>a&amp;b</name>"));
        assert!(block.contains("use &lt;when&gt; needed"));
        assert!(skills_block(&[]).is_empty());
    }
}
