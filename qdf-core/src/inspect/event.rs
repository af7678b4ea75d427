//! The events of a walk: what was read, where, and its codec or intern form.

use std::fmt;
use std::ops::Range;

use crate::codec;
use crate::wire::tags::*;

/// One step of a walk: what was read, where, and how deep in the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Event<'a> {
    /// Offset of the first byte (absolute in the walked input). For a zero-length event
    /// (a name from the shape table, a shape being defined) the position it stands at.
    pub offset: u64,
    /// Offset just past the last byte. For an opening event (a container, a frame) the end
    /// of its header; the matching [`EventKind::Close`] carries the end of the whole.
    pub end: u64,
    /// Tree depth: 0 for the header and frames, 1 for a message's body value (a frame's
    /// body value in a stream), one more inside each open container.
    pub depth: u32,
    /// The value is a map key (a plain map's key, a shape field name read from the wire or
    /// supplied by the shape table, a marked key).
    pub key: bool,
    /// What was read.
    pub kind: EventKind<'a>,
}

/// What an [`Event`] stands for.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EventKind<'a> {
    /// The 5-byte header (`docs/SPEC.md` §1).
    Header {
        /// The flags byte: `01` Dense, `02` QPack, `08` column index, `10` frame checksums.
        flags: u8,
    },
    /// A stream frame opens (`offset` is its length prefix; `end` the start of its body).
    /// Closed by [`EventKind::Close`] at the frame's end (after its checksum).
    Frame {
        /// Index in the stream, from 0.
        index: u64,
        /// Body bytes (without the length prefix and checksum).
        body_len: u64,
        /// The CRC-32C the frame carries (streams with flag `10`; already checked).
        checksum: Option<u32>,
    },
    /// `FF uvarint(generation)` first in a Dense frame body: the session's Dense state was
    /// emptied before the value (`docs/SPEC.md` §18).
    Renewal {
        /// The stream's renewals so far, this one included (1 for the first).
        generation: u64,
    },
    /// `C0`.
    Nil,
    /// `C1` / `C2`.
    Bool(bool),
    /// Any integer form (fixint, negfixint, `C3`–`CA`, `F2 03`, `F2 04`), by value.
    Int(Int),
    /// `CB`, bit-exact.
    F32(f32),
    /// `CC`, bit-exact.
    F64(f64),
    /// A number predicted from the last one of its field (`F0`, `F1`, `FD` as a shape reuse's
    /// value in a session or a message, `docs/SPEC.md` §15.2): the value it stands for and
    /// how it is written.
    Predicted {
        /// The value, as its plain form would give it.
        value: Number,
        /// The form and its payload.
        form: Prediction,
    },
    /// `F2 02`.
    Char(char),
    /// `F2 00`.
    Unit,
    /// `F2 01`.
    UnitStruct,
    /// `F3`: seconds since the Unix epoch and nanoseconds.
    Timestamp {
        /// Seconds (negative before 1970).
        secs: i64,
        /// Nanoseconds, at most 999 999 999.
        nanos: u32,
    },
    /// A string or byte string, inline or through the intern table (§14).
    Text {
        /// The bytes it stands for (UTF-8 checked when not `binary`).
        bytes: &'a [u8],
        /// A byte string (`D0`–`D2`, an `E2` entry), not a string.
        binary: bool,
        /// How it is written.
        intern: Intern,
        /// Written as hex text (`F2 0B`: [`Intern::Inline`]; `F2 0C`: [`Intern::Define`],
        /// §9): its bytes are the 2L digits printed from the L packed bytes on the wire.
        hex: bool,
    },
    /// An array header (`A0`–`BF`, `D3`, `D4`) opens `count` elements.
    Array {
        /// Elements.
        count: u64,
    },
    /// A map header (`D5`–`D7`) opens `count` key-value entries.
    Map {
        /// Entries.
        count: u64,
    },
    /// A struct or map shape `EC` opens (§15): a declaration of `fields` names, or the reuse
    /// of shape `id` with its `fields` names. Entries follow as key, value pairs.
    Shape {
        /// `None` for a declaration (`EC 00`), else the shape reused.
        reuse: Option<u32>,
        /// Names declared, or the reused shape's field count.
        fields: u64,
    },
    /// A shape declaration's names are complete: they define shape `id` (zero-length).
    ShapeDefined {
        /// The new shape id.
        id: u32,
        /// Its field count.
        fields: u64,
    },
    /// A field name supplied by the shape table, not on the wire (zero-length, a key).
    Field {
        /// The name.
        name: &'a [u8],
    },
    /// `F2 0A` inside a shape (an escape, an open reuse, a marked key).
    Escape(EscapeKind),
    /// The `C0` that ends the pairs after an escape.
    EndMark,
    /// `F2 05` opens the value it wraps.
    Some,
    /// `F2 06`–`F2 09` opens a variant: its name (a [`EventKind::Text`]), then its payload.
    Variant(VariantKind),
    /// A QPack value (§19), a leaf covering its whole body.
    Packed {
        /// The codec (tag byte).
        codec: Codec,
        /// The kind byte, when the codec has one (every codec but `E3`); for `FE`, the kind of
        /// the value it holds (`None` for `E3` bools).
        kind: Option<u8>,
        /// Elements decoded.
        count: u64,
    },
    /// A columnar container `EF` / `F7` opens (its header: row count, column shape, column
    /// index). Its columns follow as [`EventKind::Column`]s, then (hybrid) its rows as
    /// [`EventKind::Row`]s.
    Columnar {
        /// `F7`: some columns are residual, kept in the rows.
        hybrid: bool,
        /// Rows (M).
        rows: u64,
        /// The column shape: declared here (`declared`) or reused.
        shape: u32,
        /// The column shape was declared by this container.
        declared: bool,
        /// Intern ids defined by the column names of the declaration.
        interned: Range<u32>,
    },
    /// One column of a columnar container, a leaf covering its masks and values; a struct,
    /// list, map or tagged column ([`ColumnValues::Struct`], [`ColumnValues::List`],
    /// [`ColumnValues::Map`], [`ColumnValues::Tagged`]) opens instead, covering its children
    /// too, which follow one level deeper (their `index` counts among their siblings; a
    /// list's element column and a map's key and value columns have an empty name, a
    /// variant's the variant's), then a [`EventKind::Close`].
    Column {
        /// Position in the declaration, from 0.
        index: usize,
        /// Column name.
        name: &'a str,
        /// The kind byte: class in the low nibble, `40` optional, `80` nullable.
        kind: u8,
        /// How the values are written.
        values: ColumnValues,
        /// Present non-null values (V); for a residual column the present rows.
        count: u64,
        /// Intern ids defined by its per-value strings (empty for other columns).
        interned: Range<u32>,
    },
    /// A row of a hybrid container opens: its residual values follow, each preceded by its
    /// column name as an [`EventKind::Field`].
    Row {
        /// Row index, from 0.
        index: u64,
    },
    /// Closes the innermost open array, map, shape, `Some`, variant, container, struct or
    /// list column, row or frame; `offset` and `end` are where it ends.
    Close,
}

