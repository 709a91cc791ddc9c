//! A test that needs a process to itself, inside a test binary shared by many.
//!
//! Each crate has one integration-test binary (`tests/it`), whose tests run on
//! threads of one process. A few tests change what belongs to the whole process:
//! they set environment variables (which another thread may be reading while a
//! child is spawned), or count the process's threads or children. Such a test
//! starts with
//!
//! ```ignore
//! if !focus_testkit::alone::in_own_process(module_path!(), "the_test_name") {
//!     return;
//! }
//! ```
//!
//! In the shared process, [`in_own_process`] runs this same test binary again
//! with only that test selected (`--exact`, one thread) and returns `false` once
//! the child has passed (it panics with the child's output if it failed, or if
//! the filter ran no test: a renamed test cannot pass unseen). In the child it
//! returns `true` and the test body runs there, alone.

use std::process::Command;

/// Set in the child to the name of the test it was started for.
const CHILD: &str = "FOCUS_TEST_ALONE";

/// `true` when the caller is the test `test` of module `module` running in a
/// process of its own; otherwise runs it in one (see the module comment) and
/// returns `false`. `module` is the caller's `module_path!()`.
pub fn in_own_process(module: &str, test: &str) -> bool {
    let name = test_name(module, test);
    if std::env::var(CHILD).as_deref() == Ok(name.as_str()) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = Command::new(exe)
        .args([name.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, &name)
        .output()
        .expect("start the test binary again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{name}, run alone, did not pass:\n{stdout}\n{stderr}"
    );
    false
}

/// The name libtest knows a test by (for `--exact`): its module path, given as
/// the caller's `module_path!()`, without the crate's name, then `test`.
pub fn test_name(module: &str, test: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{test}"),
        None => test.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_drop_the_crate() {
        assert_eq!(test_name("it", "t"), "t");
        assert_eq!(test_name("it::bash_spill", "t"), "bash_spill::t");
        assert_eq!(test_name("it::a::b", "t"), "a::b::t");
    }

    #[test]
    fn a_test_runs_again_alone() {
        let test = "a_test_runs_again_alone";
        if in_own_process(module_path!(), test) {
            // The child, started for exactly this test.
            let started_for = std::env::var(CHILD).unwrap();
            assert_eq!(started_for, test_name(module_path!(), test));
        } else {
            assert!(std::env::var(CHILD).is_err(), "the parent is no child");
        }
    }

    #[test]
    #[should_panic(expected = "did not pass")]
    fn a_filter_that_runs_nothing_fails() {
        in_own_process(module_path!(), "no_such_test");
    }
}
