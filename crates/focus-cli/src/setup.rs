//! From flags to a ready [`Engine`]: choose the model, build the tools, the system
//! prompt and the gate, and open the session.

use crate::approval::AskUser;
use crate::args::Args;
use crate::choose::{choose_model, ChoiceInputs, ModelChoice, ModelSource};
use crate::engine::Engine;
use crate::seams;
use focus_core::agent::AgentConfig;
use focus_core::provider::ThinkingLevel;
use focus_harness::conversation::{SessionRequest, Store};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A failed setup: the message, and whether it was the user's input (exit 2).
#[derive(Debug)]
pub struct SetupError {
    /// What went wrong and how to fix it.
    pub message: String,
    /// Whether the command line was at fault.
    pub usage: bool,
}

impl SetupError {
    pub(crate) fn usage(message: impl Into<String>) -> SetupError {
        SetupError {
            message: message.into(),
            usage: true,
        }
    }
    fn failure(message: impl Into<String>) -> SetupError {
        SetupError {
            message: message.into(),
            usage: false,
        }
    }
}

/// What the user should know about the model choice (printed once, to stderr).
pub fn choice_note(choice: &ModelChoice) -> Option<String> {
    match choice {
        ModelChoice::Registered { source: ModelSource::Environment(var), provider, .. } => {
            Some(format!("using {provider} (API key from {var})"))
        }
        ModelChoice::Local { provider, model, base_url, .. } => {
            Some(format!("using {model} on the local {provider} server at {base_url}"))
        }
        ModelChoice::Demo => Some(
            "no model configured: running the built-in offline demo (see `focus --help` to configure one)".into(),
        ),
        _ => None,
    }
}

/// Reads `value` as a file when it names one, else takes it as text (pi's rule for
/// `--system-prompt` and `--append-system-prompt`).
pub fn text_or_file(value: &str) -> Result<String, SetupError> {
    let path = Path::new(value);
    if !value.contains('\n') && value.len() < 4096 && path.is_file() {
        return std::fs::read_to_string(path)
            .map_err(|e| SetupError::usage(format!("cannot read {value}: {e}")));
    }
    Ok(value.to_string())
}

