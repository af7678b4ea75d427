//! `Options::deny_duplicate_keys`: a map access that refuses a key equal to an earlier key of
//! the same map (`docs/SPEC.md` §7).
//!
//! Keys are compared as the values the key's `Deserialize` was handed, not as bytes: in the
//! Dense dialect one string has several encodings (inline, a definition, a state-ref, an MTF
//! rank, a pair), and one encoding (a rank) names different strings at different places.
//! So the key's deserializer and visitor are wrapped ([`RecSeed`]) and every `visit_*` call
//! appends a canonical record of its value to a buffer — strings, chars and byte strings with
//! the same bytes alike, integers by value whatever their width, floats by bits, containers
//! and variants with their contents — and the buffer is looked up in the set of the map's
//! keys. Memory: the set holds each key's record once, about the key's decoded size, which the
//! output budget already bounds.

use std::fmt;
use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;
use serde::de::{self, DeserializeSeed, Visitor};

use crate::error::{Error, Result};
use crate::source::keys::{quote, repeated};
use crate::wire::varint::write_uvarint;

/// A map access whose key offset is known before the key is read.
pub(crate) trait KeyAt {
    /// Offset of the next key in the input.
    fn key_at(&self) -> u64;
}

/// A map access whose keys are all reported at one offset: a map column's (`docs/SPEC.md`
/// §22.2), whose keys lie inside its key column's body.
pub(crate) struct FixedAt<'m, A> {
    pub(crate) inner: &'m mut A,
    pub(crate) at: u64,
}

impl<A> KeyAt for FixedAt<'_, A> {
    fn key_at(&self) -> u64 {
        self.at
    }
}

impl<'de, A: de::MapAccess<'de, Error = Error>> de::MapAccess<'de> for FixedAt<'_, A> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// Wraps a map access: every key is recorded and checked against the earlier ones.
///
/// The records lie end to end in one buffer (`rec.buf`, no allocation per key); the table
/// holds each record's `(start, len)` by its hash (SipHash with a random key: the keys come
/// from the input).
pub(crate) struct DupCheck<'m, A> {
    inner: &'m mut A,
    rec: Rec,
    seen: HashTable<(usize, usize)>,
    hasher: RandomState,
}

impl<'m, A> DupCheck<'m, A> {
    pub(crate) fn new(inner: &'m mut A) -> Self {
        DupCheck {
            inner,
            rec: Rec::default(),
            seen: HashTable::new(),
            hasher: RandomState::new(),
        }
    }
}

impl<'de, A: de::MapAccess<'de, Error = Error> + KeyAt> de::MapAccess<'de> for DupCheck<'_, A> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let at = self.inner.key_at();
        let start = self.rec.buf.len();
        self.rec.opaque = false;
        let key = self.inner.next_key_seed(RecSeed {
            seed,
            rec: &mut self.rec,
        })?;
        if key.is_none() || self.rec.opaque {
            // No key, or one with containers two levels deep: not compared.
            self.rec.buf.truncate(start);
            return Ok(key);
        }
        let buf = &self.rec.buf;
        let this = &buf[start..];
        let h = self.hasher.hash_one(this);
        if self
            .seen
            .find(h, |&(s, l)| &buf[s..s + l] == this)
            .is_some()
        {
            return Err(repeated(describe(this), at));
        }
        let hasher = &self.hasher;
        self.seen
            .insert_unique(h, (start, buf.len() - start), |&(s, l)| {
                hasher.hash_one(&buf[s..s + l])
            });
        Ok(key)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// The record of one key given as an encoded Speed-tier body, for the encoder's side of
/// `Options::deny_duplicate_keys` (`ser/dupkeys.rs`): the key is decoded as a map target's
/// key would be, so the encoder refuses exactly the repeats a decoder refuses. `None`: a key
/// the decoder does not compare (containers two levels deep, see [`Rec::opaque`]).
pub(crate) fn key_record(body: &[u8]) -> Result<Option<Vec<u8>>> {
    let mut de = super::Deserializer::new(body, 0, &crate::options::Options::speed());
    let mut rec = Rec::default();
    RecSeed {
        seed: std::marker::PhantomData::<crate::value::Value>,
        rec: &mut rec,
    }
    .deserialize(&mut de)?;
    Ok((!rec.opaque).then_some(rec.buf))
}

/// The error for a key the encoder finds repeated (`rec`: its record), at output offset `at`.
#[cold]
pub(crate) fn repeated_key(rec: &[u8], at: u64) -> Error {
    repeated(describe(rec), at)
}

