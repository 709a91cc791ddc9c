//! The trust dialog: the first interactive start in a folder whose
//! `.focus/settings.json` asks for hooks, MCP servers, a looser mode, allow
//! rules, sandbox changes or another shell shows exactly what it asks for and
//! waits for the word `yes` before any of it applies (Claude Code's "Do you
//! trust the files in this folder?", codex's trusted projects).
//!
//! It runs before the engine is built, so nothing the file names has started
//! yet, and, like the `-r` session list, it asks on the plain terminal, line
//! by line. Keys typed before the question was shown are discarded (they were
//! meant for something else), and only the whole word `yes` trusts: a stray
//! `y` or Enter starts focus without those settings. The answer is stored by
//! the folder's identity and the digest of what was asked
//! ([`focus_harness::trust`]); print, JSON and RPC modes never ask.

use crate::setup::SetupError;
use focus_harness::session::focus_home;
use focus_harness::settings::{trust_question, TrustQuestion};
use focus_harness::trust::TrustStore;
use focus_tools::output::sanitize;
use std::io::{BufRead, Write};
use std::path::Path;

/// The user's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Nothing to ask: no widening keys, or the folder is already trusted.
    NotAsked,
    /// Trusted, and the answer stored for later starts.
    Trusted,
    /// Trusted, but the answer could not be stored: for this run only.
    TrustedThisRun,
    /// Not trusted: the keys are ignored this run (and asked again next time).
    Declined,
}

/// Asks about `cwd`'s project settings if they need trust and the folder
/// has no stored answer for them.
///
/// # Errors
/// None today: a settings file that cannot be read is reported when the
/// engine loads it; the `Result` keeps the caller's `?` shape.
pub fn ask_if_needed(cwd: &Path) -> Result<Answer, SetupError> {
    let home = focus_home();
    let Ok(Some(question)) = trust_question(&home, cwd) else {
        return Ok(Answer::NotAsked);
    };
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{}", describe(&question));
    // Discard what was typed before the question could be read.
    if let Ok(attributes) = focus_sys::terminal::get_attributes(crate::terminal::STDIN) {
        let _ = focus_sys::terminal::set_attributes(crate::terminal::STDIN, &attributes);
    }
    let _ = write!(
        err,
        "Trust this folder? Type yes and Enter to trust it; Enter alone starts without these settings: "
    );
    let _ = err.flush();
    drop(err);
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    // Declined: the settings loader says which keys it ignores.
    if !matches!(read, Ok(n) if n > 0) || !line.trim().eq_ignore_ascii_case("yes") {
        return Ok(Answer::Declined);
    }
    match TrustStore::new(&home).trust(&question.folder, &question.asks.digest) {
        Ok(()) => Ok(Answer::Trusted),
        Err(error) => {
            errln!("focus: {}; trusted for this run only", sanitize(&error));
            Ok(Answer::TrustedThisRun)
        }
    }
}

/// The question's text: the file, each key and what it would do (text from
/// the file, sanitized), and why it matters.
pub fn describe(question: &TrustQuestion) -> String {
    let mut text = format!(
        "focus: this folder's settings ask for more than focus allows on its own:\n  {}\n",
        sanitize(&question.file.display().to_string())
    );
    for ask in &question.asks.asks {
        text.push_str(&format!("    {}:\n", sanitize(&ask.key)));
        for detail in &ask.details {
            for line in sanitize(detail).lines() {
                text.push_str(&format!("      {line}\n"));
            }
        }
    }
    text.push_str(
        "  Hooks, MCP servers and a shell run programs this folder chose; a looser mode, allow \
         rules or sandbox changes let the agent do more without asking. Trust it only if you \
         trust its authors.\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;
    use focus_harness::trust::asks::project_asks;
    use focus_harness::trust::FolderIdentity;

    #[test]
    fn the_question_shows_each_command_and_no_raw_escape_reaches_the_terminal() {
        let project = parse_str(
            r#"{"hooks":{"Stop":[{"hooks":[{"command":"printf '\u001b]52;c;cGF5bG9hZA==\u0007'; rm -rf ~"}]}]},"sandbox":{"enabled":false}}"#,
        )
        .unwrap();
        let question = TrustQuestion {
            file: "/p/.focus/settings.json".into(),
            folder: FolderIdentity {
                path: "/p".into(),
                device: 1,
                inode: 2,
            },
            asks: project_asks(&project, &parse_str("{}").unwrap()).unwrap(),
        };
        let text = describe(&question);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains("rm -rf ~"), "{text}");
        assert!(
            text.contains("sandbox.enabled:\n      sandbox off"),
            "{text}"
        );
        assert!(text.starts_with("focus: this folder's settings ask for more"));
    }
}
