//! The recipes of docs/batch.md, taken out of the file and run as they are:
//! a fenced `sh` block whose first line is `# batch: NAME`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// docs/batch.md, found from the example's source folder.
pub fn doc_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/batch.md")
}

/// The block of `doc` marked `# batch: name`, without its fences.
pub fn block(doc: &str, name: &str) -> Result<String, String> {
    let marker = format!("# batch: {name}");
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "```sh" {
            continue;
        }
        let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        if body.first().map(|l| l.trim()) == Some(marker.as_str()) {
            return Ok(body.join("\n") + "\n");
        }
    }
    Err(format!(
        "docs/batch.md has no ```sh block starting with `{marker}`"
    ))
}

/// How a block ran.
pub struct Ran {
    /// Its exit code (`None`: killed or a signal).
    pub code: Option<i32>,
    /// Whether it had to be killed at the time limit.
    pub hung: bool,
    /// Its stderr.
    pub stderr: String,
}

/// Runs `script` with `shell` in `dir`, with `env` added, killed (and
/// whatever is left in `root` with it) after `limit`.
pub fn run(
    shell: &str,
    script: &str,
    dir: &Path,
    env: &[(&str, String)],
    limit: Duration,
    root: &Path,
) -> Result<Ran, String> {
    let file = dir.join("recipe.sh");
    std::fs::write(&file, script).map_err(|e| format!("{}: {e}", file.display()))?;
    let stderr_file = dir.join("recipe.stderr");
    let mut command = Command::new(shell);
    command
        .arg(&file)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_file).map_err(|e| e.to_string())?);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run {shell}: {e}"))?;
    let until = Instant::now() + limit;
    let (code, hung) = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break (status.code(), false);
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            super::procs::kill_all(root);
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stderr = std::fs::read_to_string(&stderr_file).unwrap_or_default();
    Ok(Ran { code, hung, stderr })
}
