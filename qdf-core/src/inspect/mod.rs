//! A tag walker for qdf bytes without a schema: the `protoc --decode_raw` of qdf.
//!
//! [`message`] walks one message (header, one body), [`stream`] a stream (header, then
//! `uvarint(len) body [crc]` frames, `docs/SPEC.md` §17), and each hands every tag it reads
//! to a callback as an [`Event`] with its byte offsets: scalars, strings with their intern
//! form (inline, a definition with the id it gets, or a reference with the id and the
//! resolved bytes, §14), containers, struct and map shapes (§15) with the field names the
//! shape table supplies, QPack bodies with their codec (§QPack), columnar containers with
//! each column's codec and byte cost (§Columnar containers), and stream frames.
//!
//! ```
//! use qdf_core::inspect::{self, EventKind};
//! let bytes = qdf_core::to_vec(&("host", 7u8))?;
//! let mut lines = Vec::new();
//! inspect::message(&bytes, &qdf_core::Options::default(), &mut |e| {
//!     if let EventKind::Text { bytes, .. } = e.kind {
//!         lines.push(format!("{}: {:?}", e.offset, std::str::from_utf8(bytes).unwrap()));
//!     }
//! })?;
//! assert_eq!(lines, ["6: \"host\""]);
//! # Ok::<(), qdf_core::inspect::InspectError>(())
//! ```
//!
//! **Same rules as the decoder.** The walk reads with the decoder's own parsing (the header
//! and frame checks, strict numbers and lengths, the Dense state's definitions and
//! references, the shape table, the QPack and string-block codecs, the columnar reader), so
//! it accepts exactly the bytes a [`Value`](crate::Value) decode accepts under the same
//! [`Options`] and fails with the same error at the same offset.
//!
//! **Bounded on hostile input.** Nesting is limited by [`Options::max_depth`] (counted as the
//! decoder counts it), every length and count is checked against the bytes that remain
//! before it is used, and decoded output is charged to the message's output limit (§13), so
//! the walk never panics, never loops without consuming input and allocates only what the
//! decoder would: the intern and shape tables (bounded by the input and the session caps)
//! and the decoded values of QPack bodies and columns (bounded by the output limit) while
//! they are checked. Events borrow from the input or the tables; nothing is collected.
//!
//! Offsets are absolute in the input given (the header is at 0). A columnar container's
//! column values are not presented one by one: each column is one [`EventKind::Column`]
//! with its codec and byte range; intern entries defined inside a container's column
//! declaration or per-value string columns are given as id ranges.

use std::fmt;
use std::ops::Range;

use crate::Options;
use crate::codec;
use crate::columnar::read::{Container, Data};
use crate::columnar::{Class, mask_len};
use crate::de::read::{Reference, SliceRead, Text};
use crate::de::{DecState, Deserializer, Num};
use crate::dense::{DenseState, Kind};
use crate::error::{Error, ErrorCode, Result};
use crate::frame::{self, Next};
use crate::wire::header::{FLAG_CHECKSUM, FLAG_DENSE, HEADER_LEN};
use crate::wire::{ext, tags::*};

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
    /// A QPack value (§QPack), a leaf covering its whole body.
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
    /// One column of a columnar container, a leaf covering its masks and values.
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
    /// Closes the innermost open array, map, shape, `Some`, variant, container, row or
    /// frame; `offset` and `end` are where it ends.
    Close,
}

/// An integer as the wire holds it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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

/// How a string or byte string is written (§14).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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
}

/// The tag of an intern reference (§14).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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

/// A QPack codec, by tag (§QPack).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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
    /// `FE` a QPack value coded with tANS (§Entropy-coded blocks).
    Entropy,
}

impl Codec {
    /// The codec of QPack tag `tag` with kind byte `kind` (`E7`'s kind tells Gorilla from
    /// Chimp128); `None` for a tag that is not QPack.
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
            Codec::Entropy => "tANS-coded",
        })
    }
}

/// The element type a QPack kind byte names: `u8`…`i64`, `f32`, `f64` (`0F`, Chimp128, is
/// `f64`); `"?"` for any other byte.
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
        0x0A => "f32",
        0x0B | 0x0F => "f64",
        _ => "?",
    }
}

/// A string column block (§String column blocks), by tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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
    /// `FE` a string block coded with tANS (§Entropy-coded blocks).
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