/// An integer as the wire holds it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Int {
    /// Non-negative, up to `u64::MAX`.
    U64(u64),
    /// Negative, down to `i64::MIN`.
    I64(i64),
    /// Above `u64::MAX` (`F2 03`).
    U128(u128),
    /// Below `i64::MIN` (`F2 04`).
    I128(i128),
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::U64(v) => write!(f, "{v}"),
            Int::I64(v) => write!(f, "{v}"),
            Int::U128(v) => write!(f, "{v}"),
            Int::I128(v) => write!(f, "{v}"),
        }
    }
}

/// A number as a plain form gives it (the value of an [`EventKind::Predicted`]).
#[derive(Copy, Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Number {
    /// An integer (predicted ones lie in `[-2^63, 2^64)`).
    Int(Int),
    /// An `f32`, bit-exact.
    F32(f32),
    /// An `f64`, bit-exact.
    F64(f64),
}

/// How a predicted number is written (`docs/SPEC.md` §15.2); "last" is the value its field
/// held before, "step" that field's last integer step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Prediction {
    /// `F0` in an integer field: last + step (the same step again).
    SameStep,
    /// `F0` in a float field: last again (the same bits).
    Same,
    /// `F1` with an even payload: last + this delta.
    Delta(i64),
    /// `F1` with an odd payload: last + step + this (a delta of the delta).
    DeltaOfDelta(i64),
    /// `F1` in a float field: last moved by `step` units of `10^-exp`, at the field's
    /// exponent.
    Decimal {
        /// Units of `10^-exp` added.
        step: i64,
        /// The decimal exponent (0..=15).
        exp: u8,
    },
    /// `FD m` with `m ≤ 15`: last moved by `step` units of `10^-exp`, at the exponent `m` it
    /// names (which the field keeps).
    DecimalAt {
        /// Units of `10^-exp` added.
        step: i64,
        /// The decimal exponent `m`.
        exp: u8,
    },
    /// `FD m` with `m ≥ 0x40`: last's bits XOR `bits << shift` (`shift` = `m − 0x40`).
    Xor {
        /// The payload (odd).
        bits: u64,
        /// Its shift.
        shift: u8,
    },
}

