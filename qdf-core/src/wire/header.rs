//! The 5-byte header: `'Q' 'D' 'F'`, version `0x01`, flags (`docs/SPEC.md` §1).

use crate::error::{Error, ErrorCode, Result};
use crate::options::{Features, Options};

/// The magic bytes.
pub const MAGIC: [u8; 3] = *b"QDF";
/// The only version this library writes and reads.
pub const VERSION: u8 = 0x01;
/// Header length in bytes.
pub const HEADER_LEN: usize = 5;

/// Flag 0x01: the Dense dialect may appear.
pub const FLAG_DENSE: u8 = 0x01;
/// Flag 0x02: QPack codec tags may appear (a hint).
pub const FLAG_QPACK: u8 = 0x02;
/// Flag 0x04, single messages only: entropy-coded blocks (tag `0xFE`) may appear (a hint,
/// set exactly when the body holds one).
pub const FLAG_ENTROPY: u8 = 0x04;
/// Flag 0x08: a columnar container carries a column-length index.
pub const FLAG_COL_INDEX: u8 = 0x08;
/// Flag 0x10, streams only: every frame ends with a CRC-32C of the stream bytes since the
/// previous frame's checksum (`docs/SPEC.md` §17). A single message never sets it.
pub const FLAG_CHECKSUM: u8 = 0x10;
/// Flag 0x20: the 8-byte id of a pre-shared dictionary follows the header
/// (`docs/SPEC.md` §25); the body starts from that dictionary's state.
pub const FLAG_DICT: u8 = 0x20;
/// Bytes of a dictionary id after a header with [`FLAG_DICT`].
pub const DICT_ID_LEN: usize = 8;
/// Flag 0x40, streams (and a message that starts one): every slot of a reused shape keeps
/// its field's last string, and `F2 0D` may write a slotted string as a prefix of it and a
/// suffix (`docs/SPEC.md` §15.3). Only with [`FLAG_DENSE`].
pub const FLAG_TEXTS: u8 = 0x40;
/// Bit 7 is reserved and must be zero.
pub const FLAGS_RESERVED: u8 = 0x80;

/// The header flags of a stream encoded with `opts` (`docs/SPEC.md` §1): `01` with the Dense
/// feature; `02` with QPack, because a stream header precedes frames not yet encoded, in any
/// of which QPack tags may appear. A single message sets `02` only if its body has a QPack
/// tag (see [`to_vec_with`](crate::to_vec_with)).
///
/// Hook for sessions and framing.
pub(crate) fn header_flags(opts: &Options) -> u8 {
    let mut flags = 0;
    if opts.has(Features::DENSE) {
        flags |= FLAG_DENSE;
    }
    if opts.has(Features::QPACK) {
        flags |= FLAG_QPACK;
    }
    flags
}

/// Whether a session encoder with `opts` keeps per-field strings and sets [`FLAG_TEXTS`] in
/// its stream header (`docs/SPEC.md` §15.3): `STR_STATE` with `DENSE` and `SHAPE_INTERN`
/// (slots are fields of reused shapes). Single messages never do.
pub(crate) fn texts_on(opts: &Options) -> bool {
    opts.has(
        Features::DENSE
            .with(Features::SHAPE_INTERN)
            .with(Features::STR_STATE),
    )
}

/// The header bytes for `flags`.
#[inline]
pub const fn header(flags: u8) -> [u8; HEADER_LEN] {
    [MAGIC[0], MAGIC[1], MAGIC[2], VERSION, flags]
}

/// Parses a header at the front of `buf`, returning its flags.
///
/// Errors: `Eof` if `buf` is shorter than 5 bytes (and is a prefix of a valid header),
/// `BadMagic`, `BadVersion`, `BadFlags` for a reserved bit or [`FLAG_TEXTS`] without
/// [`FLAG_DENSE`], each at the failing offset.
pub fn read_header(buf: &[u8]) -> Result<u8> {
    for (i, &m) in MAGIC.iter().enumerate() {
        match buf.get(i) {
            None => return Err(eof(i)),
            Some(&b) if b != m => return Err(Error::at(ErrorCode::BadMagic, i as u64)),
            Some(_) => {}
        }
    }
    match buf.get(3) {
        None => return Err(eof(3)),
        Some(&VERSION) => {}
        Some(&v) => return Err(Error::at(ErrorCode::BadVersion(v), 3)),
    }
    match buf.get(4) {
        None => Err(eof(4)),
        // One test for the common header (bits 6 and 7 clear): the frame parser that
        // inlines this stays as small as before flag 40.
        Some(&f) if f & (FLAGS_RESERVED | FLAG_TEXTS) != 0 => high_flags(f),
        Some(&f) => Ok(f),
    }
}

/// [`read_header`]'s flags `f` with bit 6 or 7 set: flag 40 alone with [`FLAG_DENSE`] is
/// valid, anything else `BadFlags` at offset 4.
#[cold]
#[inline(never)]
fn high_flags(f: u8) -> Result<u8> {
    if f & FLAGS_RESERVED != 0 || f & FLAG_DENSE == 0 {
        return Err(Error::at(ErrorCode::BadFlags(f), 4));
    }
    Ok(f)
}

/// Bytes the header with `flags` occupies: 5, and the dictionary id's 8 with [`FLAG_DICT`].
#[inline]
pub const fn header_len(flags: u8) -> usize {
    if flags & FLAG_DICT != 0 {
        HEADER_LEN + DICT_ID_LEN
    } else {
        HEADER_LEN
    }
}

/// The dictionary id that follows a header with `flags` at the front of `buf`, if the flags
/// announce one. Errors: `UnexpectedEof` at the end of `buf` when it is cut inside the id.
pub fn read_dict_id(buf: &[u8], flags: u8) -> Result<Option<[u8; DICT_ID_LEN]>> {
    if flags & FLAG_DICT == 0 {
        return Ok(None);
    }
    match buf.get(HEADER_LEN..HEADER_LEN + DICT_ID_LEN) {
        Some(id) => Ok(Some(id.try_into().expect("8 bytes"))),
        None => Err(Error::at(
            ErrorCode::UnexpectedEof {
                expected: "the 8-byte dictionary id after the header",
            },
            buf.len() as u64,
        )),
    }
}

/// The error of input that names dictionary `found` when the decoder holds `held` (or
/// none), at the id's offset.
#[cold]
pub(crate) fn unknown_dictionary(
    found: [u8; DICT_ID_LEN],
    held: Option<[u8; DICT_ID_LEN]>,
) -> Error {
    Error::at(
        ErrorCode::UnknownDictionary { found, held },
        HEADER_LEN as u64,
    )
}

fn eof(at: usize) -> Error {
    Error::at(
        ErrorCode::UnexpectedEof {
            expected: "the 5-byte header",
        },
        at as u64,
    )
}

#[cfg(test)]
mod tests;