/// How a column's values are written (§Columnar containers).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ColumnValues {
    /// A QPack value: its codec and kind byte.
    Packed(Codec, Option<u8>),
    /// A plain array of values.
    Array,
    /// A string block.
    Block(StringBlock),
    /// V strings through the Dense rules.
    PerValue,
    /// Residual: the values are in the rows (`F7`).
    Residual,
}

impl fmt::Display for ColumnValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColumnValues::Packed(c, Some(k)) => write!(f, "{c} {}", kind_name(*k)),
            ColumnValues::Packed(c, None) => write!(f, "{c}"),
            ColumnValues::Array => f.write_str("plain array"),
            ColumnValues::Block(b) => write!(f, "{b}"),
            ColumnValues::PerValue => f.write_str("per-value strings"),
            ColumnValues::Residual => f.write_str("residual (in the rows)"),
        }
    }
}

/// Where a frame of a stream starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FrameAt {
    /// Index in the stream, from 0.
    pub index: u64,
    /// Stream offset of the frame's first byte (its length prefix).
    pub offset: u64,
}

/// A walk's failure: the decoder's error, its offset absolute in the walked input, and for
/// a stream the frame it happened in.
#[derive(Debug)]
pub struct InspectError {
    /// The error; [`Error::offset`] is absolute in the input.
    pub error: Error,
    /// The frame, in a stream (after its header).
    pub frame: Option<FrameAt>,
}

impl fmt::Display for InspectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.frame {
            Some(fr) => write!(
                f,
                "frame {} (at stream byte {}): {}",
                fr.index, fr.offset, self.error
            ),
            None => fmt::Display::fmt(&self.error, f),
        }
    }
}

impl std::error::Error for InspectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<Error> for InspectError {
    fn from(error: Error) -> Self {
        InspectError { error, frame: None }
    }
}

/// What a [`stream`] walk saw.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamSummary {
    /// Frames walked.
    pub frames: u64,
    /// The header's flags.
    pub flags: u8,
}

