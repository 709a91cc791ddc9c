//! `focus -r`: a numbered list of the recent sessions of this directory; the user
//! types a number (Enter alone starts a new session).

use crate::setup::SetupError;
use focus_harness::conversation::{recent_sessions, SessionRequest};
use focus_harness::session::SessionInfo;
use std::io::{BufRead, Write};
use std::path::Path;

/// How many sessions the list shows.
const SHOWN: usize = 20;

/// Asks the user which recent session to resume.
pub fn choose_session(
    cwd: &Path,
    session_dir: Option<&Path>,
) -> Result<SessionRequest, SetupError> {
    let sessions = recent_sessions(cwd, session_dir);
    if sessions.is_empty() {
        errln!(
            "focus: no saved sessions for {}; starting a new one",
            cwd.display()
        );
        return Ok(SessionRequest::New);
    }
    errln!("{}", format_list(&sessions));
    let shown = sessions.len().min(SHOWN);
    loop {
        let _ = write!(
            std::io::stderr().lock(),
            "resume which session? [1-{shown}, Enter for a new one] "
        );
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => return Ok(SessionRequest::New),
            Ok(_) => {}
        }
        let answer = line.trim();
        if answer.is_empty() {
            return Ok(SessionRequest::New);
        }
        match answer.parse::<usize>() {
            Ok(n) if (1..=shown).contains(&n) => {
                return Ok(SessionRequest::Resume(sessions[n - 1].path.clone()))
            }
            _ => errln!("type a number from 1 to {shown}"),
        }
    }
}

/// The numbered list: age, message count, name or first message.
pub fn format_list(sessions: &[SessionInfo]) -> String {
    let now = focus_core::message::now_ms() as i64;
    let mut text = String::from("recent sessions:\n");
    for (i, s) in sessions.iter().take(SHOWN).enumerate() {
        let title = s.name.clone().unwrap_or_else(|| s.first_message.clone());
        text.push_str(&format!(
            "{:>3}. {:>8}  {:>4} msgs  {}\n",
            i + 1,
            age(now - s.modified_ms),
            s.message_count,
            crate::modes::print::clip(&title, 70)
        ));
    }
    text.pop();
    text
}

/// `90_000` ms → `1m ago`.
fn age(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    if s < 60 {
        format!("{s}s ago")
    } else if s < 3600 {
        format!("{}m ago", s / 60)
    } else if s < 86_400 {
        format!("{}h ago", s / 3600)
    } else {
        format!("{}d ago", s / 86_400)
    }
}
