//! MCP servers are third-party programs: they inherit no credential from focus's
//! environment, only the variables their configuration names. (It runs in a
//! process of its own, `in_own_process`: it sets environment variables, which is
//! only safe while no other thread reads them.)

use crate::support::mcp;
use focus_testkit::alone::in_own_process;

use focus_core::json_object;
use focus_tools::mcp::{McpManager, McpServerConfig, ServerState};
use std::time::Duration;

#[test]
fn servers_get_no_inherited_credentials_but_their_configured_ones() {
    if !in_own_process(
        module_path!(),
        "servers_get_no_inherited_credentials_but_their_configured_ones",
    ) {
        return;
    }
    std::env::set_var("FOCUS_TEST_MCP_API_KEY", "sk-must-not-reach-the-server");
    std::env::set_var("FOCUS_TEST_MCP_AUTH_TOKEN", "tok-must-not-reach-the-server");
    std::env::set_var("FOCUS_TEST_MCP_PLAIN", "plain-is-inherited");
    let binary = mcp::server_binary();
    let mut config = McpServerConfig::stdio("s", binary.to_str().unwrap(), &[]);
    config.startup_timeout = Duration::from_secs(5);
    config.request_timeout = Duration::from_secs(5);
    config
        .env
        .push(("GIVEN_API_KEY".into(), "configured-for-this-server".into()));
    let logs = std::env::temp_dir().join(format!("focus-mcp-secrets-{}", std::process::id()));
    let manager = McpManager::start(vec![config], &logs);
    assert_eq!(manager.status()[0].state, ServerState::Running);
    let env = manager
        .tools()
        .into_iter()
        .find(|t| t.name() == "s__env")
        .expect("the env tool");
    let read = |name: &str| {
        let args = json_object! { "name" => name }.to_json_string();
        mcp::run(&*env, &args).text_content()
    };
    assert_eq!(read("FOCUS_TEST_MCP_API_KEY"), "(unset)");
    assert_eq!(read("FOCUS_TEST_MCP_AUTH_TOKEN"), "(unset)");
    assert_eq!(read("FOCUS_TEST_MCP_PLAIN"), "plain-is-inherited");
    assert_eq!(read("GIVEN_API_KEY"), "configured-for-this-server");
    drop(manager);
    let _ = std::fs::remove_dir_all(&logs);
}