/// Walks one message (header, one body) with the decode limits of `opts`, handing each
/// event to `sink` in wire order.
///
/// Errors: exactly those of `from_slice_with::<Value>(input, opts)` (a bad header, flag `10`
/// or `04`, any body error, trailing bytes), at the same offsets.
pub fn message(
    input: &[u8],
    opts: &Options,
    sink: &mut dyn FnMut(&Event<'_>),
) -> std::result::Result<(), InspectError> {
    let mut de = Deserializer::from_slice_with(input, *opts)?;
    sink(&Event {
        offset: 0,
        end: HEADER_LEN as u64,
        depth: 0,
        key: false,
        kind: EventKind::Header { flags: input[4] },
    });
    // Keep the entries' bytes so every reference resolves from the table.
    de.state = DecState::new(opts, None, true);
    let mut w = Walker {
        de,
        input: &input[HEADER_LEN..],
        base: HEADER_LEN as u64,
        sink,
        depth: 1,
    };
    w.value(false)?;
    w.de.end()?;
    Ok(())
}

/// Walks a stream (header, then frames, §17) with the decode limits of `opts` and frame
/// bodies of at most `max_frame_len` bytes, carrying the Dense state from frame to frame as
/// a [`DecoderSession`](crate::DecoderSession) does (when the header has flag `01`).
///
/// Errors: those of a `DecoderSession` reading the same bytes into `Value`s, stopping at the
/// first (also a body error of a stateless stream, which a session would skip), with the
/// offset absolute in `input` and the frame it happened in; input that ends inside a frame
/// is `UnexpectedEof`. Empty input is an empty stream (no event), as for a session.
pub fn stream(
    input: &[u8],
    opts: &Options,
    max_frame_len: usize,
    sink: &mut dyn FnMut(&Event<'_>),
) -> std::result::Result<StreamSummary, InspectError> {
    if input.is_empty() {
        return Ok(StreamSummary::default());
    }
    let flags = frame::read_stream_header(input)?;
    sink(&Event {
        offset: 0,
        end: HEADER_LEN as u64,
        depth: 0,
        key: false,
        kind: EventKind::Header { flags },
    });
    let mut dense: Option<Box<DenseState>> = None;
    let mut pos = HEADER_LEN;
    // The first frame's checksum also covers the header.
    let mut covered_from = 0;
    let mut index = 0u64;
    while pos < input.len() {
        let at = FrameAt {
            index,
            offset: pos as u64,
        };
        let fail = |e: Error| InspectError {
            error: e,
            frame: Some(at),
        };
        // The first frame is read together with the header, as `DecoderSession` reads it,
        // so that a one-shot message fails the same way (`NotAStream`).
        let (from, known) = if index == 0 {
            (0, None)
        } else {
            (pos, Some(flags))
        };
        let rest = &input[from..];
        let (body_start, body_end, end) = match frame::next_frame(rest, known, max_frame_len) {
            Ok(Next::Complete {
                body_start,
                body_end,
                end,
                ..
            }) => (from + body_start, from + body_end, from + end),
            Ok(Next::Incomplete { .. }) => {
                // Input that ends inside a frame (`check_end` always fails here: `rest` is
                // more than a lone header).
                let e = frame::check_end(rest, index != 0).err().unwrap_or_else(|| {
                    let code = ErrorCode::UnexpectedEof {
                        expected: "the rest of a frame",
                    };
                    Error::at(code, rest.len() as u64)
                });
                return Err(fail(e.shifted(from as u64)));
            }
            Err(e) => return Err(fail(e.shifted(from as u64))),
        };
        let checksum = if flags & FLAG_CHECKSUM != 0 {
            let (covered, stored) = (&input[covered_from..body_end], &input[body_end..end]);
            if let Err((expected, found)) = frame::verify_checksum(covered, stored) {
                let code = ErrorCode::ChecksumMismatch {
                    expected,
                    found,
                    frame: index,
                    frame_offset: covered_from as u64,
                };
                return Err(fail(Error::at(code, body_end as u64)));
            }
            Some(u32::from_le_bytes([
                stored[0], stored[1], stored[2], stored[3],
            ]))
        } else {
            None
        };
        sink(&Event {
            offset: pos as u64,
            end: body_start as u64,
            depth: 0,
            key: false,
            kind: EventKind::Frame {
                index,
                body_len: (body_end - body_start) as u64,
                checksum,
            },
        });
        let mut body_start = body_start;
        if flags & FLAG_DENSE != 0 && input[body_start..body_end].first() == Some(&RENEW) {
            // Read and applied as `DecoderSession` does; its errors are body errors.
            let d = dense.get_or_insert_with(|| Box::new(DenseState::new_decoder(opts, true)));
            let at = body_start as u64;
            body_start += d
                .apply_renewal(&input[body_start..body_end])
                .map_err(|e| fail(e.shifted(at)))?;
            let found = d.generation();
            sink(&Event {
                offset: at,
                end: body_start as u64,
                depth: 1,
                key: false,
                kind: EventKind::Renewal { generation: found },
            });
        }
        let body = &input[body_start..body_end];
        let mut de = Deserializer::new(body, body_start as u64, opts);
        let carried = if flags & FLAG_DENSE != 0 {
            dense.take()
        } else {
            None
        };
        de.state = DecState::new(opts, carried, true);
        let mut w = Walker {
            de,
            input: body,
            base: body_start as u64,
            sink: &mut *sink,
            depth: 1,
        };
        let r = w.value(false).and_then(|()| w.de.end());
        let Walker { de, sink: _, .. } = w;
        dense = de.state.into_dense();
        r.map_err(|e| fail(e.with_offset(body_start as u64)))?;
        sink(&Event {
            offset: end as u64,
            end: end as u64,
            depth: 0,
            key: false,
            kind: EventKind::Close,
        });
        pos = end;
        covered_from = end;
        index += 1;
    }
    Ok(StreamSummary {
        frames: index,
        flags,
    })
}

/// The walk over one body.
struct Walker<'de, 's> {
    de: Deserializer<'de>,
    /// The bytes the deserializer reads and the offset of their first byte, to look back at
    /// bytes already read (a column's first value tag, a reused column shape's id).
    input: &'de [u8],
    base: u64,
    sink: &'s mut dyn FnMut(&Event<'_>),
    /// Tree depth of the next value.
    depth: u32,
}

/// What [`Walker::text`] read: a byte string (not a string), and whether its bytes are
/// UTF-8 (always, for a string).
#[derive(Copy, Clone)]
struct TextInfo {
    binary: bool,
    utf8: bool,
}

impl<'de> Walker<'de, '_> {
    fn emit(&mut self, offset: u64, key: bool, kind: EventKind<'_>) {
        let end = self.de.offset();
        (self.sink)(&Event {
            offset,
            end,
            depth: self.depth,
            key,
            kind,
        });
    }

    /// Opens a container: the event, then one tree level deeper.
    fn open(&mut self, offset: u64, key: bool, kind: EventKind<'_>) {
        self.emit(offset, key, kind);
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        let at = self.de.offset();
        self.emit(at, false, EventKind::Close);
    }

    /// Walks one value (as `deserialize_any` reads it for a `Value`).
    fn value(&mut self, key: bool) -> Result<()> {
        let at = self.de.offset();
        let tag = self.de.next_tag()?;
        match tag {
            FIXSTR..=FIXSTR_MAX | STR8..=STR32 | BIN8..=BIN32 => {
                self.text(tag, at, key, None)?;
            }
            t if is_dense_text(t) => {
                self.text(tag, at, key, None)?;
            }
            FIXARR..=FIXARR_MAX | ARR16 | ARR32 => {
                let n = self.de.array_len(tag)?.unwrap_or(0);
                self.de.enter()?;
                self.open(at, key, EventKind::Array { count: n as u64 });
                for _ in 0..n {
                    self.value(false)?;
                }
                self.de.leave();
                self.close();
            }
            MAP8..=MAP32 => {
                let n = self.de.map_len(tag)?.unwrap_or(0);
                self.de.enter()?;
                self.open(at, key, EventKind::Map { count: n as u64 });
                for _ in 0..n {
                    self.value(true)?;
                    self.value(false)?;
                }
                self.de.leave();
                self.close();
            }
            SHAPE => self.shape(at, key)?,
            NIL => self.emit(at, key, EventKind::Nil),
            FALSE => self.emit(at, key, EventKind::Bool(false)),
            TRUE => self.emit(at, key, EventKind::Bool(true)),
            EXT => self.ext(at, key)?,
            TIMESTAMP => {
                let (secs, nanos) = self.de.read_timestamp()?;
                self.emit(at, key, EventKind::Timestamp { secs, nanos });
            }
            COLUMNAR | HYBRID => self.columnar(tag, at, key)?,
            t if codec::is_qpack_tag(t) => self.packed(tag, at, key)?,
            _ => match self.de.read_num(tag)? {
                Some(n) => self.emit(at, key, num_event(n)),
                None => return Err(self.de.bad_tag(tag, "a value")),
            },
        }
        Ok(())
    }

    /// A string or byte string whose tag `tag` (at `at`) was read: inline forms and intern
    /// definitions through the decoder's `read_text`, references resolved by the Dense
    /// state so that their id is known. `name`: a field name inside a shape, which must be
    /// a string (as the decoder's field-name read requires), `Some(true)` when it is
    /// recorded as a declaration's name.
    fn text(&mut self, tag: u8, at: u64, key: bool, name: Option<bool>) -> Result<TextInfo> {
        if matches!(tag, STATE_REF | REPEAT | MTF | PAIR) {
            let form = match tag {
                STATE_REF => RefForm::StateRef,
                REPEAT => RefForm::Repeat,
                MTF => RefForm::Mtf(self.de.read.peek().unwrap_or(0)),
                _ => RefForm::Pair,
            };
            let pay = self.de.offset();
            let rest = self.de.read.rest();
            let (id, used) = self
                .de
                .state
                .dense()
                .resolve(tag, rest)
                .map_err(|e| e.with_offset(pay))?;
            self.de.read.take(used, "a Dense reference")?;
            let (bytes, kind) = self
                .de
                .state
                .dense_ref()
                .and_then(|d| d.entry(id))
                .ok_or_else(|| Error::at(ErrorCode::UnknownStateId(id.into()), pay))?;
            let len = bytes.len() as u64;
            if len > self.de.budget_left {
                return Err(self.de.over_limit(len));
            }
            self.de.budget_left -= len;
            let binary = kind == Kind::Bin;
            let info = TextInfo {
                binary,
                utf8: !binary || crate::utf8::utf8(bytes).is_ok(),
            };
            let end = self.de.offset();
            (self.sink)(&Event {
                offset: at,
                end,
                depth: self.depth,
                key,
                kind: EventKind::Text {
                    bytes,
                    binary,
                    intern: Intern::Ref { id, form },
                },
            });
            match name {
                Some(_) if binary => return Err(self.de.unexpected(tag, "a field name")),
                Some(true) => {
                    // The entry is borrowed from the state that records it: copied, as
                    // the decoder copies a name read from the table.
                    let owned = bytes.to_vec();
                    self.de.state.dense().shape_name(&owned);
                }
                _ => {}
            }
            return Ok(info);
        }
        let defined =
            matches!(tag, INTERN_STR | INTERN_BIN).then(|| self.de.state.dense().entries());
        let (bytes, binary): (&'de [u8], bool) = match self.de.read_text(tag)? {
            Some(Text::Str(Reference::Borrowed(s))) => (s.as_bytes(), false),
            Some(Text::Bytes(Reference::Borrowed(b))) => (b, true),
            // Inline forms and definitions always lie in the input.
            Some(_) => return Err(self.de.bad_tag(tag, "a string")),
            None => {
                let expected = if name.is_some() {
                    "a field name"
                } else {
                    "a value"
                };
                return Err(self.de.unexpected(tag, expected));
            }
        };
        let intern = defined.map_or(Intern::Inline, Intern::Define);
        let info = TextInfo {
            binary,
            utf8: !binary || crate::utf8::utf8(bytes).is_ok(),
        };
        self.emit(
            at,
            key,
            EventKind::Text {
                bytes,
                binary,
                intern,
            },
        );
        match name {
            Some(_) if binary => return Err(self.de.unexpected(tag, "a field name")),
            Some(true) => self.de.state.dense().shape_name(bytes),
            _ => {}
        }
        Ok(info)
    }

    /// A field name on the wire inside a shape; `record`: a declaration's name.
    fn name(&mut self, record: bool) -> Result<()> {
        let at = self.de.offset();
        let tag = self.de.next_tag()?;
        self.text(tag, at, true, Some(record)).map(drop)
    }

    /// The byte at absolute offset `at` of the body, if it is inside it.
    fn byte_at(&self, at: u64) -> Option<u8> {
        let i = usize::try_from(at.checked_sub(self.base)?).ok()?;
        self.input.get(i).copied()
    }
}

