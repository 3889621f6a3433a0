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
