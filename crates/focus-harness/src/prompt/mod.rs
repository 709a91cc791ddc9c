//! The system prompt, rebuilt every turn by [`build_system_prompt`].
//!
//! In order: the base prompt (who focus is and how to use its tools — or the user's
//! replacement for it), the tool list, appended text, the project guidance files
//! ([`context_files`]), the skills ([`skills`]), and last the date and working
//! directory. Rebuilding each turn is cheap (a few small files) and means an edited
//! `AGENTS.md` takes effect on the next turn.

pub mod commands;
pub mod context_files;
pub mod listing;
pub mod resource_dirs;
pub mod skills;

use crate::session::time::{format_iso8601, now_millis};
use context_files::{load_context_files, ContextFile};
use focus_core::provider::ToolSpec;
use skills::{discover_skills, skills_block, Skill};
use std::path::{Path, PathBuf};

/// What the system prompt is built from.
#[derive(Clone, Debug)]
pub struct PromptOptions {
    /// The working directory.
    pub cwd: PathBuf,
    /// focus's config directory (`FOCUS_HOME`), for global guidance and skills.
    pub config_dir: PathBuf,
    /// The tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// Replaces the base prompt (`--system-prompt`). `None`: `SYSTEM.md` from
    /// `<cwd>/.focus/` or the config directory, else the built-in base.
    pub replace_base: Option<String>,
    /// Added after the tool list (`--append-system-prompt`, repeatable), after any
    /// `APPEND_SYSTEM.md`.
    pub append: Vec<String>,
    /// Whether to load `AGENTS.md`/`CLAUDE.md` files.
    pub context_files: bool,
    /// Whether to list skills.
    pub skills: bool,
    /// The date line's `YYYY-MM-DD`; `None`: today (UTC).
    pub date: Option<String>,
}

impl PromptOptions {
    /// Defaults for `cwd`: everything discovered, nothing replaced.
    pub fn new(cwd: impl Into<PathBuf>, config_dir: impl Into<PathBuf>) -> PromptOptions {
        PromptOptions {
            cwd: cwd.into(),
            config_dir: config_dir.into(),
            tools: Vec::new(),
            replace_base: None,
            append: Vec::new(),
            context_files: true,
            skills: true,
            date: None,
        }
    }
}

/// A built system prompt and what went into it.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemPrompt {
    /// The prompt text.
    pub text: String,
    /// The guidance files included, in order.
    pub context_files: Vec<ContextFile>,
    /// The skills listed.
    pub skills: Vec<Skill>,
    /// Problems worth showing the user (a skipped skill…).
    pub warnings: Vec<String>,
}

/// The built-in base prompt.
pub const BASE_PROMPT: &str = "You are focus, an expert coding assistant working in the user's terminal. You help with software tasks by reading files, running commands, editing code and writing new files, using the tools below.";

/// Guidelines for using the tools; lines whose tool is missing are left out.
fn guidelines(tools: &[ToolSpec]) -> String {
    let has = |name: &str| tools.iter().any(|t| t.name == name);
    let mut lines = Vec::new();
    if has("grep") || has("find") || has("ls") {
        lines.push("Prefer the grep, find and ls tools over bash for exploring files: they are faster and respect .gitignore.");
    } else if has("bash") {
        lines.push("Use bash for file operations such as ls, rg and find.");
    }
    if has("read") {
        lines.push("Read a file before you edit it; do not guess its contents.");
    }
    if has("edit") {
        lines.push("Use edit for precise changes: the old text must match the file exactly, including whitespace.");
    }
    if has("write") {
        lines.push("Use write only for new files or complete rewrites.");
    }
    if has("bash") {
        lines.push("Run the project's tests or build after a change when you can, and report what happened.");
    }
    lines.push("When you finish, summarize what you did in plain text; do not use a tool to print a summary.");
    lines.push("Be concise, and show file paths clearly.");
    lines.iter().map(|l| format!("- {l}\n")).collect()
}