/// Builds the engine for `args` in `cwd`. `session` says which session to open
/// (resolved by the caller, which may have asked the user).
pub fn build_engine(
    args: &Args,
    cwd: &Path,
    session: &SessionRequest,
    ask: Option<AskUser>,
) -> Result<(Engine, ModelChoice), SetupError> {
    let settings = seams::settings_with(cwd, seams::project_trust(args.trust_project))
        .map_err(SetupError::failure)?;
    let retry = seams::retry_policy(&settings.retry);
    // The sandbox first: every process started for a tool from here on is confined.
    let sandbox = seams::sandbox(&settings, args.sandbox, cwd).map_err(SetupError::usage)?;
    let tool_state = focus_tools::ToolState::new(Arc::clone(&sandbox));
    // The session first: a resumed session brings back its model and thinking level.
    let (mut store, history) =
        Store::open(session, cwd, args.session_dir.as_deref()).map_err(SetupError::failure)?;
    if let Some(warning) = store.take_load_warning() {
        // It quotes lines of a file.
        errln!("focus: {}", focus_tools::output::sanitize(&warning));
    }
    let is_new_session = store.manager().tree().entries().is_empty();
    let (session_model, session_thinking) = store.context_model();
    let chosen = choose_provider(args, &settings, &retry, session_model, is_new_session)?;
    let Chosen {
        choice,
        provider,
        scope,
        scope_first,
        suffix_thinking,
    } = chosen;
    let (tools, mut base_tools, mcp) = select_tools(args, &settings, cwd, &tool_state)?;
    let replace = args
        .system_prompt
        .as_deref()
        .map(text_or_file)
        .transpose()?;
    let append = args
        .append_system_prompt
        .as_deref()
        .map(text_or_file)
        .transpose()?;

    let mut config = AgentConfig::new(provider);
    config.tools = tools;
    config.options.thinking = thinking_level(
        args,
        suffix_thinking,
        (!is_new_session).then_some(session_thinking.as_str()),
        scope_first.as_ref(),
        &settings,
        config.provider.model().reasoning,
    );
    config.options.session_id = Some(store.id().to_string()).filter(|s| !s.is_empty());
    // pi's delivery modes for queued messages (focus's default: all at once).
    config.steering_mode = settings.steering_mode.unwrap_or_default();
    config.follow_up_mode = settings.follow_up_mode.unwrap_or_default();
    let gatekeeper = seams::gate(
        &settings,
        args.permission_mode.as_deref(),
        &args.headless,
        ask,
        cwd,
        sandbox,
    )
    .map_err(SetupError::usage)?;
    for warning in gatekeeper.warnings() {
        errln!("focus: {warning}");
    }
    config.gate = Some(gatekeeper.clone());
    config.prompt_hooks = Some(gatekeeper.clone());
    gatekeeper.set_session(store.id(), store.path());
    // The `task` tool: subagents built on the parent's gate, tools and model.
    if let Some(task) = crate::subagents::task_tool_for(
        args,
        &settings,
        cwd,
        &gatekeeper,
        &tool_state,
        &config,
        mcp.as_ref(),
        &retry,
    )? {
        config.tools.push(task.clone());
        base_tools.push(task);
    }
    let source = if is_new_session { "startup" } else { "resume" };
    for failure in gatekeeper.session_start(source) {
        errln!("focus: {failure}");
    }
    let prompt = seams::PromptSource {
        cwd: cwd.to_path_buf(),
        replace,
        append,
        gate: Some(gatekeeper.clone()),
    };
    let specs: Vec<_> = config.tools.iter().map(|t| t.spec()).collect();
    let (system_prompt, warnings) = prompt.build(&specs);
    for warning in &warnings {
        errln!("focus: {warning}");
    }
    config.system_prompt = system_prompt;
    record_model_and_thinking(&mut store, &config, is_new_session);
    let mut engine = Engine::new(config, history, store);
    engine.conversation.compaction = settings.compaction;
    if let Some(warning) =
        crate::checkpoints::enable(&mut engine.conversation, cwd, settings.raw("checkpoints"))
    {
        errln!("focus: {warning}");
    }
    // A headless run's bounds: the flag, else the setting.
    let max_turns = args
        .headless
        .max_turns
        .or(settings.max_turns.map(|n| n as usize));
    if let Some(turns) = max_turns {
        engine.conversation.config.max_turns = turns;
    }
    let deadline = args.headless.deadline.or(settings
        .deadline_seconds
        .map(std::time::Duration::from_secs));
    engine.conversation.deadline = deadline.and_then(|d| std::time::Instant::now().checked_add(d));
    engine.conversation.max_cost_usd = args.headless.max_cost_usd.or(settings.max_cost_usd);
    // The record's `files_changed` holds what `bash` (or an MCP tool) changed
    // too: the tree is looked at around a headless run when such a tool is there.
    let may_write_anywhere = engine.conversation.config.tools.iter().any(|tool| {
        focus_harness::conversation::changed_files::may_change_files(&tool.spec().name)
    }) || mcp.is_some();
    if may_write_anywhere {
        engine.conversation.watch_files = Some(cwd.to_path_buf());
    }
    if let Some(path) = &args.headless.output_schema {
        engine.conversation.output_schema = Some(read_output_schema(
            path,
            args.headless.output_schema_retries.unwrap_or(2),
        )?);
    }
    engine.retry = retry;
    engine.model_scope = scope;
    engine.set_prompt_source(prompt);
    engine.set_gatekeeper(gatekeeper);
    if let Some(mcp) = mcp {
        engine.set_mcp(mcp, base_tools);
    }
    Ok((engine, choice))
}

/// The model chosen for this run, and what decided it.
struct Chosen {
    choice: ModelChoice,
    provider: Arc<dyn focus_core::provider::Provider>,
    /// The model scope (`--models`, else `enabledModels`).
    scope: Vec<String>,
    /// The scope's first model, when a new session starts on it.
    scope_first: Option<crate::scope::Scoped>,
    /// The thinking level a `model:level` suffix asked for.
    suffix_thinking: Option<ThinkingLevel>,
}

