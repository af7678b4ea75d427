//! The shape table: field-name lists of structs (tag `EC`), ids from 1 (`docs/SPEC.md` §15).
//!
//! One id space holds struct shapes and map key-set shapes (feature `MAP_SHAPE`). A declaration
//! interleaves names and values (`EC 00 N`, then N × (name, value), `docs/SPEC.md` §15),
//! so names arrive one at a time and declarations nest (a field's value may declare another
//! shape). Open declarations live on a LIFO stack; a shape gets its id when its declaration
//! completes, on both sides, so an inner shape gets the smaller id.
//!
//! Memory: every stored name is charged `len + 4` bytes against the shape byte cap (the
//! intern byte cap), and the number of shapes against the shape cap. The decoder rejects a
//! declaration that would exceed either with [`ErrorCode::SessionCap`].
//!
//! A table may sit on a shared, frozen **base**: a pre-shared dictionary's shapes
//! (`docs/SPEC.md` §25.2), ids `1..=n` and stored names `0..m`; the table's own shapes and
//! names continue after them. Starting from a base costs one `Arc` clone; the base's shapes
//! count toward the shape cap (they hold ids) but not toward the byte cap.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::{DefaultHashBuilder, HashMap, HashSet};

use crate::error::{Error, ErrorCode, Result};

/// Bytes charged per stored field name on top of its length (its offset entry).
pub(crate) const NAME_OVERHEAD: u64 = 4;

/// Shape id → field names, plus the stack of declarations in progress.
#[derive(Clone, Debug, Default)]
pub(crate) struct ShapeTable {
    /// A dictionary's shapes, or `None`.
    base: Option<Arc<BaseShapes>>,
    names: Vec<u8>,
    /// `name_ends[k]` is the offset one past stored name `k` in `names`.
    name_ends: Vec<usize>,
    /// `shape_ends[id - 1]` is one past the last name index of shape `id`.
    shape_ends: Vec<usize>,
    charged: u64,
    /// Names of open declarations, innermost last, and where each declaration starts.
    pending: Vec<u8>,
    pending_ends: Vec<usize>,
    open: Vec<usize>,
}

/// The shape table's sizes at an encoder checkpoint or trial (a trial may start inside
/// open declarations, which its rollback keeps).
#[derive(Copy, Clone, Debug)]
pub(crate) struct ShapeMark {
    shapes: usize,
    names: usize,
    bytes: usize,
    charged: u64,
    pending: usize,
    pending_ends: usize,
    open: usize,
}

