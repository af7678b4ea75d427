//! Pre-shared dictionaries (`docs/SPEC.md` §25): Dense state both sides hold before the first
//! byte, so a one-shot message, a single HTTP body or the first frames of a stream refer to
//! common strings instead of defining them.
//!
//! A [`Dictionary`] is a frozen list of intern entries (strings and byte strings, ids `0..n`):
//! - [`file`]: its stable file format and the checks on hostile files;
//! - [`id`]: its content hash, [`DictionaryId`], written after a header with flag `20`;
//! - [`train`]: which entries to keep, from sample values;
//! - [`registry`]: the dictionaries a process shares across its connections, with rotation.
//!
//! Encoders and decoders start from it in O(1): their intern table takes the dictionary's
//! as a shared base (an `Arc`), its own entries following at id `n`. Only intern entries are
//! pre-loaded, not shapes (§25.2 says why).

mod file;
mod id;
mod registry;
mod train;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

pub use id::{DictionaryId, ParseDictionaryIdError};
pub use registry::{
    DEFAULT_MAX_REGISTRY_BYTES, DictionaryRegistry, REGISTRY_ID_BYTES, RegistryError,
};

use crate::dense::{InternTable, Kind};
use crate::error::Result;
use crate::options::Options;
use crate::value::Value;

/// A pre-shared dictionary: intern entries (strings and byte strings) that a message or
/// stream naming it (header flag `20`, then [`id`](Self::id), `docs/SPEC.md` §25) starts
/// from, as ids `0..len()`.
///
/// Immutable, `Send + Sync` and cheap to clone (the entries sit behind an `Arc`): clone it
/// into every session and handler, or share it through a [`DictionaryRegistry`]. Starting
/// an encoder or decoder from it costs O(1): nothing is copied per message.
///
/// Build one from a file ([`from_bytes`](Self::from_bytes)), by training on sample values
/// ([`train`](Self::train)) or from a list of strings ([`from_strs`](Self::from_strs)); use it
/// with [`to_vec_with_dictionary`](crate::to_vec_with_dictionary),
/// [`from_slice_with_dictionary`](crate::from_slice_with_dictionary) and the sessions'
/// `with_dictionary`.
///
/// Limits: at most 65 535 entries (the wire's id space, which the session's own entries
/// share: they continue at id `len()`), each 1 to 65 536 bytes, 16 MiB in all.
///
/// ```
/// use qdf_core::{Dictionary, Options};
///
/// let dict = Dictionary::from_strs(["checkout", "payment-service"])?;
/// let msg = qdf_core::to_vec_with_dictionary(&("checkout", 7u8), Options::balanced(), &dict)?;
/// // header (flag 20), the dictionary's 8-byte id, then the body: `E1 00` for "checkout"
/// assert_eq!(msg[4], 0x21);
/// assert_eq!(msg[5..13], dict.id().to_bytes());
/// assert_eq!(msg[13..], [0xa2, 0xe1, 0x00, 0x07]);
/// let back: (String, u8) = qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), &dict)?;
/// assert_eq!(back, ("checkout".to_string(), 7));
/// # Ok::<(), qdf_core::Error>(())
/// ```
#[derive(Clone)]
pub struct Dictionary {
    id: DictionaryId,
    sha256: [u8; 32],
    /// The entries as a frozen, indexed intern table: the base of every table started
    /// from this dictionary.
    entries: Arc<InternTable>,
}

impl Dictionary {
    /// Reads a dictionary file (`docs/SPEC.md` §25.3), as written by
    /// [`to_bytes`](Self::to_bytes). Memory is O(`file.len()`).
    ///
    /// Errors, each with the byte offset in `file`: a file cut short (`UnexpectedEof`,
    /// `LengthOverrun`: `Eof`); a magic other than `QDFD` (`BadMagic`), a version other than
    /// 1 (`BadVersion`), a non-minimal varint (`NonMinimal`), a string entry that is not
    /// UTF-8 (`InvalidUtf8`), an empty or repeated entry or one past the limits
    /// ([`ErrorCode::BadDictionary`](crate::ErrorCode::BadDictionary)): `Syntax`; bytes after
    /// the last entry (`TrailingBytes`, `Data`).
    pub fn from_bytes(file: &[u8]) -> Result<Dictionary> {
        let entries = file::parse(file)?;
        let table = index(file, &entries)?;
        let (id, sha256) = DictionaryId::of_file(file);
        Ok(Dictionary {
            id,
            sha256,
            entries: Arc::new(table),
        })
    }

