//! Ctrl-C on a long sweep (`distinguish`, `transformations`): start the
//! binary writing records to a file, wait (a bounded time) for a record
//! beyond the header, send SIGINT, and wait (a bounded time) for it to stop.

use std::path::Path;
use std::time::{Duration, Instant};

/// What the interrupted run left: its exit code, standard output and error.
pub struct Stopped {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `pomset ARGS` in `dir`, and sends it SIGINT once `records` (a file
/// in `dir`) has a record beyond its header; `what` names the run in a
/// failure.
pub fn ctrl_c_after_a_record(dir: &Path, args: &[&str], records: &str, what: &str) -> Stopped {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pomset"))
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let file = dir.join(records);
    let begun = Instant::now();
    while std::fs::read_to_string(&file).map_or(0, |t| t.lines().count()) < 3 {
        assert!(
            begun.elapsed() < Duration::from_secs(120),
            "no record written"
        );
        assert!(child.try_wait().ok().flatten().is_none(), "ended early");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    // SAFETY: kill with a valid signal on the child we spawned.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let stopping = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waitable") {
            break s;
        }
        if stopping.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{what} did not stop within a minute of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().expect("output");
    Stopped {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
