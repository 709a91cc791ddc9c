//! Slash commands of the interactive mode, with Tab completion. Commands that
//! choose something (`/model`, `/tree`, `/fork`, `/resume`) open a picker
//! ([`super::pickers`]) when called bare, and act on `/model provider/id` or
//! `/command N` (the picker's choice runs that).

use super::transcript::message_text;
use super::ui::Ui;
use crate::choose::{ModelChoice, ModelSource};
use crate::engine::entry_preview;
use crate::seams;
use focus_core::message::Message;
use focus_core::provider::ThinkingLevel;
use focus_harness::conversation::recent_sessions;
use focus_harness::prompt::listing::{user_commands as user_commands_in, UserCommand};
use focus_harness::session::EntryKind;
use focus_tui::columns::COLUMN;
use focus_tui::picker::Item;
use std::path::Path;

/// Every command with a one-line description.
pub const COMMANDS: &[(&str, &str)] = &[
    ("/model", "pick a model, or switch: /model provider/id"),
    (
        "/thinking",
        "show or set the thinking level: /thinking high",
    ),
    (
        "/compact",
        "summarize old history now: /compact [instructions]",
    ),
    (
        "/tree",
        "navigate the session tree: fold, search, filter, label, continue from an entry",
    ),
    (
        "/fork",
        "pick a message of yours to start a new session before (/fork N)",
    ),
    ("/new", "start a new session"),
    ("/resume", "pick a recent session to open (/resume N)"),
    (
        "/name",
        "name this session: /name NAME (shown in the footer)",
    ),
    (
        "/session",
        "session file, id, message counts, tokens and cost",
    ),
    ("/export", "write the session as HTML: /export [file.html]"),
    (
        "/permissions",
        "show or set the permission mode: /permissions plan",
    ),
    ("/help", "commands and keys"),
    (
        "/clone",
        "duplicate this session into a new file and continue there",
    ),
    (
        "/undo",
        "back to before your last message (one step each time)",
    ),
    ("/copy", "copy the last answer to the clipboard"),
    (
        "/settings",
        "pick a setting and a value, written to its settings.json",
    ),
    (
        "/reload",
        "read settings, keybindings, theme, AGENTS.md, skills, templates, models.json again",
    ),
    ("/hotkeys", "the keys and what they do"),
    ("/agents", "the subagents the task tool can start"),
    ("/changelog", "the project's CHANGELOG.md"),
    ("/quit", "leave focus (also /exit, Ctrl+D)"),
];

/// Whether command `name` does nothing useful without an argument (the
/// command menu completes it rather than running it): `/name`, and the
/// user's templates and skills, which take theirs.
pub fn needs_argument(name: &str) -> bool {
    name == "/name" || !is_builtin(name)
}

/// Whether `name` is a built-in command (`/model`, `/exit`…).
pub fn is_builtin(name: &str) -> bool {
    name == "/exit" || COMMANDS.iter().any(|(n, _)| *n == name)
}

/// The user's prompt templates and skills (a template named like a built-in
/// command is left out: the built-in wins), with their descriptions.
pub fn user_commands(cwd: &Path) -> Vec<UserCommand> {
    let home = focus_harness::session::focus_home();
    user_commands_in(&home, cwd)
        .into_iter()
        .filter(|c| !is_builtin(&c.name))
        .collect()
}

/// Whether command line `line` may run while the agent works: it only reads
/// the session, or names it (nothing the running prompt depends on).
pub fn safe_while_running(line: &str) -> bool {
    let name = line.split_whitespace().next().unwrap_or("");
    matches!(
        name,
        "/session" | "/export" | "/name" | "/help" | "/copy" | "/hotkeys"
    )
}

/// The result of completing a partial command.
#[derive(Debug, PartialEq, Eq)]
pub enum Completion {
    /// Nothing to complete.
    None,
    /// Exactly one match: the completed text.
    One(String),
    /// Several: their common prefix and their names.
    Many(String, Vec<String>),
}

