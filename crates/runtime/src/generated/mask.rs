//! Participant masks of more than 128 participants.
//!
//! A fused function takes the set of its participants that take part in
//! a call as a bit mask. Generated code uses `u64` or `u128` for that as
//! long as the program's widest fused function fits; past 128
//! participants (a linter of hundreds of rules in one walk) it uses
//! [`WideMask`], an array of words with the few operations the generated
//! code needs, each as cheap as the integer's on one word.

/// A set of up to `64 * W` participants (bit `p` of word `p / 64` for
/// participant `p`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WideMask<const W: usize>(pub [u64; W]);

impl<const W: usize> WideMask<W> {
    /// No participant.
    pub const NONE: WideMask<W> = WideMask([0; W]);
    /// Every participant.
    pub const ALL: WideMask<W> = WideMask([u64::MAX; W]);

    /// The participants in `bits`.
    ///
    /// # Panics
    /// On a participant of `64 * W` or more (in a constant: at compile
    /// time).
    pub const fn of(bits: &[usize]) -> WideMask<W> {
        let mut words = [0; W];
        let mut i = 0;
        while i < bits.len() {
            words[bits[i] / 64] |= 1 << (bits[i] % 64);
            i += 1;
        }
        WideMask(words)
    }

    /// The first `n` participants.
    pub const fn first(n: usize) -> WideMask<W> {
        let mut words = [0; W];
        let mut i = 0;
        while i < W {
            words[i] = if n >= 64 * (i + 1) {
                u64::MAX
            } else if n > 64 * i {
                (1 << (n - 64 * i)) - 1
            } else {
                0
            };
            i += 1;
        }
        WideMask(words)
    }

    /// The participants `k` for which `flags[k]` holds.
    #[inline]
    pub fn from_flags(flags: &[bool]) -> WideMask<W> {
        let mut mask = WideMask::NONE;
        for (k, &on) in flags.iter().enumerate() {
            if on {
                mask.insert(k);
            }
        }
        mask
    }

    /// Whether participant `p` is in the set.
    #[inline]
    pub fn has(&self, p: usize) -> bool {
        self.0[p / 64] & (1 << (p % 64)) != 0
    }

    /// Adds participant `p`.
    #[inline]
    pub fn insert(&mut self, p: usize) {
        self.0[p / 64] |= 1 << (p % 64);
    }

    /// Whether any participant is in the set.
    #[inline]
    pub fn any(&self) -> bool {
        self.0.iter().any(|&w| w != 0)
    }
}

/// The participants not in the set.
impl<const W: usize> std::ops::Not for WideMask<W> {
    type Output = WideMask<W>;
    #[inline]
    fn not(self) -> WideMask<W> {
        WideMask(self.0.map(|w| !w))
    }
}

#[cfg(test)]
mod tests {
    use super::WideMask;

    #[test]
    fn operations() {
        const M: WideMask<3> = WideMask::of(&[0, 64, 130]);
        assert!(M.has(0) && M.has(64) && M.has(130) && !M.has(1) && !M.has(129));
        assert_eq!(WideMask::<3>::first(130), WideMask([u64::MAX, u64::MAX, 3]));
        assert_eq!(WideMask::<2>::first(64), WideMask([u64::MAX, 0]));
        assert_eq!(WideMask::<2>::first(0), WideMask::NONE);
        assert_eq!(WideMask::<2>::first(128), WideMask::ALL);
        let mut m = WideMask::<3>::from_flags(&[false, true]);
        assert_eq!(m, WideMask::of(&[1]));
        m.insert(191);
        assert!(m.any() && m.has(191));
        assert!(!WideMask::<3>::NONE.any());
        assert!(!(!WideMask::<3>::ALL).any());
    }
}
