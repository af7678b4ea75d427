//! `impl serde::Deserializer for &mut Deserializer`: self-describing decode
//! (`deserialize_any`) plus typed fast paths.

use serde::de::{self, Visitor};

use super::Deserializer;
use super::access::{Enum, MAP_FORM, MapAccess, SeqAccess, TimestampSeq, VariantMap, VariantName};
use super::dupkeys::DupCheck;
use super::visit_text;
use crate::error::{Error, ErrorCode, Result};
use crate::short::owned_str;
use crate::source::Num;
use crate::wire::ext::{self, magic};
use crate::wire::read::Text;
use crate::wire::tags::*;

/// Hands number `n` to `visitor` by its wire type.
#[inline]
pub(super) fn visit_num<'de, V: Visitor<'de>>(n: Num, visitor: V) -> Result<V::Value> {
    match n {
        Num::U64(v) => visitor.visit_u64(v),
        Num::I64(v) => visitor.visit_i64(v),
        Num::U128(v) => visitor.visit_u128(v),
        Num::I128(v) => visitor.visit_i128(v),
        Num::F32(v) => visitor.visit_f32(v),
        Num::F64(v) => visitor.visit_f64(v),
    }
}

impl<'de> Deserializer<'de> {
    /// Visits the array whose header `tag` was read.
    ///
    /// Hook: QPack packed sequences (E3–E7, EB, ED, EE, F4) are decoded next to this.
    fn visit_array<V: Visitor<'de>>(&mut self, tag: u8, visitor: V) -> Result<V::Value> {
        if tag == TIMESTAMP {
            let (secs, nanos) = self.src.read_timestamp()?;
            return visitor.visit_seq(TimestampSeq::new(secs, nanos));
        }
        let Some(n) = self.src.array_len(tag)? else {
            if crate::codec::is_qpack_tag(tag) {
                return crate::qpack::decode::visit_packed(&mut self.src, tag, visitor);
            }
            if tag == COLUMNAR || tag == HYBRID {
                return crate::columnar::row::visit_columnar(self, tag, visitor);
            }
            return Err(self.src.unexpected(tag, "an array"));
        };
        self.src.enter()?;
        let mut seq = SeqAccess { de: self, left: n };
        let v = visitor.visit_seq(&mut seq)?;
        let left = seq.left;
        self.src.leave();
        if left != 0 {
            return Err(Error::mismatch(
                format!("{} elements", n - left),
                format!("an array of {n} elements"),
            ));
        }
        Ok(v)
    }

    /// Visits the map whose header `tag` was read; `keys`: a map target (not a struct), whose
    /// keys are checked for repeats under `Options::deny_duplicate_keys`.
    fn visit_map<V: Visitor<'de>>(&mut self, tag: u8, visitor: V, keys: bool) -> Result<V::Value> {
        let n = if tag == MAP8 {
            // The common struct header, without the call into `map_len`'s table.
            self.src.map8_len()?
        } else if tag == SHAPE {
            return self.visit_shape(visitor, keys && self.src.dup_keys());
        } else {
            match self.src.map_len(tag)? {
                Some(n) => n,
                // A struct target says so in serde's words ("struct Span").
                None if keys => return Err(self.src.unexpected(tag, "a map")),
                None => {
                    return Err(self.src.unexpected_as(
                        tag,
                        "a struct",
                        &(&visitor as &dyn de::Expected),
                    ));
                }
            }
        };
        self.src.enter()?;
        let check = keys && self.src.dup_keys();
        let mut map = MapAccess { de: self, left: n };
        let v = if check {
            visitor.visit_map(DupCheck::new(&mut map))?
        } else {
            visitor.visit_map(&mut map)?
        };
        let left = map.left;
        self.src.leave();
        if left != 0 {
            return Err(Error::mismatch(
                format!("{} entries", n - left),
                format!("a map of {n} entries"),
            ));
        }
        Ok(v)
    }

    /// `deserialize_any` after an `F2` tag.
    fn visit_ext<V: Visitor<'de>>(&mut self, visitor: V, value_mode: bool) -> Result<V::Value> {
        let sub = self.src.next("an extension subtype")?;
        match sub {
            ext::UNIT => visitor.visit_unit(),
            ext::UNIT_STRUCT if value_mode => visitor.visit_enum(Enum {
                de: self,
                kind: sub,
            }),
            ext::UNIT_STRUCT => visitor.visit_unit(),
            ext::CHAR => visitor.visit_char(self.src.read_char()?),
            ext::U128 | ext::I128 => visit_num(self.src.read_wide(sub)?, visitor),
            ext::HEX_TEXT | ext::HEX_DEF => visit_text(self.src.read_hex(sub)?, visitor),
            ext::SOME => {
                self.src.check_some_wrapper()?;
                self.src.enter()?;
                let v = visitor.visit_some(&mut *self)?;
                self.src.leave();
                Ok(v)
            }
            ext::UNIT_VARIANT if value_mode => visitor.visit_enum(Enum {
                de: self,
                kind: sub,
            }),
            ext::UNIT_VARIANT => de::Deserializer::deserialize_any(
                VariantName {
                    de: self,
                    kind: sub,
                },
                visitor,
            ),
            ext::NEWTYPE_VARIANT | ext::TUPLE_VARIANT | ext::STRUCT_VARIANT => {
                self.src.enter()?;
                let v = if value_mode {
                    visitor.visit_enum(Enum {
                        de: self,
                        kind: sub,
                    })?
                } else {
                    visitor.visit_map(VariantMap {
                        de: self,
                        kind: sub,
                        done: false,
                    })?
                };
                self.src.leave();
                Ok(v)
            }
            _ => Err(self.src.error_at_tag(ErrorCode::BadTag {
                found: sub,
                expected: "an extension subtype 0x00..=0x09, 0x0B or 0x0C",
            })),
        }
    }

    /// Reads any number into `visitor` (serde's primitive visitors range-check narrower
    /// targets, so `300` into a `u8` is a `Data` error).
    #[inline]
    fn deserialize_num<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.deserialize_num_then(visitor, |_, _| {})
    }

    /// [`deserialize_num`](Self::deserialize_num) that shows the number read to `seen`
    /// before the visitor gets it (a slotted field's number, `docs/SPEC.md` §15.2: the slot
    /// takes the value of the one parse).
    #[inline(always)]
    pub(super) fn deserialize_num_then<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        seen: impl FnOnce(&mut Self, Num),
    ) -> Result<V::Value> {
        // Fast paths for the common forms (fixint; f64 and u64 columns such as measurements
        // and ns timestamps): tag and payload consumed in one step, without `read_num`'s
        // jump table. A u64 that is not minimal, or a cut payload, takes the checked path.
        match self.src.peek() {
            Some(t) if t <= FIXINT_MAX => {
                let _ = self.src.next("");
                seen(self, Num::U64(t as u64));
                return visitor.visit_u64(t as u64);
            }
            Some(F64) => {
                if let Some(b) = self.src.peek_payload8() {
                    let _ = self.src.take(9, "");
                    let v = f64::from_bits(u64::from_le_bytes(b));
                    seen(self, Num::F64(v));
                    return visitor.visit_f64(v);
                }
            }
            Some(U64) => {
                if let Some(b) = self.src.peek_payload8()
                    && u64::from_le_bytes(b) > u32::MAX as u64
                {
                    let _ = self.src.take(9, "");
                    seen(self, Num::U64(u64::from_le_bytes(b)));
                    return visitor.visit_u64(u64::from_le_bytes(b));
                }
            }
            _ => {}
        }
        let tag = self.src.next_tag()?;
        match self.src.read_num(tag)? {
            Some(n) => {
                seen(self, n);
                visit_num(n, visitor)
            }
            None => Err(self.src.unexpected(tag, "a number")),
        }
    }

    /// Reads a number into a float target (`f32` when `narrow`): an integer only when the
    /// float holds it exactly ([`Num::check_float_target`]), else a `Data` error at its tag.
    #[inline]
    fn deserialize_float<V: Visitor<'de>>(&mut self, visitor: V, narrow: bool) -> Result<V::Value> {
        // The common form first (an f64 column), as in `deserialize_num`.
        if self.src.peek() == Some(F64)
            && let Some(b) = self.src.peek_payload8()
        {
            let _ = self.src.take(9, "");
            return visitor.visit_f64(f64::from_bits(u64::from_le_bytes(b)));
        }
        let at = self.src.offset();
        let tag = self.src.next_tag()?;
        match self.src.read_num(tag)? {
            Some(n) => {
                if let Err(e) = n.check_float_target(narrow) {
                    return Err(e.with_offset(at));
                }
                // serde's float visitors take no 128-bit integer: an exact one is handed over
                // as the float it equals.
                match n {
                    Num::U128(v) if narrow => visitor.visit_f32(v as f32),
                    Num::U128(v) => visitor.visit_f64(v as f64),
                    Num::I128(v) if narrow => visitor.visit_f32(v as f32),
                    Num::I128(v) => visitor.visit_f64(v as f64),
                    n => visit_num(n, visitor),
                }
            }
            None => Err(self.src.unexpected(tag, "a number")),
        }
    }

    #[inline]
    fn deserialize_text<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        expected: &'static str,
    ) -> Result<V::Value> {
        if let Some(s) = self.src.peek_str::<true>() {
            return visitor.visit_borrowed_str(s?);
        }
        let tag = self.src.next_tag()?;
        if let Some(s) = self.src.read_short_str(tag)? {
            return visitor.visit_borrowed_str(s);
        }
        match self.src.read_text(tag)? {
            Some(t) => visit_text(t, visitor),
            None => Err(self.src.unexpected(tag, expected)),
        }
    }

    /// `deserialize_string` after its fixstr/str8 and `E1` paths, `tag` consumed: every other
    /// form (str16/32, other Dense tags, byte strings, errors). Out of line, so that
    /// `String::deserialize` (called once per `String` field, and not inlined: it lies in
    /// serde's code) holds only the fast paths and needs a smaller frame.
    #[inline(never)]
    fn string_slow<V: Visitor<'de>>(&mut self, tag: u8, visitor: V) -> Result<V::Value> {
        if let Some(s) = self.src.read_short_str(tag)? {
            return visitor.visit_string(owned_str(s));
        }
        match self.src.read_text(tag)? {
            // Dense entries and references too (a fresh `String` either way).
            Some(Text::Str(s)) => visitor.visit_string(owned_str(&s)),
            Some(t) => visit_text(t, visitor),
            None => Err(self.src.unexpected(tag, "a string")),
        }
    }

    /// Consumes `F2 <sub>` if the input holds it.
    #[inline]
    fn eat_ext(&mut self, sub: u8) -> bool {
        let rest = self.src.rest();
        if rest.len() >= 2 && rest[0] == EXT && rest[1] == sub {
            let _ = self.src.take(2, "");
            return true;
        }
        false
    }
}

