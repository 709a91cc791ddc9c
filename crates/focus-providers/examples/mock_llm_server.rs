//! Runs the scripted mock LLM server until killed, for benchmarks and manual tries.
//!
//! `cargo run -q -p focus-providers --example mock_llm_server -- SCENARIO.json`
//! prints the base URL on the first line of stdout; point a model's `baseUrl` at it.

use focus_testkit::mock_llm::{MockLlm, Scenario};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: mock_llm_server SCENARIO.json");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("mock_llm_server: cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    let scenario = match Scenario::parse(&text) {
        Ok(scenario) => scenario,
        Err(e) => {
            eprintln!("mock_llm_server: {path}: {e}");
            std::process::exit(1);
        }
    };
    let server = MockLlm::start(scenario);
    println!("{}", server.url());
    loop {
        std::thread::park();
    }
}