/// Completes a command name at the start of `text`: a built-in one or one of
/// `user` (templates, skills).
pub fn complete(text: &str, user: &[UserCommand]) -> Completion {
    if !text.starts_with('/') || text.contains(' ') {
        return Completion::None;
    }
    let names: Vec<&str> = COMMANDS
        .iter()
        .map(|(n, _)| *n)
        .chain(["/exit"])
        .chain(user.iter().map(|c| c.name.as_str()))
        .filter(|n| n.starts_with(text))
        .collect();
    match names.as_slice() {
        [] => Completion::None,
        [one] => Completion::One(format!("{one} ")),
        many => {
            let mut prefix = many[0].to_string();
            for name in &many[1..] {
                while !name.starts_with(&prefix) {
                    prefix.pop();
                }
            }
            Completion::Many(prefix, many.iter().map(|s| s.to_string()).collect())
        }
    }
}

/// Runs one command line (starting with `/`). A notice left from before (such
/// as `thinking: minimal`) expires: the command's own output replaces it (a
/// notice of work still going on, a spinner's or a run's, stays).
pub fn run(ui: &mut Ui<'_>, line: &str) {
    if ui.busy.is_none() && !ui.engine.conversation.is_running() {
        ui.notice = None;
    }
    let (name, rest) = match line.split_once(char::is_whitespace) {
        Some((n, r)) => (n, r.trim()),
        None => (line, ""),
    };
    let result = match name {
        "/help" => {
            help(ui);
            Ok(())
        }
        "/quit" | "/exit" => {
            ui.request_quit();
            Ok(())
        }
        "/model" => model(ui, rest),
        "/thinking" => thinking(ui, rest),
        "/compact" => ui.start_compaction((!rest.is_empty()).then(|| rest.to_string())),
        "/tree" => tree(ui, rest),
        "/fork" => fork(ui, rest),
        "/new" => {
            let cwd = ui.cwd().to_path_buf();
            ui.engine().conversation.new_session(&cwd).map(|_| {
                ui.show_history();
                ui.say("new session started")
            })
        }
        "/resume" => resume(ui, rest),
        "/name" => {
            if rest.is_empty() {
                Err("give a name: /name NAME".into())
            } else {
                let named = ui.engine().conversation.session.lock().set_name(rest);
                named.map(|_| ui.say(&format!("session named {rest:?}")))
            }
        }
        "/session" => {
            session_info(ui);
            Ok(())
        }
        "/export" => {
            let output = (!rest.is_empty()).then(|| Path::new(rest));
            ui.engine()
                .export_html(output)
                .map(|path| ui.say(&format!("exported to {}", path.display())))
        }
        "/permissions" => seams::set_permission_mode(ui.engine(), rest).map(|text| ui.say(&text)),
        "/copy" => ui.copy_last_answer(),
        "/clone" => ui.clone_session(),
        "/undo" => ui.undo_last_message(),
        "/hotkeys" => {
            ui.show_hotkeys();
            Ok(())
        }
        "/changelog" => ui.show_changelog(),
        "/reload" => ui.reload(),
        "/settings" => ui.settings_command(rest),
        "/agents" => {
            ui.show_agents();
            Ok(())
        }
        other => Err(format!("unknown command {other}; /help lists them")),
    };
    if let Err(error) = result {
        let text = ui.style().red(&error);
        ui.say(&text);
    }
}

fn help(ui: &mut Ui<'_>) {
    let mut text = String::from("Commands:\n");
    for (name, description) in COMMANDS {
        text.push_str(&format!("  {name}{COLUMN}{description}\n"));
    }
    text.push_str(&format!("  !COMMAND{COLUMN}run a shell command; its output goes to the model with your next message\n"));
    text.push_str(&format!(
        "  !!COMMAND{COLUMN}run a shell command; its output is shown to you only\n"
    ));
    let user = user_commands(ui.cwd());
    if !user.is_empty() {
        text.push_str("Prompt templates and skills (/NAME args):\n");
        for command in &user {
            // Names and descriptions come from files: shown printable.
            let name = focus_tools::output::sanitize(&command.name);
            let description = focus_tools::output::sanitize(&command.description);
            text.push_str(&format!("  {name}{COLUMN}{description}\n"));
        }
    }
    text.push_str("Keys:\n");
    text.push_str(&ui.keys_text());
    ui.say(&text);
}