impl fmt::Display for Prediction {
    /// `F0 same step`, `F1 delta +60`, `FD decimal -1 × 10^-1`, … (the tag, then the form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prediction::SameStep => f.write_str("F0 same step"),
            Prediction::Same => f.write_str("F0 same value"),
            Prediction::Delta(d) => write!(f, "F1 delta {d:+}"),
            Prediction::DeltaOfDelta(d) => write!(f, "F1 delta of delta {d:+}"),
            Prediction::Decimal { step, exp } => write!(f, "F1 decimal {step:+} × 10^-{exp}"),
            Prediction::DecimalAt { step, exp } => write!(f, "FD decimal {step:+} × 10^-{exp}"),
            Prediction::Xor { bits, shift } => write!(f, "FD XOR 0x{bits:x} << {shift}"),
        }
    }
}

/// How a string or byte string is written (§14).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Intern {
    /// Inline (`80`–`9F`, `CD`–`D2`).
    Inline,
    /// `E0` / `E2`: defines intern id `id`.
    Define(u32),
    /// A reference to intern id `id`.
    Ref {
        /// The entry.
        id: u32,
        /// The reference tag.
        form: RefForm,
    },
    /// `F2 0D uvarint(kept) s`, a slotted string of a stream with header flag `40`
    /// (§15.3): the first `kept` bytes of the field's last string, then the event's bytes
    /// (the suffix `s`, written inline).
    Prefix {
        /// Bytes taken from the field's last string.
        kept: usize,
    },
}

/// The tag of an intern reference (§14).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefForm {
    /// `E1 uvarint(id)`.
    StateRef,
    /// `E8`: the last id again (Markov-0).
    Repeat,
    /// `E9 uvarint(rank)`: the id pushed `rank` pushes ago.
    Mtf(u8),
    /// `EA 00`: the id that last followed the last id (Markov-1).
    Pair,
}

/// What an `F2 0A` inside a shape means (§15).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EscapeKind {
    /// The record leaves its shape: (name, value) pairs follow until `C0`.
    Escape,
    /// Right after `EC id`: all the shape's values, then pairs until `C0`.
    OpenReuse,
    /// Before a key that is any value, not a name (maps).
    MarkedKey,
}

/// A variant's kind (`F2 06`–`F2 09`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VariantKind {
    /// `F2 06`: name only.
    Unit,
    /// `F2 07`: name, value.
    Newtype,
    /// `F2 08`: name, array.
    Tuple,
    /// `F2 09`: name, map or shape.
    Struct,
}

/// A QPack codec, by tag (§19).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Codec {
    /// `E3` bit-packed bools.
    Bools,
    /// `E4` raw little-endian values.
    Raw,
    /// `E5` frame of reference.
    For,
    /// `E6` delta + frame of reference.
    Delta,
    /// `EB` run-length.
    Rle,
    /// `ED` dictionary.
    Dict,
    /// `EE` patched frame of reference.
    Pfor,
    /// `E7` with kind `0A`/`0B`: Gorilla XOR floats.
    Gorilla,
    /// `E7` with kind `0F`: Chimp128.
    Chimp128,
    /// `F4` ALP decimal floats.
    Alp,
    /// `F4` with kind `0E`/`0F`: ALP-RD (split floats).
    AlpRd,
    /// `FE` a QPack value coded with tANS (§21).
    Entropy,
}

