//! The two-thread work queue of the readers that go through many files at once (recall,
//! `--ranking bm25`, lint): each thread takes the next item left, and the results come back in
//! item order whichever thread computed them.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` of `0..n`, in order, computed on two threads (each taking the next index left) when
/// there is more than one.
pub(crate) fn on_two_threads<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if n < 2 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return done;
            }
            done.push((i, f(i)));
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
}
