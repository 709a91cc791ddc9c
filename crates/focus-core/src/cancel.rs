//! [`CancelToken`]: one flag, shared between threads, that says "stop now".
//!
//! Work that blocks (a curl process streaming a body, a running shell command)
//! registers a callback with [`CancelToken::on_cancel`]; [`CancelToken::cancel`]
//! sets the flag and runs every callback at once, from the cancelling thread. That
//! is how an abort reaches a thread stuck in a blocking `read`.

use crate::sync::lock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

type Callback = Box<dyn FnOnce() + Send>;

/// A cloneable cancellation flag with callbacks. Clones share the same state.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    next_id: AtomicU64,
    callbacks: Mutex<Vec<(u64, Callback)>>,
}

/// Keeps a callback registered; dropping it unregisters the callback (if it has not
/// run yet).
#[must_use = "dropping the registration unregisters the callback"]
pub struct CancelRegistration {
    inner: Arc<Inner>,
    id: u64,
}

impl CancelToken {
    /// A fresh token that is not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: sets the flag and runs every registered callback once. Later calls
    /// do nothing.
    pub fn cancel(&self) {
        if self.inner.cancelled.swap(true, Ordering::SeqCst) {
            return;
        }
        let callbacks = std::mem::take(&mut *lock(&self.inner.callbacks));
        for (_, callback) in callbacks {
            callback();
        }
    }

    /// Whether [`CancelToken::cancel`] has been called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Runs `callback` when the token is cancelled, or right now if it already is.
    /// The callback stays registered while the returned value lives.
    pub fn on_cancel(&self, callback: impl FnOnce() + Send + 'static) -> CancelRegistration {
        let id = self.inner.next_id.fetch_add(1, Ordering::SeqCst);
        let registration = CancelRegistration {
            inner: self.inner.clone(),
            id,
        };
        {
            let mut callbacks = lock(&self.inner.callbacks);
            if !self.inner.cancelled.load(Ordering::SeqCst) {
                callbacks.push((id, Box::new(callback)));
                return registration;
            }
        }
        callback();
        registration
    }
}

impl Drop for CancelRegistration {
    fn drop(&mut self) {
        lock(&self.inner.callbacks).retain(|(id, _)| *id != self.id);
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn callbacks_run_once_and_unregister_on_drop() {
        let token = CancelToken::new();
        let hits = Arc::new(AtomicUsize::new(0));
        let h1 = hits.clone();
        let _kept = token.on_cancel(move || {
            h1.fetch_add(1, Ordering::SeqCst);
        });
        let h2 = hits.clone();
        drop(token.on_cancel(move || {
            h2.fetch_add(100, Ordering::SeqCst);
        }));
        token.cancel();
        token.cancel();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        assert!(token.is_cancelled());
        let h3 = hits.clone();
        let _late = token.on_cancel(move || {
            h3.fetch_add(10, Ordering::SeqCst);
        });
        assert_eq!(hits.load(Ordering::SeqCst), 11);
    }
}
