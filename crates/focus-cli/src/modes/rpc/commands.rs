//! RPC mode's commands (docs/rpc.md): a line parsed, dispatched to what it
//! asks of the conversation, and answered with one response. `prompt`,
//! `steer`, `follow_up`, `abort` and `compact` go to the conversation's run;
//! the rest read or change the conversation between runs.

use super::server::Server;
use super::wire::{error_response, model_json, ok_response};
use crate::approval::ApprovalAnswer;
use crate::choose::{ModelChoice, ModelSource};
use crate::modes::json::write_line;
use crate::seams;
use focus_core::json::{parse_str, ToJson, Value};
use focus_core::json_object;
use focus_core::message::{now_ms, Content, Message, UserMessage};
use focus_core::provider::ThinkingLevel;
use std::path::Path;

/// The commands this server knows, for the unknown-command error.
pub const COMMANDS: &[&str] = &[
    "prompt",
    "steer",
    "follow_up",
    "abort",
    "get_state",
    "get_messages",
    "set_model",
    "set_thinking_level",
    "compact",
    "new_session",
    "switch_session",
    "fork",
    "get_session_tree",
    "navigate_tree",
    "set_label",
    "export_html",
    "approve",
    "set_session_name",
    "get_last_assistant_text",
    "get_session_stats",
    "get_available_models",
    "get_checkpoints",
    "rewind",
];

