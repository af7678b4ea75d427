//! Per-field strings of a stream (`docs/SPEC.md` §15.3): with header flag `40`, every slot
//! (field `i` of a reused shape, [`super::numeric`]) also holds the last string its field
//! carried, its *text*, so the next message may write the field as a prefix of that text
//! and a new suffix (`F2 0D uvarint(p) s`).
//!
//! A text is empty, an intern entry (a string defined by `E0` or `F2 0C`: after the read
//! it is `lastID` on both sides), or the slot's own bytes (an inline string, inline hex
//! text or a prefix form). A reference leaves the text as it was, so the common value of
//! a low-cardinality field costs no text work on either side. Own bytes live in one arena with `(offset, len)` per slot; together they
//! hold at most [`LIVE_MAX`] bytes (a string that would pass the bound leaves its slot
//! empty, on both sides alike), and the arena is compacted when it grows past twice that
//! plus 4 KiB while no checkpoint or trial is open, so memory stays O(live). Undo entries
//! are `Copy`: a rollback restores the slots and truncates the arena to its mark (nothing
//! is compacted while a mark is open, so old offsets stay valid).

use crate::wire::tags;

/// The most bytes the own-bytes texts of one side hold together.
pub(crate) const LIVE_MAX: usize = 65_536;

/// Arena slack before a compaction (on top of twice the live bytes).
const SLACK: usize = 4 << 10;

/// Undo-log entries kept allocated after a commit.
const UNDO_KEEP: usize = 1024;

/// One slot's text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Text {
    /// No text: the field carried no string yet (or a renewal emptied it, or the string
    /// passed the live bound).
    #[default]
    Empty,
    /// A string intern entry.
    Entry(u32),
    /// Own bytes: `arena[off..off + len]`.
    Own { off: u32, len: u32 },
}

impl Text {
    /// Own bytes held (0 for the other texts).
    #[inline]
    fn own_len(self) -> usize {
        match self {
            Text::Own { len, .. } => len as usize,
            _ => 0,
        }
    }
}

/// The texts of one side, with the encoder's undo log.
#[derive(Clone, Debug)]
pub(crate) struct TextSlots {
    slots: Vec<Text>,
    arena: Vec<u8>,
    /// Own bytes of the slots' texts.
    live: usize,
    /// `(slot, old text)` of every write while a checkpoint or trial is open.
    undo: Vec<(u32, Text)>,
    logging: bool,
    /// The arena's length at the open checkpoint.
    mark_len: usize,
    /// Encoder: `(at, k)` while the value of slot `k` is being written from `out[at]` (a
    /// string written there is the whole value, `docs/SPEC.md` §15.3), else
    /// [`NO_TEXT_SLOT`]. Here, not in `DenseState`, whose size other sessions' one-shot
    /// messages allocate.
    pub(crate) pending: (usize, usize),
}

/// [`TextSlots::pending`] when no slot's value is being written.
pub(crate) const NO_TEXT_SLOT: (usize, usize) = (usize::MAX, 0);

/// What a [`TextSlots::trial`] restores.
#[derive(Copy, Clone, Debug)]
pub(crate) struct TextTrial {
    undo: usize,
    logging: bool,
    arena: usize,
}

impl Default for TextSlots {
    fn default() -> Self {
        TextSlots {
            slots: Vec::new(),
            arena: Vec::new(),
            live: 0,
            undo: Vec::new(),
            logging: false,
            mark_len: 0,
            pending: NO_TEXT_SLOT,
        }
    }
}

impl TextSlots {
    /// The text of slot `k` (empty beyond the slots used so far).
    #[inline]
    pub(crate) fn get(&self, k: usize) -> Text {
        self.slots.get(k).copied().unwrap_or_default()
    }

    /// The bytes of an own text.
    #[inline]
    pub(crate) fn own(&self, off: u32, len: u32) -> &[u8] {
        &self.arena[off as usize..off as usize + len as usize]
    }

    /// Writes slot `k`, keeping `live` and logging the old text while a mark is open.
    fn set(&mut self, k: usize, t: Text) {
        if k >= self.slots.len() {
            self.slots.resize(k + 1, Text::Empty);
        }
        let old = std::mem::replace(&mut self.slots[k], t);
        self.live = self.live - old.own_len() + t.own_len();
        if self.logging {
            self.undo.push((k as u32, old));
        }
    }

    /// Slot `k`'s field carried the string entry `id`.
    pub(crate) fn set_entry(&mut self, k: usize, id: u32) {
        self.set(k, Text::Entry(id));
    }

    /// Slot `k`'s field carried the string `bytes` as its own bytes: kept, unless the own
    /// texts would then hold more than [`LIVE_MAX`] bytes (the slot is emptied instead).
    pub(crate) fn set_own(&mut self, k: usize, bytes: &[u8]) {
        self.set_own_with(k, bytes.len(), |a| a.extend_from_slice(bytes));
    }

    /// [`set_own`](Self::set_own) of a string of `len` bytes that `fill` appends to the
    /// arena (the digits of hex text, printed in place).
    pub(crate) fn set_own_with(&mut self, k: usize, len: usize, fill: impl FnOnce(&mut Vec<u8>)) {
        let old = self.get(k).own_len();
        if self.live - old + len > LIVE_MAX {
            return self.set(k, Text::Empty);
        }
        if !self.logging && self.arena.len() + len > 2 * self.live + SLACK {
            self.compact();
        }
        let off = self.arena.len() as u32;
        fill(&mut self.arena);
        debug_assert_eq!(self.arena.len(), off as usize + len);
        self.set(
            k,
            Text::Own {
                off,
                len: len as u32,
            },
        );
    }

