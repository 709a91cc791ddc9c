//! The lock helpers every crate uses: [`lock`] takes a mutex, and [`read`] and
//! [`write()`] an `RwLock`, even when a thread panicked while holding it.
//!
//! focus catches panics at its boundaries (a tool, a provider, a hook) and goes
//! on; a lock such a panic poisoned still holds data that is whole (every
//! critical section in focus leaves it valid at each step), and refusing it would
//! turn one failed call into a dead session. So no lock in focus is poisoned.
//! (focus-sys, which depends on nothing, and the waits on a `Condvar` recover
//! the same way in place.)

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, recovering its data if another thread panicked while holding it.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes `lock` for reading, recovering it if a writer panicked.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Takes `lock` for writing, recovering it if a writer panicked.
pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_mutex_still_gives_its_data() {
        let mutex = std::sync::Arc::new(Mutex::new(1));
        let held = mutex.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("poisons the mutex");
        })
        .join();
        assert!(mutex.is_poisoned());
        *lock(&mutex) += 1;
        assert_eq!(*lock(&mutex), 2);
    }

    #[test]
    fn a_poisoned_rwlock_still_reads_and_writes() {
        let rw = std::sync::Arc::new(RwLock::new(1));
        let held = rw.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.write().unwrap();
            panic!("poisons the lock");
        })
        .join();
        assert!(rw.is_poisoned());
        *write(&rw) += 1;
        assert_eq!(*read(&rw), 2);
    }
}
