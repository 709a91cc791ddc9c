//! Work split over every core: a long list is cut in one slice per core
//! (up to 8), each scored on its own scoped thread, the results kept in order.

/// `work` over `among`, a slice per core when it is long, the results in order.
pub(super) fn on_every_core<I: Sync, T: Send>(
    among: &[I],
    work: impl Fn(&[I]) -> T + Sync,
) -> Vec<T> {
    let threads = if among.len() >= PARALLEL_FROM {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    } else {
        1
    };
    if threads == 1 {
        return vec![work(among)];
    }
    let size = among.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let parts: Vec<_> = among
            .chunks(size)
            .map(|slice| scope.spawn(move || work(slice)))
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// From this many candidates on, the work is split over several threads.
const PARALLEL_FROM: usize = 20_000;