impl Server<'_> {
    /// Answers one command line (a `compact` is answered when it ends).
    pub(super) fn handle_line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let command = match parse_str(line) {
            Ok(v @ Value::Object(_)) => v,
            Ok(other) => {
                let message = format!(
                    "a command must be a JSON object like {{\"type\":\"get_state\"}}, not {}",
                    other.type_name()
                );
                return write_line(&error_response(None, "parse", &message));
            }
            Err(e) => {
                return write_line(&error_response(
                    None,
                    "parse",
                    &format!("invalid JSON: {e}"),
                ))
            }
        };
        let id = command.get("id").cloned();
        let Some(kind) = command["type"].as_str().map(String::from) else {
            return write_line(&error_response(
                id.as_ref(),
                "parse",
                "the command has no string \"type\" field (e.g. \"prompt\", \"get_state\")",
            ));
        };
        if kind == "compact" {
            // Answered by its end (`Server::forward`), or now when refused.
            return self.start_compaction(id, command["customInstructions"].as_str());
        }
        let response = match self.dispatch(&kind, &command) {
            Ok(data) => ok_response(id.as_ref(), &kind, data),
            Err(error) => error_response(id.as_ref(), &kind, &error),
        };
        write_line(&response);
    }

    fn dispatch(&mut self, kind: &str, c: &Value) -> Result<Option<Value>, String> {
        match kind {
            "prompt" => self.prompt(c).map(|_| None),
            "steer" | "follow_up" => {
                let message = user_message(c)?;
                let conversation = &self.engine.conversation;
                let queued = match kind {
                    "steer" => conversation.steer(message),
                    _ => conversation.follow_up(message),
                };
                queued.map(|_| None).map_err(|_| {
                    format!("nothing is running to {kind}; send a \"prompt\" command instead")
                })
            }
            "abort" => {
                self.abort();
                Ok(None)
            }
            "get_state" => Ok(Some(self.state())),
            "get_messages" => Ok(Some(json_object! {
                "messages" => self.engine.conversation.history.to_json()
            })),
            "set_model" => self.set_model(c).map(Some),
            "get_commands" => Ok(Some(commands_json())),
            // pi's answer: the new model and level, or null with nothing else.
            "cycle_model" => Ok(Some(match crate::scope::cycle(self.engine, false)? {
                Some(to) => json_object! {
                    "model" => model_json(&to.model),
                    "thinkingLevel" => to.thinking.as_str(),
                    "isScoped" => to.scoped,
                },
                None => Value::Null,
            })),
            "set_thinking_level" => {
                let level = c["level"].as_str().ok_or("missing \"level\"")?;
                let level = ThinkingLevel::parse(level).ok_or_else(|| {
                    format!("unknown level {level:?}; use off, minimal, low, medium, high or xhigh")
                })?;
                self.engine.conversation.set_thinking(level);
                Ok(None)
            }
            "new_session" => {
                self.idle("start a new session")?;
                self.engine.conversation.new_session(self.cwd)?;
                Ok(Some(json_object! {"cancelled" => false}))
            }
            "switch_session" => {
                self.idle("switch sessions")?;
                let path = c["sessionPath"].as_str().ok_or("missing \"sessionPath\"")?;
                self.engine.conversation.switch_session(path, self.cwd)?;
                Ok(Some(json_object! {"cancelled" => false}))
            }
            "fork" => {
                self.idle("fork")?;
                let entry = c["entryId"].as_str().ok_or("missing \"entryId\"")?;
                let text = self.engine.conversation.fork(entry)?;
                Ok(Some(json_object! {"text" => text, "cancelled" => false}))
            }
            "get_session_tree" => self.engine.session_tree().map(Some),
            "get_checkpoints" => Ok(Some(crate::checkpoints::checkpoints_json(
                &self.engine.conversation,
            ))),
            "rewind" => {
                self.idle("rewind")?;
                crate::checkpoints::rpc_rewind(&mut self.engine.conversation, c).map(Some)
            }
            "navigate_tree" => {
                self.idle("move in the session tree")?;
                let target = c["entryId"].as_str().ok_or("missing \"entryId\"")?;
                let summarize = c["summarize"].as_bool().unwrap_or(false);
                let summary = self.engine.conversation.leave_branch(target, summarize)?;
                Ok(Some(json_object! {
                    "summaryEntryId" => summary.map_or(Value::Null, Value::from),
                    "messageCount" => self.engine.conversation.history.len(),
                }))
            }
            "set_label" => {
                let target = c["entryId"].as_str().ok_or("missing \"entryId\"")?;
                let label = c["label"].as_str().filter(|l| !l.trim().is_empty());
                self.engine.conversation.set_label(target, label)?;
                Ok(None)
            }
            "export_html" => {
                let path = self
                    .engine
                    .export_html(c["outputPath"].as_str().map(Path::new))?;
                Ok(Some(json_object! {"path" => path.display().to_string()}))
            }
            "approve" => self.approve(c).map(|_| None),
            "set_session_name" => {
                let name = c["name"].as_str().filter(|n| !n.trim().is_empty());
                let name = name.ok_or("set_session_name needs a non-empty \"name\"")?;
                self.engine
                    .conversation
                    .session
                    .lock()
                    .set_name(name)
                    .map(|_| None)
            }
            "get_last_assistant_text" => {
                let text = self
                    .engine
                    .conversation
                    .history
                    .iter()
                    .rev()
                    .find_map(Message::as_assistant)
                    .map(|m| m.text());
                Ok(Some(json_object! {"text" => text}))
            }
            "get_session_stats" => Ok(Some(self.stats())),
            "get_available_models" => {
                let registry = seams::registry()?;
                let keyed: Vec<String> = seams::keyed_providers(&registry)
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect();
                let models: Vec<Value> = seams::list_models(&registry, None)
                    .iter()
                    .filter(|m| {
                        keyed.contains(&m.provider) || m.provider == crate::demo::DEMO_PROVIDER
                    })
                    .map(model_json)
                    .collect();
                Ok(Some(json_object! {"models" => Value::Array(models)}))
            }
            other => Err(format!(
                "Unknown command: {other} (known: {})",
                COMMANDS.join(", ")
            )),
        }
    }

    /// `compact`: the conversation compacts in the background; its end answers.
    fn start_compaction(&mut self, id: Option<Value>, instructions: Option<&str>) {
        let started = self.idle("compact").and_then(|()| {
            let instructions = instructions.map(str::to_string);
            self.engine.conversation.request_compaction(instructions)
        });
        match started {
            Ok(()) => self.compact_request = Some(id),
            Err(error) => write_line(&error_response(id.as_ref(), "compact", &error)),
        }
    }

    fn approve(&mut self, c: &Value) -> Result<(), String> {
        let id = c["requestId"].as_str().ok_or("missing \"requestId\"")?;
        let decision = match c["decision"].as_str() {
            Some("allow") | Some("allow_once") => ApprovalAnswer::AllowOnce,
            Some("always") | Some("allow_always") => ApprovalAnswer::AllowAlways,
            Some("deny") => ApprovalAnswer::Deny(c["reason"].as_str().unwrap_or("").to_string()),
            _ => return Err("\"decision\" must be \"allow\", \"always\" or \"deny\"".into()),
        };
        let position = self
            .approvals
            .iter()
            .position(|(pending, _)| pending == id)
            .ok_or_else(|| format!("no approval request {id:?} is pending"))?;
        let (_, request) = self.approvals.remove(position);
        request.answer(decision);
        Ok(())
    }

    fn idle(&self, what: &str) -> Result<(), String> {
        if self.engine.conversation.is_busy() {
            return Err(format!(
                "cannot {what} while a prompt is running; send \"abort\" first or wait for agent_end"
            ));
        }
        Ok(())
    }

    fn prompt(&mut self, c: &Value) -> Result<(), String> {
        let message = user_message(c)?;
        let conversation = &mut self.engine.conversation;
        if !conversation.is_busy() {
            return conversation.prompt(vec![message]);
        }
        let queued = match c["streamingBehavior"].as_str() {
            Some("steer") => conversation.steer(message),
            Some("followUp") => conversation.follow_up(message),
            _ => return Err("a prompt is already running; set \"streamingBehavior\" to \"steer\" or \"followUp\", or send \"abort\"".into()),
        };
        queued.map_err(|_| "the prompt is ending; send it again once agent_end is out".into())
    }

    fn set_model(&mut self, c: &Value) -> Result<Value, String> {
        let provider = c["provider"].as_str().unwrap_or("");
        let model = c["modelId"].as_str().or(c["model"].as_str()).unwrap_or("");
        if provider.is_empty() && model.is_empty() {
            return Err("set_model needs \"provider\" and \"modelId\"".into());
        }
        let choice = if provider == crate::demo::DEMO_PROVIDER {
            ModelChoice::Demo
        } else {
            ModelChoice::Registered {
                provider: provider.to_string(),
                model: model.to_string(),
                source: ModelSource::Flags,
            }
        };
        let registry = seams::registry()?;
        let built = seams::build_provider(&choice, &registry, &self.engine.retry)?;
        self.engine.conversation.switch_model(built);
        Ok(model_json(self.engine.conversation.config.provider.model()))
    }
}