macro_rules! num_methods {
    ($($m:ident)*) => {$(
        #[inline]
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_num(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    /// Self-describing decode. Enum variants appear as a 1-entry map `{name: payload}` (unit
    /// variants as their name), except for `Value`, which sees them through `visit_enum`.
    ///
    /// Hook: the Dense dialect adds its intern tags (through `read_text`) and struct shapes
    /// (EC) here; QPack its packed sequences (through `visit_array`'s neighbours).
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let value_mode = std::mem::take(&mut self.value_mode);
        let tag = self.src.next_tag()?;
        match tag {
            0..=FIXINT_MAX => visitor.visit_u64(tag as u64),
            FIXSTR..=FIXSTR_MAX
            | STR8..=STR32
            | BIN8..=BIN32
            | INTERN_STR..=INTERN_BIN
            | REPEAT..=PAIR => match self.src.read_text(tag)? {
                Some(t) => visit_text(t, visitor),
                None => Err(self.src.bad_tag(tag, "a value")),
            },
            FIXARR..=FIXARR_MAX | ARR16 | ARR32 => self.visit_array(tag, visitor),
            MAP8..=MAP32 | SHAPE => self.visit_map(tag, visitor, true),
            NIL => visitor.visit_none(),
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            EXT => self.visit_ext(visitor, value_mode),
            TIMESTAMP if value_mode => visitor.visit_enum(Enum {
                de: self,
                kind: TIMESTAMP,
            }),
            TIMESTAMP => self.visit_array(tag, visitor),
            COLUMNAR | HYBRID => crate::columnar::row::visit_columnar(self, tag, visitor),
            _ if crate::codec::is_qpack_tag(tag) => {
                crate::qpack::decode::visit_packed(&mut self.src, tag, visitor)
            }
            _ => match self.src.read_num(tag)? {
                Some(n) => visit_num(n, visitor),
                None => Err(self.src.bad_tag(tag, "a value")),
            },
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.src.next_tag()? {
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            t => Err(self.src.unexpected(t, "a bool")),
        }
    }

    num_methods! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
    }

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_float(visitor, true)
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_float(visitor, false)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.eat_ext(ext::CHAR) {
            return visitor.visit_char(self.src.read_char()?);
        }
        self.deserialize_text(visitor, "a char")
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_text(visitor, "a string")
    }

    /// Like `deserialize_str`, but every string (inline, or a Dense definition or reference)
    /// goes to `visit_string` as a `String` built by `owned_str` (exact capacity, fixed-size
    /// copies instead of a `memcpy` call), which serde's `String` keeps as is; other visitors
    /// get it through `visit_str`. Byte strings are passed as `deserialize_str` passes them.
    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(s) = self.src.peek_str::<true>() {
            return visitor.visit_string(owned_str(s?));
        }
        let tag = self.src.next_tag()?;
        if crate::wire::tags::is_dense_text(tag) {
            // The common string of a Dense session, inline (out of line it costs a stream
            // ≈ 700 instructions a TelemetryEvent; LogBatch Speed decode pays ≈ 1 % for it);
            // the other Dense tags go straight to the Dense reader.
            return match self.src.read_dense_text(tag)? {
                Text::Str(s) => visitor.visit_string(owned_str(&s)),
                t => visit_text(t, visitor),
            };
        }
        self.string_slow(tag, visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let tag = self.src.next_tag()?;
        if let Some(t) = self.src.read_text(tag)? {
            return visit_text(t, visitor);
        }
        self.visit_array(tag, visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    /// `C0` is `None`; `F2 05 x` and a bare `x` are `Some(x)`. One depth level for `Some`,
    /// as the encoder counts it. A bare `x` that starts with `F2` (which the encoder would have
    /// wrapped) is still read as `Some(x)`, so a field widened from `T` to `Option<T>` reads
    /// old data; `Value` decoding stays strict. Except a bare unit `F2 00`: it is `None`, as
    /// serde's own `Option` visitor reads a unit (other formats' `null`, e.g.
    /// `serde_json::Value::Null`, is a serde unit); `Some(())` is `F2 05 F2 00`.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.src.peek() {
            None => Err(self.src.eof("an option")),
            Some(NIL) => {
                self.src.next("nil")?;
                visitor.visit_none()
            }
            Some(EXT) if self.eat_ext(ext::UNIT) => visitor.visit_none(),
            Some(_) => {
                if self.eat_ext(ext::SOME) {
                    self.src.check_some_wrapper()?;
                }
                self.src.enter()?;
                let v = visitor.visit_some(&mut *self)?;
                self.src.leave();
                Ok(v)
            }
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.eat_ext(ext::UNIT) {
            return visitor.visit_unit();
        }
        match self.src.next_tag()? {
            NIL => visitor.visit_unit(),
            t => Err(self.src.unexpected(t, "unit")),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if self.eat_ext(ext::UNIT_STRUCT) {
            return visitor.visit_unit();
        }
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == magic::VALUE {
            self.value_mode = true;
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let tag = self.src.next_tag()?;
        self.visit_array(tag, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let tag = self.src.next_tag()?;
        self.visit_map(tag, visitor, true)
    }

    /// A map of field name → value (fields in any order, unknown ones skipped by serde), or
    /// an array of fields in declaration order.
    ///
    /// Hook: the Dense dialect decodes struct shapes (EC) here and in `deserialize_any`.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let tag = self.src.next_tag()?;
        // `map8` first: the header of nearly every struct.
        if tag != MAP8 && matches!(tag, FIXARR..=FIXARR_MAX | ARR16 | ARR32 | TIMESTAMP) {
            return self.visit_array(tag, visitor);
        }
        self.visit_map(tag, visitor, false)
    }

    /// `F2 06..=09 name [payload]`; also a bare string (unit variant) and a 1-entry map
    /// `{name: payload}`.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let tag = match self.src.peek() {
            None => return Err(self.src.eof("an enum variant")),
            Some(t) => t,
        };
        match tag {
            FIXSTR..=FIXSTR_MAX | STR8..=STR32 | INTERN_STR | STATE_REF | REPEAT..=PAIR => visitor
                .visit_enum(Enum {
                    de: self,
                    kind: ext::UNIT_VARIANT,
                }),
            // A hex string (`F2 0B`/`F2 0C`) is a bare string too.
            EXT if self.src.rest().get(1).is_some_and(|&s| ext::is_hex(s)) => {
                visitor.visit_enum(Enum {
                    de: self,
                    kind: ext::UNIT_VARIANT,
                })
            }
            EXT => {
                self.src.next("a tag")?;
                let sub = self.src.next("an extension subtype")?;
                match sub {
                    ext::UNIT_VARIANT => visitor.visit_enum(Enum {
                        de: self,
                        kind: sub,
                    }),
                    ext::NEWTYPE_VARIANT | ext::TUPLE_VARIANT | ext::STRUCT_VARIANT => {
                        self.src.enter()?;
                        let v = visitor.visit_enum(Enum {
                            de: self,
                            kind: sub,
                        })?;
                        self.src.leave();
                        Ok(v)
                    }
                    _ => Err(self.src.error_at_tag(ErrorCode::TypeMismatch {
                        expected: "an enum variant".into(),
                        found: ext::subtype_name(sub).into(),
                    })),
                }
            }
            _ => {
                self.src.next("a tag")?;
                match self.src.map_len(tag)? {
                    Some(1) => {
                        self.src.enter()?;
                        let v = visitor.visit_enum(Enum {
                            de: self,
                            kind: MAP_FORM,
                        })?;
                        self.src.leave();
                        Ok(v)
                    }
                    Some(n) => Err(Error::mismatch(
                        "an enum variant as a 1-entry map",
                        format!("a map of {n} entries"),
                    )),
                    None => Err(self.src.unexpected_as(
                        tag,
                        "an enum variant",
                        &(&visitor as &dyn de::Expected),
                    )),
                }
            }
        }
    }

    /// Field and variant identifiers: a string (the name), or an integer (an index, which
    /// serde's derived identifiers also accept). The hot path of every struct field.
    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(s) = self.src.peek_str::<false>() {
            return visitor.visit_borrowed_str(s?);
        }
        let tag = self.src.next_tag()?;
        if let Some(s) = self.src.read_short_str(tag)? {
            return visitor.visit_borrowed_str(s);
        }
        if let Some(t) = self.src.read_text(tag)? {
            return visit_text(t, visitor);
        }
        match self.src.read_num(tag)? {
            Some(n) => visit_num(n, visitor),
            None => Err(self.src.unexpected(tag, "a field or variant name")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }
}
