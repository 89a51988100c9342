//! Participant masks: the set of a fused function's participants that take
//! part in one call of it (bit `p` for participant `p`), as the engines
//! pass it down a fused call.
//!
//! A fused call may merge any number of calls, so a mask has no fixed
//! width. Almost every program has at most 128 participants per fused
//! function, and for those a mask is one machine integer (`u128`), which
//! the interpreter copies and tests at the cost of an integer; only a
//! program with wider fused functions pays for [`WideMask`], a bit vector.
//! The interpreter is generic over [`ParticipantMask`] and picks the type
//! once per run from the widest fused function
//! ([`FusedProgram::widest`](crate::FusedProgram::widest)); the code
//! generator emits an integer type, or `treefuse_runtime`'s fixed-width
//! array mask past 128 bits, and uses [`WideMask`] for the constants it
//! writes.

/// A set of participants, as the engines represent it.
pub trait ParticipantMask: Clone + PartialEq + Eq + std::fmt::Debug + Send + Sync {
    /// No participant.
    const NONE: Self;
    /// Every participant (however many the function has).
    const ALL: Self;
    /// Whether masks of this type can name `participants` participants.
    fn fits(participants: usize) -> bool;
    /// Participant `p` alone.
    fn bit(p: usize) -> Self {
        let mut m = Self::NONE;
        m.insert(p);
        m
    }
    /// The first `n` participants.
    fn first(n: usize) -> Self;
    /// Whether participant `p` is in the set.
    fn has(&self, p: usize) -> bool;
    /// Adds participant `p`.
    fn insert(&mut self, p: usize);
    /// Removes participant `p`.
    fn remove(&mut self, p: usize);
    /// Whether the set is empty.
    fn is_empty(&self) -> bool;
    /// The participants in both sets.
    fn intersect(&self, other: &Self) -> Self;
    /// The participants in this set and not in `other`.
    fn without(&self, other: &Self) -> Self;
    /// The set with participant `p + k` renamed `p` (those below `k`
    /// dropped): the participants after a given one, numbered from it.
    fn shifted_down(&self, k: usize) -> Self;
}

impl ParticipantMask for u128 {
    const NONE: u128 = 0;
    const ALL: u128 = u128::MAX;

    fn fits(participants: usize) -> bool {
        participants <= 128
    }
    #[inline]
    fn bit(p: usize) -> u128 {
        // By halves: a shift of a `u64` is one instruction, a variable
        // shift of a `u128` several (this runs per call of a fused visit).
        match p {
            0..64 => u128::from(1u64 << p),
            64..128 => u128::from(1u64 << (p - 64)) << 64,
            _ => 0,
        }
    }
    fn first(n: usize) -> u128 {
        if n >= 128 {
            u128::MAX
        } else {
            (1 << n) - 1
        }
    }
    #[inline]
    fn has(&self, p: usize) -> bool {
        let half = match p {
            0..64 => *self as u64,
            64..128 => (*self >> 64) as u64,
            _ => return false,
        };
        (half >> (p % 64)) & 1 != 0
    }
    #[inline]
    fn insert(&mut self, p: usize) {
        *self |= <u128 as ParticipantMask>::bit(p);
    }
    #[inline]
    fn remove(&mut self, p: usize) {
        *self &= !<u128 as ParticipantMask>::bit(p);
    }
    #[inline]
    fn is_empty(&self) -> bool {
        *self == 0
    }
    #[inline]
    fn intersect(&self, other: &u128) -> u128 {
        self & other
    }
    #[inline]
    fn without(&self, other: &u128) -> u128 {
        self & !other
    }
    #[inline]
    fn shifted_down(&self, k: usize) -> u128 {
        self.checked_shr(k as u32).unwrap_or(0)
    }
}

/// A participant set of any width: 64 participants per word, and every
/// participant past the words in the set exactly when `rest` holds (so
/// that [`ParticipantMask::ALL`] needs no width).
#[derive(Clone, Debug)]
pub struct WideMask {
    words: Vec<u64>,
    rest: bool,
}

impl WideMask {
    /// Word `i` of the set (bits `64 * i ..`), past the stored words
    /// all ones or all zeros as `rest` says.
    pub fn word(&self, i: usize) -> u64 {
        match self.words.get(i) {
            Some(&w) => w,
            None if self.rest => u64::MAX,
            None => 0,
        }
    }

    /// The participants not in the set.
    pub fn complement(&self) -> WideMask {
        WideMask {
            words: self.words.iter().map(|w| !w).collect(),
            rest: !self.rest,
        }
    }

    /// The low 128 participants as an integer.
    pub fn low_u128(&self) -> u128 {
        u128::from(self.word(0)) | (u128::from(self.word(1)) << 64)
    }

    fn grow(&mut self, words: usize) {
        if self.words.len() < words {
            let fill = if self.rest { u64::MAX } else { 0 };
            self.words.resize(words, fill);
        }
    }
}

