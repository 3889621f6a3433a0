//! The C allocator's set-up, before any thread starts (issue #18).
//!
//! glibc gives each thread that contends for the heap an arena of its own
//! (up to eight per core), and memory freed into one arena is not reused by
//! the others: with the runtime's workers each case's allocations end up
//! spread over three heaps, each keeping its own free space. One arena for
//! the process lets freed memory be reused by every thread, which lowers a
//! run's peak resident memory (`bench/speed.sh` prints it); the threads
//! rarely wait on the one arena (each has its own cache of small blocks).
//! Elsewhere (another C library, another OS) nothing is done.

/// Limits the C allocator to one arena. Call it first thing in `main`.
pub fn one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::c_int;
        extern "C" {
            /// glibc's `mallopt(3)`.
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        /// `M_ARENA_MAX` in glibc's `malloc.h`.
        const M_ARENA_MAX: c_int = -8;
        // SAFETY: mallopt only sets a tunable of the allocator; it is called
        // before any other thread exists. A failure (0) leaves the default.
        unsafe {
            mallopt(M_ARENA_MAX, 1);
        }
    }
}

/// How often the heap's free pages go back to the kernel.
const PURGE_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// Returns the heap's free pages to the kernel every [`PURGE_EVERY`], on a
/// thread of its own, for as long as the process runs (issue #18).
///
/// glibc gives memory back only from the top of its heap. A run frees each
/// case's memory (its session, its messages, its transcript once written)
/// as the case ends, all over the heap, and new cases reuse it only in
/// part: whole free pages between the blocks in use stayed resident.
/// `malloc_trim(3)` hands them back (the memory stays the allocator's; a
/// page is zeroed when next touched); jemalloc's background purging does
/// the same. Together with the release of start-up pages (`resident.rs`)
/// and a hot-code list that covers failure reporting, bench/speed.sh's HTTP
/// peak-RSS line (median of three) went from 28.5 MB to 25.6 MB at the same
/// `--max-connections` (128). Each purge walks the free lists once, under
/// the arena's lock. For the commands that run cases; elsewhere nothing is
/// done.
pub fn purge_in_background() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            /// glibc's `malloc_trim(3)`.
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        let purger = std::thread::Builder::new()
            .name("heap-purge".to_owned())
            .stack_size(64 * 1024)
            .spawn(|| loop {
                std::thread::sleep(PURGE_EVERY);
                // SAFETY: malloc_trim only gives free pages of the heap back
                // to the kernel, under the allocator's own lock; no block in
                // use is touched.
                unsafe {
                    malloc_trim(0);
                }
            });
        // Without the thread the heap keeps its free pages, as it did.
        drop(purger);
    }
}
