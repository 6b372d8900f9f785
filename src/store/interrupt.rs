//! SIGINT and SIGTERM never leave the writer lock behind.
//!
//! Killed by one of them in the middle of a write, a writer would leave `writer.lock` in place,
//! and every later writer would wait for it and give up, until a person recovered it with
//! `bmad-mem lock --recover`. So before a process takes its first writer lock, [`install`]
//! registers, for both signals, a flag and a write to a self-pipe (signal-hook's safe
//! `flag` and `low_level::pipe`: the crate forbids `unsafe` of its own), and starts a thread
//! that waits on the pipe. When a signal comes:
//!
//! * if the process holds no writer lock and is taking none, the thread ends it at once as the
//!   signal's default action would (killed by that signal, as without the handler);
//! * else the signal is recorded, and the writer goes on to a point where the store is whole:
//!   a long writer (`import`) stops between two items ([`interrupted`]), any other finishes
//!   its step, which takes milliseconds. When the last lock is released (its file removed), the
//!   process ends by the signal, its result unprinted.
//!
//! A second signal changes nothing: the writer is already on its way out. SIGKILL cannot be
//! caught; `bmad-mem lock` tells a dead owner's lock, and `lock --recover` removes it.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::thread;

use signal_hook::consts::{SIGINT, SIGTERM};

/// The signal received, 0 before any.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The same, as signal-hook's flag writes it from the handler.
static RAISED: AtomicUsize = AtomicUsize::new(0);
/// Writer locks held or being taken.
static BUSY: Mutex<usize> = Mutex::new(0);
/// Whether the handlers are in place.
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// Registers the handlers and starts the waiting thread, once per process; `false` when the
/// system refused (the signals then keep their default action).
pub(crate) fn install() -> bool {
    *INSTALLED.get_or_init(|| register().is_ok())
}

fn register() -> std::io::Result<()> {
    let (mut read, write) = UnixStream::pair()?;
    for signal in [SIGINT, SIGTERM] {
        // The flag first: actions run in the order they were registered, so the thread woken
        // by the pipe finds the signal recorded.
        let value = usize::try_from(signal).unwrap_or_default();
        signal_hook::flag::register_usize(signal, &RAISED, value)?;
        signal_hook::low_level::pipe::register(signal, write.try_clone()?)?;
    }
    thread::Builder::new()
        .name("bmad-mem-signals".to_owned())
        .spawn(move || {
            let mut buffer = [0u8; 16];
            while read.read(&mut buffer).is_ok_and(|n| n > 0) {
                let signal = i32::try_from(RAISED.load(Ordering::SeqCst)).unwrap_or(SIGTERM);
                if signal != 0 {
                    SIGNAL.store(signal, Ordering::SeqCst);
                    let busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
                    if *busy == 0 {
                        die(signal);
                    }
                }
            }
        })?;
    Ok(())
}

/// Whether SIGINT or SIGTERM came while a writer lock was held: a long writer stops at its next
/// consistent point.
#[must_use]
pub(crate) fn interrupted() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
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
        *BUSY.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        Busy(())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
        *busy = busy.saturating_sub(1);
        let signal = SIGNAL.load(Ordering::SeqCst);
        if *busy == 0 && signal != 0 {
            die(signal);
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