/// Where a shape walk is (as the decoder's shape access moves).
#[derive(Copy, Clone, PartialEq, Eq)]
enum Phase {
    /// The shape's (or the declaration's) fields in order.
    Shape,
    /// An open reuse: the shape's values with no escape among them, then pairs.
    Open,
    /// After an escape: (name, value) pairs until `C0`.
    Escaped,
    /// All entries read.
    Done,
}

impl<'de> Walker<'de, '_> {
    /// The shape whose `EC` tag (at `at`) was read: a declaration, a reuse, an escape, an
    /// open reuse (§15), stepped through as the decoder's shape access steps.
    fn shape(&mut self, at: u64, key: bool) -> Result<()> {
        let id_at = self.de.offset();
        let id = self.de.read.uvarint()?;
        let (count, names) = if id == 0 {
            let n = self.de.read.uvarint()?;
            self.de.read.check_count(n, 2)?;
            self.de.state.dense().begin_shape();
            (n as usize, 0)
        } else {
            let r = u32::try_from(id)
                .ok()
                .and_then(|id| self.de.state.dense_ref()?.shapes().name_range(id))
                .ok_or_else(|| Error::at(ErrorCode::UnknownStateId(id), id_at))?;
            (r.len(), r.start)
        };
        self.de.charge(count as u64)?;
        self.de.enter()?;
        let reuse = (id != 0).then_some(id as u32);
        let fields = count as u64;
        self.open(at, key, EventKind::Shape { reuse, fields });
        let (mut idx, mut phase) = (0usize, Phase::Shape);
        loop {
            match phase {
                Phase::Done => break,
                Phase::Shape if idx == count => {
                    self.end_declaration(id, idx)?;
                    phase = Phase::Done;
                }
                Phase::Shape if self.eat_escape() => {
                    let esc_at = self.de.offset() - 2;
                    let kind = if id == 0 {
                        self.emit(esc_at, false, EventKind::Escape(EscapeKind::Escape));
                        self.end_declaration(id, idx)?;
                        phase = Phase::Escaped;
                        EscapeKind::Escape
                    } else if idx == 0 {
                        phase = Phase::Open;
                        EscapeKind::OpenReuse
                    } else {
                        phase = Phase::Escaped;
                        self.de.refund((count - idx) as u64);
                        EscapeKind::Escape
                    };
                    if id != 0 {
                        self.emit(esc_at, false, EventKind::Escape(kind));
                    }
                }
                Phase::Shape if id == 0 => {
                    idx += 1;
                    self.name(true)?;
                    self.value(false)?;
                }
                Phase::Shape | Phase::Open if idx < count => {
                    self.field(names + idx);
                    idx += 1;
                    self.value(false)?;
                }
                // An open reuse after the shape's values.
                Phase::Shape | Phase::Open => phase = Phase::Escaped,
                Phase::Escaped => {
                    let here = self.de.offset();
                    if self.de.read.peek() == Some(NIL) {
                        let _ = self.de.next_tag();
                        self.emit(here, false, EventKind::EndMark);
                        phase = Phase::Done;
                        continue;
                    }
                    idx += 1;
                    self.de.charge(1)?;
                    if self.eat_escape() {
                        self.emit(here, false, EventKind::Escape(EscapeKind::MarkedKey));
                        self.value(true)?;
                    } else {
                        self.name(false)?;
                    }
                    self.value(false)?;
                }
            }
        }
        self.de.leave();
        self.close();
        Ok(())
    }

    /// A declaration's names are complete: the shape is defined.
    fn end_declaration(&mut self, id: u64, fields: usize) -> Result<()> {
        if id != 0 {
            return Ok(());
        }
        let at = self.de.offset();
        let new = self
            .de
            .state
            .dense()
            .end_shape()
            .map_err(|e| e.with_offset(at))?;
        let fields = fields as u64;
        self.emit(at, false, EventKind::ShapeDefined { id: new, fields });
        Ok(())
    }

    /// The field name at stored-name index `k` of the shape table (a reuse: not on the
    /// wire).
    fn field(&mut self, k: usize) {
        let at = self.de.offset();
        let name = self
            .de
            .state
            .dense_ref()
            .and_then(|d| d.shapes().name_at(k))
            .unwrap_or(&[]);
        (self.sink)(&Event {
            offset: at,
            end: at,
            depth: self.depth,
            key: true,
            kind: EventKind::Field { name },
        });
    }

    /// True (and consumed) if the next bytes are the shape escape `F2 0A`.
    fn eat_escape(&mut self) -> bool {
        if self.de.read.rest().starts_with(&[EXT, ext::SHAPE_ESCAPE]) {
            let _ = self.de.read.take(2, "a shape escape");
            return true;
        }
        false
    }

    /// The extension value whose `F2` tag (at `at`) was read (§9).
    fn ext(&mut self, at: u64, key: bool) -> Result<()> {
        let sub = self.de.read.next("an extension subtype")?;
        match sub {
            ext::UNIT => self.emit(at, key, EventKind::Unit),
            ext::UNIT_STRUCT => self.emit(at, key, EventKind::UnitStruct),
            ext::CHAR => {
                let c = self.de.read_char()?;
                self.emit(at, key, EventKind::Char(c));
            }
            ext::U128 | ext::I128 => {
                let n = self.de.read_wide(sub)?;
                self.emit(at, key, num_event(n));
            }
            ext::SOME => {
                self.de.check_some_wrapper()?;
                self.de.enter()?;
                self.open(at, key, EventKind::Some);
                self.value(false)?;
                self.de.leave();
                self.close();
            }
            ext::UNIT_VARIANT | ext::NEWTYPE_VARIANT | ext::TUPLE_VARIANT | ext::STRUCT_VARIANT => {
                let kind = match sub {
                    ext::UNIT_VARIANT => VariantKind::Unit,
                    ext::NEWTYPE_VARIANT => VariantKind::Newtype,
                    ext::TUPLE_VARIANT => VariantKind::Tuple,
                    _ => VariantKind::Struct,
                };
                let payload = kind != VariantKind::Unit;
                if payload {
                    self.de.enter()?;
                }
                self.open(at, key, EventKind::Variant(kind));
                self.variant_name()?;
                if payload {
                    self.de.check_payload(sub)?;
                    self.value(false)?;
                    self.de.leave();
                }
                self.close();
            }
            _ => {
                return Err(self.de.error_at_tag(ErrorCode::BadTag {
                    found: sub,
                    expected: "an extension subtype 0x00..=0x09",
                }));
            }
        }
        Ok(())
    }

    /// A variant name: a string; an inline byte string is refused, a Dense bytes entry is
    /// accepted when UTF-8 (§9, §14), as the decoder's variant-name read does.
    fn variant_name(&mut self) -> Result<()> {
        let at = self.de.offset();
        let tag = self.de.next_tag()?;
        let is_text = matches!(tag, FIXSTR..=FIXSTR_MAX | STR8..=STR32) || is_dense_text(tag);
        if !is_text {
            return Err(self.de.unexpected(tag, "a variant name"));
        }
        let t = self.text(tag, at, false, None)?;
        if t.binary && !t.utf8 {
            return Err(
                Error::mismatch("a variant name", "a byte string that is not UTF-8")
                    .with_offset(at),
            );
        }
        Ok(())
    }

    /// The QPack value whose tag (at `at`) was read, decoded by the codecs (and charged)
    /// as the decoder decodes it.
    fn packed(&mut self, tag: u8, at: u64, key: bool) -> Result<()> {
        let base = self.de.offset();
        // `E3` has no kind byte; an `FE` block's kind is inside its coded bytes.
        let kind = (!matches!(tag, QP_BOOL | ENTROPY))
            .then(|| self.de.read.peek())
            .flatten();
        let (packed, used) =
            codec::decode_body(tag, self.de.read.rest(), base, &mut self.de.budget_left)
                .map_err(|e| self.de.rebase_limit(e))?;
        self.de.read.take(used, "a QPack body")?;
        // The decoder enters a level for the sequence.
        self.de.enter()?;
        self.de.leave();
        // An `FE` block's kind is the decoded value's (`None` for bools, as for `E3`).
        let kind = match (&packed, kind) {
            (_, Some(k)) => Some(k),
            (codec::Packed::Ints(k, _), None) => Some(k.byte()),
            (codec::Packed::F32s(_), None) => Some(codec::kind::Kind::F32.byte()),
            (codec::Packed::F64s(_), None) => Some(codec::kind::Kind::F64.byte()),
            (codec::Packed::Bools(_), None) => None,
        };
        // `tag` is a QPack tag (the caller checked), so the fallback is never taken.
        let codec = Codec::from_tag(tag, kind).unwrap_or(Codec::Raw);
        let count = packed.len() as u64;
        drop(packed);
        self.emit(at, key, EventKind::Packed { codec, kind, count });
        Ok(())
    }

    /// The columnar container whose tag (at `at`) was read: the header and every column
    /// through the decoder's columnar reader, then (hybrid) the rows' residual values.
    fn columnar(&mut self, tag: u8, at: u64, key: bool) -> Result<()> {
        let ids_before = self.entries();
        let shapes_before = self.col_shapes();
        let mut c = Container::read_header(&mut self.de, tag)?;
        let declared = self.col_shapes() > shapes_before;
        let shape = if declared {
            self.col_shapes()
        } else {
            // A reuse: the id that was read, the varint after the row count.
            let from = usize::try_from(at + 1 - self.base).unwrap_or(usize::MAX);
            let mut r = SliceRead::new(self.input.get(from..).unwrap_or(&[]), at + 1);
            r.uvarint()?;
            u32::try_from(r.uvarint()?).unwrap_or(u32::MAX)
        };
        self.de.enter()?;
        let interned = ids_before..self.entries();
        self.open(
            at,
            key,
            EventKind::Columnar {
                hybrid: tag == HYBRID,
                rows: c.m as u64,
                shape,
                declared,
                interned,
            },
        );
        // Load column by column is the reader's job: all at once, then the byte ranges from
        // each column's start.
        let ids_before = self.entries();
        c.load(&mut self.de, None)?;
        // Per-value string columns define intern entries in column order, from here.
        let mut next_id = ids_before;
        let end = self.de.offset();
        let m = c.m;
        for j in 0..c.cols.len() {
            let col = &c.cols[j];
            let col_end = c.cols.get(j + 1).map_or(end, |n| n.at);
            let present = if col.optional {
                col.present.iter().map(|b| b.count_ones() as u64).sum()
            } else {
                m as u64
            };
            let count = if col.nullable {
                col.non_null.iter().map(|b| b.count_ones() as u64).sum()
            } else {
                present
            };
            let mut values_at = col.at;
            if col.optional {
                values_at += mask_len(m) as u64;
            }
            if col.nullable {
                values_at += mask_len(present as usize) as u64;
            }
            // A string column with no value and no block has no value bytes at all.
            let first = (values_at < col_end)
                .then(|| self.byte_at(values_at))
                .flatten();
            let values = match (&col.data, first) {
                (Data::Residual, _) => ColumnValues::Residual,
                (_, first) if col.class == Class::Str => first
                    .and_then(block)
                    .map_or(ColumnValues::PerValue, ColumnValues::Block),
                (_, Some(t)) => match Codec::from_tag(t, None) {
                    Some(_) => {
                        let kind = (!matches!(t, QP_BOOL | ENTROPY))
                            .then(|| self.byte_at(values_at + 1))
                            .flatten();
                        // `from_tag` knows `t`: it named a codec just above.
                        let codec = Codec::from_tag(t, kind).unwrap_or(Codec::Raw);
                        ColumnValues::Packed(codec, kind)
                    }
                    None => ColumnValues::Array,
                },
                (_, None) => ColumnValues::Array,
            };
            let interned = if values == ColumnValues::PerValue {
                let from = usize::try_from(values_at - self.base).unwrap_or(usize::MAX);
                let to = usize::try_from(col_end - self.base).unwrap_or(usize::MAX);
                let body = self.input.get(from..to).unwrap_or(&[]);
                let n = definitions(body, values_at, count)?;
                next_id += n;
                next_id - n..next_id
            } else {
                next_id..next_id
            };
            (self.sink)(&Event {
                offset: col.at,
                end: col_end,
                depth: self.depth,
                key: false,
                kind: EventKind::Column {
                    index: j,
                    name: &col.name,
                    kind: col.kind(),
                    values,
                    count,
                    interned,
                },
            });
        }
        if tag != HYBRID {
            // The decoder enters a level for each row it presents.
            self.de.enter()?;
            self.de.leave();
        } else {
            for i in 0..m {
                let row_at = self.de.offset();
                self.de.enter()?;
                self.open(row_at, false, EventKind::Row { index: i as u64 });
                for j in 0..c.cols.len() {
                    let col = &c.cols[j];
                    if col.class != Class::Residual
                        || (col.optional && !crate::columnar::read::bit(col.present, i))
                    {
                        continue;
                    }
                    let here = self.de.offset();
                    (self.sink)(&Event {
                        offset: here,
                        end: here,
                        depth: self.depth,
                        key: true,
                        kind: EventKind::Field {
                            name: col.name.as_bytes(),
                        },
                    });
                    self.value(false)?;
                }
                self.de.leave();
                self.close();
            }
        }
        self.de.leave();
        self.close();
        Ok(())
    }

    /// Intern entries defined so far.
    fn entries(&self) -> u32 {
        self.de.state.dense_ref().map_or(0, DenseState::entries)
    }

    /// Column shapes defined so far.
    fn col_shapes(&self) -> u32 {
        self.de
            .state
            .dense_ref()
            .map_or(0, |d| d.col_shapes().len())
    }
}

