//! The intern table: sequential ids from 0, never evicted (Go notes §1.5 "State").
//!
//! All entries live in one byte arena with an end offset per id, so a session of 65 535
//! entries costs the bytes themselves plus 5 bytes per id, not one heap block per string.
//! The encoder also keeps a content index (a `hashbrown::HashTable<u32>` of ids hashed by
//! their arena bytes, so content is stored once); the decoder never looks up by content and
//! skips it.
//!
//! Strings and byte strings are keyed by `(kind, content)`: a `&str` and an equal `&[u8]`
//! get different ids. The Go library keys by content alone; qdf-rs separates them so a
//! back-reference keeps the kind of its definition (`E0` or `E2`) and `deserialize_any`
//! never turns bytes into a string. The decoder accepts either kind wherever a string or
//! bytes are read (a reference to an `E2` entry read as a string is UTF-8 checked).

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

/// The kind an intern entry was defined with: `E0` (string) or `E2` (bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// Defined by `E0 intern_str`; its bytes are valid UTF-8.
    Str,
    /// Defined by `E2 intern_bin`.
    Bin,
}

/// Sequential id → bytes storage, with an optional content → id index (encoder).
#[derive(Clone)]
pub(crate) struct InternTable {
    arena: Vec<u8>,
    /// `ends[id]` is the arena offset one past entry `id`.
    ends: Vec<usize>,
    kinds: Vec<Kind>,
    index: Option<HashTable<u32>>,
    hasher: DefaultHashBuilder,
}

impl std::fmt::Debug for InternTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InternTable")
            .field("entries", &self.ends.len())
            .field("bytes", &self.arena.len())
            .finish()
    }
}

impl InternTable {
    /// An empty table; `indexed` builds the content index (encoder side).
    pub(crate) fn new(indexed: bool) -> Self {
        InternTable {
            arena: Vec::new(),
            ends: Vec::new(),
            kinds: Vec::new(),
            index: indexed.then(HashTable::new),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// Number of entries (the next id).
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.ends.len() as u32
    }

    /// Bytes held in the arena.
    #[inline]
    pub(crate) fn byte_len(&self) -> u64 {
        self.arena.len() as u64
    }

    /// The bytes and kind of entry `id`, if defined.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<(&[u8], Kind)> {
        let i = id as usize;
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some((&self.arena[start..end], self.kinds[i]))
    }

    fn hash(&self, bytes: &[u8], kind: Kind) -> u64 {
        self.hasher.hash_one((kind, bytes))
    }

    /// The id of `(bytes, kind)` if interned. Always `None` without an index.
    #[inline]
    pub(crate) fn find(&self, bytes: &[u8], kind: Kind) -> Option<u32> {
        let index = self.index.as_ref()?;
        let h = self.hash(bytes, kind);
        index
            .find(h, |&id| self.get(id) == Some((bytes, kind)))
            .copied()
    }

    /// Appends an entry and returns its id. Caps are the caller's business.
    pub(crate) fn push(&mut self, bytes: &[u8], kind: Kind) -> u32 {
        let id = self.len();
        let h = self.hash(bytes, kind);
        self.arena.extend_from_slice(bytes);
        self.ends.push(self.arena.len());
        self.kinds.push(kind);
        if let Some(index) = self.index.as_mut() {
            let (arena, ends, kinds, hasher) = (&self.arena, &self.ends, &self.kinds, &self.hasher);
            index.insert_unique(h, id, |&other| {
                let i = other as usize;
                let start = if i == 0 { 0 } else { ends[i - 1] };
                hasher.hash_one((kinds[i], &arena[start..ends[i]]))
            });
        }
        id
    }

    /// Drops every entry with id ≥ `len` (encoder rollback). Costs O(entries dropped).
    pub(crate) fn truncate(&mut self, len: u32) {
        while self.len() > len {
            let id = self.len() - 1;
            if self.index.is_some() {
                let (bytes, kind) = self.get(id).expect("id < len");
                let h = self.hash(bytes, kind);
                if let Some(index) = self.index.as_mut()
                    && let Ok(entry) = index.find_entry(h, |&x| x == id)
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

    /// Everything a peer could observe, for state comparisons in tests.
    #[cfg(test)]
    pub(crate) fn observable(&self) -> (Vec<u8>, Vec<usize>, Vec<Kind>) {
        (self.arena.clone(), self.ends.clone(), self.kinds.clone())
    }

    /// Checks the index holds exactly the ids of the table (tests).
    #[cfg(test)]
    pub(crate) fn index_consistent(&self) -> bool {
        let Some(index) = self.index.as_ref() else {
            return true;
        };
        index.len() == self.ends.len()
            && (0..self.len()).all(|id| {
                let (b, k) = self.get(id).unwrap();
                self.find(b, k) == Some(id)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sequential_and_kinds_separate() {
        let mut t = InternTable::new(true);
        assert_eq!(t.push(b"alpha", Kind::Str), 0);
        assert_eq!(t.push(b"alpha", Kind::Bin), 1);
        assert_eq!(t.push(b"", Kind::Str), 2);
        assert_eq!(t.find(b"alpha", Kind::Str), Some(0));
        assert_eq!(t.find(b"alpha", Kind::Bin), Some(1));
        assert_eq!(t.find(b"", Kind::Str), Some(2));
        assert_eq!(t.find(b"beta", Kind::Str), None);
        assert_eq!(t.get(1), Some((&b"alpha"[..], Kind::Bin)));
        assert_eq!(t.get(3), None);
        assert_eq!(t.byte_len(), 10);
    }

    #[test]
    fn truncate_removes_from_index() {
        let mut t = InternTable::new(true);
        for i in 0..100u32 {
            t.push(format!("value-{i}").as_bytes(), Kind::Str);
        }
        t.truncate(40);
        assert_eq!(t.len(), 40);
        assert_eq!(t.find(b"value-39", Kind::Str), Some(39));
        assert_eq!(t.find(b"value-40", Kind::Str), None);
        assert_eq!(t.byte_len(), 10 * 7 + 30 * 8);
        assert!(t.index_consistent());
        assert_eq!(t.push(b"value-99", Kind::Str), 40);
        assert!(t.index_consistent());
    }

    #[test]
    fn decoder_table_has_no_index() {
        let mut t = InternTable::new(false);
        t.push(b"abcd", Kind::Str);
        assert_eq!(t.find(b"abcd", Kind::Str), None);
        assert_eq!(t.get(0), Some((&b"abcd"[..], Kind::Str)));
    }
}
