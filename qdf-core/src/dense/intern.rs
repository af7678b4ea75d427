//! The intern table: sequential ids from 0, never evicted one by one (`docs/SPEC.md` §14.1); a
//! session renewal (`docs/SPEC.md` §18) clears it whole.
//!
//! All entries live in one byte arena with an end offset per id, so a session of 65 535
//! entries costs the bytes themselves plus 9 bytes per id (an 8-byte end offset and a kind
//! byte; the encoder's index adds about 5 more), not one heap block per string.
//! The encoder also keeps a content index (a `hashbrown::HashTable<u32>` of ids hashed by
//! their arena bytes, so content is stored once), fronted by a 256-slot direct-mapped cache
//! (1 KiB) selected by a cheap hash of the length and the outer bytes: a session's recurring
//! values hit it and skip the seeded hash and the probe. A slot is only a hint: every hit is
//! compared with the arena, so a stale slot (after a rollback) or a collision costs the full
//! lookup, never a wrong id. The decoder never looks up by content and skips both.
//!
//! Strings and byte strings are keyed by `(kind, content)`: a `&str` and an equal `&[u8]`
//! get different ids. The Go library keys by content alone; qdf-rs separates them so a
//! back-reference keeps the kind of its definition (`E0` or `E2`) and `deserialize_any`
//! never turns bytes into a string. The decoder accepts either kind wherever a string or
//! bytes are read (a reference to an `E2` entry read as a string is UTF-8 checked).
//!
//! A table may sit on a shared, frozen **base** (a pre-shared dictionary's entries,
//! `docs/SPEC.md` §25): the base holds ids `0..n`, this table's own entries continue at `n`.
//! Starting from a base costs one `Arc` clone, never a copy; a lookup asks the base's index,
//! then the table's own, with one hash (the table takes the base's hasher). Without a base
//! `base_len` is 0 and the only extra work is a compare with it.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::short::{eq_short, outer_hash};

/// The kind an intern entry was defined with: `E0` (string) or `E2` (bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// Defined by `E0 intern_str`; its bytes are valid UTF-8.
    Str,
    /// Defined by `E2 intern_bin`.
    Bin,
}

/// The index hash of an entry: the bytes' hash, its lowest bit flipped for byte strings (one
/// hasher round per lookup; hashing a `(kind, bytes)` tuple costs a second one).
#[inline]
fn content_hash(hasher: &DefaultHashBuilder, bytes: &[u8], kind: Kind) -> u64 {
    hasher.hash_one(bytes) ^ (kind == Kind::Bin) as u64
}

/// Slots of the encoder's front cache (a power of two).
const CACHE_SLOTS: usize = 256;

/// An empty cache slot.
const NO_ID: u32 = u32::MAX;

/// The cache slot of `(bytes, kind)`: [`outer_hash`] of the bytes with the kind folded in
/// (not seeded: a collision only sends the lookup to the index).
#[inline(always)]
fn cache_slot(bytes: &[u8], kind: Kind) -> usize {
    let h = outer_hash(bytes, (kind == Kind::Bin) as u64);
    (h >> (64 - CACHE_SLOTS.trailing_zeros())) as usize
}

/// A lookup that missed ([`InternTable::find_or_hash`]): what defining the value next
/// ([`InternTable::push_hashed`]) would otherwise compute again.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Miss {
    /// The value's front-cache slot.
    slot: usize,
    /// Its [`content_hash`] (slot and hash are 0 when the table has no index, as
    /// [`InternTable::push`] makes them).
    hash: u64,
}

/// The encoder's content → id lookup: the index and its front cache.
#[derive(Clone)]
struct Index {
    table: HashTable<u32>,
    /// Recently found or defined ids by [`cache_slot`], [`NO_ID`] when empty.
    cache: Box<[u32; CACHE_SLOTS]>,
}

/// Sequential id → bytes storage, with an optional content → id index (encoder).
#[derive(Clone)]
pub(crate) struct InternTable {
    /// The shared entries below this table's own (ids `0..base_len`), if any.
    base: Option<Arc<InternTable>>,
    /// Entries of `base` (0 without one): own entry `i` is id `base_len + i`.
    base_len: u32,
    /// The entries' bytes, back to back; empty when `keep` is off.
    arena: Vec<u8>,
    /// The bytes are kept (encoders, session decoders). A decoder of one body serves every
    /// reference from the input (entries defined in the body lie there), so it only counts.
    keep: bool,
    /// `ends[id]` is the arena offset one past entry `id`.
    ends: Vec<usize>,
    kinds: Vec<Kind>,
    index: Option<Index>,
    hasher: DefaultHashBuilder,
}

impl std::fmt::Debug for InternTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InternTable")
            .field("base", &self.base_len)
            .field("entries", &self.ends.len())
            .field("bytes", &self.arena.len())
            .finish()
    }
}

