//! One writer per session file, whatever each process's `TMPDIR`: the lock
//! lives beside the session file, so a second focus started with another
//! temporary directory still finds it and is refused.

use crate::support::*;

#[test]
fn two_processes_with_different_tmpdir_cannot_both_write_one_session() {
    let s = Sandbox::new();
    let out = s.run(&["-p", "hello"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let session = s
        .session_files()
        .into_iter()
        .next()
        .expect("a session file");
    let path = session.to_str().unwrap();

    // The first writer: an RPC session holding the file open.
    let mut rpc = RpcClient::start(&s, &["--session", path]);
    let state = rpc.call(1, r#"{"id":1,"type":"get_state"}"#);
    assert_eq!(state["success"].as_bool(), Some(true), "{state:?}");

    // The second, with a temporary directory of its own.
    let other_tmp = s.root.join("other-tmp");
    std::fs::create_dir_all(&other_tmp).unwrap();
    let mut cmd = s.cmd(&["--session", path, "-p", "SECOND-WRITER-PROMPT"]);
    cmd.env("TMPDIR", &other_tmp);
    let out = run_command(cmd, "");
    let err = stderr(&out);
    assert!(!out.status.success(), "both wrote the session: {err}");
    assert!(err.contains("is being written by focus process"), "{err}");
    let text = std::fs::read_to_string(&session).unwrap();
    assert!(
        !text.contains("SECOND-WRITER-PROMPT"),
        "the second process wrote: {text}"
    );
    assert_eq!(rpc.close(), 0);
}
