//! The kernel sandbox from the command line: in auto mode (nothing asks) a tool
//! call that writes outside the project is stopped by the kernel, unless
//! `--sandbox off` (or settings) turns the sandbox off on purpose.

use crate::support::*;

const WRITE_OUTSIDE: &str = r#"{"name":"write_outside","steps":[
  {"reply":{"text":"Writing.","toolCalls":[{"name":"bash","arguments":{"command":"echo inside > inside.txt; echo pwned > ../outside.txt; echo done"}}]}},
  {"reply":{"text":"Done."}}
]}"#;

fn landlock_available() -> bool {
    focus_sys::landlock::abi_version().is_some()
}

fn run(s: &Sandbox, extra: &[&str]) -> std::process::Output {
    let server = mock(WRITE_OUTSIDE);
    s.write_models(&server.url());
    let mut args = vec![
        "-p",
        "--permission-mode",
        "auto",
        "--model",
        "mock-openai/m1",
    ];
    args.extend_from_slice(extra);
    args.push("write");
    let out = s.run(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 2, "{}", stderr(&out));
    out
}

#[test]
fn the_kernel_keeps_auto_mode_inside_the_project() {
    if !landlock_available() {
        focus_testkit::skipped("this kernel has no Landlock");
        return;
    }
    let s = Sandbox::new();
    run(&s, &[]);
    assert!(s.work.join("inside.txt").exists());
    assert!(
        !s.root.join("outside.txt").exists(),
        "the kernel let a write out"
    );
}

#[test]
fn sandbox_off_is_an_explicit_choice() {
    let s = Sandbox::new();
    run(&s, &["--sandbox", "off"]);
    assert!(s.root.join("outside.txt").exists());
}

#[test]
fn settings_can_list_more_writable_paths() {
    if !landlock_available() {
        focus_testkit::skipped("this kernel has no Landlock");
        return;
    }
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"sandbox":{{"writablePaths":["{}"]}}}}"#,
            s.root.display()
        ),
    )
    .unwrap();
    let out = run(&s, &[]);
    assert!(s.root.join("outside.txt").exists());
    assert!(
        !stderr(&out).contains("unknown setting"),
        "{}",
        stderr(&out)
    );
}
