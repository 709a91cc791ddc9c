//! The commands a user defines — prompt templates (`/NAME`) and skills
//! (`/skill:NAME`) — with the one line the command menu, Tab completion and
//! `/help` show for each, as pi lists them: a template's front matter
//! `description`, else its first non-empty line; a skill's `description`.

use super::commands::{drop_front_matter, is_template_name, template_names, template_path};
use super::skills::{discover_skills, parse_skill};
use std::path::{Path, PathBuf};

/// The longest description shown, in characters (a longer one is cut with `…`).
const MAX_DESCRIPTION: usize = 100;

/// A command the user defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserCommand {
    /// As typed: `/review`, `/skill:pdf`.
    pub name: String,
    /// Its one-line description (may be empty).
    pub description: String,
    /// The template's file or the skill's `SKILL.md`.
    pub path: PathBuf,
}

/// The prompt templates (sorted by name), then the skills, of the project and
/// the config directory.
pub fn user_commands(config_dir: &Path, cwd: &Path) -> Vec<UserCommand> {
    let mut commands: Vec<UserCommand> = template_names(config_dir, cwd)
        .into_iter()
        .filter(|name| is_template_name(name))
        .filter_map(|name| {
            let path = template_path(&name, config_dir, cwd)?;
            let text = crate::files::read_regular_file(&path)
                .and_then(Result::ok)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_default();
            Some(UserCommand {
                description: one_line(&template_description(&text, &name)),
                name: format!("/{name}"),
                path,
            })
        })
        .collect();
    let (skills, _) = discover_skills(config_dir, cwd);
    commands.extend(skills.into_iter().map(|skill| UserCommand {
        name: format!("/skill:{}", skill.name),
        description: one_line(&skill.description),
        path: skill.path,
    }));
    commands
}

/// A template's description: its front matter's `description`, else its first
/// non-empty line.
fn template_description(text: &str, name: &str) -> String {
    if let Ok((_, description)) = parse_skill(text, name) {
        return description;
    }
    drop_front_matter(text)
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("")
        .to_string()
}

/// `text` on one line, at most [`MAX_DESCRIPTION`] characters.
fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= MAX_DESCRIPTION {
        return flat;
    }
    let mut cut: String = flat.chars().take(MAX_DESCRIPTION - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_and_skills_are_listed_with_their_line() {
        let root = std::env::temp_dir().join(format!("focus-listing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (config, cwd) = (root.join("config"), root.join("project"));
        std::fs::create_dir_all(config.join("prompts")).unwrap();
        std::fs::create_dir_all(cwd.join(".focus/prompts")).unwrap();
        std::fs::create_dir_all(cwd.join(".focus/skills/pdf")).unwrap();
        let prompts = config.join("prompts");
        std::fs::write(
            prompts.join("fix.md"),
            "---\ndescription: \"Fix an issue\"\n---\nFix $1.\n",
        )
        .unwrap();
        std::fs::write(prompts.join("plain.md"), "\n\n  Explain   this\nmore\n").unwrap();
        std::fs::write(prompts.join("long.md"), "x".repeat(300)).unwrap();
        std::fs::write(prompts.join("bad name.md"), "not offered").unwrap();
        // The project's template wins over the global one of the same name.
        std::fs::write(prompts.join("review.md"), "global").unwrap();
        std::fs::write(cwd.join(".focus/prompts/review.md"), "project review").unwrap();
        std::fs::write(
            cwd.join(".focus/skills/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Read PDF files\n---\nUse pdftotext.\n",
        )
        .unwrap();
        let listed = user_commands(&config, &cwd);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(listed[3].path, cwd.join(".focus/prompts/review.md"));
        let pairs: Vec<(&str, &str)> = listed
            .iter()
            .map(|c| (c.name.as_str(), c.description.as_str()))
            .collect();
        let long = format!("{}…", "x".repeat(99));
        assert_eq!(
            pairs,
            [
                ("/fix", "Fix an issue"),
                ("/long", long.as_str()),
                ("/plain", "Explain this"),
                ("/review", "project review"),
                ("/skill:pdf", "Read PDF files"),
            ]
        );
    }
}
