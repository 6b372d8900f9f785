//! SIGINT and SIGTERM never leave the writer lock behind.
//!
//! Killed by one of them in the middle of a write, a writer would leave `writer.lock` in place,
//! and every later writer would wait for it and give up, until a person recovered it with
//! `bmad-mem lock --recover`. So before a process takes its first writer lock, [`install`]
//! registers two actions for each of the signals, through signal-hook's safe `flag` functions
//! (the crate forbids `unsafe` of its own): one records the signal, the other ends the process
//! as the signal's default action would when the process is idle — it holds no writer lock and
//! is taking none. When a signal comes:
//!
//! * idle, the process ends at once, killed by that signal, as without the handlers;
//! * else the signal is recorded, and the writer goes on to a point where the store is whole:
//!   a long writer (`import`) stops between two items ([`interrupted`]), any other finishes
//!   its step, which takes milliseconds. When the last lock is released (its file removed), the
//!   process is idle again and ends by the signal, its result unprinted.
//!
//! No thread and no pipe: the handlers only touch two atomics, and the release checks them.
//! A second signal changes nothing: the writer is already on its way out. SIGKILL cannot be
//! caught; `bmad-mem lock` tells a dead owner's lock, and `lock --recover` removes it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use signal_hook::consts::{SIGINT, SIGTERM};

/// The signal received, 0 before any (written by the handler).
static RAISED: AtomicUsize = AtomicUsize::new(0);
/// Whether no writer lock is held or being taken (read by the handler).
static IDLE: AtomicBool = AtomicBool::new(true);
/// Writer locks held or being taken.
static BUSY: Mutex<usize> = Mutex::new(0);
/// Whether the handlers are in place.
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// Registers the handlers, once per process; `false` when the system refused (the signals then
/// keep their default action).
pub(crate) fn install() -> bool {
    *INSTALLED.get_or_init(|| register().is_ok())
}

fn register() -> std::io::Result<()> {
    for signal in [SIGINT, SIGTERM] {
        let value = usize::try_from(signal).unwrap_or_default();
        signal_hook::flag::register_usize(signal, &RAISED, value)?;
        signal_hook::flag::register_conditional_default(signal, &IDLE)?;
    }
    Ok(())
}

/// The signal recorded, if any.
fn raised() -> Option<i32> {
    i32::try_from(RAISED.load(Ordering::SeqCst))
        .ok()
        .filter(|&signal| signal != 0)
}

/// Whether SIGINT or SIGTERM came while a writer lock was held: a long writer stops at its next
/// consistent point.
#[must_use]
pub(crate) fn interrupted() -> bool {
    raised().is_some()
}

/// Held from just before a writer lock is taken until it is released (or the taking failed):
/// while one exists, a signal waits for the writer instead of ending the process.
#[derive(Debug)]
pub(crate) struct Busy(());

impl Busy {
    /// Counts one more lock held or being taken, installing the handlers first.
    #[must_use]
    pub(crate) fn begin() -> Self {
        install();
        let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
        *busy += 1;
        IDLE.store(false, Ordering::SeqCst);
        Busy(())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
        *busy = busy.saturating_sub(1);
        if *busy == 0 {
            // Idle first: a signal from here on ends the process in its handler; one that came
            // before is found recorded just below.
            IDLE.store(true, Ordering::SeqCst);
            if let Some(signal) = raised() {
                die(signal);
            }
        }
    }
}

/// Ends the process as `signal`'s default action does.
fn die(signal: i32) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    // Only if the default action could not be restored: the shell's status for that signal.
    std::process::exit(128 + signal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_interrupted_without_a_signal() {
        assert!(install());
        let busy = Busy::begin();
        assert!(!interrupted());
        drop(busy);
        assert!(!interrupted());
    }
}
