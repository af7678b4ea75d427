//! The dictionary file (`docs/SPEC.md` §25.3): a magic, a version, then the intern entries,
//! each a length-and-kind varint and its bytes.
//!
//! ```text
//! file  := 'Q' 'D' 'F' 'D'  0x01  uvarint(count)  entry{count}
//! entry := uvarint(len << 1 | kind)  bytes[len]        kind 0 = string (UTF-8), 1 = bytes
//! ```
//!
//! Strict, so a dictionary has exactly one file and one id: minimal varints, no empty or
//! repeated entry, nothing after the last entry. Bounded: the count is checked against the
//! remaining input before anything is allocated (an entry takes at least 2 bytes), so a
//! hostile file costs memory in proportion to its length, and the caps below hold.

use crate::dense::Kind;
use crate::error::{Error, ErrorCode, Result};
use crate::wire::varint::{read_uvarint, write_uvarint};

/// The file's first 4 bytes.
pub(crate) const MAGIC: [u8; 4] = *b"QDFD";
/// The only file version this library writes and reads.
pub(crate) const VERSION: u8 = 0x01;
/// Most entries in one dictionary: the wire's id space (`docs/SPEC.md` §16.1).
pub(crate) const MAX_ENTRIES: usize = 0xFFFF;
/// Longest entry, in bytes: what a session encoder interns at most by default
/// (`max_intern_bytes / 64`).
pub(crate) const MAX_ENTRY_LEN: usize = 64 << 10;
/// Most bytes of entries in one dictionary (16 MiB).
pub(crate) const MAX_TOTAL_BYTES: usize = 16 << 20;

/// Appends the file of `entries` (already checked) to `out`.
pub(crate) fn write<'a>(
    out: &mut Vec<u8>,
    entries: impl ExactSizeIterator<Item = (Kind, &'a [u8])>,
) {
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    write_uvarint(out, entries.len() as u64);
    for (kind, bytes) in entries {
        write_uvarint(out, (bytes.len() as u64) << 1 | (kind == Kind::Bin) as u64);
        out.extend_from_slice(bytes);
    }
}

/// Where entry `i` starts in the file [`write`] makes of `entries`.
pub(crate) fn entry_offset(entries: &[(Kind, Vec<u8>)], i: usize) -> usize {
    let mut scratch = Vec::with_capacity(10);
    let mut varint = |v: u64| {
        scratch.clear();
        write_uvarint(&mut scratch, v);
        scratch.len()
    };
    let head = MAGIC.len() + 1 + varint(entries.len() as u64);
    let before: usize = entries[..i]
        .iter()
        .map(|(_, b)| varint((b.len() as u64) << 1) + b.len())
        .sum();
    head + before
}

/// Parses a file into its entries (borrowed from `file`), in id order. Duplicates are the
/// caller's check (it builds the index that finds them).
///
/// Errors, at the offset of the failing byte: `UnexpectedEof` for a file cut short;
/// `BadMagic`, `BadVersion`; `NonMinimal` / `VarintOverflow` for a varint; `LengthOverrun`
/// for a count the rest cannot hold; `BadDictionary` for an empty entry or past the caps
/// [`MAX_ENTRIES`], [`MAX_ENTRY_LEN`], [`MAX_TOTAL_BYTES`]; `InvalidUtf8` for a string
/// entry; `TrailingBytes` after the last entry.
pub(crate) fn parse(file: &[u8]) -> Result<Vec<(Kind, &[u8])>> {
    let mut pos = 0;
    for (i, &m) in MAGIC.iter().enumerate() {
        match file.get(i) {
            None => return Err(eof(i, "the dictionary magic 'QDFD'")),
            Some(&b) if b != m => return Err(Error::at(ErrorCode::BadMagic, i as u64)),
            Some(_) => pos = i + 1,
        }
    }
    match file.get(pos) {
        None => return Err(eof(pos, "the dictionary file version")),
        Some(&VERSION) => pos += 1,
        Some(&v) => return Err(Error::at(ErrorCode::BadVersion(v), pos as u64)),
    }
    let count = varint(file, &mut pos, "the entry count")?;
    let remaining = (file.len() - pos) as u64;
    if count > remaining / 2 {
        let code = ErrorCode::LengthOverrun {
            len: count,
            remaining,
        };
        return Err(Error::at(code, pos as u64));
    }
    if count > MAX_ENTRIES as u64 {
        return Err(bad("more than 65 535 entries", pos));
    }
    let mut entries = Vec::with_capacity(count as usize);
    let mut total = 0usize;
    for _ in 0..count {
        let at = pos;
        let head = varint(file, &mut pos, "an entry's length and kind")?;
        let kind = if head & 1 == 0 { Kind::Str } else { Kind::Bin };
        let len = head >> 1;
        if len == 0 {
            return Err(bad("an empty entry", at));
        }
        if len > MAX_ENTRY_LEN as u64 {
            return Err(bad("an entry longer than 65 536 bytes", at));
        }
        let len = len as usize;
        let Some(bytes) = file.get(pos..pos + len) else {
            return Err(eof(file.len(), "an entry's bytes"));
        };
        total += len;
        if total > MAX_TOTAL_BYTES {
            return Err(bad("more than 16 MiB of entries", at));
        }
        if kind == Kind::Str
            && let Err(e) = crate::utf8::utf8(bytes)
        {
            let at = pos + e.valid_up_to();
            return Err(Error::at(ErrorCode::InvalidUtf8, at as u64));
        }
        pos += len;
        entries.push((kind, bytes));
    }
    if pos != file.len() {
        let n = (file.len() - pos) as u64;
        return Err(Error::at(ErrorCode::TrailingBytes(n), pos as u64));
    }
    Ok(entries)
}

/// A minimal uvarint at `*pos`, advancing it; a file that ends inside it is
/// `UnexpectedEof` naming `what` it was.
fn varint(file: &[u8], pos: &mut usize, what: &'static str) -> Result<u64> {
    let (v, used) = read_uvarint(&file[*pos..]).map_err(|e| {
        if e.is_eof() {
            eof(file.len(), what)
        } else {
            e.with_offset(*pos as u64)
        }
    })?;
    *pos += used;
    Ok(v)
}

#[cold]
pub(crate) fn bad(what: &'static str, at: usize) -> Error {
    Error::at(ErrorCode::BadDictionary(what), at as u64)
}

#[cold]
fn eof(at: usize, expected: &'static str) -> Error {
    Error::at(ErrorCode::UnexpectedEof { expected }, at as u64)
}
