//! State-ref predictors (`docs/SPEC.md` §14): `lastID` (Markov-0 repeat, `E8`), the 128-slot ring
//! of pushes (MTF, `E9`) and the Markov-1 pair table (`EA`).
//!
//! The ring keeps duplicates: rank `r` names the id pushed `r` pushes ago, not a
//! deduplicated LRU position. The Go library falls back to an LRU walk for ranks ≥ 128;
//! qdf-rs never emits such ranks and rejects them (`docs/SPEC.md`, Appendix B). The pair
//! table maps `prev → succ + 1` (0 = empty) and is written on every definition and reference
//! that has a valid `lastID`, on both sides.
//!
//! The ring's 128 ranks live in 256 physical slots indexed by a wrapping `u8` head, so the
//! first 128 pushes after an encoder checkpoint land in slots outside the checkpoint's
//! window: a checkpoint records the head alone, and only a message that pushes more than 128
//! times copies the window (once) before it overwrites it.

/// Ranks of the MTF ring (Go `ringSize`).
pub(crate) const RING: usize = 128;

/// Physical ring slots: twice the ranks, one per `u8` head value.
const SLOTS: usize = 2 * RING;

use hashbrown::HashMap;

/// `lastID` marker for "invalid" (no preceding interned value).
const NO_LAST: u32 = u32::MAX;

/// The predictor state. Ids are `u32` here; the wire caps them below 0xFFFF.
#[derive(Clone, Debug)]
pub(crate) struct Predictors {
    last: u32,
    /// Rank `r` is `ring[head - 1 - r]` (wrapping), for `r < filled`.
    ring: Box<[u32; SLOTS]>,
    /// Next ring slot to write.
    head: u8,
    /// Valid ranks, 0..=128.
    filled: u8,
    /// `pairs[prev - base] = succ + 1`, 0 when empty; one slot per own intern id.
    pairs: Vec<u32>,
    /// The same for a dictionary's ids (`prev < base`, `docs/SPEC.md` §25), sparse: a
    /// message touches few of them, and starting from a dictionary stays O(1).
    base_pairs: HashMap<u32, u32>,
    /// Entries of the dictionary the table starts from (0 without one).
    base: u32,
    /// Undo log of pair writes `(prev, old value)` while an encoder checkpoint is open.
    undo: Vec<(u32, u32)>,
    logging: bool,
    /// The head at which the next push would overwrite the open checkpoint's window (the
    /// mark's head + 128), or [`NO_GUARD`] when no window needs saving.
    guard: u16,
    /// The checkpoint's window (ranks 0..128 at the mark, newest first), copied before the
    /// 129th push of a checkpoint overwrites it.
    saved: Option<Box<[u32; RING]>>,
    saved_valid: bool,
}

/// What [`Predictors::trial`] restores: the small state, the whole ring (a trial is rare and
/// short, so a copy is simpler than the checkpoint's window), the logs' lengths.
#[derive(Clone, Debug)]
pub(crate) struct PredTrial {
    last: u32,
    head: u8,
    filled: u8,
    guard: u16,
    saved_valid: bool,
    logging: bool,
    undo: usize,
    pairs: usize,
    ring: Box<[u32; SLOTS]>,
}

/// [`Predictors::guard`] outside a checkpoint (no `u8` head equals it).
const NO_GUARD: u16 = 0x100;

/// The part of [`Predictors`] an encoder checkpoint records (the ring window stays in place,
/// see the module docs; the pair table is restored from the undo log).
#[derive(Copy, Clone, Debug)]
pub(crate) struct PredMark {
    last: u32,
    head: u8,
    filled: u8,
}

impl Predictors {
    /// Fresh state: no last id, an empty ring, no pairs.
    pub(crate) fn new() -> Self {
        Predictors {
            last: NO_LAST,
            ring: Box::new([0; SLOTS]),
            head: 0,
            filled: 0,
            pairs: Vec::new(),
            base_pairs: HashMap::new(),
            base: 0,
            undo: Vec::new(),
            logging: false,
            guard: NO_GUARD,
            saved: None,
            saved_valid: false,
        }
    }