// Record tags.
const UINT: u8 = b'u';
const NEG: u8 = b'i';
const TEXT: u8 = b's';
const F32: u8 = b'f';
const F64: u8 = b'd';
const BOOL: u8 = b'?';
const NONE: u8 = b'n';
const SOME: u8 = b'S';
const UNIT: u8 = b'U';
const SEQ: u8 = b'[';
const MAP: u8 = b'{';
const END: u8 = b']';
const ENUM: u8 = b'E';

/// An integer: its tag (non-negative or negative), then its little-endian bytes without the
/// high ones that only extend the sign, so that equal values have equal records whatever
/// their width.
fn rec_u(buf: &mut Vec<u8>, v: u128) {
    let b = v.to_le_bytes();
    let n = 16 - (v.leading_zeros() / 8) as usize;
    buf.push(UINT);
    buf.push(n as u8);
    buf.extend_from_slice(&b[..n]);
}

fn rec_i(buf: &mut Vec<u8>, v: i128) {
    if v >= 0 {
        return rec_u(buf, v as u128);
    }
    let b = v.to_le_bytes();
    let n = 16 - (v.leading_ones() / 8) as usize;
    buf.push(NEG);
    buf.push(n as u8);
    buf.extend_from_slice(&b[..n]);
}

/// A string, char or byte string: the tag, `uvarint(len)`, the bytes.
fn rec_text(buf: &mut Vec<u8>, b: &[u8]) {
    buf.push(TEXT);
    write_uvarint(buf, b.len() as u64);
    buf.extend_from_slice(b);
}

/// The key for the error message when it is one string or one integer.
fn describe(rec: &[u8]) -> Option<String> {
    let (&tag, rest) = rec.split_first()?;
    match tag {
        TEXT => {
            let (len, n) = crate::wire::varint::read_uvarint(rest).ok()?;
            let body = rest.get(n..)?;
            if body.len() as u64 != len {
                return None;
            }
            Some(quote(body))
        }
        UINT | NEG => {
            let (&n, bytes) = rest.split_first()?;
            if bytes.len() != n as usize || n > 16 {
                return None;
            }
            let fill = if tag == NEG { 0xFF } else { 0 };
            let mut b = [fill; 16];
            b[..bytes.len()].copy_from_slice(bytes);
            Some(match tag {
                UINT => u128::from_le_bytes(b).to_string(),
                _ => i128::from_le_bytes(b).to_string(),
            })
        }
        _ => None,
    }
}

// The wrappers come in two levels with separate types: the key itself (`Rec*`), whose
// containers (tuples, arrays, maps, `Some`, variants) are recorded with their direct
// children, and those children (`Leaf*`), whose own containers are not descended into (the
// key is then not compared, see [`Rec::opaque`]). Two fixed levels keep the types finite: a
// map inside a key is itself a map target with its own `DupCheck`, and wrappers that wrapped
// any depth would instantiate without end.

