//! Sequences, tuples, maps and structs: a length header, then the elements.
//!
//! The header is written up front with the length serde announced. If the `Serialize` impl
//! announced none (or a wrong one, e.g. `#[serde(flatten)]` maps), the header is rewritten in
//! place when the container ends, so the wire always carries the true count in its smallest
//! form.

use serde::Serialize;
use serde::ser::{
    SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant,
};

use super::Serializer;
use crate::columnar::plan::{Batch, Offer, Rows};
use crate::columnar::tape::{Cell, CellRef, Depth, Ev, Open, Tape, len_back};
use crate::dense::encode as dense;
use crate::dense::{ShapeCursor, StructStart};
use crate::error::{Error, Result};
use crate::qpack::encode::{PackBuf, packs};
use crate::sink::Header;
use crate::wire::form::header_bytes;

/// What a [`Compound`] writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Array,
    Map,
    /// A `Value` enum variant carried as a 1-entry map `{name: payload}`: written as
    /// `F2 <subtype> name payload`, no map header.
    Carrier(u8),
}

/// The state of one open container; returned by `serialize_seq`, `serialize_map`,
/// `serialize_struct` and friends.
#[derive(Debug)]
pub struct Compound<'a> {
    ser: &'a mut Serializer,
    kind: Kind,
    /// Offset of the header in the output.
    start: usize,
    /// Bytes the header occupies now.
    header_len: usize,
    /// The count written in the header (`usize::MAX`: no header yet).
    claimed: usize,
    /// Elements (or entries) written.
    count: usize,
    /// Depth levels to leave at the end (2 for tuple and struct variants).
    levels: u32,
    /// A struct written as a Dense shape (`EC`), see [`Compound::open_struct`].
    shape: Option<ShapeCursor>,
    /// Elements buffered while the sequence may still be packed (QPack, arrays only).
    pack: Option<PackBuf>,
    /// A map key was written and its value not yet (`SerializeMap` used out of order).
    key_open: bool,
    /// Rows captured while the sequence may still become a columnar container.
    cols: Option<Box<Batch>>,
    /// The sequence may still become columnar (arrays only, until an element says no).
    cols_ok: bool,
    /// Under `Options::deny_duplicate_keys` (maps): the index of this compound's key set in
    /// the serializer's stack.
    keys: Option<u32>,
}

impl<'a> Compound<'a> {
    /// Opens an array (`Header::Array`) or a map (`Header::Map`) of `len` items, after the
    /// caller has entered `levels - 1` levels (variants) — this enters one more.
    pub(crate) fn open(
        ser: &'a mut Serializer,
        header: Header,
        len: Option<usize>,
        levels: u32,
    ) -> Result<Self> {
        Compound::open_keyed(ser, header, len, levels, false)
    }

    /// [`open`](Self::open), and with `keys` the key set of
    /// [`open_map`](Self::open_map). One function for both, so that neither moves the
    /// compound after it is built (a `memcpy` call: it is larger than inline moves). Inline
    /// in both, so that `open` is what it was without the key set.
    #[inline(always)]
    fn open_keyed(
        ser: &'a mut Serializer,
        header: Header,
        len: Option<usize>,
        levels: u32,
        keys: bool,
    ) -> Result<Self> {
        // A tuple variant's payload is an array on the wire, never a packed or columnar form.
        // Taken first, so that a failure below does not leave it for another array.
        let plain = std::mem::take(&mut ser.plain_array);
        ser.sink.enter()?;
        let kind = if header == Header::Map {
            Kind::Map
        } else {
            Kind::Array
        };
        let start = ser.sink.len();
        let packed_or_cols = kind == Kind::Array && !plain;
        let pack = (packed_or_cols && packs(ser.sink.opts())).then(Default::default);
        let cols_ok = packed_or_cols && crate::columnar::enabled(ser.sink.opts());
        let (claimed, header_len) = match len {
            Some(n) => {
                ser.sink.write_header(header, n)?;
                (n, ser.sink.len() - start)
            }
            None => (usize::MAX, 0),
        };
        let keys = if keys { ser.open_key_set() } else { None };
        Ok(Compound {
            ser,
            kind,
            start,
            header_len,
            claimed,
            count: 0,
            levels,
            shape: None,
            pack,
            key_open: false,
            cols: None,
            cols_ok,
            keys,
        })
    }

