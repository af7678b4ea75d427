//! The dictionary file (`docs/SPEC.md` §25.3): a magic, a version, the intern entries, each a
//! length-and-kind varint and its bytes, and (version 2) the struct shapes, each a count and
//! its field names.
//!
//! ```text
//! file   := 'Q' 'D' 'F' 'D'  version  uvarint(count)  entry{count}  [shapes]
//! entry  := uvarint(len << 1 | kind)  bytes[len]        kind 0 = string (UTF-8), 1 = bytes
//! shapes := uvarint(s)  shape{s}                        version 02 only, s ≥ 1
//! shape  := uvarint(n)  (uvarint(len) bytes[len]){n}    n ≥ 1 field names, UTF-8
//! ```
//!
//! Strict, so a dictionary has exactly one file and one id: minimal varints, no empty or
//! repeated entry, no empty or repeated shape, version 2 exactly when there are shapes,
//! nothing after the end. Bounded: every count is checked against the remaining input
//! before anything is allocated (an entry and a shape take at least 2 bytes, a name 1), so a
//! hostile file costs memory in proportion to its length, and the caps below hold.

use crate::dense::Kind;
use crate::error::{Error, ErrorCode, Result};
use crate::wire::varint::{read_uvarint, write_uvarint};

/// The file's first 4 bytes.
pub(crate) const MAGIC: [u8; 4] = *b"QDFD";
/// The file version of a dictionary of intern entries only.
pub(crate) const VERSION: u8 = 0x01;
/// The file version of a dictionary with shapes.
pub(crate) const VERSION_SHAPES: u8 = 0x02;
/// Most shapes in one dictionary: the default shape cap (`Limits::max_shapes`).
pub(crate) const MAX_SHAPES: usize = 4096;
/// Most entries in one dictionary: the wire's id space (`docs/SPEC.md` §16.1).
pub(crate) const MAX_ENTRIES: usize = 0xFFFF;
/// Longest entry, in bytes: what a session encoder interns at most by default
/// (`max_intern_bytes / 64`).
pub(crate) const MAX_ENTRY_LEN: usize = 64 << 10;
/// Most bytes of entries and shape names in one dictionary (16 MiB).
pub(crate) const MAX_TOTAL_BYTES: usize = 16 << 20;

/// A parsed file: the entries in id order and the shapes' field names in id order, all
/// borrowed from the file.
pub(crate) struct Parsed<'a> {
    pub(crate) entries: Vec<(Kind, &'a [u8])>,
    pub(crate) shapes: Vec<Vec<&'a [u8]>>,
}

