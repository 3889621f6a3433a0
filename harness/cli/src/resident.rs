//! Start-up's code and read-only data given back to the kernel once a run
//! is under way (issue #18: peak resident memory).
//!
//! Loading and checking the scenario corpus, building and compiling the
//! schemas and parsing the command line execute a great deal of code that
//! a run never executes again, and read the embedded corpus text once. The
//! kernel keeps every page of the binary that was touched resident (and the
//! 64 KiB around each), so those pages were counted in the run's peak RSS
//! although nothing used them after start-up. [`release_startup_pages`]
//! tells the kernel that the binary's read-only pages are not needed: they
//! leave the process's resident set, and the pages the run does use come
//! back on first touch, from the page cache, unchanged.
//! The Linux kernel frees its own start-up code alike (`free_initmem`).
//!
//! Only the range from the ELF header to the end of the code (`__ehdr_start`
//! to `etext`, which the linker defines) is given back: headers, read-only
//! data and code, mapped from the file and never written (a position-
//! independent executable has no text relocations), so dropping a page
//! loses nothing. The relocated read-only data (`.data.rel.ro`) and the
//! writable data lie after `etext` and are left alone: those pages are the
//! process's own copies. Elsewhere than Linux nothing is done.

/// Gives the binary's read-only pages back to the kernel. Call it once
/// start-up is done, before the cases run; it costs a page fault for each
/// page the run touches afterwards.
pub fn release_startup_pages() {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::{c_int, c_void};
        extern "C" {
            /// The first byte of the mapped ELF header (every ELF linker
            /// defines it).
            static __ehdr_start: u8;
            /// The end of the code (GNU ld, LLD and mold define it).
            static etext: u8;
            /// `madvise(2)`.
            fn madvise(addr: *mut c_void, length: usize, advice: c_int) -> c_int;
        }
        /// `MADV_DONTNEED` in Linux's `mman-common.h`.
        const MADV_DONTNEED: c_int = 4;
        /// The smallest page size Linux uses; aligning to it inward keeps
        /// the range inside the two symbols on any page size the kernel
        /// accepts (a range not aligned to the real page size is refused,
        /// and nothing happens).
        const PAGE: usize = 4096;
        // Only the symbols' addresses are taken; neither is read.
        let start = std::ptr::addr_of!(__ehdr_start) as usize;
        let end = std::ptr::addr_of!(etext) as usize;
        let start = start.next_multiple_of(PAGE);
        let end = end - end % PAGE;
        if end <= start {
            return;
        }
        // SAFETY: [start, end) lies within the executable's read-only,
        // file-backed mappings (see the module doc), whose pages are never
        // written: the kernel drops them from the page tables and maps the
        // file's unchanged pages again when they are next touched. No Rust
        // object is invalidated. A failure (-1) leaves the pages resident.
        unsafe {
            madvise(start as *mut c_void, end - start, MADV_DONTNEED);
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use mcpspec_fuzz::memory::rss_kib;

    /// The release shrinks the resident set, and the process runs on
    /// unchanged: read-only data reads the same, and calls through vtables
    /// and function pointers (whose addresses sit in the relocated data
    /// that the release must leave alone) still land.
    #[test]
    fn the_process_runs_on_after_its_pages_are_released() {
        static TEXT: &str = "read-only data that must survive the release";
        let before = TEXT.to_owned();
        let shown: Box<dyn std::fmt::Display> = Box::new(42);
        let len: fn(&str) -> usize = str::len;
        let me = std::process::id();
        let resident = rss_kib(me).expect("VmRSS of this process");

        super::release_startup_pages();

        let after = rss_kib(me).expect("VmRSS of this process");
        assert!(
            after < resident,
            "nothing was released ({resident} KiB before, {after} KiB after)"
        );
        assert_eq!(TEXT, before);
        assert_eq!(shown.to_string(), "42");
        assert_eq!(len(TEXT), before.len());
    }
}
