//! What the writer-lock tests share: this host's name, a pid no process has, and a look at the
//! `flock`s a process holds.

use std::fs;
use std::process::Command;

/// This host's name, as the lock records it.
pub fn host() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// The pid of a process that has exited and been reaped.
pub fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().expect("spawn true");
    child.wait().expect("wait for true");
    child.id()
}

/// Whether process `pid` holds an exclusive `flock` on the inode `ino` (`/proc/locks`).
pub fn holds_flock(pid: u32, ino: u64) -> bool {
    let locks = fs::read_to_string("/proc/locks").expect("read /proc/locks");
    let pid = pid.to_string();
    let ino = format!(":{ino}");
    locks.lines().filter(|l| !l.contains("->")).any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        fields.len() > 5 && fields[1] == "FLOCK" && fields[4] == pid && fields[5].ends_with(&ino)
    })
}