/// pi's `get_commands`: the prompt templates and skills a `prompt` can start
/// with, as `{commands:[{name, description, source, path}]}` (`name` without
/// the `/`).
fn commands_json() -> Value {
    let cwd = std::env::current_dir().unwrap_or_default();
    let home = focus_harness::session::focus_home();
    let commands = focus_harness::prompt::listing::user_commands(&home, &cwd)
        .into_iter()
        .map(|c| {
            let name = c.name.trim_start_matches('/');
            let source = if name.starts_with("skill:") {
                "skill"
            } else {
                "prompt"
            };
            json_object! {
                "name" => name,
                "description" => c.description.as_str(),
                "source" => source,
                "path" => c.path.display().to_string(),
            }
        })
        .collect();
    json_object! {"commands" => Value::Array(commands)}
}

/// The user message of a `prompt`/`steer`/`follow_up` command: `message` text plus
/// optional `images` (`[{"type":"image","data","mimeType"}]`).
fn user_message(c: &Value) -> Result<Message, String> {
    let text = c["message"]
        .as_str()
        .ok_or("missing \"message\" (the text to send)")?;
    // `/skill:name` and `/template args` expand as they do when typed.
    let expanded = match std::env::current_dir() {
        Ok(cwd) => crate::input::expand_typed_command(text, &cwd)?,
        Err(_) => None,
    };
    let text = expanded.as_deref().unwrap_or(text);
    let mut content = vec![Content::text(text)];
    let images = c["images"].as_array().map_or(0, Vec::len);
    if text.trim().is_empty() && images == 0 {
        return Err("\"message\" is empty: send some text (or an image)".into());
    }
    if let Some(images) = c["images"].as_array() {
        for (i, image) in images.iter().enumerate() {
            let (Some(data), Some(mime)) = (image["data"].as_str(), image["mimeType"].as_str())
            else {
                return Err(format!(
                    "images[{i}] needs \"data\" (base64) and \"mimeType\""
                ));
            };
            content.push(Content::Image {
                data: data.into(),
                mime_type: mime.to_string(),
            });
        }
    }
    Ok(Message::User(UserMessage {
        content,
        timestamp: now_ms(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_message_is_refused_unless_it_carries_an_image() {
        for blank in [r#"{"message":""}"#, r#"{"message":" \n "}"#] {
            let error = user_message(&parse_str(blank).unwrap()).unwrap_err();
            assert!(error.contains("is empty"), "{blank}: {error}");
        }
        let image = r#"{"message":"","images":[{"data":"AA==","mimeType":"image/png"}]}"#;
        assert!(user_message(&parse_str(image).unwrap()).is_ok());
    }

    #[test]
    fn user_messages_need_text_and_valid_images() {
        let c = parse_str(r#"{"message":"hi","images":[{"data":"AA==","mimeType":"image/png"}]}"#)
            .unwrap();
        let Message::User(u) = user_message(&c).unwrap() else {
            panic!()
        };
        assert_eq!(u.content.len(), 2);
        assert!(user_message(&parse_str("{}").unwrap())
            .unwrap_err()
            .contains("missing \"message\""));
        assert!(
            user_message(&parse_str(r#"{"message":"x","images":[{}]}"#).unwrap())
                .unwrap_err()
                .contains("images[0]")
        );
    }
}