    /// This fresh state for a table on a dictionary's `base` ids (`docs/SPEC.md` §25).
    pub(crate) fn set_base(&mut self, base: u32) {
        debug_assert!(self.pairs.is_empty() && self.last().is_none());
        self.base = base;
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

    /// Grows the pair table for a definition that made the table `len` long (one definition
    /// at a time: a push, not a `resize`).
    #[inline]
    pub(crate) fn grow(&mut self, len: u32) {
        if self.pairs.len() + 1 == len.wrapping_sub(self.base) as usize {
            self.pairs.push(0);
        }
    }

    /// Adds empty pair slots up to own index `own` (a table whose slots lag its length).
    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, own: usize) {
        self.pairs.resize(own + 1, 0);
    }

    /// The pair prediction after `prev`, if any.
    #[inline]
    pub(crate) fn pair_after(&self, prev: u32) -> Option<u32> {
        let s = if prev < self.base {
            self.base_pairs.get(&prev).copied()
        } else {
            self.pairs.get((prev - self.base) as usize).copied()
        };
        match s {
            Some(s) if s != 0 => Some(s - 1),
            _ => None,
        }
    }

    /// Puts back a logged pair slot's `old` value.
    fn restore_pair(&mut self, prev: u32, old: u32) {
        if prev < self.base {
            if old == 0 {
                self.base_pairs.remove(&prev);
            } else {
                self.base_pairs.insert(prev, old);
            }
        } else if let Some(slot) = self.pairs.get_mut((prev - self.base) as usize) {
            *slot = old;
        }
    }

    /// The raw `lastID` ([`NO_LAST`] when invalid), for the encoder's fast path.
    #[inline(always)]
    pub(crate) fn last_raw(&self) -> u32 {
        self.last
    }

    #[inline(always)]
    fn record_pair(&mut self, prev: u32, id: u32) {
        let slot = if prev < self.base {
            self.base_pairs.entry(prev).or_insert(0)
        } else {
            let own = (prev - self.base) as usize;
            if own >= self.pairs.len() {
                self.grow_to(own);
            }
            &mut self.pairs[own]
        };
        // Unchanged (the common case in a steady stream): nothing to write or undo.
        if *slot != id + 1 {
            if self.logging {
                self.undo.push((prev, *slot));
            }
            *slot = id + 1;
        }
    }

    /// `E8`: the repeat of `lastID` records the pair `(id, id)` and touches nothing else.
    #[inline]
    pub(crate) fn repeat(&mut self, id: u32) {
        self.record_pair(id, id);
    }

    /// A definition or a non-repeat reference of `id`: push it on the ring, record
    /// `(lastID, id)` and make it `lastID`.
    #[inline(always)]
    pub(crate) fn touch(&mut self, id: u32) {
        if self.head as u16 == self.guard {
            self.save_window();
        }
        self.ring[self.head as usize] = id;
        self.head = self.head.wrapping_add(1);
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
        Some(self.ring[self.head.wrapping_sub(1 + rank as u8) as usize])
    }

    /// The 129th push since the checkpoint is about to overwrite the checkpoint's window
    /// (the head reached the guard): copy it (ranks relative to the mark's head, which is
    /// `head - 128` now).
    #[cold]
    #[inline(never)]
    fn save_window(&mut self) {
        let mark_head = self.head.wrapping_sub(RING as u8);
        let saved = self.saved.get_or_insert_with(|| Box::new([0; RING]));
        for (r, v) in saved.iter_mut().enumerate() {
            *v = self.ring[mark_head.wrapping_sub(1 + r as u8) as usize];
        }
        self.saved_valid = true;
        self.guard = NO_GUARD;
    }

    /// The smallest rank at which the ring holds `id`.
    pub(crate) fn rank_of(&self, id: u32) -> Option<u64> {
        (0..self.filled as u64).find(|&r| self.ring_at(r) == Some(id))
    }