impl ShapeTable {
    /// Number of shapes defined (the last id).
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.base_shapes() + self.shape_ends.len() as u32
    }

    /// Shapes declared on this table (the base's not counted).
    #[inline]
    pub(crate) fn own_len(&self) -> u32 {
        self.shape_ends.len() as u32
    }

    /// This (empty) table on top of the frozen `base`, whose shapes become ids
    /// `1..=base.len()` and whose names the first stored names. O(1).
    pub(crate) fn on_base(mut self, base: Arc<BaseShapes>) -> Self {
        debug_assert!(self.shape_ends.is_empty() && self.open.is_empty());
        self.base = (base.table.len() > 0).then_some(base);
        self
    }

    /// Shapes of the base (0 without one).
    #[inline(always)]
    fn base_shapes(&self) -> u32 {
        self.base
            .as_deref()
            .map_or(0, |b| b.table.shape_ends.len() as u32)
    }

    /// The first shape of the base with `count` fields whose first name is `first` (the
    /// encoder's pick for a struct or map no prediction covers), `None` without one.
    pub(crate) fn base_shape(&self, count: usize, first: &[u8]) -> Option<u32> {
        let b = self.base.as_deref()?;
        let (_, id) = b.by_first.get(first)?.iter().find(|&&(n, _)| n == count)?;
        Some(*id)
    }

    /// Bytes charged against the cap so far.
    #[inline]
    pub(crate) fn charged(&self) -> u64 {
        self.charged
    }

    /// Declarations begun but not completed.
    #[inline]
    pub(crate) fn open_count(&self) -> usize {
        self.open.len()
    }

    /// The stored-name indices of shape `id`'s fields, `None` if undefined.
    #[inline]
    pub(crate) fn name_range(&self, id: u32) -> Option<std::ops::Range<usize>> {
        let (table, id, offset) = match self.base.as_deref().map(|b| &b.table) {
            Some(b) if id as usize <= b.shape_ends.len() => (b, id, 0),
            Some(b) => (self, id - b.shape_ends.len() as u32, b.name_ends.len()),
            None => (self, id, 0),
        };
        let i = (id as usize).checked_sub(1)?;
        let end = *table.shape_ends.get(i)?;
        let start = if i == 0 { 0 } else { table.shape_ends[i - 1] };
        Some(offset + start..offset + end)
    }

    /// [`name_range`](Self::name_range), empty if undefined.
    #[inline]
    pub(crate) fn name_indices(&self, id: u32) -> std::ops::Range<usize> {
        self.name_range(id).unwrap_or(0..0)
    }

    /// Stored name `k` (an index from [`name_range`](Self::name_range)).
    #[inline(always)]
    pub(crate) fn name_at(&self, k: usize) -> Option<&[u8]> {
        let (table, k) = match self.base.as_deref().map(|b| &b.table) {
            Some(b) if k < b.name_ends.len() => (b, k),
            Some(b) => (self, k - b.name_ends.len()),
            None => (self, k),
        };
        let end = *table.name_ends.get(k)?;
        let start = if k == 0 { 0 } else { table.name_ends[k - 1] };
        table.names.get(start..end)
    }

    /// Whether stored name `k` (an index from [`name_range`](Self::name_range)) is `name`.
    #[inline(always)]
    pub(crate) fn name_at_is(&self, k: usize, name: &[u8]) -> bool {
        self.name_at(k)
            .is_some_and(|n| crate::short::eq_short(n, name))
    }

    /// Number of fields of shape `id`, `None` if undefined (id 0 is never a shape).
    #[inline]
    pub(crate) fn field_count(&self, id: u32) -> Option<usize> {
        self.name_range(id).map(|r| r.len())
    }

    /// Field name `i` of shape `id`.
    #[inline]
    pub(crate) fn field_name(&self, id: u32, i: usize) -> Option<&[u8]> {
        let r = self.name_range(id)?;
        if i >= r.len() {
            return None;
        }
        self.name_at(r.start + i)
    }

    /// Whether field name `i` of shape `id` is `name` (false if there is no such field).
    #[inline]
    pub(crate) fn name_is(&self, id: u32, i: usize, name: &[u8]) -> bool {
        self.field_name(id, i)
            .is_some_and(|n| crate::short::eq_short(n, name))
    }

    /// Opens a declaration (after `EC 00 N`).
    pub(crate) fn begin_decl(&mut self) {
        self.open.push(self.pending_ends.len());
    }

    /// Drops the innermost open declaration, which has no name yet (its header was
    /// replaced by a reuse).
    pub(crate) fn abort_decl(&mut self) {
        debug_assert_eq!(self.open.last(), Some(&self.pending_ends.len()));
        self.open.pop();
    }

    /// Adds the next field name of the innermost open declaration.
    pub(crate) fn decl_name(&mut self, name: &[u8]) {
        self.pending.extend_from_slice(name);
        self.pending_ends.push(self.pending.len());
    }

    /// Completes the innermost declaration and defines its shape, returning the new id.
    /// `shape_cap` and `byte_cap` are this side's caps; over them the shape is refused with
    /// [`ErrorCode::SessionCap`] and the declaration is dropped.
    pub(crate) fn end_decl(&mut self, shape_cap: u32, byte_cap: u64) -> Result<u32> {
        let first = self.open.pop().expect("end_decl without begin_decl");
        let base = if first == 0 {
            0
        } else {
            self.pending_ends[first - 1]
        };
        let count = self.pending_ends.len() - first;
        let bytes = self.pending.len() - base;
        let cost = bytes as u64 + NAME_OVERHEAD * count as u64;
        let result = if self.len() >= shape_cap.min(u32::MAX - 1) {
            Err(Error::new(ErrorCode::SessionCap {
                what: "shape table entries",
                cap: shape_cap.min(u32::MAX - 1).into(),
                limit: "max_shapes",
            }))
        } else if self.charged.saturating_add(cost) > byte_cap {
            Err(Error::new(ErrorCode::SessionCap {
                what: "shape table bytes",
                cap: byte_cap,
                limit: "max_intern_bytes",
            }))
        } else {
            let names_base = self.names.len();
            self.names.extend_from_slice(&self.pending[base..]);
            for &end in &self.pending_ends[first..] {
                self.name_ends.push(names_base + end - base);
            }
            self.shape_ends.push(self.name_ends.len());
            self.charged += cost;
            Ok(self.len())
        };
        self.pending.truncate(base);
        self.pending_ends.truncate(first);
        result
    }

    /// Records the sizes for an encoder checkpoint (no declaration may be open).
    pub(crate) fn mark(&self) -> ShapeMark {
        ShapeMark {
            shapes: self.shape_ends.len(),
            names: self.name_ends.len(),
            bytes: self.names.len(),
            charged: self.charged,
            pending: self.pending.len(),
            pending_ends: self.pending_ends.len(),
            open: self.open.len(),
        }
    }

    /// Restores the sizes of `mark` and drops the declarations opened since.
    pub(crate) fn rollback(&mut self, mark: &ShapeMark) {
        self.shape_ends.truncate(mark.shapes);
        self.name_ends.truncate(mark.names);
        self.names.truncate(mark.bytes);
        self.charged = mark.charged;
        self.pending.truncate(mark.pending);
        self.pending_ends.truncate(mark.pending_ends);
        self.open.truncate(mark.open);
    }

    /// Drops every own shape, keeping the allocations and the base (a renewal).
    pub(crate) fn clear(&mut self) {
        self.rollback(&ShapeMark {
            shapes: 0,
            names: 0,
            bytes: 0,
            charged: 0,
            pending: 0,
            pending_ends: 0,
            open: 0,
        });
    }

    /// Heap bytes held (capacities): stored names, their offsets, and the buffers of open
    /// declarations.
    pub(crate) fn heap_bytes(&self) -> u64 {
        let word = std::mem::size_of::<usize>();
        (self.names.capacity()
            + self.pending.capacity()
            + word
                * (self.name_ends.capacity()
                    + self.shape_ends.capacity()
                    + self.pending_ends.capacity()
                    + self.open.capacity())) as u64
    }
}

