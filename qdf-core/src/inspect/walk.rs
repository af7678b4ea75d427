//! The walk over one body: the decoder's own parsing, each tag handed on as an [`Event`].

use std::borrow::Cow;

use super::*;
use crate::codec;
use crate::columnar::numtext::Form;
use crate::columnar::read::{Column, Container, Data};
use crate::columnar::row::enter_value_levels;
use crate::columnar::{Class, mask_len};
use crate::dense::{DenseState, Kind, XOR_MODE, is_slot_text};
use crate::error::{Error, ErrorCode, Result};
use crate::source::{Num, Source};
use crate::wire::read::{Reference, SliceRead, Text};
use crate::wire::varint::{read_uvarint, unzigzag};
use crate::wire::{ext, tags::*};

/// The walk over one body.
pub(super) struct Walker<'de, 's> {
    pub(super) src: Source<'de>,
    /// The bytes the deserializer reads and the offset of their first byte, to look back at
    /// bytes already read (a column's first value tag, a reused column shape's id).
    pub(super) input: &'de [u8],
    pub(super) base: u64,
    pub(super) sink: &'s mut dyn FnMut(&Event<'_>),
    /// Tree depth of the next value.
    pub(super) depth: u32,
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
        let end = self.src.offset();
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
        let at = self.src.offset();
        self.emit(at, false, EventKind::Close);
    }

    /// Walks one value (as `deserialize_any` reads it for a `Value`).
    pub(super) fn value(&mut self, key: bool) -> Result<()> {
        let at = self.src.offset();
        let tag = self.src.next_tag()?;
        match tag {
            FIXSTR..=FIXSTR_MAX | STR8..=STR32 | BIN8..=BIN32 => {
                self.text(tag, at, key, None)?;
            }
            t if is_dense_text(t) || self.hex_next(t) => {
                self.text(tag, at, key, None)?;
            }
            FIXARR..=FIXARR_MAX | ARR16 | ARR32 => {
                let n = self.src.array_len(tag)?.unwrap_or(0);
                self.src.enter()?;
                self.open(at, key, EventKind::Array { count: n as u64 });
                for _ in 0..n {
                    self.value(false)?;
                }
                self.src.leave();
                self.close();
            }
            MAP8..=MAP32 => {
                let n = self.src.map_len(tag)?.unwrap_or(0);
                self.src.enter()?;
                self.open(at, key, EventKind::Map { count: n as u64 });
                for _ in 0..n {
                    self.value(true)?;
                    self.value(false)?;
                }
                self.src.leave();
                self.close();
            }
            SHAPE => self.shape(at, key)?,
            NIL => self.emit(at, key, EventKind::Nil),
            FALSE => self.emit(at, key, EventKind::Bool(false)),
            TRUE => self.emit(at, key, EventKind::Bool(true)),
            EXT => self.ext(at, key)?,
            TIMESTAMP => {
                let (secs, nanos) = self.src.read_timestamp()?;
                self.emit(at, key, EventKind::Timestamp { secs, nanos });
            }
            COLUMNAR | HYBRID => self.columnar(tag, at, key)?,
            t if codec::is_qpack_tag(t) => self.packed(tag, at, key)?,
            _ => match self.src.read_num(tag)? {
                Some(n) => self.emit(at, key, num_event(n)),
                None => return Err(self.src.bad_tag(tag, "a value")),
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
                MTF => RefForm::Mtf(self.src.peek().unwrap_or(0)),
                _ => RefForm::Pair,
            };
            let pay = self.src.offset();
            let rest = self.src.rest();
            let (id, used) = self
                .src
                .dense()
                .resolve(tag, rest)
                .map_err(|e| e.with_offset(pay))?;
            self.src.take(used, "a Dense reference")?;
            let unknown = || Error::at(ErrorCode::UnknownStateId(id.into()), pay);
            // Charged before the entry is borrowed for the event (the charge needs the
            // source), so it is looked up twice.
            let len = entry(&self.src, id).ok_or_else(unknown)?.0.len();
            self.src.charge(len as u64)?;
            let (bytes, kind) = entry(&self.src, id).ok_or_else(unknown)?;
            let binary = kind == Kind::Bin;
            let info = TextInfo {
                binary,
                utf8: !binary || crate::utf8::utf8(bytes).is_ok(),
            };
            let end = self.src.offset();
            (self.sink)(&Event {
                offset: at,
                end,
                depth: self.depth,
                key,
                kind: EventKind::Text {
                    bytes,
                    binary,
                    intern: Intern::Ref { id, form },
                    hex: false,
                },
            });
            match name {
                Some(_) if binary => return Err(self.src.unexpected(tag, "a field name")),
                Some(true) => {
                    // The entry is borrowed from the state that records it: copied, as
                    // the decoder copies a name read from the table.
                    let owned = bytes.to_vec();
                    self.src.dense().shape_name(&owned);
                }
                _ => {}
            }
            return Ok(info);
        }
        let hex = self.hex_next(tag);
        let defines = matches!(tag, INTERN_STR | INTERN_BIN)
            || (hex && self.src.rest().first() == Some(&ext::HEX_DEF));
        let defined = defines.then(|| self.src.dense().entries());
        let (bytes, binary): (Cow<'de, [u8]>, bool) = match self.src.read_text(tag)? {
            Some(Text::Str(Reference::Borrowed(s))) => (Cow::Borrowed(s.as_bytes()), false),
            Some(Text::Bytes(Reference::Borrowed(b))) => (Cow::Borrowed(b), true),
            // Hex text is printed by the decoder (copied out here for the event).
            Some(Text::Str(Reference::Copied(s))) if hex => {
                (Cow::Owned(s.as_bytes().to_vec()), false)
            }
            // Other inline forms and definitions always lie in the input.
            Some(_) => return Err(self.src.bad_tag(tag, "a string")),
            None => {
                let expected = if name.is_some() {
                    "a field name"
                } else {
                    "a value"
                };
                return Err(self.src.unexpected(tag, expected));
            }
        };
        let intern = defined.map_or(Intern::Inline, Intern::Define);
        let info = TextInfo {
            binary,
            utf8: !binary || crate::utf8::utf8(&bytes).is_ok(),
        };
        self.emit(
            at,
            key,
            EventKind::Text {
                bytes: &bytes,
                binary,
                intern,
                hex,
            },
        );
        match name {
            Some(_) if binary => return Err(self.src.unexpected(tag, "a field name")),
            Some(true) => self.src.dense().shape_name(&bytes),
            _ => {}
        }
        Ok(info)
    }

    /// True if `tag` (just read) is `F2` and the next byte makes it hex text (`F2 0B`,
    /// `F2 0C`, §9): a string form.
    fn hex_next(&self, tag: u8) -> bool {
        tag == EXT && self.src.peek().is_some_and(ext::is_hex)
    }

    /// A field name on the wire inside a shape; `record`: a declaration's name.
    fn name(&mut self, record: bool) -> Result<()> {
        let at = self.src.offset();
        let tag = self.src.next_tag()?;
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
        let id_at = self.src.offset();
        let id = self.src.uvarint()?;
        let (count, names) = if id == 0 {
            let n = self.src.uvarint()?;
            self.src.check_count(n, 2)?;
            self.src.dense().begin_shape();
            (n as usize, 0)
        } else {
            let r = u32::try_from(id)
                .ok()
                .and_then(|id| self.src.dense_ref()?.shapes().name_range(id))
                .ok_or_else(|| Error::at(ErrorCode::UnknownStateId(id), id_at))?;
            (r.len(), r.start)
        };
        self.src.charge(count as u64)?;
        self.src.enter()?;
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
                    let esc_at = self.src.offset() - 2;
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
                        EscapeKind::Escape
                    };
                    if phase == Phase::Escaped {
                        // The shape's fields after the escape are not presented: the
                        // decoder gives their charge back (a declaration's too).
                        self.src.refund((count - idx) as u64);
                    }
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
                    self.slotted_value(names + idx - 1)?;
                }
                // An open reuse after the shape's values.
                Phase::Shape | Phase::Open => phase = Phase::Escaped,
                Phase::Escaped => {
                    let here = self.src.offset();
                    if self.src.peek() == Some(NIL) {
                        let _ = self.src.next_tag();
                        self.emit(here, false, EventKind::EndMark);
                        phase = Phase::Done;
                        continue;
                    }
                    idx += 1;
                    self.src.charge(1)?;
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
        self.src.leave();
        self.close();
        Ok(())
    }

    /// The value of a reuse's field `k` (a numeric slot in a session, `docs/SPEC.md` §15.2,
    /// and a text slot in a stream with header flag `40`, §15.3), stepped as the decoder's
    /// shape access steps it.
    fn slotted_value(&mut self, k: usize) -> Result<()> {
        if self.src.tracks_texts()
            && let Some(t) = self.src.peek()
            && (is_slot_text(t) || t == EXT)
        {
            let before = self.src.rest();
            if t == EXT && before.get(1) == Some(&ext::TEXT_PREFIX) {
                let (_, kept, suffix, at) = self.src.slot_prefix(k)?;
                let kind = EventKind::Text {
                    bytes: suffix.as_bytes(),
                    binary: false,
                    intern: Intern::Prefix { kept },
                    hex: false,
                };
                self.emit(at, false, kind);
                return Ok(());
            }
            self.value(false)?;
            self.src.observe_text(k, t, before);
            return Ok(());
        }
        if self.src.tracks_numbers() {
            let at = self.src.offset();
            if let Some((n, _)) = self.src.slotted(k)? {
                let kind = match num_event(n) {
                    EventKind::Int(i) => self.predicted(at, k, Number::Int(i)),
                    EventKind::F32(f) => self.predicted(at, k, Number::F32(f)),
                    EventKind::F64(f) => self.predicted(at, k, Number::F64(f)),
                    other => other,
                };
                self.emit(at, false, kind);
                return Ok(());
            }
        }
        self.value(false)
    }

    /// The event of `value`, the predicted number of slot `k` whose form (at `at`) the
    /// decoder has read: its payload is read again here to name the form.
    fn predicted(&self, at: u64, k: usize, value: Number) -> EventKind<'static> {
        let from = usize::try_from(at - self.base).unwrap_or(usize::MAX);
        let b = self.input.get(from..).unwrap_or(&[]);
        let payload = |i: usize| read_uvarint(b.get(i..).unwrap_or(&[])).map_or(0, |(v, _)| v);
        let int = matches!(value, Number::Int(_));
        let form = match b.first().copied() {
            Some(NUM_SAME) if int => Prediction::SameStep,
            Some(NUM_SAME) => Prediction::Same,
            Some(NUM_DELTA) if int => {
                let z = payload(1);
                let x = unzigzag(z >> 1);
                if z & 1 == 0 {
                    Prediction::Delta(x)
                } else {
                    Prediction::DeltaOfDelta(x)
                }
            }
            Some(NUM_DELTA) => Prediction::Decimal {
                step: unzigzag(payload(1)),
                // A decimal step keeps the field's exponent.
                exp: self.src.dense_ref().map_or(0, |d| d.num_exp(k)),
            },
            _ => {
                let mode = b.get(1).copied().unwrap_or(0);
                if mode < XOR_MODE {
                    Prediction::DecimalAt {
                        step: unzigzag(payload(2)),
                        exp: mode,
                    }
                } else {
                    Prediction::Xor {
                        bits: payload(2),
                        shift: mode - XOR_MODE,
                    }
                }
            }
        };
        EventKind::Predicted { value, form }
    }

    /// A declaration's names are complete: the shape is defined.
    fn end_declaration(&mut self, id: u64, fields: usize) -> Result<()> {
        if id != 0 {
            return Ok(());
        }
        let at = self.src.offset();
        let new = self
            .src
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
        let at = self.src.offset();
        let name = self
            .src
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
        if self.src.rest().starts_with(&[EXT, ext::SHAPE_ESCAPE]) {
            let _ = self.src.take(2, "a shape escape");
            return true;
        }
        false
    }

    /// The extension value whose `F2` tag (at `at`) was read (§9).
    fn ext(&mut self, at: u64, key: bool) -> Result<()> {
        let sub = self.src.next("an extension subtype")?;
        match sub {
            ext::UNIT => self.emit(at, key, EventKind::Unit),
            ext::UNIT_STRUCT => self.emit(at, key, EventKind::UnitStruct),
            ext::CHAR => {
                let c = self.src.read_char()?;
                self.emit(at, key, EventKind::Char(c));
            }
            ext::U128 | ext::I128 => {
                let n = self.src.read_wide(sub)?;
                self.emit(at, key, num_event(n));
            }
            ext::SOME => {
                self.src.check_some_wrapper()?;
                self.src.enter()?;
                self.open(at, key, EventKind::Some);
                self.value(false)?;
                self.src.leave();
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
                    self.src.enter()?;
                }
                self.open(at, key, EventKind::Variant(kind));
                self.variant_name()?;
                if payload {
                    self.src.check_payload(sub)?;
                    self.value(false)?;
                    self.src.leave();
                }
                self.close();
            }
            _ => {
                return Err(self.src.error_at_tag(ErrorCode::BadTag {
                    found: sub,
                    expected: "an extension subtype 0x00..=0x09, 0x0B or 0x0C",
                }));
            }
        }
        Ok(())
    }

    /// A variant name: a string; an inline byte string is refused, a Dense bytes entry is
    /// accepted when UTF-8 (§9, §14), as the decoder's variant-name read does.
    fn variant_name(&mut self) -> Result<()> {
        let at = self.src.offset();
        let tag = self.src.next_tag()?;
        let is_text = matches!(tag, FIXSTR..=FIXSTR_MAX | STR8..=STR32)
            || is_dense_text(tag)
            || self.hex_next(tag);
        if !is_text {
            return Err(self.src.unexpected(tag, "a variant name"));
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
        // `E3` has no kind byte; an `FE` block's kind is inside its coded bytes.
        let kind = (!matches!(tag, QP_BOOL | ENTROPY))
            .then(|| self.src.peek())
            .flatten();
        let packed = crate::qpack::decode::read_packed(&mut self.src, tag)?;
        // The decoder enters a level for the sequence.
        self.src.enter()?;
        self.src.leave();
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
        let mut c = Container::read_header(&mut self.src, tag)?;
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
        self.src.enter()?;
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
        c.load(&mut self.src, None)?;
        // Per-value string columns define intern entries in column order, from here.
        let mut next_id = ids_before;
        let end = self.src.offset();
        let m = c.m;
        for j in 0..c.cols.len() {
            let col_end = c.cols.get(j + 1).map_or(end, |n| n.at);
            self.column(&c.cols[j], j, m, col_end, &mut next_id)?;
        }
        // The decoder presents each row one level down (its errors at the tag), and a
        // nested column's value the levels `enter_value_levels` counts.
        let hybrid = tag == HYBRID;
        let nested = c.cols.iter().any(|c| matches!(c.data, Data::Nested));
        let rows = if hybrid || nested { m } else { 1 };
        for i in 0..rows {
            let row_at = self.src.offset();
            self.src.enter().map_err(|e| e.relocated(at))?;
            if hybrid {
                self.open(row_at, false, EventKind::Row { index: i as u64 });
            }
            for col in &mut c.cols {
                if col.optional && !crate::columnar::read::bit(col.present, i) {
                    continue;
                }
                if col.class != Class::Residual {
                    enter_value_levels(&mut self.src, col)?;
                    continue;
                }
                let here = self.src.offset();
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
            self.src.leave();
            if hybrid {
                self.close();
            }
        }
        self.src.leave();
        self.close();
        Ok(())
    }

    /// Emits the event of column `col` (position `index` among its siblings), decoded by the
    /// columnar reader over `slots` slots, its bytes ending at `end`. A struct, list, map or
    /// tagged column opens: its child columns follow one level deeper (slots: its values,
    /// its lists' elements, its maps' entries, or the values of each variant's tag), then a
    /// `Close`. `next_id`: the next intern id a per-value string
    /// column defines (columns are read in this order).
    fn column(
        &mut self,
        col: &Column<'_>,
        index: usize,
        slots: usize,
        end: u64,
        next_id: &mut u32,
    ) -> Result<()> {
        let ones = |mask: &[u8]| mask.iter().map(|b| u64::from(b.count_ones())).sum::<u64>();
        let present = if col.optional {
            ones(col.present)
        } else {
            slots as u64
        };
        let count = if col.nullable {
            ones(col.non_null)
        } else {
            present
        };
        let mut values_at = col.at;
        if col.optional {
            values_at += mask_len(slots) as u64;
        }
        if col.nullable {
            values_at += mask_len(present as usize) as u64;
        }
        // A string column with no value and no block has no value bytes at all.
        let first = (values_at < end).then(|| self.byte_at(values_at)).flatten();
        let values = match (&col.data, first) {
            (Data::Residual, _) => ColumnValues::Residual,
            (Data::Unit, _) => ColumnValues::Unit,
            _ if col.class == Class::Struct => ColumnValues::Struct(col.children.len()),
            _ if col.class == Class::Tagged => ColumnValues::Tagged {
                variants: col.children.len(),
                map: col.map_form,
                tags: match self.leaf_values(first, values_at) {
                    ColumnValues::Packed(codec, _) => Some(codec),
                    _ => None,
                },
            },
            _ if col.class == Class::List => ColumnValues::List {
                elements: col.lens.iter().sum(),
                lengths: match self.leaf_values(first, values_at) {
                    ColumnValues::Packed(codec, _) => Some(codec),
                    _ => None,
                },
            },
            _ if col.key_sets => ColumnValues::KeySets {
                entries: col.lens.iter().sum(),
                sets: col.sets as u64,
                keys: col.key_slots as u64,
            },
            _ if col.class == Class::Map => ColumnValues::Map {
                entries: col.lens.iter().sum(),
                lengths: match self.leaf_values(first, values_at) {
                    ColumnValues::Packed(codec, _) => Some(codec),
                    _ => None,
                },
            },
            // Flag `04`: references to a sibling.
            (_, Some(flags)) if col.text == Form::Hex && flags & 4 != 0 => ColumnValues::HexRefs,
            (_, _) if col.text == Form::Hex => ColumnValues::HexBytes,
            (_, _) if col.text == Form::DateTime => {
                // The layout byte, the suffix's one-byte length (at most 32) and the suffix.
                let suffix = self.byte_at(values_at + 1).unwrap_or(0);
                let ints_at = values_at + 2 + u64::from(suffix);
                match self.leaf_values(self.byte_at(ints_at), ints_at) {
                    ColumnValues::Packed(codec, _) => ColumnValues::DateTime(Some(codec)),
                    _ => ColumnValues::DateTime(None),
                }
            }
            (_, first) if col.class == Class::Str && col.text == Form::Plain => first
                .and_then(block)
                .map_or(ColumnValues::PerValue, ColumnValues::Block),
            (_, first) => self.leaf_values(first, values_at),
        };
        let interned = if values == ColumnValues::PerValue {
            let from = usize::try_from(values_at - self.base).unwrap_or(usize::MAX);
            let to = usize::try_from(end - self.base).unwrap_or(usize::MAX);
            let body = self.input.get(from..to).unwrap_or(&[]);
            let n = definitions(body, values_at, count)?;
            *next_id += n;
            *next_id - n..*next_id
        } else {
            *next_id..*next_id
        };
        (self.sink)(&Event {
            offset: col.at,
            end,
            depth: self.depth,
            key: false,
            kind: EventKind::Column {
                index,
                name: &col.name,
                kind: col.kind(),
                values,
                count,
                interned,
            },
        });
        if !matches!(
            values,
            ColumnValues::Struct(_)
                | ColumnValues::List { .. }
                | ColumnValues::Map { .. }
                | ColumnValues::KeySets { .. }
                | ColumnValues::Tagged { .. }
        ) {
            return Ok(());
        }
        let slots = match values {
            ColumnValues::List { elements, .. } => elements as usize,
            ColumnValues::Map { entries, .. } | ColumnValues::KeySets { entries, .. } => {
                entries as usize
            }
            _ => count as usize,
        };
        self.depth += 1;
        for (k, child) in col.children.iter().enumerate() {
            let child_end = col.children.get(k + 1).map_or(end, |n| n.at);
            // A variant's slots are the values of its tag.
            let slots = match values {
                ColumnValues::Tagged { .. } => col.lens.iter().filter(|&&t| t == k as u64).count(),
                // The key column holds the sets' keys.
                ColumnValues::KeySets { keys, .. } if k == 0 => keys as usize,
                _ => slots,
            };
            self.column(child, k, slots, child_end, next_id)?;
        }
        self.depth -= 1;
        (self.sink)(&Event {
            offset: end,
            end,
            depth: self.depth,
            key: false,
            kind: EventKind::Close,
        });
        Ok(())
    }

    /// How a number column's values starting with tag `first` (at `values_at`) are
    /// written: a QPack codec with its kind byte, else a plain array.
    fn leaf_values(&self, first: Option<u8>, values_at: u64) -> ColumnValues {
        let Some(t) = first else {
            return ColumnValues::Array;
        };
        match Codec::from_tag(t, None) {
            Some(_) => {
                let kind = (!matches!(t, QP_BOOL | ENTROPY))
                    .then(|| self.byte_at(values_at + 1))
                    .flatten();
                // `from_tag` knows `t`: it named a codec just above.
                let codec = Codec::from_tag(t, kind).unwrap_or(Codec::Raw);
                ColumnValues::Packed(codec, kind)
            }
            None => ColumnValues::Array,
        }
    }

    /// Intern entries defined so far.
    fn entries(&self) -> u32 {
        self.src.dense_ref().map_or(0, DenseState::entries)
    }

    /// Column shapes defined so far.
    fn col_shapes(&self) -> u32 {
        self.src.dense_ref().map_or(0, |d| d.col_shapes().len())
    }
}

/// The intern definitions (`E0`, `E2`, `F2 0C`) among the `v` per-value strings at the front of
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
            // Hex text (§9): `F2 0C` defines, `F2 0B` does not; L = n / 2 bytes follow.
            EXT => {
                n += u32::from(r.next("a subtype")? == ext::HEX_DEF);
                r.uvarint()? >> 1
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

/// Intern entry `id`, if the Dense state holds it.
fn entry<'s>(src: &'s Source<'_>, id: u32) -> Option<(&'s [u8], Kind)> {
    src.dense_ref().and_then(|d| d.entry(id))
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
