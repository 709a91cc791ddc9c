//! The bash tool keeps credentials out of the shell: a model that runs `env` must
//! not copy an API key into its context, the session file and the next request.
//! (It runs in a process of its own, `in_own_process`: it sets environment
//! variables, which is only safe while no other thread reads them.)

use crate::support::common;
use focus_testkit::alone::in_own_process;

use common::{call, tool, TempTree};
use focus_core::json_object;

#[test]
fn api_keys_never_reach_the_shell() {
    if !in_own_process(module_path!(), "api_keys_never_reach_the_shell") {
        return;
    }
    std::env::set_var("FOCUS_TEST_ZZ_API_KEY", "sk-should-not-leak-1");
    std::env::set_var("FOCUS_TEST_ZZ_OAUTH_TOKEN", "tok-should-not-leak-2");
    std::env::set_var("FOCUS_TEST_ZZ_PLAIN", "visible-3");
    let tree = TempTree::new("bash-secrets");
    let output = call(
        &*tool("bash", &tree.root),
        json_object! { "command" => "env" },
    );
    let text = output.text_content();
    assert!(!output.is_error, "{text}");
    assert!(
        text.contains("visible-3"),
        "ordinary variables stay: {text}"
    );
    assert!(
        !text.contains("sk-should-not-leak-1"),
        "an API key reached the shell"
    );
    assert!(
        !text.contains("tok-should-not-leak-2"),
        "a token reached the shell"
    );
    assert!(focus_tools::bash::is_secret_variable("ANTHROPIC_API_KEY"));
    assert!(focus_tools::bash::is_secret_variable("openai_api_key"));
    assert!(!focus_tools::bash::is_secret_variable("PATH"));
}