/// The intern definitions (`E0`, `E2`) among the `v` per-value strings at the front of
/// `col` (whose first byte is at `at`): a column the columnar reader has decoded, so only
/// each string's extent is read here, not its meaning.
fn definitions(col: &[u8], at: u64, v: u64) -> Result<u32> {
    let mut r = SliceRead::new(col, at);
    let mut n = 0u32;
    for _ in 0..v {
        let tag = r.next("a string of a string column")?;
        let len = match tag {
            FIXSTR..=FIXSTR_MAX => u64::from(tag & 0x1F),
            STR8 | BIN8 => u64::from(r.next("a length")?),
            STR16 | BIN16 => u64::from(u16::from_le_bytes(r.array("a length")?)),
            STR32 | BIN32 => u64::from(u32::from_le_bytes(r.array("a length")?)),
            INTERN_STR | INTERN_BIN => {
                n += 1;
                r.uvarint()?
            }
            STATE_REF | MTF | PAIR => {
                r.uvarint()?;
                0
            }
            _ => 0,
        };
        r.check_count(len, 1)?;
        r.take(len as usize, "string bytes")?;
    }
    Ok(n)
}

/// The event of a number.
fn num_event(n: Num) -> EventKind<'static> {
    match n {
        Num::U64(v) => EventKind::Int(Int::U64(v)),
        Num::I64(v) => EventKind::Int(Int::I64(v)),
        Num::U128(v) => EventKind::Int(Int::U128(v)),
        Num::I128(v) => EventKind::Int(Int::I128(v)),
        Num::F32(v) => EventKind::F32(v),
        Num::F64(v) => EventKind::F64(v),
    }
}

/// The string block a tag starts, if any.
fn block(tag: u8) -> Option<StringBlock> {
    Some(match tag {
        COL_STR_DICT => StringBlock::Dict,
        COL_STR_FSST => StringBlock::Fsst,
        COL_STR_SLAB => StringBlock::Slab,
        COL_STR_CONST => StringBlock::Const,
        COL_STR_FRONT => StringBlock::Front,
        COL_STR_ALPHA => StringBlock::Alpha,
        COL_STR_DICTQ => StringBlock::DictQ,
        ENTROPY => StringBlock::Entropy,
        _ => return None,
    })
}
