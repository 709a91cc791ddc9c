//! The one lock helper every crate uses: [`lock`] takes a mutex even when a
//! thread panicked while holding it.
//!
//! focus catches panics at its boundaries (a tool, a provider, a hook) and goes
//! on; a mutex such a panic poisoned still holds data that is whole (every
//! critical section in focus leaves it valid at each step), and refusing it would
//! turn one failed call into a dead session. So no lock in focus is poisoned.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, recovering its data if another thread panicked while holding it.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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
}