/// A pre-shared dictionary's shapes (`docs/SPEC.md` §25.2), frozen: the base of the shape
/// tables started from the dictionary, with the encoder's index of them.
#[derive(Debug, Default)]
pub(crate) struct BaseShapes {
    table: ShapeTable,
    /// First field name → `(field count, id)` of the shapes starting with it, ids ascending.
    by_first: HashMap<Box<[u8]>, Vec<(usize, u32)>>,
}

impl BaseShapes {
    /// The shapes of `lists` as ids `1..=lists.len()`, in order. No caps apply: the
    /// dictionary file's limits bound them.
    pub(crate) fn new<'a>(lists: impl IntoIterator<Item = &'a [&'a [u8]]>) -> BaseShapes {
        let mut b = BaseShapes::default();
        for names in lists {
            b.table.begin_decl();
            for name in names {
                b.table.decl_name(name);
            }
            let id = b.table.end_decl(u32::MAX, u64::MAX).expect("no cap");
            if let Some(&first) = names.first() {
                b.by_first
                    .entry(first.into())
                    .or_default()
                    .push((names.len(), id));
            }
        }
        b
    }

    /// Number of shapes.
    pub(crate) fn len(&self) -> u32 {
        self.table.len()
    }

    /// Field names of shape `id` (`1..=len()`).
    pub(crate) fn names(&self, id: u32) -> impl Iterator<Item = &[u8]> {
        self.table
            .name_indices(id)
            .filter_map(|k| self.table.name_at(k))
    }

    /// Heap bytes held: the names, their offsets and the index.
    pub(crate) fn heap_bytes(&self) -> u64 {
        self.table.heap_bytes()
            + self.by_first.allocation_size() as u64
            + self
                .by_first
                .iter()
                .map(|(k, v)| (k.len() + v.capacity() * std::mem::size_of::<(usize, u32)>()) as u64)
                .sum::<u64>()
    }
}

