//! A small, seeded pseudo-random generator (SplitMix64).
//!
//! The fuzzer needs determinism, not cryptographic quality: the same seed must
//! give the same inputs on every machine and every build. SplitMix64 is a
//! dozen lines, passes BigCrush, and its state is one `u64`, so an exec's
//! generator can be derived from `(seed, exec index)` without carrying state
//! from one exec to the next ([`Rng::for_exec`]).

/// SplitMix64 (Steele, Lea, Flood 2014).
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The generator of one exec: independent of every other exec's draws.
    pub fn for_exec(seed: u64, exec: u64) -> Self {
        let mut r = Rng::new(seed ^ exec.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // n fits in u64 on every supported platform; the modulo bias is irrelevant here.
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// True with probability `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    /// One element of a non-empty slice (the first when it is empty is impossible:
    /// callers pass constants).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_execs_differ() {
        let a: Vec<u64> = (0..8).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Rng::for_exec(1, 1);
        let mut y = Rng::for_exec(1, 2);
        assert_ne!(x.next_u64(), y.next_u64());
        let mut r = Rng::new(3);
        for _ in 0..1000 {
            assert!(r.below(5) < 5);
            let v = r.range(2, 4);
            assert!((2..=4).contains(&v));
        }
    }
}
