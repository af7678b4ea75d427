//! Tag bytes (`docs/SPEC.md` §2). msgpack-like; numbering follows the Go library's wire
//! notes §1.2, §1.4, §2, with the serde extension tag [`EXT`] (0xF2) added by qdf-rs.

/// Positive fixint 0..=127: the tag is the value.
pub const FIXINT_MAX: u8 = 0x7F;
/// fixstr: `0x80 | len`, len 0..=31.
pub const FIXSTR: u8 = 0x80;
/// Largest fixstr tag.
pub const FIXSTR_MAX: u8 = 0x9F;
/// fixarr: `0xA0 | count`, count 0..=31.
pub const FIXARR: u8 = 0xA0;
/// Largest fixarr tag.
pub const FIXARR_MAX: u8 = 0xBF;
/// nil (`None`).
pub const NIL: u8 = 0xC0;
/// false.
pub const FALSE: u8 = 0xC1;
/// true.
pub const TRUE: u8 = 0xC2;
/// u8, 1 byte follows.
pub const U8: u8 = 0xC3;
/// u16 LE.
pub const U16: u8 = 0xC4;
/// u32 LE.
pub const U32: u8 = 0xC5;
/// u64 LE.
pub const U64: u8 = 0xC6;
/// i8.
pub const I8: u8 = 0xC7;
/// i16 LE.
pub const I16: u8 = 0xC8;
/// i32 LE.
pub const I32: u8 = 0xC9;
/// i64 LE.
pub const I64: u8 = 0xCA;
/// f32, raw IEEE-754 bits LE.
pub const F32: u8 = 0xCB;
/// f64, raw IEEE-754 bits LE.
pub const F64: u8 = 0xCC;
/// str8: u8 length.
pub const STR8: u8 = 0xCD;
/// str16: u16 LE length.
pub const STR16: u8 = 0xCE;
/// str32: u32 LE length.
pub const STR32: u8 = 0xCF;
/// bin8: u8 length (there is no fixbin).
pub const BIN8: u8 = 0xD0;
/// bin16.
pub const BIN16: u8 = 0xD1;
/// bin32.
pub const BIN32: u8 = 0xD2;
/// arr16: u16 LE count.
pub const ARR16: u8 = 0xD3;
/// arr32: u32 LE count.
pub const ARR32: u8 = 0xD4;
/// map8: u8 count (there is no fixmap).
pub const MAP8: u8 = 0xD5;
/// map16.
pub const MAP16: u8 = 0xD6;
/// map32.
pub const MAP32: u8 = 0xD7;
/// negfixint: `0xD8 | (−v − 1)`, values −1..=−8.
pub const NEGFIXINT: u8 = 0xD8;
/// Largest negfixint tag (value −8).
pub const NEGFIXINT_MAX: u8 = 0xDF;

/// Dense: intern a string, `uvarint(len) bytes`; assigns the next id.
pub const INTERN_STR: u8 = 0xE0;
/// Dense: reference, `uvarint(id)`.
pub const STATE_REF: u8 = 0xE1;
/// Dense: intern bytes (same id space as strings).
pub const INTERN_BIN: u8 = 0xE2;
/// QPack: bit-packed bools.
pub const QP_BOOL: u8 = 0xE3;
/// QPack: raw little-endian numbers.
pub const QP_RAW: u8 = 0xE4;
/// QPack: frame-of-reference.
pub const QP_FOR: u8 = 0xE5;
/// QPack: delta + frame-of-reference.
pub const QP_DELTA: u8 = 0xE6;
/// QPack: Gorilla / Chimp128 XOR floats.
pub const QP_XOR: u8 = 0xE7;
/// Dense: Markov-0 repeat of the last id.
pub const REPEAT: u8 = 0xE8;
/// Dense: MTF ring offset, `uvarint(rank)`.
pub const MTF: u8 = 0xE9;
/// Dense: Markov-1 pair prediction, `uvarint(0)`.
pub const PAIR: u8 = 0xEA;
/// QPack: run-length.
pub const QP_RLE: u8 = 0xEB;

/// True for the Dense tags that stand for a string or bytes: `E0`, `E1`, `E2`, `E8`, `E9`,
/// `EA`.
#[inline(always)]
pub const fn is_dense_text(tag: u8) -> bool {
    matches!(
        tag,
        INTERN_STR | STATE_REF | INTERN_BIN | REPEAT | MTF | PAIR
    )
}
/// Dense: shape declaration / reuse.
pub const SHAPE: u8 = 0xEC;
/// QPack: integer dictionary.
pub const QP_DICT: u8 = 0xED;
/// QPack: patched frame-of-reference.
pub const QP_PFOR: u8 = 0xEE;
/// Columnar container.
pub const COLUMNAR: u8 = 0xEF;
/// Predicted number (`docs/SPEC.md` §15.2): the value its field's state predicts; only as
/// a slotted field value of a session (the Go library's reserved blocked-QPack tag).
pub const NUM_SAME: u8 = 0xF0;
/// Number step `uvarint(payload)` (`docs/SPEC.md` §15.2): an integer delta or
/// delta-of-delta, or a float's decimal step; only as a slotted field value of a session.
pub const NUM_DELTA: u8 = 0xF1;
/// serde extension: a subtype byte follows (`docs/SPEC.md` §9).
pub const EXT: u8 = 0xF2;
/// Timestamp: `zigzag-uvarint(sec) uvarint(nsec)` (Go meaning kept).
pub const TIMESTAMP: u8 = 0xF3;
/// QPack: ALP decimal floats.
pub const QP_ALP: u8 = 0xF4;
/// String column: flat dictionary.
pub const COL_STR_DICT: u8 = 0xF5;
/// String column: FSST.
pub const COL_STR_FSST: u8 = 0xF6;
/// Hybrid columnar container.
pub const HYBRID: u8 = 0xF7;
/// String column: raw slab.
pub const COL_STR_SLAB: u8 = 0xF8;
/// String column: constant.
pub const COL_STR_CONST: u8 = 0xF9;
/// String column: front-coded dictionary.
pub const COL_STR_FRONT: u8 = 0xFA;
/// String column: alphabet packing.
pub const COL_STR_ALPHA: u8 = 0xFB;
/// String column: dictionary with QPack-coded index.
pub const COL_STR_DICTQ: u8 = 0xFC;
/// Float form `mode uvarint(payload)` (`docs/SPEC.md` §15.2): a decimal step at a new
/// exponent or an XOR against the field's last float; only as a slotted field value of a
/// session.
pub const NUM_FLOAT: u8 = 0xFD;
/// Session renewal, `uvarint(generation)`: only first in a frame body of a Dense stream
/// (`docs/SPEC.md` §18); anywhere else it is an unassigned tag.
pub const RENEW: u8 = 0xFF;
/// Entropy-coded block: a tANS block whose bytes are one QPack value or one string block
/// (`docs/SPEC.md` §21; Compression tier, single messages).
pub const ENTROPY: u8 = 0xFE;
