//! The two-thread work queue of the readers that go through many files at once (recall,
//! `--ranking bm25`, lint): each thread takes the next item left, and the results come back in
//! item order whichever thread computed them.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` of `0..n`, in order, computed on two threads (each taking the next index left) when
/// there is more than one.
pub(crate) fn on_two_threads<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    on_two_threads_with(n, || (), |(), i| f(i))
}

/// [`on_two_threads`] where each thread keeps a state of its own from one item to the next
/// (`init` makes it, on the thread that uses it).
pub(crate) fn on_two_threads_with<S, T: Send>(
    n: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize) -> T + Sync,
) -> Vec<T> {
    if n < 2 {
        let mut state = init();
        return (0..n).map(|i| f(&mut state, i)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut state = init();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return done;
            }
            done.push((i, f(&mut state, i)));
        }
    };
    let mut done = std::thread::scope(|scope| {
        let other = scope.spawn(work);
        let mut done = work();
        done.extend(
            other
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
        );
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_threads_give_every_result_in_order() {
        for n in 0..40 {
            let doubled = on_two_threads(n, |i| i * 2);
            assert_eq!(doubled, (0..n).map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn each_thread_keeps_its_state() {
        // Each state counts the items its thread took: every item is taken once, and the
        // counts a thread saw run 1, 2, 3… in the order it took them.
        let seen = on_two_threads_with(
            50,
            || 0usize,
            |taken, i| {
                *taken += 1;
                (i, *taken)
            },
        );
        assert_eq!(
            seen.iter().map(|&(i, _)| i).collect::<Vec<_>>(),
            (0..50).collect::<Vec<_>>()
        );
        let ones = seen.iter().filter(|&&(_, taken)| taken == 1).count();
        assert!((1..=2).contains(&ones), "{seen:?}");
        let most = seen.iter().map(|&(_, taken)| taken).max().unwrap_or(0);
        assert!(most >= 25, "{seen:?}");
    }
}