impl InternTable {
    /// An empty table; `indexed` builds the content index (encoder side).
    pub(crate) fn new(indexed: bool) -> Self {
        InternTable {
            base: None,
            base_len: 0,
            arena: Vec::new(),
            keep: true,
            ends: Vec::new(),
            kinds: Vec::new(),
            index: indexed.then(|| Index {
                table: HashTable::new(),
                cache: Box::new([NO_ID; CACHE_SLOTS]),
            }),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// A decoder's table that counts entries and bytes without keeping the bytes
    /// ([`get`](Self::get) is then always `None`).
    pub(crate) fn new_uncopied() -> Self {
        InternTable {
            keep: false,
            ..InternTable::new(false)
        }
    }

    /// This table on top of the frozen `base`, whose entries become ids `0..base.len()`
    /// (its own base, if any, is not looked at: a base is a flat table). O(1).
    pub(crate) fn on_base(mut self, base: Arc<InternTable>) -> Self {
        self.base_len = base.len();
        self.hasher = base.hasher.clone();
        self.base = Some(base);
        self
    }

    /// Number of entries (the next id), the base's included.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.base_len + self.ends.len() as u32
    }

    /// Entries of the base (0 without one).
    #[inline]
    pub(crate) fn base_len(&self) -> u32 {
        self.base_len
    }

    /// Bytes held in the arena (the base's not counted: they are shared).
    #[inline]
    pub(crate) fn byte_len(&self) -> u64 {
        self.ends.last().map_or(0, |&e| e as u64)
    }

    /// The bytes and kind of entry `id`, if defined (a base entry also when the table does
    /// not keep its own bytes).
    #[inline(always)]
    pub(crate) fn get(&self, id: u32) -> Option<(&[u8], Kind)> {
        if id < self.base_len {
            return self.base.as_deref()?.get(id);
        }
        if !self.keep {
            return None;
        }
        let i = (id - self.base_len) as usize;
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some((&self.arena[start..end], self.kinds[i]))
    }

    /// The kind of entry `id`, if defined (kept also when the bytes are not).
    #[inline]
    pub(crate) fn kind(&self, id: u32) -> Option<Kind> {
        if id < self.base_len {
            return self.base.as_deref()?.kind(id);
        }
        self.kinds.get((id - self.base_len) as usize).copied()
    }

    #[inline]
    fn hash(&self, bytes: &[u8], kind: Kind) -> u64 {
        content_hash(&self.hasher, bytes, kind)
    }

    /// Whether entry `id` exists and is `(bytes, kind)`.
    #[inline(always)]
    fn holds(&self, id: u32, bytes: &[u8], kind: Kind) -> bool {
        if id < self.base_len {
            return self
                .base
                .as_deref()
                .is_some_and(|b| b.holds(id, bytes, kind));
        }
        let i = id.wrapping_sub(self.base_len) as usize;
        let Some(&end) = self.ends.get(i) else {
            return false;
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.kinds[i] == kind && eq_short(&self.arena[start..end], bytes)
    }

    /// The id of `(bytes, kind)` if its front-cache slot holds it (`None` is only "not
    /// there": [`find`](Self::find) gives the answer).
    #[inline(always)]
    pub(crate) fn cached(&self, bytes: &[u8], kind: Kind) -> Option<u32> {
        let id = self.index.as_ref()?.cache[cache_slot(bytes, kind)];
        self.holds(id, bytes, kind).then_some(id)
    }

    /// The id of `(bytes, kind)` if interned: the front cache, else the index (which then
    /// fills the cache slot). Always `None` without an index.
    #[inline]
    pub(crate) fn find(&mut self, bytes: &[u8], kind: Kind) -> Option<u32> {
        self.find_or_hash(bytes, kind).ok()
    }

    /// [`find`](Self::find), and on a miss the [`Miss`] to define the value with
    /// ([`push_hashed`](Self::push_hashed)) without hashing it again. Without an index
    /// every value misses (its `Miss` carries no hash: none is needed). Always inline: the
    /// encoder's miss path must keep it in line although [`find`](Self::find) calls it too.
    #[inline(always)]
    pub(crate) fn find_or_hash(&mut self, bytes: &[u8], kind: Kind) -> Result<u32, Miss> {
        let Some(index) = self.index.as_ref() else {
            return Err(Miss { slot: 0, hash: 0 });
        };
        let slot = cache_slot(bytes, kind);
        let cached = index.cache[slot];
        if self.holds(cached, bytes, kind) {
            return Ok(cached);
        }
        let hash = self.hash(bytes, kind);
        let id = self
            .find_indexed(hash, bytes, kind)
            .ok_or(Miss { slot, hash })?;
        if let Some(index) = self.index.as_mut() {
            index.cache[slot] = id;
        }
        Ok(id)
    }

    /// The base's id of `(bytes, kind)`, `None` if the base does not hold it or there is no
    /// base (the table's own entries are not looked at).
    pub(crate) fn find_in_base(&self, bytes: &[u8], kind: Kind) -> Option<u32> {
        let base = self.base.as_deref()?;
        base.find_hashed(self.hash(bytes, kind), bytes, kind)
    }

    /// Whether `(bytes, kind)` is interned, as [`find`](Self::find) answers but leaving the
    /// front cache as it is (for estimates made before anything is written).
    pub(crate) fn contains(&self, bytes: &[u8], kind: Kind) -> bool {
        self.cached(bytes, kind).is_some()
            || self
                .find_indexed(self.hash(bytes, kind), bytes, kind)
                .is_some()
    }

    /// The index lookup alone of `(bytes, kind)` whose [`content_hash`] is `h`: the base's
    /// index first (same hasher, so the same hash), then the table's own.
    fn find_indexed(&self, h: u64, bytes: &[u8], kind: Kind) -> Option<u32> {
        let index = self.index.as_ref()?;
        if let Some(base) = self.base.as_deref()
            && let Some(id) = base.find_hashed(h, bytes, kind)
        {
            return Some(id);
        }
        index
            .table
            .find(h, |&id| self.holds(id, bytes, kind))
            .copied()
    }

    /// The own index's lookup of `(bytes, kind)` whose [`content_hash`] is `h`.
    fn find_hashed(&self, h: u64, bytes: &[u8], kind: Kind) -> Option<u32> {
        let index = self.index.as_ref()?;
        index
            .table
            .find(h, |&id| self.holds(id, bytes, kind))
            .copied()
    }

    /// Appends an entry and returns its id. Caps are the caller's business.
    pub(crate) fn push(&mut self, bytes: &[u8], kind: Kind) -> u32 {
        // A decoder's table has no index: no hash or cache slot to compute.
        let miss = match self.index {
            Some(_) => Miss {
                slot: cache_slot(bytes, kind),
                hash: self.hash(bytes, kind),
            },
            None => Miss { slot: 0, hash: 0 },
        };
        self.push_hashed(bytes, kind, miss)
    }

    /// [`push`](Self::push) of a value [`find_or_hash`](Self::find_or_hash) just missed,
    /// with that `miss` (its hash and cache slot, so the value is hashed once). The table
    /// must not have changed in between.
    pub(crate) fn push_hashed(&mut self, bytes: &[u8], kind: Kind, miss: Miss) -> u32 {
        let id = self.len();
        let end = self.ends.last().map_or(0, |&e| e) + bytes.len();
        if self.keep {
            self.arena.extend_from_slice(bytes);
        }
        self.ends.push(end);
        self.kinds.push(kind);
        if let Some(index) = self.index.as_mut() {
            debug_assert_eq!(miss.hash, content_hash(&self.hasher, bytes, kind));
            debug_assert_eq!(miss.slot, cache_slot(bytes, kind));
            let (arena, ends, kinds, hasher) = (&self.arena, &self.ends, &self.kinds, &self.hasher);
            let base_len = self.base_len;
            index.table.insert_unique(miss.hash, id, |&other| {
                let i = (other - base_len) as usize;
                let start = if i == 0 { 0 } else { ends[i - 1] };
                content_hash(hasher, &arena[start..ends[i]], kinds[i])
            });
            index.cache[miss.slot] = id;
        }
        id
    }

    /// Drops every entry with id ≥ `len` (encoder rollback; never the base's). Costs
    /// O(entries dropped).
    pub(crate) fn truncate(&mut self, len: u32) {
        let len = len.max(self.base_len);
        while self.len() > len {
            let id = self.len() - 1;
            if self.index.is_some() {
                let (bytes, kind) = self.get(id).expect("id < len");
                let h = self.hash(bytes, kind);
                if let Some(index) = self.index.as_mut()
                    && let Ok(entry) = index.table.find_entry(h, |&x| x == id)
                {
                    entry.remove();
                }
            }
            self.ends.pop();
            self.kinds.pop();
            let end = self.ends.last().copied().unwrap_or(0);
            self.arena.truncate(end);
        }
    }

    /// Drops every own entry, keeping the allocations and the base (a renewal,
    /// `docs/SPEC.md` §18, returns to the dictionary's state, §25).
    pub(crate) fn clear(&mut self) {
        self.arena.clear();
        self.ends.clear();
        self.kinds.clear();
        if let Some(index) = self.index.as_mut() {
            index.table.clear();
            index.cache.fill(NO_ID);
        }
    }

    /// Heap bytes held: the arena, the per-id vectors, and the encoder's index and front
    /// cache (capacities, as allocated). A base is shared, so not counted.
    pub(crate) fn heap_bytes(&self) -> u64 {
        let index = self.index.as_ref().map_or(0, |i| {
            i.table.allocation_size() + std::mem::size_of::<[u32; CACHE_SLOTS]>()
        });
        (self.arena.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.kinds.capacity() * std::mem::size_of::<Kind>()
            + index) as u64
    }
}

#[cfg(test)]
mod tests;
