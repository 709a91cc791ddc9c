//! Housekeeping at most every so often: a sweep that every focus process
//! would otherwise repeat at its start (the checkpoint store's caps, the
//! private temporary folders dead processes left behind) is done by the first
//! process that finds its stamp file missing or old, and skipped by the
//! others until the stamp is that old again. Hundreds of runs started by a
//! batch engine then pay one sweep, not one each (docs/batch.md).
//!
//! The stamp is an empty file; its modification time is the last sweep. A
//! stamp that is not a regular file owned by us (a link, or a file another
//! user planted in a shared folder) never holds a sweep back: the sweep is
//! then done every time, as if there were no stamp. Safe code over std; the
//! only call into the C library is `geteuid`, through the crate's FFI module.

use std::fs::OpenOptions;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Whether the housekeeping `stamp` stands for is due: true when the stamp
/// is missing, older than `every`, dated in the future (a clock set back),
/// or not a regular file of ours. When it is due, the stamp is set to now
/// (created with mode 0600 if missing, never through a symbolic link), so
/// other processes skip it for `every`; a stamp that cannot be written
/// leaves the answer true. Two processes starting at the same moment may
/// both be told it is due: a sweep must be safe to run twice at once.
pub fn due(stamp: &Path, every: Duration) -> bool {
    let recent = std::fs::symlink_metadata(stamp).is_ok_and(|m| {
        let age = m.modified().ok().and_then(|t| t.elapsed().ok());
        m.file_type().is_file()
            && m.uid() == crate::ffi::effective_uid()
            && age.is_some_and(|age| age < every)
    });
    if recent {
        return false;
    }
    let _ = OpenOptions::new()
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(crate::openat::flags::O_NOFOLLOW)
        .open(stamp)
        .and_then(|file| file.set_modified(SystemTime::now()));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("focus-sys-stamp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_first_caller_sweeps_and_the_next_waits() {
        let dir = scratch("first");
        let stamp = dir.join("swept");
        assert!(due(&stamp, Duration::from_secs(600)), "no stamp yet");
        assert!(stamp.is_file(), "the stamp was written");
        assert!(!due(&stamp, Duration::from_secs(600)), "just swept");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_old_stamp_or_one_from_the_future_is_due_again() {
        let dir = scratch("old");
        let stamp = dir.join("swept");
        std::fs::write(&stamp, "").unwrap();
        let file = std::fs::File::options().write(true).open(&stamp).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        assert!(due(&stamp, Duration::from_secs(600)), "an hour old");
        assert!(!due(&stamp, Duration::from_secs(600)), "set to now");
        file.set_modified(SystemTime::now() + Duration::from_secs(3600))
            .unwrap();
        assert!(due(&stamp, Duration::from_secs(600)), "dated ahead");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_link_never_holds_a_sweep_back_and_is_not_followed() {
        let dir = scratch("link");
        let target = dir.join("target");
        std::fs::write(&target, "keep").unwrap();
        let file = std::fs::File::options().write(true).open(&target).unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        file.set_modified(old).unwrap();
        let stamp = dir.join("swept");
        std::os::unix::fs::symlink(&target, &stamp).unwrap();
        assert!(due(&stamp, Duration::from_secs(600)));
        assert!(due(&stamp, Duration::from_secs(600)), "still due: a link");
        let after = std::fs::metadata(&target).unwrap();
        assert_eq!(
            after.modified().unwrap(),
            old,
            "the link's target untouched"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
