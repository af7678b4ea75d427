//! The encoder's side of `Options::deny_duplicate_keys` (`docs/SPEC.md` §7): a map whose key
//! equals an earlier key of the same map is refused at encode time, so that whatever the
//! encoder accepts a decoder with the same options accepts. Struct field names are not
//! checked (a derived `Serialize` never repeats one, and serde's derived `Deserialize`
//! refuses a repeat with or without the option), which keeps the per-field path free.
//!
//! Equality is the decoder's (`de/dupkeys.rs`): each key is encoded on its own in the Speed
//! tier and decoded into a canonical record, so one string in its several Dense encodings,
//! a string and a byte string with the same bytes, or `1u8` and `1u64` are one key. Costs an
//! encode and a decode of each key, only when the option is on.

use std::collections::HashSet;

use serde::Serialize;

use crate::error::Result;
use crate::options::{Features, Options};

/// The keys one map has written so far, as records.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    seen: HashSet<Vec<u8>>,
    scratch: Vec<u8>,
}

impl super::Serializer {
    /// A key set for a map being opened, when the options deny duplicate keys: its index in
    /// `key_sets`.
    #[inline]
    pub(super) fn open_key_set(&mut self) -> Option<u32> {
        if !self.sink.opts().denies_duplicate_keys() {
            return None;
        }
        self.key_sets.push(KeySet::default());
        Some((self.key_sets.len() - 1) as u32)
    }

    /// Records `key` in key set `i`; see [`KeySet::insert`].
    pub(super) fn insert_key<T: ?Sized + Serialize>(&mut self, i: u32, key: &T) -> Result<()> {
        let at = self.sink.len() as u64;
        let opts = *self.sink.opts();
        self.key_sets[i as usize].insert(key, &opts, at)
    }

    /// Drops key set `i` and any a failed compound inside it left.
    pub(super) fn close_key_set(&mut self, i: u32) {
        self.key_sets.truncate(i as usize);
    }
}

impl KeySet {
    /// Records `key`; a key equal to an earlier one is a `TypeMismatch` error at output offset
    /// `at` (where the key would have been written).
    pub(crate) fn insert<T: ?Sized + Serialize>(
        &mut self,
        key: &T,
        opts: &Options,
        at: u64,
    ) -> Result<()> {
        self.scratch.clear();
        super::encode_body(key, &opts.features(Features::NONE), &mut self.scratch)?;
        let Some(rec) = crate::de::dupkeys::key_record(&self.scratch)? else {
            return Ok(());
        };
        if self.seen.contains(&rec) {
            return Err(crate::de::dupkeys::repeated_key(&rec, at));
        }
        self.seen.insert(rec);
        Ok(())
    }
}
