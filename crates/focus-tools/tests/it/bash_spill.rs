//! Issue 19, item 5: bash output beyond the inline cap is spilled to a file
//! that is capped, private (directory 0700, file 0600), removed at exit, and
//! described to the model (where it is, that it was capped). The spill
//! directory belongs to the tools' [`ToolState`], not to the process: each
//! test has its own, and dropping it removes it.

use crate::support::common;

use std::os::unix::fs::PermissionsExt;

use common::{call, TempTree};
use focus_core::json_object;
use focus_tools::bash::spill::{SpillDir, DEFAULT_SPILL_CAP};
use focus_tools::bash::BashTool;
use focus_tools::output::MAX_BYTES;
use focus_tools::ToolState;

#[test]
fn spill_files_are_capped_private_described_and_removed_with_their_state() {
    assert_eq!(DEFAULT_SPILL_CAP, 10 * MAX_BYTES as u64);
    let tree = TempTree::new("spill");
    let cap = 200_000;
    let state = ToolState::unconfined();
    let bash = BashTool::new(tree.root.clone(), state.clone()).with_spill_cap(cap);
    // 3 MB of `y` lines: fifteen times the cap.
    let out = call(&bash, json_object! { "command" => "yes | head -c 3000000" });
    assert!(!out.is_error, "{}", out.text_content());
    let path = std::path::PathBuf::from(out.details["fullOutputPath"].as_str().unwrap());
    let size = std::fs::metadata(&path).unwrap().len();
    assert_eq!(size, cap, "the spill file holds exactly the cap");
    assert_eq!(out.details["fullOutputCapped"].as_bool(), Some(true));
    let text = out.text_content();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("capped"), "{text}");
    assert!(text.contains("y\ny\n"), "the end is shown inline");

    let dir = path.parent().unwrap().to_path_buf();
    assert_eq!(Some(dir.clone()), state.spill.path());
    assert!(dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("focus-spill-"));
    let dir_mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700);
    let file_mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(file_mode, 0o600);

    // Under the cap: the file is complete and nothing says capped.
    let out = call(&bash, json_object! { "command" => "seq 1 20000" });
    let small = std::path::PathBuf::from(out.details["fullOutputPath"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(&small).unwrap().lines().count(),
        20000
    );
    assert!(!out.text_content().contains("capped"));
    assert_eq!(small.parent(), Some(dir.as_path()));

    // Another state's spill directory is another directory.
    let other = ToolState::unconfined();
    let other_dir = other.spill.path().expect("another spill dir");
    assert_ne!(other_dir, dir);
    drop(other);
    assert!(
        !other_dir.exists(),
        "dropping a state removes its directory"
    );
    assert!(dir.exists(), "and leaves the others alone");

    drop(bash);
    drop(state);
    assert!(
        !dir.exists(),
        "the spill directory goes with the last holder"
    );
    assert!(!path.exists());
}

#[test]
fn a_dead_process_spill_directory_is_swept() {
    // A directory named for a pid that cannot exist (above pid_max).
    let stale = std::env::temp_dir().join("focus-spill-4294967295-1");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("bash-0.log"), "old").unwrap();
    // Creating a spill directory sweeps; a fresh process would do the same.
    let spill = SpillDir::new();
    let dir = spill.path().expect("spill dir");
    assert!(!stale.exists(), "the stale spill directory is swept");
    assert!(dir.exists());
    spill.remove();
    assert!(!dir.exists());
    assert!(
        spill.path().is_some_and(|again| again.is_dir()),
        "made again on demand"
    );
}
