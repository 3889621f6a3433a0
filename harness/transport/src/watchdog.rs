//! Targets die with us, even when mcpspec is killed with SIGKILL.
//!
//! Every target runs in its own process group (see [`crate::stdio`]), and
//! dropping its [`crate::StdioProcess`] kills that group. A SIGKILL of
//! mcpspec runs no destructor, though, and the targets would live on under
//! PID 1. So the first spawn also forks a *watchdog*: a tiny process that
//! holds the read end of a pipe whose only write end is mcpspec's
//! (close-on-exec, so no target inherits it).
//!
//! ```text
//! mcpspec ──"+pgid" / "-pgid" (5-byte records)──► pipe ──► watchdog
//!    (dies: the kernel closes the write end)            └─ reads EOF: kill(-pgid, SIGKILL) for
//!                                                          every group still registered, exits
//! ```
//!
//! Spawning a target registers its process group; killing it unregisters
//! it (so a process group id reused later by an unrelated program is never
//! signalled). When mcpspec dies for any reason the kernel closes its end
//! of the pipe, the watchdog reads EOF, kills each registered group (the
//! target and whatever it started in its group: a `sh -c` wrapper's
//! children, `npx`'s node) and exits. While mcpspec lives, the watchdog
//! only sleeps in `read`.
//!
//! **Why a forked process, not `PR_SET_PDEATHSIG`.** The parent-death
//! signal reaches only the direct child, not its children, and fires when
//! the *thread* that spawned it exits (a tokio blocking thread may), which
//! would kill healthy targets. A subreaper does not help either: orphans of
//! a dead subreaper still go to PID 1.
//!
//! **Fork safety.** mcpspec is multi-threaded when it forks, so the child
//! may only make async-signal-safe calls: it uses raw syscalls (`setpgid`,
//! `sigaction`, `close`, `read`, `kill`, `_exit`), never allocates (its
//! table was allocated before the fork), and never returns into Rust code
//! of the parent. It leaves mcpspec's process group (a Ctrl-C at the
//! terminal does not reach it; mcpspec handles that itself), ignores the
//! terminal signals, and closes every descriptor but its pipe (so it keeps
//! no socket, log file or pipe of the caller open).
//!
//! **Limits.** Linux only (it uses `pipe2`, `prctl` and `close_range`; on
//! other systems nothing is started, and targets die with mcpspec only when
//! it exits or is stopped by a signal it handles, not by SIGKILL). A process that leaves its group (`setsid`, a daemonising
//! server) escapes, as it does a normal kill of the group. A SIGKILL in the
//! instant between a spawn and its registration, or a watchdog that was
//! itself killed, leaves that target behind. At most [`CAPACITY`] targets
//! are watched at once (`imp::CAPACITY`; a run holds a few per job).

#[cfg(target_os = "linux")]
mod imp {
    use std::sync::OnceLock;

    /// Targets watched at once; more are not registered (never reached in
    /// practice: a run holds a few targets per job).
    pub const CAPACITY: usize = 1 << 15;

    /// One record: `+` or `-`, then the process group id (native endian).
    const RECORD: usize = 5;

    /// The write end of the watchdog's pipe, once it runs (`None`: it
    /// could not be started; targets then rely on the drop alone).
    static PIPE: OnceLock<Option<libc::c_int>> = OnceLock::new();

    fn pipe_fd() -> Option<libc::c_int> {
        *PIPE.get_or_init(start)
    }

    /// Registers a target's process group; started on first use.
    pub fn watch(pgid: u32) {
        send(b'+', pgid);
    }

    /// Unregisters a process group that mcpspec killed itself.
    pub fn unwatch(pgid: u32) {
        send(b'-', pgid);
    }

    fn send(op: u8, pgid: u32) {
        let Some(fd) = pipe_fd() else { return };
        let Ok(pgid) = libc::pid_t::try_from(pgid) else {
            return;
        };
        let mut record = [0u8; RECORD];
        record[0] = op;
        record[1..].copy_from_slice(&pgid.to_ne_bytes());
        // SAFETY: writes RECORD bytes from a live stack buffer to our own
        // pipe. Records are shorter than PIPE_BUF, so each write is atomic
        // among threads. The end is non-blocking: a full pipe (a stopped
        // watchdog) loses the record instead of stalling a case.
        let _ = unsafe { libc::write(fd, record.as_ptr().cast(), RECORD) };
    }