/// Chooses the model: the resumed session's (unless a flag names one), the
/// scope's first for a new session, else the flags, settings, keys in the
/// environment, a local server or the offline demo ([`choose_model`]).
fn choose_provider(
    args: &Args,
    settings: &focus_harness::settings::Settings,
    retry: &focus_providers::RetryPolicy,
    session_model: Option<(String, String)>,
    is_new_session: bool,
) -> Result<Chosen, SetupError> {
    let registry = seams::registry().map_err(SetupError::failure)?;
    let keyed = seams::keyed_providers(&registry);
    let ollama_host = std::env::var("OLLAMA_HOST").ok();
    let (flag_model, suffix_thinking) = split_thinking_suffix(args.model.as_deref())?;
    let inputs = ChoiceInputs {
        flag_provider: args.provider.as_deref(),
        flag_model,
        settings_provider: settings.default_provider.as_deref(),
        settings_model: settings.default_model.as_deref(),
        keyed_providers: &keyed,
        ollama_host: ollama_host.as_deref(),
        offline: args.offline || std::env::var_os("FOCUS_OFFLINE").is_some(),
    };
    // The scope (`--models`, else `enabledModels`): a new session without a
    // model flag starts on its first model, as in pi; a pattern that matches
    // nothing is said at the start.
    let scope = args
        .models
        .clone()
        .or(settings.enabled_models.clone())
        .unwrap_or_default();
    let (scope_first, scope_warnings) = if scope.is_empty() {
        (None, Vec::new())
    } else {
        crate::scope::first_in_scope(&scope).map_err(SetupError::failure)?
    };
    for warning in scope_warnings {
        errln!("focus: {}", focus_tools::output::sanitize(&warning));
    }
    let scope_first =
        scope_first.filter(|_| is_new_session && args.provider.is_none() && args.model.is_none());
    let resumed = session_model
        .filter(|_| args.provider.is_none() && args.model.is_none())
        .and_then(|(provider, model)| {
            let choice = if provider == crate::demo::DEMO_PROVIDER {
                ModelChoice::Demo
            } else {
                ModelChoice::Registered {
                    provider,
                    model,
                    source: ModelSource::Session,
                }
            };
            match seams::build_provider(&choice, &registry, retry) {
                Ok(provider) => Some((choice, provider)),
                Err(error) => {
                    errln!(
                        "focus: the session's model is not available ({error}); choosing another"
                    );
                    None
                }
            }
        });
    let (choice, provider) = match resumed {
        Some(found) => found,
        None => {
            let choice = match &scope_first {
                Some(first) if first.model.provider == crate::demo::DEMO_PROVIDER => {
                    ModelChoice::Demo
                }
                Some(first) => ModelChoice::Registered {
                    provider: first.model.provider.clone(),
                    model: first.model.id.clone(),
                    source: if args.models.is_some() {
                        ModelSource::Flags
                    } else {
                        ModelSource::Settings
                    },
                },
                None => choose_model(&inputs, &|authority, path| {
                    crate::probe::get_json(authority, path, crate::probe::PROBE_TIMEOUT)
                }),
            };
            let provider =
                seams::build_provider(&choice, &registry, retry).map_err(SetupError::usage)?;
            (choice, provider)
        }
    };

    Ok(Chosen {
        choice,
        provider,
        scope,
        scope_first,
        suffix_thinking,
    })
}

/// The tools: the built-in ones `--tools` (or the `tools` setting) names, and
/// the MCP servers' (a server that fails is reported and skipped); none with
/// `--no-tools`, all built with `tool_state` (the session's sandbox, seen
/// files and spill directory). Returns all of them, the built-in ones, and the
/// MCP servers.
#[allow(clippy::type_complexity)]
fn select_tools(
    args: &Args,
    settings: &focus_harness::settings::Settings,
    cwd: &Path,
    tool_state: &focus_tools::ToolState,
) -> Result<
    (
        Vec<Arc<dyn focus_core::tool::Tool>>,
        Vec<Arc<dyn focus_core::tool::Tool>>,
        Option<focus_tools::mcp::McpManager>,
    ),
    SetupError,
> {
    let all_tools = seams::builtin_tools(cwd, settings, tool_state);
    let tools = chosen_builtin_tools(args, settings, all_tools)?;

    // MCP tools join the built-in ones (unless --no-tools); a server that fails is
    // reported and skipped.
    let mcp = if args.no_tools {
        None
    } else {
        seams::start_mcp(settings, Arc::clone(&tool_state.sandbox)).map_err(SetupError::usage)?
    };
    let base_tools = tools.clone();
    let mut tools = tools;
    if let Some(manager) = &mcp {
        tools.extend(manager.tools());
    }

    Ok((tools, base_tools, mcp))
}