/// Defines a seed and a deserializer that wrap every visitor in `$vis`.
macro_rules! rec_seed_de {
    ($seed:ident, $de:ident, $vis:ident) => {
        pub(crate) struct $seed<'b, S> {
            seed: S,
            rec: &'b mut Rec,
        }

        impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for $seed<'_, S> {
            type Value = S::Value;
            fn deserialize<D: de::Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<S::Value, D::Error> {
                self.seed.deserialize($de { d, rec: self.rec })
            }
        }

        struct $de<'b, D> {
            d: D,
            rec: &'b mut Rec,
        }

        impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for $de<'_, D> {
            type Error = D::Error;
            fn is_human_readable(&self) -> bool {
                self.d.is_human_readable()
            }
            rec_de! { $vis;
                deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16()
                deserialize_i32() deserialize_i64() deserialize_i128() deserialize_u8()
                deserialize_u16() deserialize_u32() deserialize_u64() deserialize_u128()
                deserialize_f32() deserialize_f64() deserialize_char() deserialize_str()
                deserialize_string() deserialize_bytes() deserialize_byte_buf()
                deserialize_option() deserialize_unit()
                deserialize_unit_struct(name: &'static str)
                deserialize_newtype_struct(name: &'static str) deserialize_seq()
                deserialize_tuple(len: usize)
                deserialize_tuple_struct(name: &'static str, len: usize) deserialize_map()
                deserialize_struct(name: &'static str, fields: &'static [&'static str])
                deserialize_enum(name: &'static str, variants: &'static [&'static str])
                deserialize_identifier() deserialize_ignored_any()
            }
        }
    };
}

macro_rules! rec_de {
    ($vis:ident; $($m:ident($($a:ident: $t:ty),*))*) => {$(
        fn $m<V: Visitor<'de>>(
            self,
            $($a: $t,)*
            visitor: V,
        ) -> std::result::Result<V::Value, D::Error> {
            self.d.$m($($a,)* $vis { v: visitor, rec: self.rec })
        }
    )*};
}

rec_seed_de!(RecSeed, RecDe, RecVisitor);
rec_seed_de!(LeafSeed, LeafDe, LeafVisitor);

/// What one key was handed: its record, and whether a container below the first level made
/// it incomparable.
#[derive(Default)]
pub(crate) struct Rec {
    buf: Vec<u8>,
    opaque: bool,
}

/// Defines a visitor that records every scalar it is handed, then hands it on; `$compound`
/// says what it does with containers.
macro_rules! rec_visitor {
    ($vis:ident, $de:ident) => {
        struct $vis<'b, V> {
            v: V,
            rec: &'b mut Rec,
        }

        impl<'de, V: Visitor<'de>> Visitor<'de> for $vis<'_, V> {
            type Value = V::Value;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.v.expecting(f)
            }

            rec_int! {
                visit_u8(u8) rec_u visit_u16(u16) rec_u visit_u32(u32) rec_u
                visit_u64(u64) rec_u visit_u128(u128) rec_u visit_i8(i8) rec_i
                visit_i16(i16) rec_i visit_i32(i32) rec_i visit_i64(i64) rec_i
                visit_i128(i128) rec_i
            }

            fn visit_bool<E: de::Error>(self, x: bool) -> std::result::Result<V::Value, E> {
                self.rec.buf.extend_from_slice(&[BOOL, x as u8]);
                self.v.visit_bool(x)
            }
            fn visit_f32<E: de::Error>(self, x: f32) -> std::result::Result<V::Value, E> {
                self.rec.buf.push(F32);
                self.rec.buf.extend_from_slice(&x.to_bits().to_le_bytes());
                self.v.visit_f32(x)
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<V::Value, E> {
                self.rec.buf.push(F64);
                self.rec.buf.extend_from_slice(&x.to_bits().to_le_bytes());
                self.v.visit_f64(x)
            }
            fn visit_char<E: de::Error>(self, x: char) -> std::result::Result<V::Value, E> {
                rec_text(&mut self.rec.buf, x.encode_utf8(&mut [0; 4]).as_bytes());
                self.v.visit_char(x)
            }
            fn visit_str<E: de::Error>(self, x: &str) -> std::result::Result<V::Value, E> {
                rec_text(&mut self.rec.buf, x.as_bytes());
                self.v.visit_str(x)
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                x: &'de str,
            ) -> std::result::Result<V::Value, E> {
                rec_text(&mut self.rec.buf, x.as_bytes());
                self.v.visit_borrowed_str(x)
            }
            fn visit_string<E: de::Error>(self, x: String) -> std::result::Result<V::Value, E> {
                rec_text(&mut self.rec.buf, x.as_bytes());
                self.v.visit_string(x)
            }
            fn visit_bytes<E: de::Error>(self, x: &[u8]) -> std::result::Result<V::Value, E> {
                rec_text(&mut self.rec.buf, x);
                self.v.visit_bytes(x)
            }
            fn visit_borrowed_bytes<E: de::Error>(
                self,
                x: &'de [u8],
            ) -> std::result::Result<V::Value, E> {
                rec_text(&mut self.rec.buf, x);
                self.v.visit_borrowed_bytes(x)
            }
            fn visit_byte_buf<E: de::Error>(self, x: Vec<u8>) -> std::result::Result<V::Value, E> {
                rec_text(&mut self.rec.buf, &x);
                self.v.visit_byte_buf(x)
            }
            fn visit_none<E: de::Error>(self) -> std::result::Result<V::Value, E> {
                self.rec.buf.push(NONE);
                self.v.visit_none()
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<V::Value, E> {
                self.rec.buf.push(UNIT);
                self.v.visit_unit()
            }
            /// At the same level: `Some(x)` is mostly `x` on the wire.
            fn visit_some<D: de::Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<V::Value, D::Error> {
                self.rec.buf.push(SOME);
                self.v.visit_some($de { d, rec: self.rec })
            }
            /// Transparent, as newtype structs are on the wire.
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<V::Value, D::Error> {
                self.v.visit_newtype_struct($de { d, rec: self.rec })
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                a: A,
            ) -> std::result::Result<V::Value, A::Error> {
                self.rec.buf.push(SEQ);
                compound!($vis, self, visit_seq, a, RecSeq)
            }
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                a: A,
            ) -> std::result::Result<V::Value, A::Error> {
                self.rec.buf.push(MAP);
                compound!($vis, self, visit_map, a, RecMap)
            }
            fn visit_enum<A: de::EnumAccess<'de>>(
                self,
                a: A,
            ) -> std::result::Result<V::Value, A::Error> {
                self.rec.buf.push(ENUM);
                compound!($vis, self, visit_enum, a, RecEnum)
            }
        }
    };
}

/// A container: at the key's level its children are recorded (one level down); below it the
/// key becomes opaque.
macro_rules! compound {
    (RecVisitor, $s:ident, $m:ident, $a:ident, $wrap:ident) => {
        $s.v.$m($wrap { a: $a, rec: $s.rec })
    };
    (LeafVisitor, $s:ident, $m:ident, $a:ident, $wrap:ident) => {{
        $s.rec.opaque = true;
        $s.v.$m($a)
    }};
}

macro_rules! rec_int {
    ($($m:ident($t:ty) $f:ident)*) => {$(
        fn $m<E: de::Error>(self, x: $t) -> std::result::Result<V::Value, E> {
            $f(&mut self.rec.buf, x as _);
            self.v.$m(x)
        }
    )*};
}

rec_visitor!(RecVisitor, RecDe);
rec_visitor!(LeafVisitor, LeafDe);

/// The elements of a sequence key, recorded in order; [`END`] when the sequence says it is
/// done.
struct RecSeq<'b, A> {
    a: A,
    rec: &'b mut Rec,
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for RecSeq<'_, A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, A::Error> {
        let r = self.a.next_element_seed(LeafSeed {
            seed,
            rec: &mut *self.rec,
        })?;
        if r.is_none() {
            self.rec.buf.push(END);
        }
        Ok(r)
    }
    fn size_hint(&self) -> Option<usize> {
        self.a.size_hint()
    }
}

