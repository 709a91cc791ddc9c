//! Where the other layers plug into the CLI: one small function per service
//! (model registry, provider construction, tools, system prompt, settings, gate).
//! Keeping them together makes the wiring of focus readable in one screen.

use crate::approval::AskUser;
use crate::choose::ModelChoice;
use crate::demo::DemoProvider;
use crate::engine::Engine;
use focus_core::provider::{ModelInfo, Provider};
use focus_core::tool::Tool;
use focus_harness::prompt::{build_system_prompt, PromptOptions};
use focus_harness::session::focus_home;
use focus_harness::settings::{load_settings, load_settings_with, ProjectTrust, Settings};
use focus_providers::registry::env_vars_for;
use focus_providers::transport_choice::{ChosenTransport, TransportPreference};
use focus_providers::Registry;
use focus_providers::RetryPolicy;
use focus_tools::gates::hooks::HookConfig;
use focus_tools::gates::{Approver, GateConfig, Gatekeeper, Mode, NonInteractiveApprover};
use focus_tools::mcp::{McpManager, McpServerConfig};
use focus_transport::Transport;
use std::path::Path;
use std::sync::Arc;

/// The settings (global and project `settings.json`, merged); problems are fatal
/// because a half-read settings file could loosen permissions. The project's
/// widening keys apply only in a trusted folder.
pub fn settings(cwd: &Path) -> Result<Settings, String> {
    settings_with(cwd, ProjectTrust::Stored)
}

/// [`settings`] with the project's widening keys applied as `trust` says;
/// says on standard error which keys of an untrusted project were ignored
/// and which looser settings apply, naming their files.
pub fn settings_with(cwd: &Path, trust: ProjectTrust) -> Result<Settings, String> {
    let loaded = load_settings_with(&focus_home(), cwd, trust).map_err(|e| e.to_string())?;
    // Paths, names and commands come from files.
    let clean = |text: &str| focus_tools::output::sanitize(text).into_owned();
    for warning in &loaded.warnings {
        errln!("focus: {}", clean(warning));
    }
    if let Some(withheld) = &loaded.withheld {
        errln!("focus: {}", clean(&withheld.line()));
    }
    for notice in &loaded.notices {
        errln!("focus: {}", clean(notice));
    }
    Ok(loaded.settings)
}

/// How the flags say to treat the project's settings.
pub fn project_trust(trust_project: bool) -> ProjectTrust {
    if trust_project {
        ProjectTrust::Granted
    } else {
        ProjectTrust::Stored
    }
}

/// The model registry: built-in models plus `FOCUS_HOME/models.json`.
pub fn registry() -> Result<Registry, String> {
    Registry::load(&focus_home())
}

/// Providers with an API key available (environment or models.json), as
/// `(provider, where the key is)`, in the registry's order of providers.
pub fn keyed_providers(registry: &Registry) -> Vec<(String, String)> {
    let mut seen: Vec<String> = Vec::new();
    for model in registry.models() {
        if !seen.contains(&model.provider) {
            seen.push(model.provider.clone());
        }
    }
    seen.into_iter()
        .filter(|provider| registry.api_key(provider).is_some())
        .map(|provider| {
            let source = env_vars_for(&provider)
                .iter()
                .find(|var| focus_sys::secrets::var(var).is_some_and(|v| !v.is_empty()))
                .map_or_else(|| "models.json".to_string(), |v| v.to_string());
            (provider, source)
        })
        .collect()
}

/// The HTTP engine providers and MCP `url` servers talk through: curl for
/// `https://` and proxied `http://`, focus's own std transport for the rest,
/// or curl for everything when the `transport` setting says `"curl"`
/// (docs/networking.md, "Which transport").
pub fn transport(settings: &Settings) -> Arc<dyn Transport> {
    let preference = settings
        .transport
        .as_deref()
        .and_then(TransportPreference::parse)
        .unwrap_or_default();
    Arc::new(ChosenTransport::new(preference))
}

/// The settings of the current directory, quietly (they were checked and their
/// warnings shown at start-up): for a provider built later, after a model switch,
/// to follow the `transport` setting.
fn current_settings() -> Settings {
    let cwd = std::env::current_dir().unwrap_or_default();
    load_settings(&focus_home(), &cwd)
        .map(|loaded| loaded.settings)
        .unwrap_or_default()
}

