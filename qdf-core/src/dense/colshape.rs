//! The column-shape table of columnar containers (tags `EF`/`F7`, `docs/SPEC.md`
//! §22): the `(name, kind)` lists of declared containers, ids from 1, in an
//! id space of their own (struct shapes have theirs).
//!
//! Each entry is stored in a [`ShapeTable`] as one "name" per column: the column name's
//! bytes followed by its kind byte. So the caps, the charging (`len + 4` bytes per column
//! against the intern byte cap, one entry against the shape cap) and the checkpoint rules are
//! exactly those of struct shapes. The encoder also keeps an index from the encoded list to
//! its id; it is pruned on rollback.

use hashbrown::HashMap;

use super::shape::{ShapeMark, ShapeTable};
use crate::error::Result;

/// Column shapes of one side of a session.
#[derive(Clone, Debug, Default)]
pub(crate) struct ColShapes {
    table: ShapeTable,
    /// Encoder only: the encoded `(name, kind)` list → id.
    index: HashMap<Vec<u8>, u32>,
    /// Heap bytes of the keys of `index` (their capacities).
    key_bytes: usize,
}

/// The column-shape table's sizes at a checkpoint.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ColShapeMark(ShapeMark);

impl ColShapes {
    /// Number of column shapes defined (the last id).
    pub(crate) fn len(&self) -> u32 {
        self.table.len()
    }

    /// Bytes charged against the byte cap.
    pub(crate) fn charged(&self) -> u64 {
        self.table.charged()
    }

    /// The id of the list whose encoding ([`encode_key`]) is `key` (encoder).
    pub(crate) fn find(&self, key: &[u8]) -> Option<u32> {
        self.index.get(key).copied()
    }

    /// Number of columns of shape `id`.
    pub(crate) fn columns(&self, id: u32) -> Option<usize> {
        self.table.field_count(id)
    }

    /// Column `i` of shape `id`: its name and kind byte.
    pub(crate) fn column(&self, id: u32, i: usize) -> Option<(&[u8], u8)> {
        let e = self.table.field_name(id, i)?;
        let (&kind, name) = e.split_last()?;
        Some((name, kind))
    }

    /// Defines the next shape from `cols`, within the caps (`SessionCap` beyond them).
    /// `remember` keeps the encoder's index.
    pub(crate) fn define(
        &mut self,
        cols: &[(&[u8], u8)],
        shape_cap: u32,
        byte_cap: u64,
        remember: bool,
    ) -> Result<u32> {
        self.table.begin_decl();
        let mut buf = Vec::new();
        for &(name, kind) in cols {
            buf.clear();
            buf.extend_from_slice(name);
            buf.push(kind);
            self.table.decl_name(&buf);
        }
        let id = self.table.end_decl(shape_cap, byte_cap)?;
        if remember {
            let key = encode_key(cols);
            let cap = key.capacity();
            if self.index.insert(key, id).is_none() {
                self.key_bytes += cap;
            }
        }
        Ok(id)
    }

    /// The sizes for a checkpoint.
    pub(crate) fn mark(&self) -> ColShapeMark {
        ColShapeMark(self.table.mark())
    }

    /// Restores `mark`.
    pub(crate) fn rollback(&mut self, mark: &ColShapeMark) {
        self.table.rollback(&mark.0);
        let n = self.table.len();
        self.index.retain(|_, id| *id <= n);
        self.key_bytes = self.index.keys().map(Vec::capacity).sum();
    }

    /// Drops every column shape, keeping the allocations (a renewal).
    pub(crate) fn clear(&mut self) {
        self.table.clear();
        self.index.clear();
        self.key_bytes = 0;
    }

    /// Heap bytes held: the table, and the encoder's index with its keys.
    pub(crate) fn heap_bytes(&self) -> u64 {
        self.table.heap_bytes() + (self.index.allocation_size() + self.key_bytes) as u64
    }
}

/// The lookup key of a `(name, kind)` list: per column `uvarint(len) name kind`.
pub(crate) fn encode_key(cols: &[(&[u8], u8)]) -> Vec<u8> {
    let mut k = Vec::new();
    for &(name, kind) in cols {
        crate::wire::varint::write_uvarint(&mut k, name.len() as u64);
        k.extend_from_slice(name);
        k.push(kind);
    }
    k
}

#[cfg(test)]
mod tests;
