//! Pre-shared dictionaries (`docs/SPEC.md` §25): Dense state both sides hold before the first
//! byte, so a one-shot message, a single HTTP body or the first frames of a stream refer to
//! common strings instead of defining them.
//!
//! A [`Dictionary`] is a frozen list of intern entries (strings and byte strings, ids `0..n`)
//! and of struct shapes (field-name lists, shape ids `1..=s`):
//! - [`file`]: its stable file format and the checks on hostile files;
//! - [`id`]: its content hash, [`DictionaryId`], written after a header with flag `20`;
//! - [`train`]: which entries to keep, from sample values;
//! - [`registry`]: the dictionaries a process shares across its connections, with rotation.
//!
//! Encoders and decoders start from it in O(1): their intern table and shape table take the
//! dictionary's as shared bases (`Arc`s), their own entries following at id `n` and their
//! own shapes at id `s + 1`.

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

use crate::dense::{BaseShapes, DictBase, InternTable, Kind};
use crate::error::Result;
use crate::options::Options;
use crate::value::Value;

/// A pre-shared dictionary: intern entries (strings and byte strings) and struct shapes
/// that a message or stream naming it (header flag `20`, then [`id`](Self::id),
/// `docs/SPEC.md` §25) starts from, as entry ids `0..len()` and shape ids
/// `1..=shape_count()`.
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
/// share: they continue at id `len()`), each 1 to 65 536 bytes; at most 4 096 shapes (they
/// count toward a session's `max_shapes`), each of 1 or more field names up to 65 536
/// bytes; 16 MiB of entries and names in all.
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
    /// The shapes, frozen: the base of every shape table started from this dictionary.
    shapes: Arc<BaseShapes>,
    /// Bytes of the shortest entry (`usize::MAX` without entries).
    min_len: usize,
}

impl Dictionary {
    /// Reads a dictionary file (`docs/SPEC.md` §25.3), as written by
    /// [`to_bytes`](Self::to_bytes). Memory is O(`file.len()`).
    ///
    /// Errors, each with the byte offset in `file`: a file cut short (`UnexpectedEof`,
    /// `LengthOverrun`: `Eof`); a magic other than `QDFD` (`BadMagic`), a version other than
    /// 1 or 2 (`BadVersion`), a non-minimal varint (`NonMinimal`), a string entry or field
    /// name that is not UTF-8 (`InvalidUtf8`), an empty or repeated entry or shape, a
    /// version 2 file without shapes, or past the limits
    /// ([`ErrorCode::BadDictionary`](crate::ErrorCode::BadDictionary)): `Syntax`; bytes after
    /// the end (`TrailingBytes`, `Data`).
    pub fn from_bytes(file: &[u8]) -> Result<Dictionary> {
        let parsed = file::parse(file)?;
        let table = index(file, &parsed.entries)?;
        let shapes = BaseShapes::new(parsed.shapes.iter().map(|names| &names[..]));
        let min_len = parsed.entries.iter().map(|(_, b)| b.len()).min();
        let (id, sha256) = DictionaryId::of_file(file);
        Ok(Dictionary {
            id,
            sha256,
            entries: Arc::new(table),
            shapes: Arc::new(shapes),
            min_len: min_len.unwrap_or(usize::MAX),
        })
    }

    /// The dictionary file (`docs/SPEC.md` §25.3): `QDFD`, version `01` and the entries, or
    /// version `02`, the entries and the shapes. [`from_bytes`](Self::from_bytes) of it
    /// gives this dictionary back, with the same id.
    pub fn to_bytes(&self) -> Vec<u8> {
        let t = &*self.entries;
        let mut out = Vec::with_capacity(8 + t.byte_len() as usize + 3 * t.len() as usize);
        file::write(&mut out, self.entry_list(), &self.shape_lists());
        out
    }

    /// The entries in id order.
    fn entry_list(&self) -> impl ExactSizeIterator<Item = (Kind, &[u8])> {
        let t = &*self.entries;
        (0..t.len()).map(|id| {
            let (bytes, kind) = t.get(id).expect("id < len");
            (kind, bytes)
        })
    }

    /// The shapes' field names in id order.
    fn shape_lists(&self) -> Vec<Vec<&[u8]>> {
        (1..=self.shapes.len())
            .map(|id| self.shapes.names(id).collect())
            .collect()
    }