/// Appends the file of `entries` and `shapes` (already checked) to `out`: version 1 without
/// shapes, 2 with.
pub(crate) fn write<'a, 'b>(
    out: &mut Vec<u8>,
    entries: impl ExactSizeIterator<Item = (Kind, &'a [u8])>,
    shapes: &[Vec<&'b [u8]>],
) {
    out.extend_from_slice(&MAGIC);
    out.push(if shapes.is_empty() {
        VERSION
    } else {
        VERSION_SHAPES
    });
    write_uvarint(out, entries.len() as u64);
    for (kind, bytes) in entries {
        write_uvarint(out, (bytes.len() as u64) << 1 | (kind == Kind::Bin) as u64);
        out.extend_from_slice(bytes);
    }
    if shapes.is_empty() {
        return;
    }
    write_uvarint(out, shapes.len() as u64);
    for names in shapes {
        write_uvarint(out, names.len() as u64);
        for name in names {
            write_uvarint(out, name.len() as u64);
            out.extend_from_slice(name);
        }
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

/// Parses a file into its entries and shapes (borrowed from `file`), in id order. Repeated
/// entries are the caller's check (it builds the index that finds them).
///
/// Errors, at the offset of the failing byte: `UnexpectedEof` for a file cut short;
/// `BadMagic`, `BadVersion`; `NonMinimal` / `VarintOverflow` for a varint; `LengthOverrun`
/// for a count the rest cannot hold; `BadDictionary` for an empty entry, an empty or
/// repeated shape, a version 2 file without shapes, or past the caps [`MAX_ENTRIES`],
/// [`MAX_SHAPES`], [`MAX_ENTRY_LEN`], [`MAX_TOTAL_BYTES`]; `InvalidUtf8` for a string entry
/// or a field name; `TrailingBytes` after the end.
pub(crate) fn parse(file: &[u8]) -> Result<Parsed<'_>> {
    let mut pos = 0;
    for (i, &m) in MAGIC.iter().enumerate() {
        match file.get(i) {
            None => return Err(eof(i, "the dictionary magic 'QDFD'")),
            Some(&b) if b != m => return Err(Error::at(ErrorCode::BadMagic, i as u64)),
            Some(_) => pos = i + 1,
        }
    }
    let version = match file.get(pos) {
        None => return Err(eof(pos, "the dictionary file version")),
        Some(&v @ (VERSION | VERSION_SHAPES)) => v,
        Some(&v) => return Err(Error::at(ErrorCode::BadVersion(v), pos as u64)),
    };
    pos += 1;
    let count = varint(file, &mut pos, "the entry count")?;
    overrun(file, pos, count, 2)?;
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
        if kind == Kind::Str {
            utf8(bytes, pos)?;
        }
        pos += len;
        entries.push((kind, bytes));
    }
    let shapes = if version == VERSION_SHAPES {
        parse_shapes(file, &mut pos, &mut total)?
    } else {
        Vec::new()
    };
    if pos != file.len() {
        let n = (file.len() - pos) as u64;
        return Err(Error::at(ErrorCode::TrailingBytes(n), pos as u64));
    }
    Ok(Parsed { entries, shapes })
}

/// The shapes of a version 2 file, from `*pos`; `total` counts the bytes of entries and
/// names against [`MAX_TOTAL_BYTES`].
fn parse_shapes<'a>(
    file: &'a [u8],
    pos: &mut usize,
    total: &mut usize,
) -> Result<Vec<Vec<&'a [u8]>>> {
    let at = *pos;
    let count = varint(file, pos, "the shape count")?;
    // A shape takes at least 2 bytes (its count and one name's length).
    overrun(file, *pos, count, 2)?;
    if count == 0 {
        return Err(bad("a version 2 file without shapes", at));
    }
    if count > MAX_SHAPES as u64 {
        return Err(bad("more than 4 096 shapes", at));
    }
    let mut shapes: Vec<Vec<&[u8]>> = Vec::with_capacity(count as usize);
    let mut seen = hashbrown::HashSet::with_capacity(count as usize);
    for _ in 0..count {
        let at = *pos;
        let n = varint(file, pos, "a shape's field count")?;
        overrun(file, *pos, n, 1)?;
        if n == 0 {
            return Err(bad("an empty shape", at));
        }
        let mut names = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let len = varint(file, pos, "a field name's length")?;
            if len > MAX_ENTRY_LEN as u64 {
                return Err(bad("a field name longer than 65 536 bytes", *pos));
            }
            let len = len as usize;
            let Some(name) = file.get(*pos..*pos + len) else {
                return Err(eof(file.len(), "a field name's bytes"));
            };
            *total += len;
            if *total > MAX_TOTAL_BYTES {
                return Err(bad("more than 16 MiB of entries and names", *pos));
            }
            utf8(name, *pos)?;
            *pos += len;
            names.push(name);
        }
        if !seen.insert(names.clone()) {
            return Err(bad("a repeated shape", at));
        }
        shapes.push(names);
    }
    Ok(shapes)
}

/// `LengthOverrun` at `pos` when `count` items of at least `min` bytes each cannot fit in
/// the rest of the file.
fn overrun(file: &[u8], pos: usize, count: u64, min: u64) -> Result<()> {
    let remaining = (file.len() - pos) as u64;
    if count > remaining / min {
        let code = ErrorCode::LengthOverrun {
            len: count,
            remaining,
        };
        return Err(Error::at(code, pos as u64));
    }
    Ok(())
}

/// `InvalidUtf8` at the first bad byte of `bytes`, which start at `pos` in the file.
fn utf8(bytes: &[u8], pos: usize) -> Result<()> {
    crate::utf8::utf8(bytes).map(|_| ()).map_err(|e| {
        let at = pos + e.valid_up_to();
        Error::at(ErrorCode::InvalidUtf8, at as u64)
    })
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