/// The retry policy of the `retry` settings (pi's keys).
pub fn retry_policy(settings: &focus_harness::settings::RetrySettings) -> RetryPolicy {
    RetryPolicy {
        max_attempts: if settings.enabled {
            settings.max_retries.saturating_add(1)
        } else {
            1
        },
        base_delay: std::time::Duration::from_millis(settings.base_delay_ms),
        max_delay: std::time::Duration::from_millis(settings.max_delay_ms),
    }
}

/// Builds the provider for a chosen model, retrying as `retry` says.
pub fn build_provider(
    choice: &ModelChoice,
    registry: &Registry,
    retry: &RetryPolicy,
) -> Result<Arc<dyn Provider>, String> {
    let model = match choice {
        ModelChoice::Demo => return Ok(Arc::new(DemoProvider::new())),
        ModelChoice::Registered {
            provider, model, ..
        } => resolve_model(registry, provider, model)?,
        ModelChoice::Local {
            provider,
            base_url,
            model,
            context_window,
        } => ModelInfo {
            id: model.clone(),
            name: model.clone(),
            api: "openai-completions".into(),
            provider: provider.clone(),
            base_url: base_url.clone(),
            context_window: context_window.unwrap_or(32_768),
            context_window_assumed: context_window.is_none(),
            max_tokens: 8_192,
            ..ModelInfo::default()
        },
    };
    let settings = current_settings();
    let transport = transport(&settings);
    // A key from models.json (literal or `!command`) is scrubbed from tool
    // output like one from the environment.
    if let Some(key) = registry.api_key(&model.provider) {
        focus_sys::secrets::remember_value(key.expose());
    }
    Ok(Arc::new(
        registry
            .http_provider_for(&model, transport)
            .with_retry(retry.clone())
            .with_stall_timeout(stall_limit(&settings)),
    ))
}

/// `streamStallSeconds`, else the providers' default: how long a stream may
/// send only keepalives before the attempt is retried as stalled.
fn stall_limit(settings: &Settings) -> std::time::Duration {
    settings.stream_stall_seconds.map_or(
        focus_providers::http::DEFAULT_STALL_TIMEOUT,
        std::time::Duration::from_secs,
    )
}

/// Finds the model for `--provider`/`--model`: `provider/model` or a bare id in the
/// registry; a provider alone gives its first model; an unknown id for a known
/// provider (a local server's model) is taken as given.
pub fn resolve_model(
    registry: &Registry,
    provider: &str,
    model: &str,
) -> Result<ModelInfo, String> {
    if model.is_empty() {
        return registry
            .models()
            .iter()
            .find(|m| m.provider == provider)
            .cloned()
            .ok_or_else(|| format!("unknown provider {provider:?} (see focus --list-models, or add it to models.json)"));
    }
    let spec = if provider.is_empty() || model.contains('/') {
        model.to_string()
    } else {
        format!("{provider}/{model}")
    };
    // `--model provider/any-id`: a configured provider's model need not be listed
    // (a model just pulled into Ollama), as in pi.
    let provider = match spec.split_once('/') {
        Some((named, _)) if provider.is_empty() => named,
        _ => provider,
    };
    let model = spec.split_once('/').map_or(model, |(_, id)| id);
    match registry.find(&spec) {
        Ok(found) => Ok(found.clone()),
        Err(error) => match registry.provider(provider) {
            Some(entry) if !provider.is_empty() && !model.is_empty() => Ok(ModelInfo {
                id: model.to_string(),
                name: model.to_string(),
                api: entry.api.clone(),
                provider: provider.to_string(),
                base_url: entry.base_url.clone(),
                context_window: 128_000,
                context_window_assumed: true,
                max_tokens: 16_384,
                ..ModelInfo::default()
            }),
            _ => Err(error),
        },
    }
}

/// The known models matching `search` (all when `None`), with the demo model last.
pub fn list_models(registry: &Registry, search: Option<&str>) -> Vec<ModelInfo> {
    let mut models: Vec<ModelInfo> = registry
        .search(search.unwrap_or(""))
        .into_iter()
        .cloned()
        .collect();
    let demo = DemoProvider::new().model().clone();
    let demo_matches = search.map_or(true, |s| {
        format!("{}/{}", demo.provider, demo.id).contains(&s.to_ascii_lowercase())
    });
    if demo_matches {
        models.push(demo);
    }
    models
}