    /// The dictionary file: `QDFD`, version `01`, then the entries (`docs/SPEC.md` §25.3).
    /// [`from_bytes`](Self::from_bytes) of it gives this dictionary back, with the same id.
    pub fn to_bytes(&self) -> Vec<u8> {
        let t = &*self.entries;
        let mut out = Vec::with_capacity(8 + t.byte_len() as usize + 3 * t.len() as usize);
        let entries = (0..t.len()).map(|id| {
            let (bytes, kind) = t.get(id).expect("id < len");
            (kind, bytes)
        });
        file::write(&mut out, entries);
        out
    }

    /// A dictionary of `strings`, in order (the first gets id 0; the first 128 have the
    /// 2-byte references).
    ///
    /// Errors: [`ErrorCode::BadDictionary`](crate::ErrorCode::BadDictionary) for an empty
    /// or repeated string, or past the limits of [`Dictionary`].
    pub fn from_strs<I, S>(strings: I) -> Result<Dictionary>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let entries: Vec<(Kind, Vec<u8>)> = strings
            .into_iter()
            .map(|s| (Kind::Str, s.as_ref().as_bytes().to_vec()))
            .collect();
        Dictionary::from_entries(&entries)
    }

    /// [`train`](Self::train) on samples already converted to [`Value`]s (or the error of
    /// converting one, returned as is).
    pub(crate) fn train_values(
        samples: impl Iterator<Item = Result<Value>>,
        opts: Options,
        budget: usize,
    ) -> Result<Dictionary> {
        Dictionary::from_entries(&train::select(samples, &opts, budget)?)
    }

    fn from_entries(entries: &[(Kind, Vec<u8>)]) -> Result<Dictionary> {
        // The parser checks the count against the bytes first (§25.3), so a file of empty
        // entries reads as cut short (Eof); a list in memory is whole: name the entry.
        if let Some(i) = entries.iter().position(|(_, b)| b.is_empty()) {
            return Err(file::bad("an empty entry", file::entry_offset(entries, i)));
        }
        let mut bytes = Vec::new();
        file::write(&mut bytes, entries.iter().map(|(k, b)| (*k, &b[..])));
        // Through the parser: the same checks, the same errors, as a file read from disk.
        Dictionary::from_bytes(&bytes)
    }

    /// The dictionary's id: the first 8 bytes of the SHA-256 of its file.
    pub fn id(&self) -> DictionaryId {
        self.id
    }

    /// The whole SHA-256 of the file (what HTTP Compression Dictionary Transport, RFC 9842,
    /// names a dictionary by).
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// Entries (ids `0..len()`).
    pub fn len(&self) -> usize {
        self.entries.len() as usize
    }

    /// Whether it has no entry (valid; it pre-loads nothing).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the entries' contents, summed.
    pub fn content_bytes(&self) -> u64 {
        self.entries.byte_len()
    }

    /// Heap bytes the dictionary holds (shared by its clones): the entries, their offsets
    /// and kinds, and the hash index that finds them.
    pub fn heap_bytes(&self) -> u64 {
        self.entries.heap_bytes()
    }

    /// Entry `id`: its bytes and whether it is a string (`true`) or a byte string.
    pub fn entry(&self, id: usize) -> Option<(&[u8], bool)> {
        let id = u32::try_from(id).ok()?;
        self.entries.get(id).map(|(b, k)| (b, k == Kind::Str))
    }

    /// The frozen table that encoders and decoders take as their base.
    pub(crate) fn base(&self) -> Arc<InternTable> {
        Arc::clone(&self.entries)
    }
}

/// The indexed table of `entries` (parsed from `file`); `BadDictionary` for a repeated one,
/// at the offset of its bytes in `file`.
fn index(file: &[u8], entries: &[(Kind, &[u8])]) -> Result<InternTable> {
    let mut t = InternTable::new(true);
    for &(kind, bytes) in entries {
        if t.find(bytes, kind).is_some() {
            let at = bytes.as_ptr() as usize - file.as_ptr() as usize;
            return Err(file::bad("a repeated entry", at));
        }
        t.push(bytes, kind);
    }
    Ok(t)
}

impl fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dictionary")
            .field("id", &self.id)
            .field("entries", &self.len())
            .field("content_bytes", &self.content_bytes())
            .finish()
    }
}

impl PartialEq for Dictionary {
    /// Same file, same dictionary (compared by the full SHA-256).
    fn eq(&self, other: &Self) -> bool {
        self.sha256 == other.sha256
    }
}

impl Eq for Dictionary {}