    /// Rewrites the arena with only the slots' own bytes (no mark open).
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        debug_assert!(!self.logging);
        let mut arena = Vec::with_capacity(2 * self.live + SLACK);
        for t in &mut self.slots {
            if let Text::Own { off, len } = t {
                let start = arena.len() as u32;
                arena.extend_from_slice(&self.arena[*off as usize..(*off + *len) as usize]);
                *off = start;
            }
        }
        self.arena = arena;
    }

    fn undo_to(&mut self, n: usize) {
        while self.undo.len() > n {
            let (k, old) = self.undo.pop().expect("longer than n");
            let cur = std::mem::replace(&mut self.slots[k as usize], old);
            self.live = self.live - cur.own_len() + old.own_len();
        }
    }

    /// Starts logging for an encoder checkpoint.
    #[inline]
    pub(crate) fn mark(&mut self) {
        self.undo.clear();
        self.logging = true;
        self.mark_len = self.arena.len();
        // A slot of the last message is none of this one's: its offset may come again.
        self.pending = NO_TEXT_SLOT;
    }

    /// Keeps the changes since [`mark`](Self::mark) (and compacts if the arena grew past
    /// its bound while the mark was open). Inline: a message that wrote no text (most
    /// messages of most streams) only clears the flag.
    #[inline]
    pub(crate) fn commit(&mut self) {
        self.logging = false;
        if !self.undo.is_empty() || self.arena.len() > self.mark_len {
            self.commit_writes();
        }
    }

    /// [`commit`](Self::commit) of a message that wrote texts.
    #[inline(never)]
    fn commit_writes(&mut self) {
        self.undo.clear();
        if self.undo.capacity() > UNDO_KEEP {
            self.undo.shrink_to(UNDO_KEEP);
        }
        if self.arena.len() > 2 * self.live + SLACK {
            self.compact();
        }
    }

    /// Restores the slots of the last [`mark`](Self::mark).
    pub(crate) fn rollback(&mut self) {
        self.undo_to(0);
        self.arena.truncate(self.mark_len);
        self.logging = false;
        self.pending = NO_TEXT_SLOT;
    }

    /// Starts a trial (inside a checkpoint or not).
    pub(crate) fn trial(&mut self) -> TextTrial {
        let t = TextTrial {
            undo: self.undo.len(),
            logging: self.logging,
            arena: self.arena.len(),
        };
        self.logging = true;
        t
    }

    /// Keeps the changes of trial `t` (inside a checkpoint, for its rollback).
    pub(crate) fn trial_keep(&mut self, t: TextTrial) {
        if !t.logging {
            self.undo.clear();
            self.logging = false;
        }
    }

    /// Restores the slots of trial `t`.
    pub(crate) fn trial_rollback(&mut self, t: TextTrial) {
        self.undo_to(t.undo);
        self.arena.truncate(t.arena);
        self.logging = t.logging;
        // A slot's value from before the trial is not the next string any more.
        self.pending = NO_TEXT_SLOT;
    }

    /// Empties every slot, keeping the allocations (a renewal).
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.arena.clear();
        self.live = 0;
        self.undo.clear();
        self.logging = false;
        self.mark_len = 0;
        self.pending = NO_TEXT_SLOT;
    }

    /// Heap bytes held: slots, arena and undo log, by capacity.
    pub(crate) fn heap_bytes(&self) -> u64 {
        (self.slots.capacity() * std::mem::size_of::<Text>()
            + self.arena.capacity()
            + self.undo.capacity() * std::mem::size_of::<(u32, Text)>()) as u64
    }

    /// Own bytes held by the slots' texts.
    #[cfg(test)]
    pub(crate) fn live(&self) -> usize {
        self.live
    }
}

/// Whether `tag` starts a string a slot's text follows: an inline string (`80`–`9F`,
/// `CD`–`CF`) or a string definition (`E0`). A reference (`E1`, `E8`–`EA`) leaves the text
/// (`docs/SPEC.md` §15.3); hex text and the prefix form (`F2`) are tested apart.
#[inline(always)]
pub(crate) fn is_slot_text(tag: u8) -> bool {
    matches!(
        tag,
        tags::FIXSTR..=tags::FIXSTR_MAX | tags::STR8..=tags::STR32 | tags::INTERN_STR
    )
}

/// The inline string token (`80`–`9F`, `CD`–`CF`) at the front of `b`: its header length
/// and its bytes' length, if `b` starts with one and holds all of it.
#[inline]
pub(crate) fn inline_str(b: &[u8]) -> Option<(usize, usize)> {
    let (&tag, rest) = b.split_first()?;
    let (h, len) = match tag {
        tags::FIXSTR..=tags::FIXSTR_MAX => (1, (tag & 0x1F) as usize),
        tags::STR8 => (2, *rest.first()? as usize),
        tags::STR16 => (
            3,
            u16::from_le_bytes(rest.get(..2)?.try_into().ok()?) as usize,
        ),
        tags::STR32 => (
            5,
            u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize,
        ),
        _ => return None,
    };
    (b.len() >= h + len).then_some((h, len))
}

/// The longest common prefix of `a` and `b` that ends on a UTF-8 character boundary of
/// both (they are UTF-8, so a boundary of one inside the common part is one of the other).
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut n = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Back off continuation bytes (`10xxxxxx`) so the cut is not inside a character.
    while n > 0 && n < a.len() && (a[n] & 0xC0) == 0x80 {
        n -= 1;
    }
    while n > 0 && n < b.len() && (b[n] & 0xC0) == 0x80 {
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests;