    /// Creates the pipe and forks the watchdog; the parent keeps the write end.
    fn start() -> Option<libc::c_int> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 fills the two-element array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        let [read_end, write_end] = fds;
        // Allocated before the fork: the child must not allocate.
        let mut table = vec![0 as libc::pid_t; CAPACITY].into_boxed_slice();
        // SAFETY: fork(2). The child runs only `watchdog`, which makes
        // async-signal-safe syscalls on memory it already owns and ends in
        // _exit, never returning into the parent's code.
        match unsafe { libc::fork() } {
            0 => watchdog(read_end, &mut table),
            -1 => {
                // SAFETY: closing the two descriptors pipe2 just made.
                unsafe {
                    libc::close(read_end);
                    libc::close(write_end);
                }
                None
            }
            _child => {
                // SAFETY: the read end is the watchdog's now; fcntl on our
                // own descriptor.
                unsafe {
                    libc::close(read_end);
                    let flags = libc::fcntl(write_end, libc::F_GETFL);
                    libc::fcntl(write_end, libc::F_SETFL, flags | libc::O_NONBLOCK);
                }
                Some(write_end)
            }
        }
    }

    /// The watchdog's whole life (in the forked child).
    fn watchdog(read_end: libc::c_int, table: &mut [libc::pid_t]) -> ! {
        // SAFETY (this whole function): only async-signal-safe syscalls,
        // on stack buffers and on `table`, which the parent allocated
        // before the fork; no allocation, no lock, no unwinding.
        unsafe {
            libc::setpgid(0, 0);
            let name = b"mcpspec-watchdog\0";
            libc::prctl(libc::PR_SET_NAME, name.as_ptr());
            let mut ignore: libc::sigaction = std::mem::zeroed();
            ignore.sa_sigaction = libc::SIG_IGN;
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                libc::sigaction(signal, &ignore, std::ptr::null_mut());
            }
            close_all_but(read_end);
        }
        let mut buf = [0u8; 4096];
        let mut filled = 0;
        let mut used = 0; // table[..used] holds every registered group
        loop {
            // SAFETY: reads into the free tail of a stack buffer.
            let n = unsafe {
                libc::read(
                    read_end,
                    buf[filled..].as_mut_ptr().cast(),
                    buf.len() - filled,
                )
            };
            if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            let Ok(n @ 1..) = usize::try_from(n) else {
                break; // EOF (mcpspec is gone) or an error: clean up
            };
            filled += n;
            let whole = filled - filled % RECORD;
            for record in buf[..whole].chunks_exact(RECORD) {
                let mut id = [0u8; 4];
                id.copy_from_slice(&record[1..]);
                let pgid = libc::pid_t::from_ne_bytes(id);
                if pgid <= 0 {
                    continue;
                }
                if record[0] == b'+' {
                    if let Some(slot) = table[..used].iter().position(|&p| p == 0) {
                        table[slot] = pgid;
                    } else if used < table.len() {
                        table[used] = pgid;
                        used += 1;
                    }
                } else if let Some(slot) = table[..used].iter().position(|&p| p == pgid) {
                    table[slot] = 0;
                }
            }
            buf.copy_within(whole..filled, 0);
            filled -= whole;
        }
        for &pgid in &table[..used] {
            if pgid > 0 {
                // SAFETY: kill(2) of a process group mcpspec registered.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
        }
        // SAFETY: _exit(2) ends the forked child without running the
        // parent's atexit handlers or destructors.
        unsafe { libc::_exit(0) }
    }

    /// Closes every descriptor except `keep`.
    ///
    /// # Safety
    /// Only in the forked watchdog: it closes descriptors the process's
    /// Rust objects believe they own.
    unsafe fn close_all_but(keep: libc::c_int) {
        let keep = libc::c_uint::try_from(keep).unwrap_or(0);
        {
            let below =
                keep == 0 || unsafe { libc::syscall(libc::SYS_close_range, 0, keep - 1, 0) } == 0;
            let above =
                unsafe { libc::syscall(libc::SYS_close_range, keep + 1, libc::c_uint::MAX, 0) }
                    == 0;
            if below && above {
                return;
            }
        }
        // No close_range (kernels before 5.9): one by one.
        let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
        let max = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            limit.rlim_cur.min(65_536)
        } else {
            1024
        };
        let max = libc::c_uint::try_from(max).unwrap_or(1024);
        for fd in (0..max).filter(|&fd| fd != keep) {
            if let Ok(fd) = libc::c_int::try_from(fd) {
                unsafe { libc::close(fd) };
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn watch(_pgid: u32) {}
    pub fn unwatch(_pgid: u32) {}
}

pub(crate) use imp::{unwatch, watch};
