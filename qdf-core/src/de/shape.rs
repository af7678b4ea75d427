//! Struct shapes (tag `EC`) in the deserializer (`docs/SPEC.md` §15): a declaration, a
//! reuse, a reuse with an escape, or an open reuse, all presented to serde as a map of field
//! name → value (map key-set shapes use the same forms).

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, Visitor};

use super::Deserializer;
use crate::dense::{PREDICTED, TEXT, slot_class};
use crate::error::{Error, ErrorCode, Result};
use crate::wire::ext::{SHAPE_ESCAPE, TEXT_PREFIX};
use crate::wire::read::{Reference, Text};
use crate::wire::tags::{EXT, NIL};

/// Where a [`ShapeAccess`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Fields of the shape (or of the declaration) in order.
    Shape,
    /// An open reuse (`F2 0A` right after `EC id`): the shape's fields with no escape, then
    /// the pairs of [`Phase::Escaped`].
    Open,
    /// After `F2 0A`: (name, value) pairs until `C0`; `F2 0A` before a key marks a key that
    /// is not a string (maps).
    Escaped,
    /// All entries read.
    Done,
}

/// The entries of a shaped struct.
pub(crate) struct ShapeAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    /// The shape id, 0 for a declaration.
    id: u32,
    count: usize,
    idx: usize,
    phase: Phase,
    /// The stored-name index of the shape's first field (reuses; see
    /// [`ShapeTable::name_indices`](crate::dense::ShapeTable::name_indices)).
    names: usize,
    /// The [`slot_class`] bits whose values have slots here: 0 (a declaration, or no state),
    /// `NUM_CLASSES` (a reuse in a session: per-field numbers), and [`TEXT`] too with
    /// per-field strings (header flag `40`, `docs/SPEC.md` §15.3).
    slots: u8,
}

/// A field name read from the input: borrowed, or copied out of the intern table.
enum Name<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl<'de> Deserializer<'de> {
    /// Visits the struct whose `EC` tag was just read, as a map.
    ///
    /// Errors: an unknown shape id (`UnknownStateId`), a declaration count larger than the
    /// remaining input could hold, a name that is not a string, a shape table over this
    /// side's caps (`SessionCap`), and a visitor that stops before the last entry.
    ///
    /// `keys`: check the keys for repeats (`Options::deny_duplicate_keys`, map targets).
    pub(crate) fn visit_shape<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        keys: bool,
    ) -> Result<V::Value> {
        let at = self.src.offset();
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
                .ok_or_else(|| Error::at(ErrorCode::UnknownStateId(id), at))?;
            (r.len(), r.start)
        };
        // A reuse may escape after any field, so its count says nothing about the input
        // left; the size hint is capped by it instead. The count is charged now, the part an
        // escape leaves out is given back, and each pair after an escape is charged as it
        // comes: a shaped struct costs one unit per entry, as a plain map does (§13).
        self.src.charge(count as u64)?;
        self.src.enter()?;
        let slots = if id != 0 { self.src.slot_classes() } else { 0 };
        let mut access = ShapeAccess {
            de: self,
            id: id as u32,
            count,
            idx: 0,
            phase: Phase::Shape,
            names,
            slots,
        };
        let v = if keys {
            visitor.visit_map(super::dupkeys::DupCheck::new(&mut access))?
        } else {
            visitor.visit_map(&mut access)?
        };
        if access.phase != Phase::Done {
            return Err(Error::mismatch(
                format!("{} fields", access.idx),
                "a struct with more fields",
            ));
        }
        self.src.leave();
        Ok(v)
    }

    /// Reads a field name (a string through the Dense rules).
    fn read_field_name(&mut self) -> Result<Name<'de>> {
        let tag = self.src.next_tag()?;
        match self.src.read_text(tag)? {
            Some(Text::Str(Reference::Borrowed(s))) => Ok(Name::Borrowed(s)),
            Some(Text::Str(Reference::Copied(s))) => Ok(Name::Owned(s.to_owned())),
            _ => Err(self.src.unexpected(tag, "a field name")),
        }
    }

    /// True (and consumed) if the next bytes are the shape escape `F2 0A`.
    fn eat_shape_escape(&mut self) -> bool {
        if self.src.rest().starts_with(&[EXT, SHAPE_ESCAPE]) {
            let _ = self.src.take(2, "a shape escape");
            return true;
        }
        false
    }
}