/// The names of the built-in tools, in their usual order.
pub fn tool_names() -> Vec<&'static str> {
    focus_tools::TOOL_NAMES.to_vec()
}

/// The built-in tools for `cwd`, within the limits `settings` give
/// (`toolDeadlineSeconds`, `bashSpillMaxBytes`), sharing `state` (the
/// session's sandbox, record of files seen and spill directory).
pub fn builtin_tools(
    cwd: &Path,
    settings: &Settings,
    state: &focus_tools::ToolState,
) -> Vec<Arc<dyn Tool>> {
    let mut limits = focus_tools::ToolLimits::default();
    if let Some(seconds) = settings.tool_deadline_seconds {
        limits.deadline = std::time::Duration::from_secs(seconds);
    }
    if let Some(bytes) = settings.bash_spill_max_bytes {
        limits.spill_cap = bytes;
    }
    focus_tools::builtin_tools_with(cwd, limits, state)
}

/// What the system prompt is made of, kept so it can be built anew before every
/// model call: an edited AGENTS.md, a new skill or a changed permission mode
/// reaches the next call.
#[derive(Clone)]
pub struct PromptSource {
    /// The working directory.
    pub cwd: std::path::PathBuf,
    /// `--system-prompt`, read.
    pub replace: Option<String>,
    /// `--append-system-prompt`, read.
    pub append: Option<String>,
    /// The gate, whose current permission mode the prompt states.
    pub gate: Option<Arc<Gatekeeper>>,
}

impl PromptSource {
    /// The prompt for `tools` now, with the warnings building it produced (files
    /// that could not be read).
    pub fn build(&self, tools: &[focus_core::provider::ToolSpec]) -> (String, Vec<String>) {
        let mut options = PromptOptions::new(&self.cwd, focus_home());
        options.tools = tools.to_vec();
        options.replace_base = self.replace.clone();
        options.append = self.append.clone().into_iter().collect();
        let hint = self.gate.as_ref().and_then(|g| g.mode().prompt_hint());
        options.append.extend(hint.map(String::from));
        let prompt = build_system_prompt(&options);
        (prompt.text, prompt.warnings)
    }
}

/// The gate every tool call passes: the permission mode (`mode` from the flag,
/// else settings), allow/deny rules from settings and `rules` (`--allow`,
/// `--deny`), hooks from settings, and `ask` for
/// approvals (`None` in print and JSON modes: calls needing approval are denied).
/// Writes to protected paths ask unless `sandbox` is off; hooks run in
/// `sandbox`, which follows the gate's mode.
pub fn gate(
    settings: &Settings,
    mode: Option<&str>,
    rules: &crate::args::headless::Headless,
    ask: Option<AskUser>,
    cwd: &Path,
    sandbox: Arc<focus_tools::sandbox::Sandbox>,
) -> Result<Arc<Gatekeeper>, String> {
    let approver: Arc<dyn Approver> = match ask {
        Some(ask) => ask,
        None => Arc::new(NonInteractiveApprover),
    };
    // Rules and mode from the merged settings; hooks from each file, so the
    // project's run confined and the user's as the user's own code.
    let mut config =
        GateConfig::from_json(&settings.merged).map_err(|e| format!("settings: {e}"))?;
    // `--allow`/`--deny` rules join the settings' (a deny still wins).
    for (texts, list) in [
        (&rules.allow, &mut config.permissions.allow),
        (&rules.deny, &mut config.permissions.deny),
    ] {
        for text in texts {
            list.push(focus_tools::gates::rules::Rule::parse(text)?);
        }
    }
    config.hooks = HookConfig::from_layers(&settings.user_layer, &settings.project_layer)
        .map_err(|e| format!("settings: {e}"))?;
    // `--sandbox off` (built before the gate) also lifts the protected paths.
    config.permissions.protect_paths = sandbox.status() != &focus_tools::sandbox::Status::Off;
    let gatekeeper = Gatekeeper::new(config, approver, cwd.to_path_buf()).with_sandbox(sandbox);
    if let Some(mode) = mode {
        gatekeeper.set_mode(Mode::parse(mode)?);
    }
    Ok(Arc::new(gatekeeper))
}