    /// [`open`](Self::open) for a map (`serialize_map`): under `Options::deny_duplicate_keys`
    /// its keys are checked. Struct field names are not: a derived `Serialize` never repeats
    /// one, and serde's derived `Deserialize` refuses a repeat with or without the option.
    pub(crate) fn open_map(ser: &'a mut Serializer, len: Option<usize>) -> Result<Self> {
        Compound::open_keyed(ser, Header::Map, len, 1, true)
    }

    /// A struct whose shape header was written at `start` (one level entered by the caller).
    pub(crate) fn shaped(
        ser: &'a mut Serializer,
        cursor: ShapeCursor,
        start: usize,
        levels: u32,
    ) -> Self {
        let header_len = ser.sink.len() - start;
        Compound {
            ser,
            kind: Kind::Map,
            start,
            header_len,
            claimed: 0,
            count: 0,
            levels,
            shape: Some(cursor),
            pack: None,
            key_open: false,
            cols: None,
            cols_ok: false,
            keys: None,
        }
    }

    /// Records `key` under `Options::deny_duplicate_keys`; a repeat poisons the serializer.
    /// Out of line: the option is rare and this keeps the per-key path short.
    #[cold]
    #[inline(never)]
    fn check_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let Some(i) = self.keys else {
            return Ok(());
        };
        match self.ser.insert_key(i, key) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.ser.sink.poison(e)),
        }
    }

    /// Opens the carrier of a `Value` enum variant of extension `subtype` (already written,
    /// one level entered by the caller).
    pub(crate) fn carrier(ser: &'a mut Serializer, subtype: u8) -> Self {
        let start = ser.sink.len();
        Compound {
            ser,
            kind: Kind::Carrier(subtype),
            start,
            header_len: 0,
            claimed: 1,
            count: 0,
            levels: 1,
            shape: None,
            pack: None,
            key_open: false,
            cols: None,
            cols_ok: false,
            keys: None,
        }
    }

    /// Opens struct `name` with `len` fields: a shape declaration or reuse under
    /// `SHAPE_INTERN`, else the plain map. `levels` as in [`Compound::open`].
    pub(crate) fn open_struct(
        ser: &'a mut Serializer,
        name: &'static str,
        len: usize,
        levels: u32,
    ) -> Result<Self> {
        let Some(d) = ser.sink.dense_mut() else {
            return Compound::open(ser, Header::Map, Some(len), levels);
        };
        let (cur, start) = d.struct_begin(name, len);
        match start {
            StructStart::Plain => Compound::open(ser, Header::Map, Some(len), levels),
            how => {
                ser.sink.enter()?;
                let at = ser.sink.len();
                dense::open_shaped(&mut ser.sink, how, len)?;
                Ok(Compound::shaped(ser, cur, at, levels))
            }
        }
    }

    /// One element (or map key): [`element_unchecked`](Self::element_unchecked), and a
    /// failure poisons the serializer (the element may be partial).
    #[inline(always)]
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match self.element_unchecked(value) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.ser.sink.poison(e)),
        }
    }

    #[inline(always)]
    fn element_unchecked<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        if let Some(p) = &mut self.pack {
            if p.offer(value) {
                self.cols_ok = false;
                return Ok(());
            }
            // Not packable: the buffer goes out plain and the sequence continues plain.
            if let Some(p) = self.pack.take() {
                p.write_plain(&mut self.ser.sink);
            }
        }
        if self.cols_ok && self.collect(value)? {
            return Ok(());
        }
        value.serialize(&mut *self.ser)
    }

    /// Writes every item of `iter` (a sequence's `collect_seq`). When the sequence is
    /// neither packed nor collected into columns (the Speed tier), leading primitives go
    /// through [`Sink::write_prims`](crate::sink::Sink::write_prims); from the first item
    /// that is not one, the rest go element by element, as they all do otherwise. The bytes
    /// are the same either way.
    #[inline]
    pub(crate) fn elements<I>(&mut self, iter: I) -> Result<()>
    where
        I: Iterator,
        I::Item: Serialize,
    {
        let mut iter = iter;
        if self.pack.is_none() && !self.cols_ok {
            let (n, first, rest) = self.ser.sink.write_prims(iter);
            self.count += n;
            iter = rest;
            match first {
                Some(item) => self.element(&item)?,
                None => return Ok(()),
            }
        }
        iter.try_for_each(|item| self.element(&item))
    }

    /// Offers `value` to the columnar collector; `true` if it was captured (or replayed).
    /// When the batch gives up, its rows are replayed through the real serializer and the
    /// sequence continues plain.
    #[inline(never)]
    fn collect<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<bool> {
        let depth = Depth {
            depth: self.ser.sink.depth(),
            limit: self.ser.sink.opts().depth_limit(),
        };
        let claimed = self.claimed;
        let check_keys = self.ser.sink.opts().denies_duplicate_keys();
        let batch = match &mut self.cols {
            Some(b) => b,
            None => self.cols.insert(self.ser.take_batch(claimed, check_keys)),
        };
        let offer = batch.offer(value, depth);
        if offer == Offer::Taken {
            return Ok(true);
        }
        self.cols_ok = false;
        if let Some(b) = self.cols.take() {
            crate::columnar::write::replay_rows(&mut super::Front(self.ser), &Rows::own(&b))?;
            self.ser.recycle(b);
        }
        Ok(offer == Offer::Conflict)
    }

    /// The value of the field just named was written at `at..`: if the field has a slot
    /// and the value is a plain number (`docs/SPEC.md` §15.2), the Dense state keeps it and
    /// may rewrite it shorter; with per-field strings (§15.3) a string updates the field's
    /// text and may be rewritten as a prefix of it. One class test against the cursor's
    /// slot classes, as cheap as a number test, so other sessions pay nothing for strings;
    /// the class then tells the two apart, where the slot state's own test was.
    #[inline(always)]
    fn slotted_value(&mut self, at: usize) {
        if let Some(cur) = &self.shape {
            let c = self.ser.sink.slot_class_at(at) & cur.slot_classes();
            if c != 0
                && let Some(k) = cur.reuse_slot()
            {
                if c == crate::dense::TEXT {
                    self.slotted_text(at);
                } else {
                    self.ser.sink.encode_num(at, k);
                }
            }
        }
    }

    /// [`slotted_value`](Self::slotted_value) of a value a text slot follows (a string, a
    /// Dense string tag or `F2`), in a session that keeps per-field strings; out of line.
    #[inline(never)]
    fn slotted_text(&mut self, at: usize) {
        if let Some(cur) = &self.shape
            && let Some(k) = cur.slot()
            && self.ser.sink.text_at(at)
        {
            self.ser.sink.encode_text(at, k);
        }
    }

    /// Ends the container in its final form, and counts the decoded output its own header
    /// stands for (`docs/SPEC.md` §13): one unit per entry of a map or struct (plain or
    /// shaped) and per element of a plain array; the packed and columnar forms count
    /// themselves.
    fn finish(mut self) -> Result<()> {
        if let Some(i) = self.keys {
            self.ser.close_key_set(i);
        }
        // An item failed and the `Serialize` impl went on: this compound (or one inside it)
        // holds a partial item, so it must not end `Ok`.
        self.ser.sink.check_poison()?;
        if let Some(cursor) = self.shape.take() {
            dense::shape_end(&mut self.ser.sink, cursor, self.start)?;
            self.ser.sink.count_output(self.count as u64);
            self.ser.sink.leave(self.levels);
            return Ok(());
        }
        if let Some(p) = self.pack.take()
            && p.finish(&mut self.ser.sink, self.start)?
        {
            self.ser.sink.leave(self.levels);
            return Ok(());
        }
        if let Some(b) = self.cols.take() {
            return self.end_batch(b, None);
        }
        self.end_plain()
    }

    /// Ends a sequence whose elements are the rows of `b` (their cells on `src`, with the
    /// event count [`Batch::rows_of`] returned, else on `b`'s own tape): the columnar
    /// container, or the rows replayed and the plain end.
    // Out of line: the plain end stays in `finish` as before (the Speed tier's compounds).
    // By reference: a by-value `self` made every `finish` copy the compound first.
    #[inline(never)]
    fn end_batch(&mut self, b: Box<Batch>, src: Option<(&Tape, usize)>) -> Result<()> {
        let rows = match src {
            Some((t, events)) => Rows::of(&b, t, events),
            None => Rows::own(&b),
        };
        let container = crate::columnar::write::finish_batch(
            &mut super::Front(self.ser),
            &rows,
            self.start,
            self.header_len,
        )?;
        self.ser.recycle(b);
        if container {
            self.ser.sink.leave(self.levels);
            return Ok(());
        }
        self.end_plain()
    }

    /// Writes the captured sequence of structs at event `at` of `src` as its replay
    /// (`serialize_seq`, each element, `end`) would, with the rows read off `src`
    /// ([`Batch::rows_of`]) instead of captured again element by element; `false`, with
    /// nothing written, when the replay would go otherwise (a pending variant or plain
    /// array, checked keys, or rows `rows_of` does not take).
    pub(crate) fn struct_seq(ser: &'a mut Serializer, src: &Tape, at: usize) -> Result<bool> {
        let Ev::Open(Open::Seq(len), _) = src.evs[at] else {
            return Ok(false);
        };
        // A list of anything else (numbers, tuples) takes no batch: its first element tells.
        if !matches!(src.evs.get(at + 1), Some(Ev::Open(Open::Struct(..), _))) {
            return Ok(false);
        }
        let opts = ser.sink.opts();
        if ser.plain_array
            || ser.pending_variant.is_some()
            || opts.denies_duplicate_keys()
            || !crate::columnar::enabled(opts)
        {
            return Ok(false);
        }
        let claimed = len_back(len);
        let mut b = ser.take_batch(claimed.unwrap_or(usize::MAX), false);
        // The depth the capture would start at: the sequence's, one below the serializer's.
        let depth = Depth {
            depth: ser.sink.depth().saturating_add(1),
            limit: ser.sink.opts().depth_limit(),
        };
        let Some(events) = b.rows_of(src, at, depth) else {
            ser.recycle(b);
            return Ok(false);
        };
        let n = b.rows.len();
        let mut seq = Compound::open(ser, Header::Array, claimed, 1)?;
        // As after the elements: the first one was no primitive (the packer let go, writing
        // nothing), and each one became a row.
        seq.pack = None;
        seq.count = n;
        seq.end_batch(b, Some((src, events)))?;
        Ok(true)
    }

    /// The plain end: the header's count made true, the decoded output counted.
    #[inline(always)]
    fn end_plain(&mut self) -> Result<()> {
        if self.count != self.claimed {
            let header = match self.kind {
                Kind::Array => Header::Array,
                Kind::Map => Header::Map,
                Kind::Carrier(_) => {
                    return Err(Error::mismatch(
                        "a 1-entry map carrying an enum variant",
                        format!("{} entries", self.count),
                    ));
                }
            };
            let h = header_bytes(header, self.count)?;
            let range = self.start..self.start + self.header_len;
            self.ser.sink.splice(range, h.as_slice());
        }
        if !matches!(self.kind, Kind::Carrier(_)) {
            self.ser.sink.count_output(self.count as u64);
        }
        self.ser.sink.leave(self.levels);
        Ok(())
    }
}