impl<'de> ShapeAccess<'_, 'de> {
    fn visit_name<K: DeserializeSeed<'de>>(&mut self, seed: K, record: bool) -> Result<K::Value> {
        let name = self.de.read_field_name()?;
        let s = match &name {
            Name::Borrowed(s) => s,
            Name::Owned(s) => s.as_str(),
        };
        if record {
            self.de.src.dense().shape_name(s.as_bytes());
        }
        match name {
            Name::Borrowed(s) => seed.deserialize(BorrowedStrDeserializer::<Error>::new(s)),
            Name::Owned(s) => seed.deserialize(StrDeserializer::<Error>::new(&s)),
        }
    }

    fn finish_shape(&mut self) -> Result<()> {
        self.phase = Phase::Done;
        self.end_declaration()
    }

    /// A declaration's names are complete (its last field, or an escape): define the shape.
    fn end_declaration(&mut self) -> Result<()> {
        if self.id == 0 {
            let at = self.de.src.offset();
            self.de
                .src
                .dense()
                .end_shape()
                .map_err(|e| e.with_offset(at))?;
        }
        Ok(())
    }

    /// The shape's name at `idx < count` (no input read).
    #[inline(always)]
    fn predicted_name<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<K::Value> {
        let de: &Deserializer<'de> = self.de;
        let name = de
            .src
            .dense_ref()
            .and_then(|d| d.shapes().name_at(self.names + self.idx))
            .expect("idx < count of a defined shape");
        let name = crate::utf8::utf8(name).expect("shape names are read as strings");
        self.idx += 1;
        seed.deserialize(StrDeserializer::<Error>::new(name))
    }
}

impl super::dupkeys::KeyAt for ShapeAccess<'_, '_> {
    /// Where the next name or escape would be (a reuse's names are not in the input).
    fn key_at(&self) -> u64 {
        self.de.src.offset()
    }
}

impl<'de> de::MapAccess<'de> for ShapeAccess<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        // The common case first: a field of a reuse, with no escape before it.
        if self.phase == Phase::Shape
            && self.id != 0
            && self.idx < self.count
            && !self.de.src.rest().starts_with(&[EXT, SHAPE_ESCAPE])
        {
            return self.predicted_name(seed).map(Some);
        }
        self.next_key_other(seed)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        // A reuse's field read without a name has a slot (`docs/SPEC.md` §15.2, §15.3).
        if self.slots != 0
            && matches!(self.phase, Phase::Shape | Phase::Open)
            && let Some(t) = self.de.src.peek()
            && slot_class(t) & self.slots != 0
        {
            let k = self.names + self.idx - 1;
            let c = slot_class(t);
            // One test for the two classes read out of line, as main's predicted-number test.
            if c & (PREDICTED | TEXT) != 0 {
                if c == PREDICTED {
                    return self.slotted_value(seed, k);
                }
                return self.slotted_text(seed, k, t);
            }
            // A plain number: the slot keeps it, and the value is read as usual (an integer
            // target parses it once for both).
            return seed.deserialize(SlottedNum {
                de: &mut *self.de,
                k,
            });
        }
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        match self.phase {
            Phase::Shape => Some((self.count - self.idx).min(self.de.src.remaining())),
            Phase::Open | Phase::Escaped => None,
            Phase::Done => Some(0),
        }
    }
}