fn model(ui: &mut Ui<'_>, rest: &str) -> Result<(), String> {
    if rest.is_empty() {
        return ui.open_model_picker();
    }
    let registry = seams::registry()?;
    let (provider, id) = match rest.split_once('/') {
        Some((p, m)) if registry.provider(p).is_some() || p == crate::demo::DEMO_PROVIDER => (p, m),
        _ => ("", rest),
    };
    let choice = if provider == crate::demo::DEMO_PROVIDER {
        ModelChoice::Demo
    } else {
        ModelChoice::Registered {
            provider: provider.to_string(),
            model: id.to_string(),
            source: ModelSource::Flags,
        }
    };
    let retry = ui.engine().retry.clone();
    let built = seams::build_provider(&choice, &registry, &retry)?;
    let info = built.model().clone();
    let cwd = ui.cwd().to_path_buf();
    crate::model_switch::switch(ui.engine(), built, None, &cwd);
    let thinking = ui.engine().conversation.config.options.thinking;
    // Model ids can come from models.json or a local server: shown printable.
    ui.say(&focus_tools::output::sanitize(&format!(
        "model: {}/{} · thinking {}",
        info.provider,
        info.id,
        thinking.as_str()
    )));
    Ok(())
}

fn thinking(ui: &mut Ui<'_>, rest: &str) -> Result<(), String> {
    if rest.is_empty() {
        let current = ui.engine().conversation.config.options.thinking;
        ui.say(&format!(
            "thinking: {} (choose off, minimal, low, medium, high, xhigh)",
            current.as_str()
        ));
        return Ok(());
    }
    let level = ThinkingLevel::parse(rest).ok_or_else(|| {
        format!("unknown level {rest:?}; use off, minimal, low, medium, high or xhigh")
    })?;
    ui.engine().conversation.set_thinking(level);
    ui.say(&format!("thinking: {}", level.as_str()));
    Ok(())
}

/// The message entries of the session as `/tree` shows them (the tree's outline:
/// depth first, one step in at each branch point), with their indent and whether
/// they are on the current branch. Tool results are left out.
fn message_entries(ui: &mut Ui<'_>) -> Vec<(String, usize, bool, String, bool)> {
    let store = ui.engine().conversation.session.lock();
    let manager = store.manager();
    let tree = manager.tree();
    let branch: std::collections::HashSet<&str> = tree
        .current_branch()
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    let mut out = Vec::new();
    for (entry, indent) in tree.outline() {
        let EntryKind::Message(message) = &entry.kind else {
            continue;
        };
        if matches!(message, Message::ToolResult(_)) {
            continue;
        }
        let is_user = matches!(message, Message::User(_));
        out.push((
            entry.id.to_string(),
            indent,
            branch.contains(entry.id.as_str()),
            entry_preview(&entry.kind),
            is_user,
        ));
    }
    out
}

fn tree(ui: &mut Ui<'_>, rest: &str) -> Result<(), String> {
    let entries = message_entries(ui);
    if entries.is_empty() {
        return Err("this session has no messages yet".into());
    }
    if rest.is_empty() {
        return ui.open_tree();
    }
    let n: usize = rest
        .parse()
        .map_err(|_| format!("/tree takes an entry number, not {rest:?}"))?;
    let (id, _, _, _, is_user) = entries
        .get(n.wrapping_sub(1))
        .cloned()
        .ok_or_else(|| format!("no entry {n}; /tree lists them"))?;
    let engine = ui.engine();
    if is_user {
        // Going back to one of your messages: the leaf moves before it and its text
        // returns to the editor, to edit and resend (a new branch).
        let entry = engine
            .conversation
            .session
            .lock()
            .manager()
            .tree()
            .get(&id)
            .cloned();
        let parent = entry.as_ref().and_then(|e| e.parent_id.clone());
        let text = match entry.map(|e| e.kind) {
            Some(EntryKind::Message(m)) => message_text(&m),
            _ => String::new(),
        };
        match parent {
            Some(parent) => engine.conversation.go_to_entry(&parent)?,
            None => {
                engine
                    .conversation
                    .session
                    .lock()
                    .manager_mut()
                    .move_leaf(None)
                    .map_err(|e| e.to_string())?;
                let history = engine.conversation.session.lock().context_messages();
                engine.conversation.history = history;
            }
        }
        ui.set_input(&text);
        ui.show_history();
        ui.say("moved before that message; edit it and press Enter to branch");
    } else {
        engine.conversation.go_to_entry(&id)?;
        ui.show_history();
        ui.say("continuing from that entry");
    }
    Ok(())
}