    /// Starts an encoder checkpoint: copies the small state and logs pair writes from now on.
    pub(crate) fn mark(&mut self) -> PredMark {
        self.undo.clear();
        self.logging = true;
        self.guard = self.head.wrapping_add(RING as u8) as u16;
        self.saved_valid = false;
        PredMark {
            last: self.last,
            head: self.head,
            filled: self.filled,
        }
    }

    /// Ends the checkpoint, keeping the changes. The undo log keeps at most
    /// [`UNDO_KEEP`](super::shape::UNDO_KEEP) entries allocated, so one long message's log
    /// is not held for the rest of the session.
    pub(crate) fn commit(&mut self) {
        self.undo.clear();
        if self.undo.capacity() > super::shape::UNDO_KEEP {
            self.undo.shrink_to(super::shape::UNDO_KEEP);
        }
        self.logging = false;
        self.guard = NO_GUARD;
        self.saved_valid = false;
    }

    /// Restores the state of `mark`; `table_len` is the intern table length at the mark.
    pub(crate) fn rollback(&mut self, mark: &PredMark, table_len: u32) {
        while let Some((prev, old)) = self.undo.pop() {
            self.restore_pair(prev, old);
        }
        self.pairs
            .truncate(table_len.saturating_sub(self.base) as usize);
        if self.saved_valid
            && let Some(saved) = self.saved.as_deref()
        {
            for (r, &v) in saved.iter().enumerate() {
                self.ring[mark.head.wrapping_sub(1 + r as u8) as usize] = v;
            }
        }
        self.last = mark.last;
        self.head = mark.head;
        self.filled = mark.filled;
        self.logging = false;
        self.guard = NO_GUARD;
        self.saved_valid = false;
    }

    /// Starts a trial (see [`DenseState::trial`](super::DenseState::trial)), inside a
    /// checkpoint or not: pair writes are logged from now on.
    pub(crate) fn trial(&mut self) -> PredTrial {
        let t = PredTrial {
            last: self.last,
            head: self.head,
            filled: self.filled,
            guard: self.guard,
            saved_valid: self.saved_valid,
            logging: self.logging,
            undo: self.undo.len(),
            pairs: self.pairs.len(),
            ring: self.ring.clone(),
        };
        self.logging = true;
        t
    }

    /// Keeps the changes of trial `t`: inside a checkpoint its log entries stay for the
    /// checkpoint's rollback.
    pub(crate) fn trial_keep(&mut self, t: PredTrial) {
        if !t.logging {
            self.undo.clear();
            self.logging = false;
        }
    }

    /// Restores the state at trial `t` exactly.
    pub(crate) fn trial_rollback(&mut self, t: PredTrial) {
        while self.undo.len() > t.undo {
            let (prev, old) = self.undo.pop().expect("longer than the mark");
            self.restore_pair(prev, old);
        }
        self.pairs.truncate(t.pairs);
        self.ring = t.ring;
        self.last = t.last;
        self.head = t.head;
        self.filled = t.filled;
        self.guard = t.guard;
        self.saved_valid = t.saved_valid;
        self.logging = t.logging;
    }

    /// Back to the fresh state (a renewal), keeping the allocations; outside a checkpoint.
    pub(crate) fn renew(&mut self) {
        self.last = NO_LAST;
        self.ring.fill(0);
        self.head = 0;
        self.filled = 0;
        self.pairs.clear();
        self.base_pairs.clear();
        self.undo.clear();
        self.logging = false;
        self.guard = NO_GUARD;
        self.saved_valid = false;
    }

    /// Heap bytes held: the ring, the pair table, the undo log and the saved window.
    pub(crate) fn heap_bytes(&self) -> u64 {
        use std::mem::size_of;
        (size_of::<[u32; SLOTS]>()
            + self.pairs.capacity() * size_of::<u32>()
            + self.base_pairs.allocation_size()
            + self.undo.capacity() * size_of::<(u32, u32)>()
            + self.saved.as_ref().map_or(0, |_| size_of::<[u32; RING]>())) as u64
    }
}

#[cfg(test)]
mod tests;