impl<'de> ShapeAccess<'_, 'de> {
    /// The value of numeric slot `k` (see [`Source::slotted`](crate::source::Source)), a
    /// predicted number: handed to `seed` as the number it stands for.
    #[inline(never)]
    fn slotted_value<V: DeserializeSeed<'de>>(&mut self, seed: V, k: usize) -> Result<V::Value> {
        match self.de.src.slotted(k)? {
            Some((n, at)) => seed.deserialize(super::num::NumDe::new(n, at)),
            None => seed.deserialize(&mut *self.de),
        }
    }

    /// The value of slot `k` in a stream that keeps per-field strings, starting with tag
    /// `t` (a string or Dense tag, or `F2`): a prefix form is resolved and handed to `seed`
    /// as an owned string; any other value is read as usual, and a string (hex text too)
    /// then becomes the slot's text (`docs/SPEC.md` §15.3), so a target that ignores the
    /// field keeps it too.
    #[inline(never)]
    fn slotted_text<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
        k: usize,
        t: u8,
    ) -> Result<V::Value> {
        let before = self.de.src.rest();
        if t == EXT && before.get(1) == Some(&TEXT_PREFIX) {
            let (s, _, _, at) = self.de.src.slot_prefix(k)?;
            return seed.deserialize(super::text::StrDe::new(s, at));
        }
        let v = seed.deserialize(&mut *self.de)?;
        self.de.src.observe_text(k, t, before);
        Ok(v)
    }

    /// [`next_key_seed`](de::MapAccess::next_key_seed) for every other step.
    #[inline(never)]
    fn next_key_other<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            match self.phase {
                Phase::Done => return Ok(None),
                Phase::Escaped => {
                    if self.de.src.peek() == Some(NIL) {
                        let _ = self.de.src.next_tag();
                        self.phase = Phase::Done;
                        return Ok(None);
                    }
                    self.idx += 1;
                    self.de.src.charge(1)?;
                    if self.de.eat_shape_escape() {
                        // A marked key: any value (a map key that is not a string).
                        return seed.deserialize(&mut *self.de).map(Some);
                    }
                    return self.visit_name(seed, false).map(Some);
                }
                Phase::Open if self.idx == self.count => self.phase = Phase::Escaped,
                Phase::Open => return self.predicted_name(seed).map(Some),
                Phase::Shape if self.idx == self.count => {
                    self.finish_shape()?;
                    return Ok(None);
                }
                Phase::Shape if self.de.eat_shape_escape() => {
                    if self.id == 0 {
                        // The declaration's names end here.
                        self.end_declaration()?;
                        self.phase = Phase::Escaped;
                    } else if self.idx == 0 {
                        self.phase = Phase::Open;
                    } else {
                        self.phase = Phase::Escaped;
                    }
                    if self.phase == Phase::Escaped {
                        // The shape's fields after the escape are not presented.
                        self.de.src.refund((self.count - self.idx) as u64);
                    }
                }
                Phase::Shape if self.id == 0 => {
                    self.idx += 1;
                    return self.visit_name(seed, true).map(Some);
                }
                Phase::Shape => return self.predicted_name(seed).map(Some),
            }
        }
    }
}

/// The deserializer of a slotted field whose value is a plain number (`docs/SPEC.md` §15.2):
/// an integer target reads it once, and the slot keeps what was read
/// ([`deserialize_num_then`](Deserializer::deserialize_num_then)); any other target reads it
/// as usual after the slot has kept it ([`Source::observe_plain`](crate::source::Source)).
/// Either way the slot sees the number exactly once, and the target what the plain
/// deserializer gives it.
struct SlottedNum<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    k: usize,
}

impl<'a, 'de> SlottedNum<'a, 'de> {
    /// The plain deserializer, the slot having kept the number.
    #[inline(always)]
    fn observed(self) -> &'a mut Deserializer<'de> {
        self.de.src.observe_plain(self.k);
        self.de
    }

    /// An integer target: one parse for the slot and the visitor.
    #[inline(always)]
    fn int<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let k = self.k;
        self.de
            .deserialize_num_then(visitor, |de, n| de.src.observe_read(k, n))
    }
}

/// `SlottedNum` methods that read the number once.
macro_rules! slotted_ints {
    ($($m:ident)*) => {$(
        #[inline]
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.int(visitor)
        }
    )*};
}

/// `SlottedNum` methods left to the plain deserializer.
macro_rules! slotted_plain {
    ($($m:ident)*) => {$(
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            de::Deserializer::$m(self.observed(), visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for SlottedNum<'_, 'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    slotted_ints! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
    }

    slotted_plain! {
        deserialize_any deserialize_bool deserialize_i128 deserialize_u128 deserialize_f32
        deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq
        deserialize_map deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_unit_struct(self.observed(), name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_newtype_struct(self.observed(), name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple(self.observed(), len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple_struct(self.observed(), name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self.observed(), name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_enum(self.observed(), name, variants, visitor)
    }
}