/// Encoder-only shape predictions: which shape to try for a struct or a string-keyed map, and
/// which shape holds a given list of names. Predictions are speculative (the serializer checks
/// every name), so hashes stand in for names: a collision costs an escape, never a wrong
/// value.
///
/// Memory is capped: `by_struct` gets new keys only from declarations (at most two per
/// shape, so at most twice the shape cap), `by_names` one per shape, and `escaped_once` is
/// cleared between messages once it holds more than [`ESCAPED_ONCE_CAP`] lists (a stream
/// whose maps keep bringing new key sets would otherwise grow it by one list per message).
/// The undo logs are emptied at every commit and shrunk back to [`UNDO_KEEP`] entries.
#[derive(Clone, Debug, Default)]
pub(crate) struct ShapePredictor {
    /// Structs: `(Struct(name), len, None)` → the shape to try first and
    /// `(Struct(name), len, Some(first))` → a shape starting with that field.
    /// Maps: `(Map, len, Some(first key))` → the shape to try.
    by_struct: HashMap<PredKey, u32>,
    /// Hash of a name list → a shape with those names.
    by_names: HashMap<u64, u32>,
    /// Name lists (hashes) seen in one escape: a second escape to the same list declares it.
    escaped_once: HashSet<u64>,
    /// `escaped_once` insertions while a checkpoint is open.
    undo_escaped: Vec<u64>,
    hasher: DefaultHashBuilder,
    /// Undo log of `by_struct` writes while a checkpoint is open.
    undo: Vec<(PredKey, Option<u32>)>,
    logging: bool,
    /// The last few `by_struct` lookups and their answers, so that a record type's start and
    /// end (and its nested structs) skip hashing the key (its serde name included). Cleared
    /// by every `by_struct` write and by rollback, so it never disagrees with the map.
    recent: [Option<(PredKey, Option<u32>)>; RECENT],
    /// The slot the next lookup that misses `recent` fills.
    recent_next: usize,
}

/// Entries of [`ShapePredictor::recent`].
const RECENT: usize = 4;

/// The most name lists [`ShapePredictor::escaped_once`] keeps across messages (about 64 KiB
/// of hash table). A list that escapes twice within this many other first escapes is still
/// declared; one that escapes more rarely than that stays an escape, which costs bytes, never
/// a wrong value.
pub(crate) const ESCAPED_ONCE_CAP: usize = 4096;

/// Undo-log entries kept allocated after a commit: a long message's log is not held for the
/// rest of the session.
pub(crate) const UNDO_KEEP: usize = 1024;

/// `a == b`, comparing struct names by address first (serde names are `&'static str`s, the
/// same one for every record of a type).
#[inline]
fn same_key(a: &PredKey, b: &PredKey) -> bool {
    a.1 == b.1
        && a.2 == b.2
        && match (a.0, b.0) {
            (Owner::Struct(x), Owner::Struct(y)) => std::ptr::eq(x, y) || x == y,
            (Owner::Map, Owner::Map) => true,
            _ => false,
        }
}

/// Whose shape a prediction is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Owner {
    /// A struct (or struct variant) by its serde name.
    Struct(&'static str),
    /// A map whose keys are strings (feature `MAP_SHAPE`).
    Map,
}

/// `(owner, announced length, hash of the first name)`.
pub(crate) type PredKey = (Owner, usize, Option<NamesHash>);

/// The running hash of a list of field names, fed one name at a time.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct NamesHash(u64);

impl ShapePredictor {
    /// The shape to try for `key`.
    #[inline]
    pub(crate) fn predict(&mut self, key: PredKey) -> Option<u32> {
        if let Some((_, id)) = self
            .recent
            .iter()
            .flatten()
            .find(|(k, _)| same_key(k, &key))
        {
            return *id;
        }
        let id = self.by_struct.get(&key).copied();
        self.recent[self.recent_next] = Some((key, id));
        self.recent_next = (self.recent_next + 1) % RECENT;
        id
    }

    /// Feeds the next field name into `h`.
    #[inline]
    pub(crate) fn feed(&self, h: NamesHash, field: &[u8]) -> NamesHash {
        NamesHash(self.hasher.hash_one((h.0, field)))
    }

    fn set(&mut self, key: PredKey, id: Option<u32>) {
        self.recent = [None; RECENT];
        let old = match id {
            Some(id) => self.by_struct.insert(key, id),
            None => self.by_struct.remove(&key),
        };
        if self.logging && old != id {
            self.undo.push((key, old));
        }
    }

    /// A declaration for `key` defined shape `id` with names `h`; `first_key` (structs: the
    /// key with the first field's hash) also predicts it.
    pub(crate) fn declared(
        &mut self,
        key: PredKey,
        first_key: Option<PredKey>,
        h: NamesHash,
        id: u32,
    ) {
        self.by_names.entry(h.0).or_insert(id);
        self.set(key, Some(id));
        if let Some(k) = first_key {
            self.set(k, Some(id));
        }
    }

    /// A record for `key` used shape `id` with no escape.
    #[inline]
    pub(crate) fn used(&mut self, key: PredKey, id: u32) {
        if self.predict(key) != Some(id) {
            self.set(key, Some(id));
        }
    }