/// Builds the system prompt.
pub fn build_system_prompt(options: &PromptOptions) -> SystemPrompt {
    let mut warnings = Vec::new();
    let project_dir = options.cwd.join(".focus");
    let base = options
        .replace_base
        .clone()
        .or_else(|| first_file(&[&project_dir, &options.config_dir], "SYSTEM.md"))
        .unwrap_or_else(|| BASE_PROMPT.to_string());
    let mut text = base.trim_end().to_string();

    if !options.tools.is_empty() {
        text.push_str("\n\nAvailable tools:\n");
        for tool in &options.tools {
            let summary = tool.description.lines().next().unwrap_or("").trim();
            text.push_str(&format!("- {}: {summary}\n", tool.name));
        }
        text.push_str("\nGuidelines:\n");
        text.push_str(&guidelines(&options.tools));
    }

    let appended = first_file(&[&project_dir, &options.config_dir], "APPEND_SYSTEM.md")
        .into_iter()
        .chain(options.append.iter().cloned());
    for extra in appended {
        if !extra.trim().is_empty() {
            text.push_str("\n\n");
            text.push_str(extra.trim_end());
        }
    }

    let context_files = if options.context_files {
        load_context_files(&options.config_dir, &options.cwd)
    } else {
        Vec::new()
    };
    if !context_files.is_empty() {
        text.push_str("\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n");
        for file in &context_files {
            text.push_str(&format!(
                "## {}\n\n{}\n\n",
                file.path.display(),
                file.content.trim_end()
            ));
        }
        text.truncate(text.trim_end().len());
    }

    let skills = if options.skills && options.tools.iter().any(|t| t.name == "read") {
        let (found, skill_warnings) = discover_skills(&options.config_dir, &options.cwd);
        warnings.extend(skill_warnings);
        found
    } else {
        Vec::new()
    };
    text.push_str(&skills_block(&skills));

    let date = options
        .date
        .clone()
        .unwrap_or_else(|| format_iso8601(now_millis())[..10].to_string());
    text.push_str(&format!("\n\nCurrent date: {date}"));
    text.push_str(&format!(
        "\nCurrent working directory: {}",
        options.cwd.display()
    ));
    SystemPrompt {
        text,
        context_files,
        skills,
        warnings,
    }
}

/// The contents of the first `dirs[i]/name` that exists (project before global).
fn first_file(dirs: &[&Path], name: &str) -> Option<String> {
    dirs.iter()
        .find_map(|dir| crate::files::read_regular_file(&dir.join(name))?.ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .filter(|text| !text.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::Value;

    fn tool(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters: Value::Null,
        }
    }

    #[test]
    fn prompt_has_base_tools_guidance_skills_and_ends_with_date_and_cwd() {
        let root = std::env::temp_dir().join(format!("focus-prompt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let cwd = root.join("proj");
        std::fs::create_dir_all(home.join("skills/review")).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::write(cwd.join("AGENTS.md"), "Use tabs.").unwrap();
        std::fs::write(
            home.join("skills/review/SKILL.md"),
            "---\nname: review\ndescription: Review a diff\n---\nSteps",
        )
        .unwrap();
        let mut options = PromptOptions::new(&cwd, &home);
        options.tools = vec![
            tool("read", "Read a file.\nMore."),
            tool("bash", "Run a command."),
        ];
        options.append = vec!["Extra rule.".into()];
        options.date = Some("2026-12-02".into());
        let prompt = build_system_prompt(&options);
        let text = &prompt.text;
        assert!(text.starts_with(BASE_PROMPT));
        assert!(text.contains("- read: Read a file.\n- bash: Run a command.\n"));
        assert!(!text.contains("More."));
        let order = [
            "Available tools",
            "Extra rule.",
            "Use tabs.",
            "<available_skills>",
            "Current date: 2026-12-02",
        ];
        let positions: Vec<usize> = order.iter().map(|s| text.find(s).expect(s)).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(text.ends_with(&format!("Current working directory: {}", cwd.display())));

        options.replace_base = Some("You are a test.".into());
        options.tools.retain(|t| t.name != "read");
        let replaced = build_system_prompt(&options);
        assert!(replaced.text.starts_with("You are a test."));
        assert!(replaced.skills.is_empty(), "skills need the read tool");
        let _ = std::fs::remove_dir_all(&root);
    }
}
