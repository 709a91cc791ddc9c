//! `focus mcp serve`'s command line: its own flags (where to listen, the
//! bearer token's file, the explicit consent to a non-loopback address), and
//! the flags the other modes take for the model, the tools, the permission
//! mode, the rules and the sandbox, read by the main parser.

use super::{Args, Subcommand, UsageError};
use std::path::PathBuf;

/// Where and how `focus mcp serve` listens.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServeOptions {
    /// `--listen HOST:PORT`: Streamable HTTP on that address; absent: stdio.
    pub listen: Option<String>,
    /// `--token-file FILE`: the bearer token is the file's first line (else
    /// `FOCUS_MCP_AUTH_TOKEN`, else a new one printed to standard error).
    pub token_file: Option<PathBuf>,
    /// `--allow-non-loopback`: the user's explicit consent to listen on an
    /// address other hosts can reach.
    pub allow_non_loopback: bool,
}

/// The flags of the other modes that make no sense for a server.
const REFUSED: [&str; 5] = ["--print", "--mode", "--resume", "--export", "--list-models"];

/// Parses the words after `focus mcp serve`.
pub fn parse(rest: &[String]) -> Result<Args, UsageError> {
    let mut options = ServeOptions::default();
    let mut others = Vec::new();
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (word.as_str(), None),
        };
        let mut value = |what: &str| -> Result<String, UsageError> {
            match inline.clone().or_else(|| words.next().cloned()) {
                Some(v) if !v.trim().is_empty() => Ok(v),
                _ => Err(UsageError(format!("{flag} needs a value: {flag} {what}"))),
            }
        };
        match flag {
            "--listen" => options.listen = Some(value("127.0.0.1:PORT")?),
            "--token-file" => options.token_file = Some(PathBuf::from(value("FILE")?)),
            "--allow-non-loopback" => options.allow_non_loopback = true,
            _ => others.push(word.clone()),
        }
    }
    let mut args = super::parse(others)?;
    let refused = REFUSED.iter().find(|flag| {
        let flag = super::flags::find(flag);
        flag.is_some_and(|f| rest.iter().any(|w| spells(w, f)))
    });
    if let Some(flag) = refused {
        return Err(UsageError(format!(
            "{flag} is not an option of `focus mcp serve` (it answers MCP requests; see docs/mcp-server.md)"
        )));
    }
    if !args.messages.is_empty() || !args.files.is_empty() {
        return Err(UsageError(
            "`focus mcp serve` takes no prompt: the client sends them (the `agent` tool)".into(),
        ));
    }
    args.subcommand = Some(Subcommand::McpServe(options));
    Ok(args)
}

/// Whether `word` is `flag` (long or short, with or without `=value`).
fn spells(word: &str, flag: &super::flags::Flag) -> bool {
    let name = word.split_once('=').map_or(word, |(name, _)| name);
    name == flag.long || Some(name) == flag.short
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve(words: &[&str]) -> Result<Args, UsageError> {
        let mut all = vec!["mcp", "serve"];
        all.extend_from_slice(words);
        super::super::parse(all)
    }

    #[test]
    fn serve_takes_its_own_flags_and_the_modes_ones() {
        let args = serve(&[
            "--listen",
            "127.0.0.1:0",
            "--permission-mode",
            "plan",
            "--deny",
            "bash(rm:*)",
            "--sandbox=on",
            "--token-file=/tmp/t",
        ])
        .unwrap();
        let Some(Subcommand::McpServe(options)) = &args.subcommand else {
            panic!("{args:?}");
        };
        assert_eq!(options.listen.as_deref(), Some("127.0.0.1:0"));
        assert_eq!(options.token_file, Some(PathBuf::from("/tmp/t")));
        assert!(!options.allow_non_loopback);
        assert_eq!(args.permission_mode.as_deref(), Some("plan"));
        assert_eq!(args.headless.deny, ["bash(rm:*)"]);
        assert_eq!(args.sandbox, Some(true));
        let stdio = serve(&[]).unwrap();
        assert_eq!(
            stdio.subcommand,
            Some(Subcommand::McpServe(ServeOptions::default()))
        );
    }

    #[test]
    fn serve_refuses_prompts_and_other_modes() {
        assert!(serve(&["hello"]).unwrap_err().0.contains("takes no prompt"));
        assert!(serve(&["-p"]).unwrap_err().0.contains("--print"));
        assert!(serve(&["--mode", "json"]).unwrap_err().0.contains("--mode"));
        assert!(serve(&["--listen"])
            .unwrap_err()
            .0
            .contains("needs a value"));
        assert!(serve(&["--permission-mode", "yolo"]).is_err());
    }
}