impl Codec {
    /// The codec of QPack tag `tag` with kind byte `kind` (`E7`'s kind tells Gorilla from
    /// Chimp128, `F4`'s ALP from ALP-RD); `None` for a tag that is not QPack.
    pub fn from_tag(tag: u8, kind: Option<u8>) -> Option<Codec> {
        Some(match tag {
            QP_BOOL => Codec::Bools,
            QP_RAW => Codec::Raw,
            QP_FOR => Codec::For,
            QP_DELTA => Codec::Delta,
            QP_RLE => Codec::Rle,
            QP_DICT => Codec::Dict,
            QP_PFOR => Codec::Pfor,
            QP_XOR if kind == Some(codec::chimp::KIND) => Codec::Chimp128,
            QP_XOR => Codec::Gorilla,
            QP_ALP
                if matches!(
                    kind,
                    Some(codec::alp_rd::KIND_F32 | codec::alp_rd::KIND_F64)
                ) =>
            {
                Codec::AlpRd
            }
            QP_ALP => Codec::Alp,
            ENTROPY => Codec::Entropy,
            _ => return None,
        })
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Codec::Bools => "bools",
            Codec::Raw => "raw",
            Codec::For => "FOR",
            Codec::Delta => "delta+FOR",
            Codec::Rle => "RLE",
            Codec::Dict => "dictionary",
            Codec::Pfor => "PFOR",
            Codec::Gorilla => "Gorilla",
            Codec::Chimp128 => "Chimp128",
            Codec::Alp => "ALP",
            Codec::AlpRd => "ALP-RD",
            Codec::Entropy => "tANS-coded",
        })
    }
}

/// The element type a QPack kind byte names: `u8`…`i64`, `f32`, `f64` (`0E`, ALP-RD, is
/// `f32`; `0F`, Chimp128 or ALP-RD, is `f64`); `"?"` for any other byte.
pub fn kind_name(kind: u8) -> &'static str {
    match kind {
        0x00 => "u8",
        0x01 => "u16",
        0x02 => "u32",
        0x03 => "u64",
        0x04 => "i8",
        0x05 => "i16",
        0x06 => "i32",
        0x07 => "i64",
        0x0A | 0x0E => "f32",
        0x0B | 0x0F => "f64",
        _ => "?",
    }
}

/// A string column block (§20), by tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StringBlock {
    /// `F5` flat dictionary.
    Dict,
    /// `F6` FSST.
    Fsst,
    /// `F8` raw slab.
    Slab,
    /// `F9` constant.
    Const,
    /// `FA` front-coded dictionary.
    Front,
    /// `FB` alphabet packing.
    Alpha,
    /// `FC` dictionary with a QPack-coded index.
    DictQ,
    /// `FE` a string block coded with tANS (§21).
    Entropy,
}

impl fmt::Display for StringBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StringBlock::Dict => "F5 flat dictionary",
            StringBlock::Fsst => "F6 FSST",
            StringBlock::Slab => "F8 raw slab",
            StringBlock::Const => "F9 constant",
            StringBlock::Front => "FA front-coded dictionary",
            StringBlock::Alpha => "FB alphabet packing",
            StringBlock::DictQ => "FC dictionary with QPack index",
            StringBlock::Entropy => "FE tANS-coded block",
        })
    }
}