/// The session's sandbox, from settings and `--sandbox` (`flag` wins), for the
/// tools, hooks and MCP servers of the session; the start-up notice, if any,
/// is printed once.
pub fn sandbox(
    settings: &Settings,
    flag: Option<bool>,
    cwd: &Path,
) -> Result<Arc<focus_tools::sandbox::Sandbox>, String> {
    use focus_tools::sandbox::{Sandbox, SandboxSettings};
    let mut wanted =
        SandboxSettings::from_json(&settings.merged, cwd).map_err(|e| format!("settings: {e}"))?;
    if let Some(on) = flag {
        wanted.enabled = on;
    }
    // The namespace probe's answer is remembered in the user's own folder.
    wanted.state_dir = Some(focus_home().join("state"));
    let built = Sandbox::new(&wanted, cwd)?;
    if let Some(notice) = built.start_notice() {
        errln!("focus: {notice}");
    }
    Ok(Arc::new(built))
}

/// `/permissions [MODE]`: shows or changes the permission mode.
pub fn set_permission_mode(engine: &mut Engine, mode: &str) -> Result<String, String> {
    let gatekeeper = engine
        .gatekeeper
        .as_ref()
        .ok_or("this session has no permission gate")?;
    if mode.is_empty() {
        return Ok(format!(
            "permission mode: {} (choose default, accept-edits, plan or auto)",
            gatekeeper.mode().as_str()
        ));
    }
    gatekeeper.set_mode(Mode::parse(mode)?);
    Ok(format!("permission mode: {}", gatekeeper.mode().as_str()))
}

/// The MCP servers configured in settings, started (those over stdio confined
/// by `sandbox` when its settings say so); `None` when none are configured.
pub fn start_mcp(
    settings: &Settings,
    sandbox: Arc<focus_tools::sandbox::Sandbox>,
) -> Result<Option<McpManager>, String> {
    let configs =
        McpServerConfig::from_json(&settings.merged).map_err(|e| format!("settings: {e}"))?;
    if configs.is_empty() {
        return Ok(None);
    }
    // Servers configured with a `url` speak MCP's streamable HTTP through the
    // same transport choice as the model calls.
    let http = transport(settings);
    let manager =
        McpManager::start_with_http(configs, &focus_home().join("mcp-logs"), Some(http), sandbox);
    for warning in manager.take_warnings() {
        errln!("focus: MCP: {warning}");
    }
    Ok(Some(manager))
}

/// `focus mcp list`: starts the configured MCP servers (an untrusted
/// project's only with `--trust-project`), prints each with its state and
/// tools, and stops them; returns the exit code.
pub fn mcp_list(cwd: &Path, trust: ProjectTrust) -> i32 {
    let settings = match settings_with(cwd, trust) {
        Ok(s) => s,
        Err(e) => {
            errln!("focus: {e}");
            return crate::EXIT_FAILURE;
        }
    };
    let started = std::time::Instant::now();
    // Listed unconfined, as before a session's sandbox exists.
    let unconfined = Arc::new(focus_tools::sandbox::Sandbox::off());
    let manager = match start_mcp(&settings, unconfined) {
        Ok(Some(m)) => m,
        Ok(None) => {
            outln!("No MCP servers configured. Add them to settings.json, for example:");
            outln!("  {{\"mcpServers\": {{\"files\": {{\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]}}}}}}");
            return 0;
        }
        Err(e) => {
            errln!("focus: {e}");
            return crate::EXIT_FAILURE;
        }
    };
    let mut failed = false;
    let took = started.elapsed();
    // Servers report their own names and reasons: shown, never obeyed.
    let clean = |text: &str| focus_tools::output::sanitize(text).into_owned();
    for status in manager.status() {
        let running = matches!(status.state, focus_tools::mcp::ServerState::Running);
        failed |= !running;
        let info = if status.server_info.is_empty() {
            String::new()
        } else {
            format!(" ({})", clean(&status.server_info))
        };
        let tools = match status.tools.len() {
            0 => String::new(),
            1 => ", 1 tool".to_string(),
            n => format!(", {n} tools"),
        };
        outln!(
            "{}: {}{info}{tools}",
            clean(&status.name),
            clean(&status.state.to_string())
        );
        for tool in &status.tools {
            outln!("  {}", clean(tool));
        }
        if let Some(log) = &status.log_path {
            outln!("  log: {}", log.display());
        }
    }
    outln!("(started and listed in {} ms)", took.as_millis());
    manager.shutdown();
    i32::from(failed)
}
