//! Where agent definitions come from: the project's `.focus/agents/` and
//! Claude Code's `.claude/agents/`, the user's `FOCUS_HOME/agents/`
//! (`~/.focus/agent/agents/`), and the built-in `explore` — the first
//! definition of a name wins, in that order.
//!
//! A project's files are untrusted input: only regular `*.md` files are read
//! (a FIFO never blocks, a huge file is refused by its size), at most
//! [`MAX_DEFINITION_FILES`] per folder, and a file that does not parse is
//! left out with an error naming it and its line. Definitions need no trust:
//! a subagent never gets more rights than the conversation that starts it.

use super::definition::{
    explore, parse_definition, AgentDefinition, DefinitionError, MAX_DEFINITION_BYTES,
};
use crate::files::read_regular_file;
use std::path::{Path, PathBuf};

/// Most definition files read from one folder.
pub const MAX_DEFINITION_FILES: usize = 200;

/// The definitions found, and the files that could not be used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Definitions {
    /// Usable definitions, one per name, in precedence order then by name.
    pub agents: Vec<AgentDefinition>,
    /// The files left out and why.
    pub errors: Vec<DefinitionError>,
}

impl Definitions {
    /// The definition named `name`.
    pub fn find(&self, name: &str) -> Option<&AgentDefinition> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// Only the built-in ones.
    pub fn builtin() -> Definitions {
        Definitions {
            agents: vec![explore()],
            errors: Vec::new(),
        }
    }
}

/// The folders read, in precedence order, for working directory `cwd` and
/// focus's home `home`.
pub fn definition_dirs(cwd: &Path, home: &Path) -> Vec<PathBuf> {
    vec![
        cwd.join(".focus").join("agents"),
        cwd.join(".claude").join("agents"),
        home.join("agents"),
    ]
}

/// Reads every definition for `cwd` and `home` (see the module's text).
pub fn load_definitions(cwd: &Path, home: &Path) -> Definitions {
    let mut found = Definitions::default();
    for dir in definition_dirs(cwd, home) {
        for path in definition_files(&dir, &mut found.errors) {
            match read_definition(&path) {
                Ok(agent) if found.find(&agent.name).is_none() => found.agents.push(agent),
                Ok(_) => {}
                Err(error) => found.errors.push(error),
            }
        }
    }
    if found.find("explore").is_none() {
        found.agents.push(explore());
    }
    found
}

/// The `*.md` files of `dir`, sorted by name (none when it is missing).
fn definition_files(dir: &Path, errors: &mut Vec<DefinitionError>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    if files.len() > MAX_DEFINITION_FILES {
        errors.push(DefinitionError {
            path: dir.to_path_buf(),
            line: 0,
            message: format!(
                "{} definition files; only the first {MAX_DEFINITION_FILES} are read",
                files.len()
            ),
        });
        files.truncate(MAX_DEFINITION_FILES);
    }
    files
}

/// Reads and parses one definition file.
fn read_definition(path: &Path) -> Result<AgentDefinition, DefinitionError> {
    let error = |message: String| DefinitionError {
        path: path.to_path_buf(),
        line: 0,
        message,
    };
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_DEFINITION_BYTES {
        return Err(error(format!(
            "{size} bytes; a definition may have at most {MAX_DEFINITION_BYTES}"
        )));
    }
    let bytes = match read_regular_file(path) {
        None => return Err(error("it disappeared while being read".into())),
        Some(Err(e)) => return Err(error(format!("cannot read it: {e}"))),
        Some(Ok(bytes)) => bytes,
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        error(format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    parse_definition(&text, path)
}
