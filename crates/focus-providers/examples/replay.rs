//! Decodes a recorded provider response body and prints the final assistant message
//! as JSON.
//!
//! ```text
//! cargo run -q -p focus-providers --example replay -- --api anthropic-messages FILE.sse
//! ```
//!
//! Output: `{"content":[…],"stopReason":…,"usage":{"input","output","cacheRead","cacheWrite"},"errorMessage":…}`
//! with content blocks typed `text`, `thinking` and `toolCall` (`id`, `name`,
//! `arguments`; for Responses `id` is the `call_id` and `itemId` the item's id). API names: `anthropic-messages`, `openai-completions`,
//! `openai-responses`, `google-generative-ai`.

use focus_core::json::{Object, ToJson, Value};
use focus_providers::builder::ignore_events;
use focus_providers::{decode_body, APIS};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = format!(
        "usage: replay --api API FILE.sse   (API: {})",
        APIS.join(", ")
    );
    let (mut api, mut file) = (None, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--api" => api = it.next().cloned(),
            "-h" | "--help" => {
                println!("{usage}");
                return ExitCode::SUCCESS;
            }
            other if file.is_none() && !other.starts_with("--") => file = Some(other.to_string()),
            other => {
                eprintln!("replay: unexpected argument {other:?}\n{usage}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(api), Some(file)) = (api, file) else {
        eprintln!("replay: need --api and a file\n{usage}");
        return ExitCode::from(2);
    };
    if !APIS.contains(&api.as_str()) {
        eprintln!("replay: unknown API {api:?}\n{usage}");
        return ExitCode::from(2);
    }
    let body = match std::fs::read(&file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("replay: cannot read {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let message = decode_body(&api, &[&body], &mut ignore_events).expect("api checked");
    let mut out = Object::new();
    // focus stores a Responses call id as `call_id|item_id`; show the `call_id`
    // (what goes back with the tool output) as `id`, and the item id beside it.
    let mut content = message.content.to_json();
    for block in content.as_array_mut().into_iter().flatten() {
        let Some(obj) = block.as_object_mut() else {
            continue;
        };
        let split = obj
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| id.split_once('|'))
            .map(|(call, item)| (call.to_string(), item.to_string()));
        if let Some((call, item)) = split {
            obj.insert("id", call);
            obj.insert("itemId", item);
        }
    }
    out.insert("content", content);
    out.insert("stopReason", message.stop_reason.as_str());
    let u = &message.usage;
    out.insert(
        "usage",
        focus_core::json_object! {
            "input" => u.input, "output" => u.output,
            "cacheRead" => u.cache_read, "cacheWrite" => u.cache_write,
        },
    );
    if let Some(e) = &message.error_message {
        out.insert("errorMessage", e.as_str());
    }
    println!("{}", Value::Object(out).to_pretty_string());
    ExitCode::SUCCESS
}
