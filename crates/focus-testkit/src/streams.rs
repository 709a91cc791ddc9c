//! The recorded provider streams of the conformance data
//! (`providers/<folder>/*.sse`, each beside its `.expect.json`), listed once for
//! the tests and benchmarks of the decoders, the SSE framing and the replay
//! transport.

use std::path::PathBuf;

/// The folders of recorded streams and the wire API each holds.
pub const FOLDERS: [(&str, &str); 5] = [
    ("anthropic", "anthropic-messages"),
    ("openai-chat", "openai-completions"),
    ("openai-compat", "openai-completions"),
    ("openai-responses", "openai-responses"),
    ("gemini", "google-generative-ai"),
];

/// One recorded stream.
#[derive(Clone, Debug)]
pub struct RecordedStream {
    /// `folder/stem`, e.g. `anthropic/tool_use`.
    pub name: String,
    /// The wire API that sent it, e.g. `anthropic-messages`.
    pub api: &'static str,
    /// The `.sse` file.
    pub path: PathBuf,
}

/// Every recorded stream, folder by folder in [`FOLDERS`] order, each folder's
/// sorted by name; `None` when the conformance data is missing (the skip is
/// visible, see [`crate::conformance_dir`]).
pub fn recorded_streams() -> Option<Vec<RecordedStream>> {
    let dir = crate::conformance_dir("providers")?;
    let mut out = Vec::new();
    for (folder, api) in FOLDERS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
            .expect("readable conformance folder")
            .map(|e| e.expect("readable folder entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "sse"))
            .collect();
        files.sort();
        for path in files {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let name = format!("{folder}/{stem}");
            out.push(RecordedStream { name, api, path });
        }
    }
    Some(out)
}