/// The entries of a map key, keys and values recorded in order.
struct RecMap<'b, A> {
    a: A,
    rec: &'b mut Rec,
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for RecMap<'_, A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> std::result::Result<Option<K::Value>, A::Error> {
        let r = self.a.next_key_seed(LeafSeed {
            seed,
            rec: &mut *self.rec,
        })?;
        if r.is_none() {
            self.rec.buf.push(END);
        }
        Ok(r)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<T::Value, A::Error> {
        self.a.next_value_seed(LeafSeed {
            seed,
            rec: &mut *self.rec,
        })
    }
    fn size_hint(&self) -> Option<usize> {
        self.a.size_hint()
    }
}

/// An enum key: the variant identifier, then its payload.
struct RecEnum<'b, A> {
    a: A,
    rec: &'b mut Rec,
}

impl<'de, 'b, A: de::EnumAccess<'de>> de::EnumAccess<'de> for RecEnum<'b, A> {
    type Error = A::Error;
    type Variant = RecVariant<'b, A::Variant>;
    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> std::result::Result<(T::Value, Self::Variant), A::Error> {
        let rec = self.rec;
        // The identifier at the key's level: `Value` reads it as a `(kind, name)` pair.
        let (v, a) = self.a.variant_seed(RecSeed {
            seed,
            rec: &mut *rec,
        })?;
        Ok((v, RecVariant { a, rec }))
    }
}

struct RecVariant<'b, A> {
    a: A,
    rec: &'b mut Rec,
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for RecVariant<'_, A> {
    type Error = A::Error;
    fn unit_variant(self) -> std::result::Result<(), A::Error> {
        self.a.unit_variant()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> std::result::Result<T::Value, A::Error> {
        self.a.newtype_variant_seed(LeafSeed {
            seed,
            rec: self.rec,
        })
    }
    fn tuple_variant<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, A::Error> {
        self.a.tuple_variant(
            len,
            LeafVisitor {
                v: visitor,
                rec: self.rec,
            },
        )
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, A::Error> {
        self.a.struct_variant(
            fields,
            LeafVisitor {
                v: visitor,
                rec: self.rec,
            },
        )
    }
}

#[cfg(test)]
mod tests;
