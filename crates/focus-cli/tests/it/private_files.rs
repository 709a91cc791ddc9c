//! What focus writes about the user is the user's alone: sessions, exports and
//! MCP server logs are created 0600 in 0700 folders, whatever the umask (the
//! tests run with the usual 022, under which plain creation gives 0644/0755).

use crate::support::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn sessions_and_exports_are_0600_in_0700_folders() {
    let s = Sandbox::new();
    let out = s.run(&["-p", "hello"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let session = s
        .session_files()
        .into_iter()
        .next()
        .expect("a session file");
    assert_eq!(mode(&session), 0o600, "{}", session.display());
    let dir = session.parent().unwrap();
    assert_eq!(mode(dir), 0o700, "{}", dir.display());
    assert_eq!(mode(&s.home.join("sessions")), 0o700);

    let page = s.root.join("page.html");
    let out = s.run(
        &[
            "--export",
            session.to_str().unwrap(),
            page.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(mode(&page), 0o600);
}

#[test]
fn mcp_server_logs_are_0600_in_a_0700_folder() {
    let s = Sandbox::new();
    let script = s.root.join("quiet_mcp.sh");
    std::fs::write(
        &script,
        r#"echo 'server says hello' >&2
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"quiet","version":"1"}}}';;
    *'"tools/list"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"tools":[]}}';;
  esac
done
"#,
    )
    .unwrap();
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"mcpServers":{{"quiet":{{"command":"sh","args":["{}"]}}}}}}"#,
            script.display()
        ),
    )
    .unwrap();
    let _ = s.run(&["mcp", "list"], "");
    let logs = s.home.join("mcp-logs");
    let log = logs.join("quiet.log");
    assert!(log.exists(), "no log at {}", log.display());
    assert_eq!((mode(&logs), mode(&log)), (0o700, 0o600));
}