fn fork(ui: &mut Ui<'_>, rest: &str) -> Result<(), String> {
    let users: Vec<_> = message_entries(ui)
        .into_iter()
        .filter(|e| e.2 && e.4)
        .collect();
    if users.is_empty() {
        return Err("nothing to fork from: send a message first".into());
    }
    if rest.is_empty() {
        let items = users.iter().map(|e| Item::new(e.3.clone(), "")).collect();
        ui.open_numbered(
            "your messages (Enter: a new session before it)",
            "/fork",
            items,
            Some(users.len() - 1),
        );
        return Ok(());
    }
    let n: usize = rest
        .parse()
        .map_err(|_| format!("/fork takes a message number, not {rest:?}"))?;
    let id = users
        .get(n.wrapping_sub(1))
        .map(|e| e.0.clone())
        .ok_or_else(|| format!("no message {n}; /fork lists them"))?;
    let text = ui.engine().conversation.fork(&id)?;
    ui.set_input(&text);
    ui.show_history();
    let path = ui
        .engine()
        .conversation
        .session
        .lock()
        .path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    ui.say(&format!("forked into a new session {path}"));
    Ok(())
}

fn resume(ui: &mut Ui<'_>, rest: &str) -> Result<(), String> {
    let cwd = ui.cwd().to_path_buf();
    let dir = ui
        .engine()
        .conversation
        .session
        .lock()
        .dir()
        .map(Path::to_path_buf);
    // A session with no message (one an older focus saved) has nothing to resume.
    let sessions: Vec<_> = recent_sessions(&cwd, dir.as_deref())
        .into_iter()
        .filter(|s| s.message_count > 0)
        .collect();
    if sessions.is_empty() {
        return Err("no saved sessions for this directory".into());
    }
    if rest.is_empty() {
        let now = focus_core::message::now_ms() as i64;
        let items = sessions
            .iter()
            .map(|s| {
                let title = s.name.clone().unwrap_or_else(|| s.first_message.clone());
                let detail = format!("{} · {} msgs", ago(now - s.modified_ms), s.message_count);
                Item::new(title, detail)
            })
            .collect();
        ui.open_numbered("recent sessions (Enter opens one)", "/resume", items, None);
        return Ok(());
    }
    let n: usize = rest
        .parse()
        .map_err(|_| format!("/resume takes a number, not {rest:?}"))?;
    let info = sessions
        .get(n.wrapping_sub(1))
        .ok_or_else(|| format!("no session {n}; /resume lists them"))?;
    let path = info.path.display().to_string();
    ui.engine().conversation.switch_session(&path, &cwd)?;
    let count = ui.engine().conversation.history.len();
    ui.show_history();
    ui.say(&format!("resumed {path} ({count} messages)"));
    Ok(())
}

fn session_info(ui: &mut Ui<'_>) {
    let engine = ui.engine();
    let (mut users, mut assistants, mut tools) = (0, 0, 0);
    let (mut input, mut output, mut cost) = (0u64, 0u64, 0.0);
    let mut estimated = false;
    for m in &engine.conversation.history {
        match m {
            Message::User(_) => users += 1,
            Message::Assistant(a) => {
                assistants += 1;
                estimated |= a.usage.estimated;
                // Token counts come from servers and session files: saturate.
                input = input
                    .saturating_add(a.usage.input)
                    .saturating_add(a.usage.cache_read);
                output = output.saturating_add(a.usage.output);
                cost += a.usage.cost.total;
            }
            Message::ToolResult(_) => tools += 1,
            Message::Custom(_) => {}
        }
    }
    // A server that reports no usage gets estimates (four characters a token):
    // marked, as the footer marks them with `~`.
    let (mark, estimated_note) = match estimated {
        true => ("~", " (estimated: the server reported no token counts)"),
        false => ("", ""),
    };
    let model = engine.conversation.config.provider.model();
    let window = match model.context_window_assumed {
        true => format!(
            "{} tokens (assumed: the server and models.json do not say; set contextWindow in models.json)",
            model.context_window
        ),
        false => format!("{} tokens", model.context_window),
    };
    let store = engine.conversation.session.lock();
    let text = format!(
        "session {}\n  file: {}\n  name: {}\n  messages: {} ({} yours, {} answers, {} tool results)\n  tokens: {mark}{} in, {mark}{} out{estimated_note} · cost ${:.4}\n  context window: {window}\n  {}",
        store.id(),
        store.path().map_or("(not saved)".into(), |p| p.display().to_string()),
        store.name().unwrap_or("-"),
        engine.conversation.history.len(),
        users,
        assistants,
        tools,
        input,
        output,
        cost,
        engine.gatekeeper.as_ref().map_or_else(
            || focus_tools::sandbox::Sandbox::off().describe(),
            |gate| gate.sandbox().describe()
        )
    );
    drop(store);
    // The id and name come from the session file.
    ui.say(&focus_tools::output::sanitize(&text));
}