impl Compound<'_> {
    /// A map key under `MAP_SHAPE` (`docs/SPEC.md` §15): a string first key may start a
    /// shape; in a shaped map a string key is a shape name and any other key is escaped.
    fn shaped_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        match self.shaped_key_unchecked(key) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.ser.sink.poison(e)),
        }
    }

    fn shaped_key_unchecked<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.count += 1;
        let start = self.start;
        let len = (self.claimed != usize::MAX).then_some(self.claimed);
        let mut miss = false;
        let sink = &mut self.ser.sink;
        let shape = &mut self.shape;
        let probe = super::shape_key::StrKey {
            miss: &mut miss,
            f: |k: &str| match shape {
                Some(cur) => dense::shape_name(sink, cur, start, k),
                None => {
                    *shape = dense::map_first_key(sink, start, len, k)?;
                    Ok(())
                }
            },
        };
        match key.serialize(probe) {
            Err(_) if miss => {
                if let Some(cur) = self.shape.as_mut() {
                    dense::other_key_escapes(&mut self.ser.sink, cur, start)?;
                }
                key.serialize(&mut *self.ser)
            }
            r => r,
        }
    }
}

impl Compound<'_> {
    /// The payload of a `Value` variant carrier of extension `subtype`: a tuple variant's
    /// must be an array and a struct variant's a map (`docs/SPEC.md` §8), which a
    /// hand-built [`Value::Variant`](crate::Value::Variant) may not hold; refused then,
    /// since the decoder refuses it.
    #[inline(never)]
    fn carried<T: ?Sized + Serialize>(&mut self, subtype: u8, value: &T) -> Result<()> {
        use crate::wire::{ext, tags};
        let at = self.ser.sink.len();
        self.ser.plain_array = subtype == ext::TUPLE_VARIANT;
        let r = value.serialize(&mut *self.ser);
        self.ser.plain_array = false;
        r?;
        let tag = self.ser.sink.byte_at(at).unwrap_or(tags::NIL);
        let (ok, expected) = match subtype {
            ext::TUPLE_VARIANT => (
                matches!(
                    tag,
                    tags::FIXARR..=tags::FIXARR_MAX | tags::ARR16 | tags::ARR32
                ),
                "an array (tuple variant fields)",
            ),
            ext::STRUCT_VARIANT => (
                matches!(tag, tags::MAP8..=tags::MAP32 | tags::SHAPE),
                "a map (struct variant fields)",
            ),
            _ => (true, ""),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::mismatch(expected, format!("tag 0x{tag:02x}")))
        }
    }
}

