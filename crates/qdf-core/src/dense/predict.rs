//! State-ref predictors (Go notes §1.5): `lastID` (Markov-0 repeat, `E8`), the 128-slot ring
//! of pushes (MTF, `E9`) and the Markov-1 pair table (`EA`).
//!
//! The ring keeps duplicates: rank `r` names the id pushed `r` pushes ago, `ring[(head-1-r)
//! & 127]`, not a deduplicated LRU position. The Go library falls back to an LRU walk for
//! ranks ≥ 128; qdf-rs never emits such ranks and rejects them (`docs/SPEC.md`
//! §Differences). The pair table maps `prev → succ + 1` (0 = empty) and is written on every
//! definition and reference that has a valid `lastID`, on both sides.

/// Slots in the MTF ring (Go `ringSize`).
pub(crate) const RING: usize = 128;

/// `lastID` marker for "invalid" (no preceding interned value).
const NO_LAST: u32 = u32::MAX;

/// The predictor state. Ids are `u32` here; the wire caps them below 0xFFFF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Predictors {
    last: u32,
    ring: [u32; RING],
    /// Next ring slot to write.
    head: u8,
    /// Valid slots, 0..=128.
    filled: u8,
    /// `pairs[prev] = succ + 1`, 0 when empty; one slot per intern id.
    pairs: Vec<u32>,
    /// Undo log of pair writes `(prev, old value)` while an encoder checkpoint is open.
    undo: Vec<(u32, u32)>,
    logging: bool,
}

/// The part of [`Predictors`] an encoder checkpoint copies (the ring is 512 bytes; the pair
/// table is restored from the undo log instead of copied).
#[derive(Clone, Debug)]
pub(crate) struct PredMark {
    last: u32,
    ring: [u32; RING],
    head: u8,
    filled: u8,
}

impl Predictors {
    /// Fresh state: no last id, an empty ring, no pairs.
    pub(crate) fn new() -> Self {
        Predictors {
            last: NO_LAST,
            ring: [0; RING],
            head: 0,
            filled: 0,
            pairs: Vec::new(),
            undo: Vec::new(),
            logging: false,
        }
    }

    /// `lastID`, if valid.
    #[inline]
    pub(crate) fn last(&self) -> Option<u32> {
        (self.last != NO_LAST).then_some(self.last)
    }

    /// An inline (non-interned) string or bytes: `lastID` becomes invalid.
    #[inline]
    pub(crate) fn reset_last(&mut self) {
        self.last = NO_LAST;
    }

    /// Grows the pair table to hold ids below `len`.
    #[inline]
    pub(crate) fn grow(&mut self, len: u32) {
        if self.pairs.len() < len as usize {
            self.pairs.resize(len as usize, 0);
        }
    }

    /// The pair prediction after `prev`, if any.
    #[inline]
    pub(crate) fn pair_after(&self, prev: u32) -> Option<u32> {
        match self.pairs.get(prev as usize) {
            Some(&s) if s != 0 => Some(s - 1),
            _ => None,
        }
    }

    fn record_pair(&mut self, prev: u32, id: u32) {
        let slot = &mut self.pairs[prev as usize];
        if self.logging {
            self.undo.push((prev, *slot));
        }
        *slot = id + 1;
    }

    /// `E8`: the repeat of `lastID` records the pair `(id, id)` and touches nothing else.
    #[inline]
    pub(crate) fn repeat(&mut self, id: u32) {
        self.record_pair(id, id);
    }

    /// A definition or a non-repeat reference of `id`: push it on the ring, record
    /// `(lastID, id)` and make it `lastID`.
    #[inline]
    pub(crate) fn touch(&mut self, id: u32) {
        self.ring[self.head as usize] = id;
        self.head = ((self.head as usize + 1) % RING) as u8;
        if (self.filled as usize) < RING {
            self.filled += 1;
        }
        if let Some(prev) = self.last() {
            self.record_pair(prev, id);
        }
        self.last = id;
    }

    /// The id pushed `rank` pushes ago (`rank` 0 = newest), if the ring holds that many.
    #[inline]
    pub(crate) fn ring_at(&self, rank: u64) -> Option<u32> {
        if rank >= self.filled as u64 {
            return None;
        }
        let slot = (self.head as usize + RING - 1 - rank as usize) % RING;
        Some(self.ring[slot])
    }

    /// The smallest rank at which the ring holds `id`.
    pub(crate) fn rank_of(&self, id: u32) -> Option<u64> {
        (0..self.filled as u64).find(|&r| self.ring_at(r) == Some(id))
    }

    /// Starts an encoder checkpoint: copies the small state and logs pair writes from now on.
    pub(crate) fn mark(&mut self) -> PredMark {
        self.undo.clear();
        self.logging = true;
        PredMark {
            last: self.last,
            ring: self.ring,
            head: self.head,
            filled: self.filled,
        }
    }

    /// Ends the checkpoint, keeping the changes.
    pub(crate) fn commit(&mut self) {
        self.undo.clear();
        self.logging = false;
    }

    /// Restores the state of `mark`; `table_len` is the intern table length at the mark.
    pub(crate) fn rollback(&mut self, mark: &PredMark, table_len: u32) {
        while let Some((prev, old)) = self.undo.pop() {
            if let Some(slot) = self.pairs.get_mut(prev as usize) {
                *slot = old;
            }
        }
        self.pairs.truncate(table_len as usize);
        self.last = mark.last;
        self.ring = mark.ring;
        self.head = mark.head;
        self.filled = mark.filled;
        self.logging = false;
    }

    /// Everything a peer could observe, for state comparisons in tests.
    #[cfg(test)]
    pub(crate) fn observable(&self) -> (u32, Vec<u32>, Vec<u32>) {
        let ring = (0..self.filled as u64)
            .filter_map(|r| self.ring_at(r))
            .collect();
        (self.last, ring, self.pairs.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_duplicates_and_wraps() {
        let mut p = Predictors::new();
        p.grow(300);
        for id in [5, 6, 5, 7] {
            p.touch(id);
        }
        assert_eq!(p.ring_at(0), Some(7));
        assert_eq!(p.ring_at(1), Some(5));
        assert_eq!(p.ring_at(2), Some(6));
        assert_eq!(p.ring_at(3), Some(5));
        assert_eq!(p.ring_at(4), None);
        assert_eq!(p.rank_of(5), Some(1));
        for id in 100..300 {
            p.touch(id);
        }
        assert_eq!(p.ring_at(0), Some(299));
        assert_eq!(p.ring_at(127), Some(172));
        assert_eq!(p.ring_at(128), None);
        assert_eq!(p.rank_of(5), None);
    }

    #[test]
    fn pairs_and_repeat() {
        let mut p = Predictors::new();
        p.grow(10);
        p.touch(1);
        p.touch(2);
        assert_eq!(p.pair_after(1), Some(2));
        p.repeat(2);
        assert_eq!(p.pair_after(2), Some(2));
        assert_eq!(p.last(), Some(2));
        p.reset_last();
        p.touch(3);
        assert_eq!(p.pair_after(2), Some(2), "no pair across an inline value");
        assert_eq!(p.pair_after(9), None);
    }

    #[test]
    fn rollback_restores_exactly() {
        let mut p = Predictors::new();
        p.grow(4);
        p.touch(0);
        p.touch(1);
        let before = p.clone();
        let m = p.mark();
        p.grow(6);
        p.touch(4);
        p.touch(0);
        p.repeat(0);
        p.touch(5);
        p.rollback(&m, 4);
        assert_eq!(p, before);
    }
}