/// The built-in tools `--tools` (or the `tools` setting) names out of
/// `all_tools`; none with `--no-tools`; all when neither says.
pub fn chosen_builtin_tools(
    args: &Args,
    settings: &focus_harness::settings::Settings,
    all_tools: Vec<Arc<dyn focus_core::tool::Tool>>,
) -> Result<Vec<Arc<dyn focus_core::tool::Tool>>, SetupError> {
    if args.no_tools {
        return Ok(Vec::new());
    }
    let Some(names) = args.tools.as_ref().or(settings.tools.as_ref()) else {
        return Ok(all_tools);
    };
    let known = seams::tool_names();
    for name in names {
        // `task` is not built here: [`crate::subagents::task_tool_for`].
        if !all_tools.iter().any(|t| t.name() == name) && !crate::subagents::is_task(name) {
            return Err(SetupError::usage(format!(
                "unknown tool {name:?} in --tools; available: {}",
                known.join(", ")
            )));
        }
    }
    Ok(all_tools
        .into_iter()
        .filter(|t| names.iter().any(|n| n == t.name()))
        .collect())
}

/// The thinking level: the flag, a `model:level` suffix, the resumed
/// session's, the scope's first model's, the setting, else medium for a
/// reasoning model (pi's default) and off for another.
fn thinking_level(
    args: &Args,
    suffix_thinking: Option<ThinkingLevel>,
    session_thinking: Option<&str>,
    scope_first: Option<&crate::scope::Scoped>,
    settings: &focus_harness::settings::Settings,
    reasoning: bool,
) -> ThinkingLevel {
    args.thinking
        .or(suffix_thinking)
        .or_else(|| session_thinking.and_then(ThinkingLevel::parse))
        .or(scope_first.and_then(|first| first.thinking))
        .or(settings.default_thinking_level)
        // A reasoning model thinks at a medium level unless told otherwise (pi's
        // default); another model does not think.
        .unwrap_or(if reasoning {
            ThinkingLevel::Medium
        } else {
            ThinkingLevel::Off
        })
}

/// Like pi, a session records the model and thinking level it starts with,
/// and a resumed one records a change of either.
fn record_model_and_thinking(store: &mut Store, config: &AgentConfig, is_new_session: bool) {
    let model = config.provider.model().clone();
    let level = config.options.thinking.as_str();
    let recorded = store.context_model();
    if recorded.0.as_ref() != Some(&(model.provider.clone(), model.id.clone())) {
        let _ = store.append_model_change(&model.provider, &model.id);
    }
    if is_new_session || recorded.1 != level {
        let _ = store.append_thinking_change(level);
    }
}

/// Splits pi's `model:thinking` suffix (`sonnet:high`) off a model pattern.
pub fn split_thinking_suffix(
    model: Option<&str>,
) -> Result<(Option<&str>, Option<ThinkingLevel>), SetupError> {
    let Some(model) = model else {
        return Ok((None, None));
    };
    match model.rsplit_once(':') {
        Some((name, level)) => match ThinkingLevel::parse(level) {
            Some(level) => Ok((Some(name), Some(level))),
            // Ollama tags (`llama3.2:latest`) also use a colon: keep those whole.
            None => Ok((Some(model), None)),
        },
        None => Ok((Some(model), None)),
    }
}

/// The session the flags ask for (`-r` is resolved by the caller).
pub fn session_request(args: &Args) -> SessionRequest {
    if args.no_session {
        SessionRequest::Disabled
    } else if args.continue_session {
        SessionRequest::ContinueRecent
    } else if let Some(s) = &args.session {
        SessionRequest::Open(s.clone())
    } else {
        SessionRequest::New
    }
}

/// Reads `--output-schema`'s file as a JSON Schema (a JSON object).
fn read_output_schema(
    path: &std::path::Path,
    retries: u32,
) -> Result<focus_harness::conversation::output_schema::OutputSchema, SetupError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| SetupError::usage(format!("--output-schema {shown}: {e}")))?;
    let schema = focus_core::json::parse_str(&text)
        .map_err(|e| SetupError::usage(format!("--output-schema {shown}: not JSON: {e}")))?;
    if schema.as_object().is_none() {
        return Err(SetupError::usage(format!(
            "--output-schema {shown}: a JSON Schema is a JSON object"
        )));
    }
    Ok(focus_harness::conversation::output_schema::OutputSchema { schema, retries })
}

/// The working directory, or a clear error.
pub fn current_dir() -> Result<PathBuf, SetupError> {
    std::env::current_dir()
        .map_err(|e| SetupError::failure(format!("cannot read the current directory: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_suffix_only_when_it_is_a_level() {
        let (m, t) = split_thinking_suffix(Some("sonnet:high")).unwrap();
        assert_eq!((m, t), (Some("sonnet"), Some(ThinkingLevel::High)));
        let (m, t) = split_thinking_suffix(Some("llama3.2:latest")).unwrap();
        assert_eq!((m, t), (Some("llama3.2:latest"), None));
    }
}