/// `90_000` ms → `1m ago` (a session's age in the `/resume` picker).
pub fn ago(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..60 => format!("{s}s ago"),
        60..3600 => format!("{}m ago", s / 60),
        3600..86_400 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_people_say_them() {
        assert_eq!(ago(-5), "0s ago");
        assert_eq!(ago(90_000), "1m ago");
        assert_eq!(ago(7_200_000), "2h ago");
        assert_eq!(ago(3 * 86_400_000), "3d ago");
    }

    /// The commands docs/cli.md's table names (the `/words` of each row's
    /// first cell), and the shell rows.
    fn documented_commands() -> Vec<String> {
        let table = super::super::keymap::CLI_DOC
            .split("### Slash commands")
            .nth(1)
            .and_then(|rest| rest.split("\n### ").next())
            .expect("docs/cli.md has a slash commands section");
        let mut names = Vec::new();
        for row in table.lines().filter(|l| l.starts_with("| `")) {
            let cell = row.split(" | ").next().unwrap_or("");
            for word in cell.split('`').skip(1).step_by(2) {
                let name = word.split_whitespace().next().unwrap_or("");
                names.push(name.to_string());
            }
        }
        names
    }

    /// Every command has a row in docs/cli.md, and every row is a command.
    #[test]
    fn the_document_lists_every_command() {
        let documented = documented_commands();
        let known: Vec<&str> = COMMANDS
            .iter()
            .map(|(n, _)| *n)
            .chain(["/exit", "!COMMAND", "!!COMMAND", "/TEMPLATE", "/skill:NAME"])
            .collect();
        for name in &known {
            assert!(
                documented.iter().any(|d| d == name),
                "docs/cli.md has no row for {name}"
            );
        }
        for name in &documented {
            assert!(
                known.contains(&name.as_str()),
                "docs/cli.md documents {name}, which is no command"
            );
        }
    }

    #[test]
    fn completion_of_command_names() {
        assert_eq!(complete("/mo", &[]), Completion::One("/model ".into()));
        assert_eq!(complete("/x", &[]), Completion::None);
        assert_eq!(complete("hello", &[]), Completion::None);
        let user = [UserCommand {
            name: "/review".into(),
            description: "Review the diff".into(),
            path: "review.md".into(),
        }];
        assert_eq!(complete("/rev", &user), Completion::One("/review ".into()));
        match complete("/re", &user) {
            Completion::Many(prefix, names) => {
                assert_eq!(prefix, "/re");
                assert!(names.contains(&"/review".to_string()), "{names:?}");
            }
            other => panic!("{other:?}"),
        }
        assert!(needs_argument("/review") && !needs_argument("/session"));
        match complete("/n", &[]) {
            Completion::Many(prefix, names) => {
                assert_eq!(prefix, "/n");
                assert!(
                    names.contains(&"/new".to_string()) && names.contains(&"/name".to_string())
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(safe_while_running("/session"));
        assert!(safe_while_running("/name x"));
        assert!(!safe_while_running("/model"));
        assert!(!safe_while_running("/compact now"));
        match complete("/", &[]) {
            Completion::Many(_, names) => assert_eq!(names.len(), COMMANDS.len() + 1),
            other => panic!("{other:?}"),
        }
    }
}