/// How a column's values are written (§22).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ColumnValues {
    /// A QPack value: its codec and kind byte.
    Packed(Codec, Option<u8>),
    /// A plain array of values.
    Array,
    /// A string block.
    Block(StringBlock),
    /// V strings through the Dense rules.
    PerValue,
    /// A hex-text string column's packed bytes (kind bit `20`, §22.1); a decimal-text
    /// column's integers (kind bit `10`) are [`Packed`](ColumnValues::Packed) or
    /// [`Array`](ColumnValues::Array).
    HexBytes,
    /// A hex-text string column whose values refer to a sibling hex column's (hex flag `04`,
    /// §22.1): references, then the packed bytes of the values that are not references.
    HexRefs,
    /// A date-time text column (kind bits `30`, §22.1): its layout byte and suffix, then
    /// one integer a value (a QPack value, its codec here, or `None` for a plain array).
    DateTime(Option<Codec>),
    /// Residual: the values are in the rows (`F7`).
    Residual,
    /// A struct column (`docs/SPEC.md` §22.2) of this many child columns: their events
    /// follow one level deeper, then a [`EventKind::Close`].
    Struct(usize),
    /// A list column (§22.2): a lengths column (its QPack codec, `None` for a plain array)
    /// for `elements` elements in all; its element column's event follows one level
    /// deeper, then a [`EventKind::Close`].
    List {
        /// Elements of all its lists (the element column's slots).
        elements: u64,
        /// The lengths column's codec (`None`: a plain array).
        lengths: Option<Codec>,
    },
    /// A map column (§22.2): a lengths column (its QPack codec, `None` for a plain array)
    /// for `entries` entries in all; its key column's and value column's events follow one
    /// level deeper, then a [`EventKind::Close`].
    Map {
        /// Entries of all its maps (the key and value columns' slots).
        entries: u64,
        /// The lengths column's codec (`None`: a plain array).
        lengths: Option<Codec>,
    },
    /// A map column written by key sets (§22.2, kind bit `10`): `sets` distinct key
    /// sequences, `keys` keys in all (the key column's slots), each map naming its set;
    /// `entries` entries of all its maps (the value column's slots). Its key column's and
    /// value column's events follow one level deeper, then a [`EventKind::Close`].
    KeySets {
        /// Entries of all its maps.
        entries: u64,
        /// Distinct key sequences.
        sets: u64,
        /// Keys of all the sets.
        keys: u64,
    },
    /// A tagged column (§22.3): a tag column (its QPack codec, `None` for a plain array),
    /// then one column event per variant one level deeper (its `name` the variant's, its
    /// slots the values of its tag), then a [`EventKind::Close`].
    Tagged {
        /// Variants declared.
        variants: usize,
        /// The values are one-entry maps (kind bit `10`), not enum variants.
        map: bool,
        /// The tag column's codec (`None`: a plain array).
        tags: Option<Codec>,
    },
    /// A unit variant of a tagged column (kind `0F`): no bytes, `count` values.
    Unit,
}

impl fmt::Display for ColumnValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColumnValues::Packed(c, Some(k)) => write!(f, "{c} {}", kind_name(*k)),
            ColumnValues::Packed(c, None) => write!(f, "{c}"),
            ColumnValues::Array => f.write_str("plain array"),
            ColumnValues::Block(b) => write!(f, "{b}"),
            ColumnValues::PerValue => f.write_str("per-value strings"),
            ColumnValues::HexBytes => f.write_str("hex bytes"),
            ColumnValues::HexRefs => f.write_str("hex bytes with references to a sibling"),
            ColumnValues::DateTime(Some(c)) => write!(f, "date-time instants, {c}"),
            ColumnValues::DateTime(None) => f.write_str("date-time instants, plain array"),
            ColumnValues::Residual => f.write_str("residual (in the rows)"),
            ColumnValues::Struct(k) => write!(f, "struct of {k} child columns"),
            ColumnValues::List {
                elements,
                lengths: Some(c),
            } => write!(f, "list of {elements} elements, lengths {c}"),
            ColumnValues::List {
                elements,
                lengths: None,
            } => write!(f, "list of {elements} elements, lengths as a plain array"),
            ColumnValues::Map {
                entries,
                lengths: Some(c),
            } => write!(f, "map of {entries} entries, lengths {c}"),
            ColumnValues::Map {
                entries,
                lengths: None,
            } => write!(f, "map of {entries} entries, lengths as a plain array"),
            ColumnValues::KeySets {
                entries,
                sets,
                keys,
            } => write!(
                f,
                "map of {entries} entries, {sets} key sets of {keys} keys"
            ),
            ColumnValues::Tagged {
                variants,
                map,
                tags,
            } => {
                let of = if *map { "one-entry maps" } else { "variants" };
                match tags {
                    Some(c) => write!(f, "tagged, {variants} {of}, tags {c}"),
                    None => write!(f, "tagged, {variants} {of}, tags as a plain array"),
                }
            }
            ColumnValues::Unit => f.write_str("unit variant"),
        }
    }
}