/// Equal as sets, however many words each stores.
impl PartialEq for WideMask {
    fn eq(&self, other: &WideMask) -> bool {
        let n = self.words.len().max(other.words.len());
        self.rest == other.rest && (0..n).all(|i| self.word(i) == other.word(i))
    }
}

impl Eq for WideMask {}

impl ParticipantMask for WideMask {
    const NONE: WideMask = WideMask {
        words: Vec::new(),
        rest: false,
    };
    const ALL: WideMask = WideMask {
        words: Vec::new(),
        rest: true,
    };

    fn fits(_: usize) -> bool {
        true
    }
    fn first(n: usize) -> WideMask {
        let mut words = vec![u64::MAX; n / 64];
        if !n.is_multiple_of(64) {
            words.push((1 << (n % 64)) - 1);
        }
        WideMask { words, rest: false }
    }
    fn has(&self, p: usize) -> bool {
        self.word(p / 64) & (1 << (p % 64)) != 0
    }
    fn insert(&mut self, p: usize) {
        self.grow(p / 64 + 1);
        self.words[p / 64] |= 1 << (p % 64);
    }
    fn remove(&mut self, p: usize) {
        self.grow(p / 64 + 1);
        self.words[p / 64] &= !(1 << (p % 64));
    }
    fn is_empty(&self) -> bool {
        !self.rest && self.words.iter().all(|&w| w == 0)
    }
    fn intersect(&self, other: &WideMask) -> WideMask {
        let n = self.words.len().max(other.words.len());
        WideMask {
            words: (0..n).map(|i| self.word(i) & other.word(i)).collect(),
            rest: self.rest && other.rest,
        }
    }
    fn without(&self, other: &WideMask) -> WideMask {
        let n = self.words.len().max(other.words.len());
        WideMask {
            words: (0..n).map(|i| self.word(i) & !other.word(i)).collect(),
            rest: self.rest && !other.rest,
        }
    }
    fn shifted_down(&self, k: usize) -> WideMask {
        let (skip, shift) = (k / 64, k % 64);
        let n = self.words.len().saturating_sub(skip);
        let words = (0..n)
            .map(|i| {
                let low = self.word(skip + i) >> shift;
                let high = if shift == 0 {
                    0
                } else {
                    self.word(skip + i + 1) << (64 - shift)
                };
                low | high
            })
            .collect();
        WideMask {
            words,
            rest: self.rest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A set as the list of its members below `width`.
    fn members<M: ParticipantMask>(m: &M, width: usize) -> Vec<usize> {
        (0..width).filter(|&p| m.has(p)).collect()
    }

    proptest! {
        /// Below 128 participants both representations are the same set
        /// under every operation the engines use.
        #[test]
        fn wide_agrees_with_u128(
            a in proptest::collection::vec(0usize..128, 0..20),
            b in proptest::collection::vec(0usize..128, 0..20),
            n in 0usize..=128,
            k in 0usize..130,
            all in any::<bool>(),
        ) {
            let (mut x, mut w) = if all {
                (<u128 as ParticipantMask>::ALL, WideMask::ALL)
            } else {
                (0u128, WideMask::NONE)
            };
            for &p in &a {
                if all { x.remove(p); w.remove(p); } else { x.insert(p); w.insert(p); }
            }
            let mut y = <u128 as ParticipantMask>::first(n);
            let mut v = WideMask::first(n);
            for &p in &b {
                y.insert(p);
                v.insert(p);
            }
            prop_assert_eq!(members(&x, 128), members(&w, 128));
            prop_assert_eq!(members(&x.intersect(&y), 128), members(&w.intersect(&v), 128));
            prop_assert_eq!(members(&x.without(&y), 128), members(&w.without(&v), 128));
            prop_assert_eq!(
                members(&x.shifted_down(k), 128 - k.min(128)),
                members(&w.shifted_down(k), 128 - k.min(128))
            );
            prop_assert_eq!(x.is_empty(), w.is_empty());
            prop_assert_eq!(w.low_u128(), x);
            prop_assert_eq!(w.complement().low_u128(), !x);
        }

        /// Past 128 participants: membership after inserts, removals and
        /// shifts, against a plain list.
        #[test]
        fn wide_is_a_set(
            ops in proptest::collection::vec((any::<bool>(), 0usize..400), 0..60),
            k in 0usize..400,
        ) {
            let mut w = WideMask::NONE;
            let mut set = std::collections::BTreeSet::new();
            for &(add, p) in &ops {
                if add { w.insert(p); set.insert(p); } else { w.remove(p); set.remove(&p); }
            }
            prop_assert_eq!(members(&w, 400), set.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(w.is_empty(), set.is_empty());
            let shifted: Vec<usize> = set.iter().filter(|&&p| p >= k).map(|p| p - k).collect();
            prop_assert_eq!(members(&w.shifted_down(k), 400), shifted);
        }
    }
}
