//! Targets die with us, even when mcpspec is killed with SIGKILL.
//!
//! Every target runs in its own process group (see [`crate::stdio`]), and
//! dropping its [`crate::StdioProcess`] kills that group. A SIGKILL of
//! mcpspec runs no destructor, though, and the targets would live on under
//! PID 1. So mcpspec also forks a *watchdog*, before its first target: a
//! tiny process that holds the read end of a pipe whose only write ends are
//! mcpspec's (close-on-exec, so no target keeps one past its `exec`).
//!
//! ```text
//! target, between fork and exec ──"+pgid"─┐
//! mcpspec ──"-pgid" (5-byte records)──────┴──► pipe ──► watchdog
//!    (dies: the kernel closes the write end)            └─ reads EOF: kill(-pgid, SIGKILL) for
//!                                                          every group still registered, exits
//! ```
//!
//! **Registration leaves no window.** [`spawn`] has the target register its
//! own process group, in the forked child before it `exec`s the target's
//! program. Until that `exec` the child holds a copy of the write end, so
//! the watchdog cannot see EOF before the record is in the pipe: a SIGKILL
//! of mcpspec at any instant of a spawn still finds the group registered.
//! (Registering from mcpspec after the spawn returned left a window in which
//! a loaded machine could kill mcpspec with the target already running and
//! unregistered; CI once did.) A spawn that fails after the child registered
//! (its `exec` failed) is unregistered again: the child also writes its pid
//! to a word of memory shared with mcpspec, which reads it on failure.
//!
//! Killing a target unregisters its group, so a process group id reused
//! later by an unrelated program is not signalled. When mcpspec dies for
//! any reason the kernel closes its end of the pipe, the watchdog reads
//! EOF, kills each registered group (the target and whatever it started in
//! its group: a `sh -c` wrapper's children, `npx`'s node) and exits. While
//! mcpspec lives, the watchdog only sleeps in `read`.
//!
//! **Why a forked process, not `PR_SET_PDEATHSIG`.** The parent-death
//! signal reaches only the direct child, not its children, and fires when
//! the *thread* that spawned it exits (a tokio blocking thread may), which
//! would kill healthy targets. A subreaper does not help either: orphans of
//! a dead subreaper still go to PID 1.
//!
//! **Fork safety.** mcpspec is multi-threaded when it forks, so both the
//! watchdog and a target's registration (which runs in the forked child)
//! may only make async-signal-safe calls: raw syscalls (`setpgid`,
//! `sigaction`, `close`, `read`, `write`, `getpid`, `kill`, `_exit`), no
//! allocation (the watchdog's table was allocated before the fork), and the
//! watchdog never returns into Rust code of the parent. It leaves mcpspec's
//! process group (a Ctrl-C at the terminal does not reach it; mcpspec
//! handles that itself), ignores the terminal signals, and closes every
//! descriptor but its pipe (so it keeps no socket, log file or pipe of the
//! caller open).
//!
//! **Limits.** Linux only (it uses `pipe2`, `prctl` and `close_range`; on
//! other systems nothing is started, and targets die with mcpspec only when
//! it exits or is stopped by a signal it handles, not by SIGKILL). A process that leaves its group (`setsid`, a daemonising
//! server) escapes, as it does a normal kill of the group. A watchdog that
//! was itself killed, or a pipe left full by a stopped watchdog (records
//! are then dropped rather than stall a spawn), leaves targets behind. At
//! most [`CAPACITY`] targets are watched at once (`imp::CAPACITY`; a run
//! holds a few per job).
//!
//! **Cost.** The hook makes every spawn a `fork` instead of `posix_spawn`
//! (and maps one shared page): measured, about 1.7 ms more system time a
//! spawn, so `mcpspec server --isolate` on the built-in reference (614
//! spawns) takes 4.1–4.5 s instead of 3.1–3.4 s; a Node or Python target's
//! own start-up is a few hundred times that. The cheap alternative,
//! `posix_spawn` with the watchdog started before the first spawn and the
//! group registered the moment the spawn returns, was tried and measured
//! too: with both cores busy, `tests/orphans.rs`'s early kill found the
//! target unregistered in every run (the window is that long in practice).

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::sync::OnceLock;

    use tokio::process::{Child, Command};

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

    /// Spawns `cmd`, which must start its target in a new process group
    /// (`process_group(0)`), with that group registered by the child itself
    /// before `exec` (see the module docs). The watchdog starts on first
    /// use. Build a fresh `Command` for each spawn: the registration hook
    /// stays on the command.
    pub fn spawn(cmd: &mut Command) -> io::Result<Child> {
        let Some(fd) = pipe_fd() else {
            return cmd.spawn(); // no watchdog: the drop alone kills the target
        };
        let Some(slot) = SharedPid::map() else {
            // No shared page: register after the spawn (a short window)
            // rather than risk a registration that could not be taken back.
            let child = cmd.spawn()?;
            if let Some(pid) = child.id().and_then(|p| libc::pid_t::try_from(p).ok()) {
                send(fd, b'+', pid);
            }
            return Ok(child);
        };
        spawn_registered(cmd, fd, &slot).map_err(|(error, pid)| {
            // The child registered before its exec failed: its pid number
            // is free now and must not stay watched.
            if pid > 0 {
                send(fd, b'-', pid);
            }
            error
        })
    }

    /// A spawn with its registration: on failure, also the pid the child
    /// registered under (0: none).
    type Registered = Result<Child, (io::Error, libc::pid_t)>;

    /// Spawns `cmd` with a hook that registers the child on `fd` before its
    /// exec.
    fn spawn_registered(cmd: &mut Command, fd: libc::c_int, slot: &SharedPid) -> Registered {
        let word = slot.address();
        // SAFETY: the hook runs in the forked child between fork and exec,
        // where only async-signal-safe calls are allowed: it makes two
        // syscalls (getpid, write) and a volatile store into the shared
        // page, which stays mapped until after `spawn` returns (`slot` is
        // borrowed for this whole function).
        unsafe {
            cmd.pre_exec(move || {
                let pid = libc::getpid();
                std::ptr::write_volatile(word as *mut libc::pid_t, pid);
                send(fd, b'+', pid);
                Ok(())
            });
        }
        cmd.spawn().map_err(|error| (error, slot.read()))
    }

    /// Unregisters a process group that mcpspec killed itself.
    pub fn unwatch(pgid: u32) {
        if let (Some(fd), Ok(pgid)) = (pipe_fd(), libc::pid_t::try_from(pgid)) {
            send(fd, b'-', pgid);
        }
    }

    /// Writes one record. Async-signal-safe: a forked child calls it.
    fn send(fd: libc::c_int, op: u8, pgid: libc::pid_t) {
        let mut record = [0u8; RECORD];
        record[0] = op;
        record[1..].copy_from_slice(&pgid.to_ne_bytes());
        // SAFETY: writes RECORD bytes from a live stack buffer to our own
        // pipe. Records are shorter than PIPE_BUF, so each write is atomic
        // among threads and processes. The end is non-blocking: a full pipe
        // (a stopped watchdog) loses the record instead of stalling a spawn.
        let _ = unsafe { libc::write(fd, record.as_ptr().cast(), RECORD) };
    }

    /// One `pid_t` in an anonymous shared mapping: what the forked child
    /// writes there, mcpspec reads (a private page would be copied on write).
    struct SharedPid(std::ptr::NonNull<libc::pid_t>);

    impl SharedPid {
        const LEN: usize = std::mem::size_of::<libc::pid_t>();

        fn map() -> Option<Self> {
            // SAFETY: a fresh anonymous mapping; no existing memory is
            // touched. It is zero-filled, so it reads 0 until the child writes.
            let page = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    Self::LEN,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if page == libc::MAP_FAILED {
                return None;
            }
            std::ptr::NonNull::new(page.cast()).map(Self)
        }

        /// The address, for the child's hook (which must be `Send`).
        fn address(&self) -> usize {
            self.0.as_ptr() as usize
        }

        fn read(&self) -> libc::pid_t {
            // SAFETY: the mapping is live and aligned (page-aligned) for
            // as long as `self` is.
            unsafe { std::ptr::read_volatile(self.0.as_ptr()) }
        }
    }

    impl Drop for SharedPid {
        fn drop(&mut self) {
            // SAFETY: unmaps the mapping `map` made, once.
            unsafe {
                libc::munmap(self.0.as_ptr().cast(), Self::LEN);
            }
        }
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

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A private pipe standing in for the watchdog's: (read, write).
        fn pipe() -> (libc::c_int, libc::c_int) {
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: pipe2 fills the two-element array it is given.
            assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
            (fds[0], fds[1])
        }

        /// The records in the pipe so far (closes both ends).
        fn records((read_end, write_end): (libc::c_int, libc::c_int)) -> Vec<(u8, libc::pid_t)> {
            // SAFETY: closing and reading our own descriptors into a live buffer.
            unsafe { libc::close(write_end) };
            let mut buf = [0u8; 64];
            let n = unsafe { libc::read(read_end, buf.as_mut_ptr().cast(), buf.len()) };
            unsafe { libc::close(read_end) };
            let n = usize::try_from(n).expect("read");
            buf[..n]
                .chunks_exact(RECORD)
                .map(|r| (r[0], libc::pid_t::from_ne_bytes([r[1], r[2], r[3], r[4]])))
                .collect()
        }

        /// Spawns `program` in a new group with its registration going to
        /// a private pipe: the spawn's result, the records written (all of
        /// them are, before the spawn returns) and the shared page.
        fn spawn_on_private_pipe(program: &str) -> (Registered, Vec<(u8, libc::pid_t)>, SharedPid) {
            let ends = pipe();
            let slot = SharedPid::map().expect("a shared page");
            let mut cmd = Command::new(program);
            cmd.process_group(0);
            let spawned = spawn_registered(&mut cmd, ends.1, &slot);
            (spawned, records(ends), slot)
        }

        #[tokio::test]
        async fn the_child_registers_itself_before_its_program_runs() {
            let (spawned, records, slot) = spawn_on_private_pipe("true");
            let mut child = spawned.expect("spawned");
            let pid = libc::pid_t::try_from(child.id().expect("a pid")).expect("a pid_t");
            let _ = child.wait().await;
            assert_eq!(records, vec![(b'+', pid)]);
            assert_eq!(slot.read(), pid, "the shared page holds the child's pid");
        }

        #[tokio::test]
        async fn a_failed_exec_names_the_pid_it_registered() {
            let (spawned, records, _slot) = spawn_on_private_pipe("/nonexistent/mcpspec-target");
            let Err((error, pid)) = spawned else {
                panic!("a missing program spawned");
            };
            assert_eq!(error.kind(), io::ErrorKind::NotFound);
            assert!(pid > 0, "the child's pid came back through the page: {pid}");
            assert_eq!(records, vec![(b'+', pid)], "what `spawn` unregisters");
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn spawn(cmd: &mut tokio::process::Command) -> std::io::Result<tokio::process::Child> {
        cmd.spawn()
    }
    pub fn unwatch(_pgid: u32) {}
}

pub(crate) use imp::{spawn, unwatch};
