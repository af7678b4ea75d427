//! The distinct values of a string column, found in one hashing pass: each row's value as
//! a first-seen rank, and per distinct value its first row and its row count. The picker
//! reads the constant check, the distinct ratio of the head and the dictionary from it, and
//! the columnar writer its estimate of the per-value form, so no column is hashed twice.
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

/// Rows counted before the capacity for the rest is chosen.
const HEAD: usize = 64;

/// Slots of the front cache (a power of two).
const CACHE_SLOTS: usize = 256;

/// The distinct values of a column of `values`.
pub(crate) struct Census<'v> {
    values: &'v [&'v [u8]],
    /// Per row, the first-seen rank of its value.
    ids: Vec<u32>,
    /// Per rank, the row where the value first appears.
    first: Vec<u32>,
    /// Per rank, the rows holding the value.
    count: Vec<u32>,
}

impl<'v> Census<'v> {
    /// Counts the distinct values of `values` (at most `u32::MAX` rows; a column has fewer).
    pub(crate) fn new(values: &'v [&'v [u8]]) -> Census<'v> {
        let hasher = DefaultHashBuilder::default();
        let n = values.len();
        let head = n.min(HEAD);
        let mut table: HashTable<u32> = HashTable::with_capacity(head);
        let mut cache = [u32::MAX; CACHE_SLOTS];
        let mut c = Census {
            values,
            ids: Vec::with_capacity(n),
            first: Vec::with_capacity(head),
            count: Vec::with_capacity(head),
        };
        for (row, &v) in values.iter().enumerate() {
            if row == HEAD && c.first.len() * 2 > HEAD {
                // A mostly distinct head: room for all rows distinct, so nothing rehashes.
                let more = n - HEAD;
                table.reserve(more, |&k| hasher.hash_one(values[c.first[k as usize] as usize]));
                c.first.reserve(more);
                c.count.reserve(more);
            }
            let slot = (outer_hash(v, 0) >> (64 - CACHE_SLOTS.trailing_zeros())) as usize;
            let hint = cache[slot];
            let id = if c
                .first
                .get(hint as usize)
                .is_some_and(|&r| eq_short(values[r as usize], v))
            {
                hint
            } else {
                let (first, count) = (&mut c.first, &mut c.count);
                let h = hasher.hash_one(v);
                let id = match table.entry(
                    h,
                    |&k| eq_short(values[first[k as usize] as usize], v),
                    |&k| hasher.hash_one(values[first[k as usize] as usize]),
                ) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(e) => {
                        let id = first.len() as u32;
                        e.insert(id);
                        first.push(row as u32);
                        count.push(0);
                        id
                    }
                };
                cache[slot] = id;
                id
            };
            c.count[id as usize] += 1;
            c.ids.push(id);
        }
        c
    }

    /// The rows.
    pub(crate) fn values(&self) -> &'v [&'v [u8]] {
        self.values
    }

    /// Number of distinct values.
    pub(crate) fn distinct(&self) -> usize {
        self.first.len()
    }

    /// Number of distinct values among the first `k` rows: ranks are first-seen, so that is
    /// one more than the largest rank there.
    pub(crate) fn distinct_in_head(&self, k: usize) -> usize {
        self.ids[..k.min(self.ids.len())]
            .iter()
            .max()
            .map_or(0, |&m| m as usize + 1)
    }

    /// Each distinct value with its row count, first-seen order.
    pub(crate) fn counts(&self) -> impl Iterator<Item = (&'v [u8], usize)> + '_ {
        self.first
            .iter()
            .zip(&self.count)
            .map(|(&r, &c)| (self.values[r as usize], c as usize))
    }

    /// The dictionary of the column, or `None` above [`MAX_DICT`] distinct values.
    pub(crate) fn dict(&self) -> Option<Dict<'v>> {
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
}

#[cfg(test)]
mod tests {
    use super::super::testutil::strs;
    use super::*;

    #[test]
    fn ranks_counts_and_head() {
        let vals = strs(&["b", "a", "b", "", "a", "b", "long value past the cache words"]);
        let c = Census::new(&vals);
        assert_eq!(c.ids, [0, 1, 0, 2, 1, 0, 3]);
        assert_eq!(c.distinct(), 4);
        assert_eq!((c.distinct_in_head(3), c.distinct_in_head(100)), (2, 4));
        let counts: Vec<_> = c.counts().collect();
        assert_eq!(counts[..3], [(&b"b"[..], 3), (&b"a"[..], 2), (&b""[..], 1)]);
        let d = c.dict().unwrap();
        assert_eq!(d.entries, strs(&["b", "a", "", "long value past the cache words"]));
        assert_eq!(d.index, [0, 1, 0, 2, 1, 0, 3]);
        assert_eq!(Census::new(&[]).distinct_in_head(64), 0);
    }

    /// Values that share their outer bytes and length share a cache slot: each is still
    /// told apart by its bytes.
    #[test]
    fn cache_collisions_are_compared() {
        let owned: Vec<String> = (0..600)
            .map(|i| format!("abcdefgh{:04}ijklmnop", i % 300))
            .collect();
        let vals: Vec<&[u8]> = owned.iter().map(|s| s.as_bytes()).collect();
        let c = Census::new(&vals);
        assert_eq!(c.distinct(), 300);
        assert!(c.dict().is_none(), "above 256 distinct values");
        assert!(c.counts().all(|(_, n)| n == 2));
        assert_eq!(c.ids[300..], c.ids[..300]);
    }
}