    /// This dictionary with `shapes` added after its own (ids continue at
    /// `shape_count() + 1`): each the field names of a struct in serialization order, as
    /// the encoder declares them (`docs/SPEC.md` §15). An encoder on the dictionary writes a
    /// struct (or, with `MAP_SHAPE`, a string-keyed map) whose field count and first field
    /// name match a dictionary shape as the reuse of that shape (`EC id`) instead of
    /// declaring it, from the first message on. The result is a new dictionary (file
    /// version 2, another id).
    ///
    /// Errors: [`ErrorCode::BadDictionary`](crate::ErrorCode::BadDictionary) for a shape with
    /// no field, a repeated shape, or past the limits of [`Dictionary`].
    ///
    /// ```
    /// use qdf_core::{Dictionary, Options};
    ///
    /// #[derive(serde::Serialize)]
    /// struct Point { x: i32, y: i32 }
    ///
    /// let dict = Dictionary::from_strs(["checkout"])?.with_shapes([["x", "y"]])?;
    /// let msg = qdf_core::to_vec_with_dictionary(&Point { x: 1, y: 2 }, Options::balanced(), &dict)?;
    /// // the reuse of shape 1, then the values: no field name on the wire
    /// assert_eq!(msg[13..], [0xec, 0x01, 0x01, 0x02]);
    /// # Ok::<(), qdf_core::Error>(())
    /// ```
    pub fn with_shapes<I, L, S>(&self, shapes: I) -> Result<Dictionary>
    where
        I: IntoIterator<Item = L>,
        L: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let added: Vec<Vec<S>> = shapes
            .into_iter()
            .map(|l| l.into_iter().collect())
            .collect();
        let mut lists = self.shape_lists();
        lists.extend(
            added
                .iter()
                .map(|l| l.iter().map(|s| s.as_ref().as_bytes()).collect()),
        );
        let entries: Vec<(Kind, Vec<u8>)> =
            self.entry_list().map(|(k, b)| (k, b.to_vec())).collect();
        Dictionary::from_parts(&entries, &lists)
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
    /// converting one, returned as is) and the shapes each sample's message declares.
    pub(crate) fn train_values(
        samples: impl Iterator<Item = Result<Value>>,
        shapes: &[Vec<Vec<Vec<u8>>>],
        opts: Options,
        budget: usize,
    ) -> Result<Dictionary> {
        let (shapes, used) = train::select_shapes(shapes, budget);
        let entries = train::select(samples, &shapes, &opts, budget - used)?;
        let lists: Vec<Vec<&[u8]>> = shapes
            .iter()
            .map(|l| l.iter().map(Vec::as_slice).collect())
            .collect();
        Dictionary::from_parts(&entries, &lists)
    }

    fn from_entries(entries: &[(Kind, Vec<u8>)]) -> Result<Dictionary> {
        Dictionary::from_parts(entries, &[])
    }

    fn from_parts(entries: &[(Kind, Vec<u8>)], shapes: &[Vec<&[u8]>]) -> Result<Dictionary> {
        // The parser checks the count against the bytes first (§25.3), so a file of empty
        // entries reads as cut short (Eof); a list in memory is whole: name the entry.
        if let Some(i) = entries.iter().position(|(_, b)| b.is_empty()) {
            return Err(file::bad("an empty entry", file::entry_offset(entries, i)));
        }
        if shapes.iter().any(|names| names.is_empty()) {
            let at = file::entry_offset(entries, entries.len());
            return Err(file::bad("an empty shape", at));
        }
        let mut bytes = Vec::new();
        file::write(
            &mut bytes,
            entries.iter().map(|(k, b)| (*k, &b[..])),
            shapes,
        );
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

    /// Whether it has no entry (valid; it may still pre-load shapes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the entries' contents, summed.
    pub fn content_bytes(&self) -> u64 {
        self.entries.byte_len()
    }

    /// Heap bytes the dictionary holds (shared by its clones): the entries, their offsets
    /// and kinds, and the hash index that finds them; the shapes and their index.
    pub fn heap_bytes(&self) -> u64 {
        self.entries.heap_bytes() + self.shapes.heap_bytes()
    }

    /// Shapes (ids `1..=shape_count()`; 0 for a version 1 file).
    pub fn shape_count(&self) -> usize {
        self.shapes.len() as usize
    }

    /// The field names of shape `id` (`1..=shape_count()`), `None` for another id.
    pub fn shape(&self, id: usize) -> Option<Vec<&str>> {
        let id = u32::try_from(id)
            .ok()
            .filter(|&i| i >= 1 && i <= self.shapes.len())?;
        let names = self.shapes.names(id);
        // The file's names were checked as UTF-8 when it was read.
        Some(
            names
                .map(|n| std::str::from_utf8(n).unwrap_or_default())
                .collect(),
        )
    }

    /// Entry `id`: its bytes and whether it is a string (`true`) or a byte string.
    pub fn entry(&self, id: usize) -> Option<(&[u8], bool)> {
        let id = u32::try_from(id).ok()?;
        self.entries.get(id).map(|(b, k)| (b, k == Kind::Str))
    }

    /// The frozen tables that encoders and decoders take as their bases.
    pub(crate) fn base(&self) -> DictBase {
        DictBase {
            entries: Arc::clone(&self.entries),
            shapes: Arc::clone(&self.shapes),
            min_len: self.min_len,
        }
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
            .field("shapes", &self.shape_count())
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
