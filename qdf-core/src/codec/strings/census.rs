//! The distinct values of a string column, found in one hashing pass: each row's value as
//! a first-seen rank, and per distinct value its first row and its row count. The picker
//! reads the constant check, the distinct ratio of the head and the dictionary from it, and
//! the columnar writer the size of the per-value form, so no column is hashed twice.
//!
//! Counting is lazy past the first [`HEAD`] rows: [`Census::finish`] counts the rest, and
//! [`Census::per_value_exceeds`] only as many rows as its answer needs. The per-value size
//! is `Σ rows base + Σ distinct long values extra` (see [`Census::per_value`]), so the rows
//! counted so far give a floor that only grows; a block of a mostly distinct column (ids,
//! hashes) is usually decided long before its last row.
//!
//! Lookups go through a 256-slot direct-mapped cache by [`outer_hash`] (a low-cardinality
//! column's values hit it and skip the seeded hash), then a seeded `HashTable` of ranks;
//! every cache hit is compared with the bytes, so a collision only costs the full lookup.

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use super::MAX_DICT;
use super::table::Dict;
use crate::short::{eq_short, outer_hash};
use crate::wire::form::text_len;
use crate::wire::varint::uvarint_len;

/// Whether a value is already interned (see [`Census::with_known`]).
pub(crate) type Known<'v> = &'v dyn Fn(&[u8]) -> bool;

/// Rows counted up front: the head whose distinct ratio the picker reads, and after which
/// the capacity for the rest is chosen.
pub(crate) const HEAD: usize = 64;

/// Rows counted at a time by [`Census::per_value_exceeds`].
const STEP: usize = 64;

/// Slots of the front cache (a power of two).
const CACHE_SLOTS: usize = 256;

/// The distinct values of a column of `values`, counted up to some row.
pub(crate) struct Census<'v> {
    values: &'v [&'v [u8]],
    /// Per counted row, the first-seen rank of its value.
    ids: Vec<u32>,
    /// Per rank, the row where the value first appears.
    first: Vec<u32>,
    /// Per rank, the counted rows holding the value.
    count: Vec<u32>,
    table: HashTable<u32>,
    cache: [u32; CACHE_SLOTS],
    hasher: DefaultHashBuilder,
    /// Values shorter than this are written inline, never interned.
    min_intern: usize,
    /// Values the intern table already holds (a session's, or earlier in the message):
    /// their first sight is a reference too.
    known: Option<Known<'v>>,
    /// The per-value size of the column if no value were new after the counted rows.
    floor: usize,
}