    /// A record for `key` escaped from its predicted shape; its names hash to `h`. The next
    /// record tries the shape with those names if there is one. A list with no shape is
    /// declared by the next record only once it has escaped twice, so a rare deviation does
    /// not make the common list be declared again.
    pub(crate) fn escaped(&mut self, key: PredKey, h: NamesHash) {
        if let Some(&id) = self.by_names.get(&h.0) {
            self.set(key, Some(id));
        } else {
            // Outside a checkpoint (one message, or bodies of one `Serializer`) the cap
            // applies at once; inside one it applies at commit, so a rollback stays exact.
            if !self.logging && self.escaped_once.len() >= ESCAPED_ONCE_CAP {
                self.escaped_once.clear();
            }
            if !self.escaped_once.insert(h.0) {
                self.set(key, None);
            } else if self.logging {
                self.undo_escaped.push(h.0);
            }
        }
    }

    /// Starts logging for a checkpoint.
    pub(crate) fn mark(&mut self) {
        self.undo.clear();
        self.undo_escaped.clear();
        self.logging = true;
    }

    /// Ends the checkpoint, keeping the changes; applies the caps.
    pub(crate) fn commit(&mut self) {
        self.undo.clear();
        self.undo_escaped.clear();
        self.logging = false;
        if self.undo.capacity() > UNDO_KEEP
            || self.undo_escaped.capacity() > UNDO_KEEP
            || self.escaped_once.len() > ESCAPED_ONCE_CAP
        {
            self.apply_caps();
        }
    }

    /// Heap bytes held by the prediction maps and undo logs.
    pub(crate) fn heap_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.by_struct.allocation_size()
            + self.by_names.allocation_size()
            + self.escaped_once.allocation_size()
            + self.undo_escaped.capacity() * size_of::<u64>()
            + self.undo.capacity() * size_of::<(PredKey, Option<u32>)>()) as u64
    }

    /// The caps [`commit`](Self::commit) applies (out of line: rarely needed).
    #[cold]
    #[inline(never)]
    fn apply_caps(&mut self) {
        self.undo.shrink_to(UNDO_KEEP);
        self.undo_escaped.shrink_to(UNDO_KEEP);
        if self.escaped_once.len() > ESCAPED_ONCE_CAP {
            // Keeps its allocation: the set refills to the same size.
            self.escaped_once.clear();
        }
    }

    /// Forgets every prediction (they name shape ids, which a renewal drops), keeping the
    /// allocations and the name lists seen once (so a list seen before the renewal is
    /// declared on its next escape).
    pub(crate) fn renew(&mut self) {
        self.by_struct.clear();
        self.by_names.clear();
        self.undo.clear();
        self.undo_escaped.clear();
        self.logging = false;
        self.recent = [None; RECENT];
        self.recent_next = 0;
    }

    /// Starts a trial, inside a checkpoint or not: the undo logs' lengths and whether a
    /// checkpoint logs.
    pub(crate) fn trial(&mut self) -> (usize, usize, bool) {
        let t = (self.undo.len(), self.undo_escaped.len(), self.logging);
        self.logging = true;
        t
    }

    /// Keeps the changes of trial `t` (inside a checkpoint, for its rollback).
    pub(crate) fn trial_keep(&mut self, t: (usize, usize, bool)) {
        if !t.2 {
            self.undo.clear();
            self.undo_escaped.clear();
            self.logging = false;
        }
    }

    /// Restores the predictions of trial `t`; `shapes` is the shape count at the trial.
    pub(crate) fn trial_rollback(&mut self, t: (usize, usize, bool), shapes: u32) {
        self.recent = [None; RECENT];
        while self.undo.len() > t.0 {
            match self.undo.pop().expect("longer than the mark") {
                (key, Some(id)) => self.by_struct.insert(key, id),
                (key, None) => self.by_struct.remove(&key),
            };
        }
        self.by_names.retain(|_, id| *id <= shapes);
        for h in self.undo_escaped.drain(t.1..) {
            self.escaped_once.remove(&h);
        }
        self.logging = t.2;
    }

    /// Restores the predictions of the checkpoint; `shapes` is the shape count at the mark.
    pub(crate) fn rollback(&mut self, shapes: u32) {
        self.logging = false;
        self.recent = [None; RECENT];
        while let Some((key, old)) = self.undo.pop() {
            match old {
                Some(id) => self.by_struct.insert(key, id),
                None => self.by_struct.remove(&key),
            };
        }
        self.by_names.retain(|_, id| *id <= shapes);
        for h in self.undo_escaped.drain(..) {
            self.escaped_once.remove(&h);
        }
    }
}

#[cfg(test)]
mod tests;
