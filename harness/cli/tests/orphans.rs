//! Children die with us: `kill -9` of `mcpspec server -- CMD` leaves no
//! process of the target behind (Linux; the transport's watchdog kills the
//! targets' process groups when mcpspec is gone).
//!
//! The target is a shell script that never answers: it writes its own pid,
//! starts a grandchild `sleep` and a shell that starts a great-grandchild,
//! writes their pids too, and waits. mcpspec gets SIGKILL either once the
//! whole tree is up, or the moment the target has written its first pid
//! (a target that runs while mcpspec may not yet have registered it: the
//! registration must happen before the target's program does). Within a few
//! seconds none of the listed pids may be alive. A guard kills every listed
//! pid (and mcpspec) whatever happens, so a failing run leaves nothing
//! behind either.
#![cfg(target_os = "linux")]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{still_running, temp_dir, BIN};

/// Kills mcpspec and every pid the targets wrote, when the test ends.
struct Cleanup {
    mcpspec: Child,
    pids: PathBuf,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = self.mcpspec.kill();
        let _ = self.mcpspec.wait();
        for pid in still_running(&self.pids) {
            if let Ok(pid) = pid.parse::<i32>() {
                // SAFETY: kill(2) of a pid our own target wrote down.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |s| s.lines().count())
}

#[test]
fn sigkill_of_mcpspec_leaves_no_target_behind() {
    kill_mcpspec_once_the_target_wrote("orphans-tree", 4, Duration::from_millis(20));
}

/// The kill lands as early as the test can see the target: polled every
/// millisecond, some trials kill mcpspec right after its spawn returns.
#[test]
fn sigkill_right_after_the_spawn_leaves_no_target_behind() {
    for _ in 0..10 {
        kill_mcpspec_once_the_target_wrote("orphans-early", 1, Duration::from_millis(1));
    }
}

/// Starts `mcpspec server -- sh target.sh` (in scratch directory `name`),
/// kills it with SIGKILL as soon as the target tree has written `pids_up`
/// pids (looked at every `poll`), and asserts that within 5 s no process
/// the target wrote down runs.
fn kill_mcpspec_once_the_target_wrote(name: &str, pids_up: usize, poll: Duration) {
    let dir = temp_dir(name);
    let pids = dir.join("pids");
    let script = dir.join("target.sh");
    std::fs::write(
        &script,
        format!(
            "echo $$ >> '{p}'\n\
             sleep 300 &\n\
             echo $! >> '{p}'\n\
             sh -c 'sleep 300 & echo $! >> \"$1\"; wait' inner '{p}' &\n\
             echo $! >> '{p}'\n\
             wait\n",
            p = pids.display()
        ),
    )
    .expect("script written");
    let mcpspec = Command::new(BIN)
        .args([
            "server",
            "--spec-version",
            "2025-06-18",
            "--filter",
            "server/lifecycle/ping/operating",
            "--startup-timeout",
            "60s",
            "--no-progress",
            "--",
            "sh",
        ])
        .arg(&script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcpspec runs");
    let mut guard = Cleanup {
        mcpspec,
        pids: pids.clone(),
    };

    let deadline = Instant::now() + Duration::from_secs(30);
    while lines(&pids) < pids_up {
        assert!(
            Instant::now() < deadline,
            "no target came up within 30s: {:?}",
            std::fs::read_to_string(&pids)
        );
        std::thread::sleep(poll);
    }
    let pid = i32::try_from(guard.mcpspec.id()).expect("a pid");
    // SAFETY: kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0, "kill -9");
    let _ = guard.mcpspec.wait();

    // A target killed while it forks may still write a pid it got before
    // the signal: the list is read afresh on every look.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let alive = still_running(&pids);
        if alive.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "5s after kill -9 of mcpspec, target processes still run: {alive:?} (of {:?})",
            std::fs::read_to_string(&pids).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(guard);
    let _ = std::fs::remove_dir_all(&dir);
}