impl<'v> Census<'v> {
    /// [`with_known`](Self::with_known) with no value known (tests only).
    #[cfg(test)]
    pub(crate) fn new(values: &'v [&'v [u8]], min_intern: usize) -> Census<'v> {
        Census::with_known(values, min_intern, None)
    }

    /// The census of `values` (fewer than `u32::MAX` rows, as a column has) with its first
    /// [`HEAD`] rows counted; `min_intern` is the Dense tier's shortest interned length; a
    /// value for which `known` holds is already interned: its first sight counts as a
    /// reference, not a definition.
    pub(crate) fn with_known(
        values: &'v [&'v [u8]],
        min_intern: usize,
        known: Option<Known<'v>>,
    ) -> Census<'v> {
        let n = values.len();
        let head = n.min(HEAD);
        // Every row at its least: inline when short, else a 2-byte reference.
        let floor = values
            .iter()
            .map(|v| match v.len() < min_intern {
                true => text_len(v.len(), true),
                false => 2,
            })
            .sum();
        let mut c = Census {
            values,
            ids: Vec::with_capacity(n),
            first: Vec::with_capacity(head),
            count: Vec::with_capacity(head),
            table: HashTable::with_capacity(head),
            cache: [u32::MAX; CACHE_SLOTS],
            hasher: DefaultHashBuilder::default(),
            min_intern,
            known,
            floor,
        };
        c.count_to(head);
        if n > HEAD && c.first.len() * 2 > HEAD {
            // A mostly distinct head: room for all rows distinct, so nothing rehashes.
            let more = n - HEAD;
            let (values, first, hasher) = (c.values, &c.first, &c.hasher);
            c.table.reserve(more, |&k| {
                hasher.hash_one(values[first[k as usize] as usize])
            });
            c.first.reserve(more);
            c.count.reserve(more);
        }
        c
    }

    /// Counts the rows up to `end`.
    fn count_to(&mut self, end: usize) {
        let values = self.values;
        for row in self.ids.len()..end {
            let v = values[row];
            let slot = (outer_hash(v, 0) >> (64 - CACHE_SLOTS.trailing_zeros())) as usize;
            let hint = self.cache[slot];
            let id = if self
                .first
                .get(hint as usize)
                .is_some_and(|&r| eq_short(values[r as usize], v))
            {
                hint
            } else {
                let (first, hasher) = (&mut self.first, &self.hasher);
                let id = match self.table.entry(
                    hasher.hash_one(v),
                    |&k| eq_short(values[first[k as usize] as usize], v),
                    |&k| hasher.hash_one(values[first[k as usize] as usize]),
                ) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(e) => {
                        let id = first.len() as u32;
                        e.insert(id);
                        first.push(row as u32);
                        self.count.push(0);
                        if v.len() >= self.min_intern && !self.known.is_some_and(|k| k(v)) {
                            // Its first sight is a definition, not a reference.
                            self.floor += uvarint_len(v.len() as u64) + v.len() - 1;
                        }
                        id
                    }
                };
                self.cache[slot] = id;
                id
            };
            self.count[id as usize] += 1;
            self.ids.push(id);
        }
    }

    /// Counts every row.
    pub(crate) fn finish(&mut self) -> &Self {
        self.count_to(self.values.len());
        self
    }

    fn complete(&self) -> bool {
        self.ids.len() == self.values.len()
    }

    /// The rows.
    pub(crate) fn values(&self) -> &'v [&'v [u8]] {
        self.values
    }

    /// Number of distinct values (of every row: [`finish`](Self::finish) first).
    pub(crate) fn distinct(&self) -> usize {
        debug_assert!(self.complete());
        self.first.len()
    }

    /// Number of distinct values among the first `k ≤` [`HEAD`] rows: ranks are first-seen,
    /// so that is one more than the largest rank there.
    pub(crate) fn distinct_in_head(&self, k: usize) -> usize {
        debug_assert!(k <= HEAD);
        self.ids[..k.min(self.ids.len())]
            .iter()
            .max()
            .map_or(0, |&m| m as usize + 1)
    }

    /// Each distinct value with its row count, first-seen order ([`finish`](Self::finish)
    /// first).
    #[cfg(test)] // the writer asks for the size only
    pub(crate) fn counts(&self) -> impl Iterator<Item = (&'v [u8], usize)> + '_ {
        debug_assert!(self.complete());
        self.first
            .iter()
            .zip(&self.count)
            .map(|(&r, &c)| (self.values[r as usize], c as usize))
    }

    /// The dictionary of the column, or `None` above [`MAX_DICT`] distinct values
    /// ([`finish`](Self::finish) first).
    pub(crate) fn dict(&self) -> Option<Dict<'v>> {
        debug_assert!(self.complete());
        if self.distinct() > MAX_DICT {
            return None;
        }
        Some(Dict {
            entries: self
                .first
                .iter()
                .map(|&r| self.values[r as usize])
                .collect(),
            index: self.ids.iter().map(|&k| k as u8).collect(),
        })
    }

    /// The size of the column written per value (Dense strings): a definition
    /// (`1 + uvl(len) + len`) for the first sight of each value of at least `min_intern`
    /// bytes, a 2-byte reference for each repeat, the plain form for shorter values.
    pub(crate) fn per_value(&mut self) -> usize {
        self.finish();
        self.floor
    }

    /// Whether [`per_value`](Self::per_value) is above `cost`, counting rows only until
    /// the floor passes it.
    pub(crate) fn per_value_exceeds(&mut self, cost: usize) -> bool {
        while self.floor <= cost && !self.complete() {
            self.count_to((self.ids.len() + STEP).min(self.values.len()));
        }
        self.floor > cost
    }
}

#[cfg(test)]
mod tests;