impl SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        if self.key_open {
            let e = Error::mismatch("a map value after its key", "another key");
            return Err(self.ser.sink.poison(e));
        }
        self.key_open = true;
        if self.keys.is_some() {
            self.check_key(key)?;
        }
        if self.shape.is_some()
            || (self.count == 0 && self.kind == Kind::Map && self.ser.sink.map_shapes())
        {
            return self.shaped_key(key);
        }
        self.element(key)
    }
    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if !self.key_open {
            let e = Error::mismatch("a map key before its value", "a value");
            return Err(self.ser.sink.poison(e));
        }
        self.key_open = false;
        let at = self.ser.sink.len();
        let r = match self.kind {
            Kind::Carrier(subtype) => self.carried(subtype, value),
            _ => value.serialize(&mut *self.ser),
        };
        match r {
            Ok(()) => {
                self.slotted_value(at);
                Ok(())
            }
            Err(e) => Err(self.ser.sink.poison(e)),
        }
    }
    fn end(self) -> Result<()> {
        // A key without its value would encode bytes no decoder accepts.
        if self.key_open {
            return Err(Error::mismatch(
                "a map value after the last key",
                "the end of the map",
            ));
        }
        self.finish()
    }
}

impl SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    /// Field name through the string hook, then the value.
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field_with(key, |ser| value.serialize(ser))
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl Compound<'_> {
    /// A struct field: its name through the shape or the string hook, then the value that
    /// `value` writes.
    #[inline(always)]
    fn field_with(
        &mut self,
        key: &'static str,
        value: impl FnOnce(&mut Serializer) -> Result<()>,
    ) -> Result<()> {
        self.count += 1;
        // One `value` call site for both forms, so that it inlines in either.
        let named = match self.shape.as_mut() {
            Some(cursor) => dense::shape_name(&mut self.ser.sink, cursor, self.start, key),
            None => self.ser.sink.write_str(key),
        };
        let at = self.ser.sink.len();
        match named.and_then(|()| value(&mut *self.ser)) {
            Ok(()) => {
                self.slotted_value(at);
                Ok(())
            }
            Err(e) => Err(self.ser.sink.poison(e)),
        }
    }

    /// Writes row `r` of the captured `b` as its replay through serde would
    /// (`serialize_struct`, each field, `end`), a field holding a list of structs read off
    /// the tape ([`Compound::struct_seq`]) instead of captured a second time.
    pub(crate) fn row(ser: &mut Serializer, b: &Rows<'_>, r: usize) -> Result<()> {
        let row = &b.rows[r];
        let mut st = Compound::open_struct(ser, row.name, row.len, 1)?;
        for f in b.row_fields(r) {
            st.field_with(f.key, |ser| match f.cell {
                Cell::Other(at) if Compound::struct_seq(ser, b.tape, at as usize)? => Ok(()),
                ref cell => CellRef { cell, tape: b.tape }.serialize(ser),
            })?;
        }
        st.finish()
    }
}

impl SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}
