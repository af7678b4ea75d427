//! The serde extension tag [`EXT`](super::tags::EXT) (0xF2) and its subtype bytes
//! (`docs/SPEC.md` §9).
//!
//! serde has kinds the Go wire lacks. Each is written as `F2 <subtype> <payload>`:
//!
//! | subtype | name | payload | depth |
//! |---|---|---|---|
//! | `00` | unit `()` | none | 0 |
//! | `01` | unit struct | none | 0 |
//! | `02` | char | uvarint(Unicode scalar value) | 0 |
//! | `03` | u128 | 16 bytes LE, value > `u64::MAX` | 0 |
//! | `04` | i128 | 16 bytes LE two's complement, value < `i64::MIN` | 0 |
//! | `05` | some | one value whose encoding starts with `C0` or `F2` (not `F2 0B`/`0C`) | 1 |
//! | `06` | unit variant | name (a string) | 0 |
//! | `07` | newtype variant | name, value | 1 |
//! | `08` | tuple variant | name, array | 1 |
//! | `09` | struct variant | name, map (field name → value) | 1 |
//! | `0A` | shape escape | only inside a struct shape (`EC`), see `docs/SPEC.md` §15 | 0 |
//! | `0B` | hex text | `uvarint(2·L + upper)`, L ≥ 1 bytes: a string of 2L hex digits | 0 |
//! | `0C` | hex text definition | as `0B`; also defines the next intern id as that string | 0 |
//! | `0D` | text prefix | only as a slotted value of a stream with flag `40` (`docs/SPEC.md` §15.3) | 0 |
//!
//! Every other subtype byte is a `Syntax` error. Integers that fit 64 bits always use the
//! plain integer tags, so `03`/`04` holding such a value is
//! [`ErrorCode::NonMinimal`](crate::ErrorCode::NonMinimal), and so is a `05` wrapper around a
//! value that needs none.

/// `()`.
pub const UNIT: u8 = 0x00;
/// A unit struct (`struct Marker;`), distinct from `()` so a [`Value`](crate::Value) keeps it.
pub const UNIT_STRUCT: u8 = 0x01;
/// `char`: `uvarint(scalar value)`.
pub const CHAR: u8 = 0x02;
/// An unsigned 128-bit value above `u64::MAX`: 16 bytes little-endian.
pub const U128: u8 = 0x03;
/// A signed 128-bit value below `i64::MIN`: 16 bytes little-endian two's complement.
pub const I128: u8 = 0x04;
/// `Some(x)` where `x`'s own encoding starts with `C0` (nil) or `F2` (extension).
pub const SOME: u8 = 0x05;
/// Enum unit variant: name.
pub const UNIT_VARIANT: u8 = 0x06;
/// Enum newtype variant: name, value.
pub const NEWTYPE_VARIANT: u8 = 0x07;
/// Enum tuple variant: name, array of fields.
pub const TUPLE_VARIANT: u8 = 0x08;
/// Enum struct variant: name, map of field name → value.
pub const STRUCT_VARIANT: u8 = 0x09;
/// Inside a struct shape (tag `EC`) only: the record leaves its shape here; (name, value)
/// pairs follow until `C0` (`docs/SPEC.md` §15). Never starts a value.
pub const SHAPE_ESCAPE: u8 = 0x0A;
/// Hex text (`docs/SPEC.md` §9): `uvarint(n)`, `n = 2·L + u` (L ≥ 1 bytes, `u = 1` for
/// uppercase letters), then L bytes; the string of their 2L hex digits, high nibble first.
/// A string form wherever a string may stand, inline for the Dense state (§14.1).
pub const HEX_TEXT: u8 = 0x0B;
/// Hex text definition: the payload of [`HEX_TEXT`]; defines the next intern id as the
/// string it stands for, with `E0`'s state update (`docs/SPEC.md` §14.1).
pub const HEX_DEF: u8 = 0x0C;
/// Only as the value of a slotted shape field in a stream with header flag `40`:
/// `uvarint(p)` and an inline string `s`, the value being the first `p` bytes of the field's
/// last string followed by `s` (`docs/SPEC.md` §15.3). Anywhere else a `Syntax` error.
pub const TEXT_PREFIX: u8 = 0x0D;

/// True for the subtypes that make `F2` a string form: [`HEX_TEXT`], [`HEX_DEF`].
#[inline(always)]
pub(crate) const fn is_hex(sub: u8) -> bool {
    sub == HEX_TEXT || sub == HEX_DEF
}

/// True if `Some(x)` must be wrapped because `x`'s encoding starts with `first`, `second`
/// (`None`: not known yet, as at the end of the input): `C0`, or `F2` with any subtype but
/// the string forms, hex text and the slotted text prefix [`TEXT_PREFIX`] (strings, which an
/// `Option` target reads as `Some` unwrapped, §8, §15.3).
#[inline]
pub(crate) const fn some_needs_wrapper(first: u8, second: Option<u8>) -> bool {
    match second {
        Some(sub) if first == super::tags::EXT => !is_hex(sub) && sub != TEXT_PREFIX,
        _ => first == super::tags::NIL || first == super::tags::EXT,
    }
}

/// Private serde names through which [`Value`](crate::Value) asks the qdf
/// `Serializer`/`Deserializer` for the extension forms serde's data model cannot name with
/// owned strings (like `serde_json`'s `RawValue` token). Other formats see a plain newtype
/// struct around an externally tagged enum shape.
pub(crate) mod magic {
    /// `Value` deserializes through `deserialize_newtype_struct(VALUE, ..)`: the qdf
    /// deserializer then reports variants and unit structs through `visit_enum`.
    pub const VALUE: &str = "$qdf::private::Value";
    /// The variant identifier of a `visit_enum` in value mode: `deserialize_tuple_struct(KIND, 2)`
    /// yields `(subtype, name)`.
    pub const KIND: &str = "$qdf::private::Kind";
    /// Newtype-struct names that carry a `Value` enum variant to the serializer; the carried
    /// value is the variant name (unit) or a 1-entry map `{name: payload}`.
    pub const UNIT_VARIANT: &str = "$qdf::private::UnitVariant";
    /// See [`UNIT_VARIANT`].
    pub const NEWTYPE_VARIANT: &str = "$qdf::private::NewtypeVariant";
    /// See [`UNIT_VARIANT`].
    pub const TUPLE_VARIANT: &str = "$qdf::private::TupleVariant";
    /// See [`UNIT_VARIANT`].
    pub const STRUCT_VARIANT: &str = "$qdf::private::StructVariant";
    /// Carries a `Value::Timestamp` as the text `"secs.nanos"` (nanos as 9 digits); written
    /// as tag `F3`.
    pub const TIMESTAMP: &str = "$qdf::private::Timestamp";

    /// The extension subtype a carrier name stands for.
    #[inline]
    pub fn variant_kind(name: &str) -> Option<u8> {
        if !name.starts_with("$qdf::private::") {
            return None;
        }
        match name {
            UNIT_VARIANT => Some(super::UNIT_VARIANT),
            NEWTYPE_VARIANT => Some(super::NEWTYPE_VARIANT),
            TUPLE_VARIANT => Some(super::TUPLE_VARIANT),
            STRUCT_VARIANT => Some(super::STRUCT_VARIANT),
            TIMESTAMP => Some(super::super::tags::TIMESTAMP),
            _ => None,
        }
    }
}

/// A short human name for a subtype, for error messages.
pub(crate) fn subtype_name(sub: u8) -> &'static str {
    match sub {
        UNIT => "unit",
        UNIT_STRUCT => "a unit struct",
        CHAR => "a char",
        U128 => "a u128",
        I128 => "an i128",
        SOME => "Some",
        UNIT_VARIANT => "a unit variant",
        NEWTYPE_VARIANT => "a newtype variant",
        TUPLE_VARIANT => "a tuple variant",
        STRUCT_VARIANT => "a struct variant",
        SHAPE_ESCAPE => "a shape escape",
        HEX_TEXT | HEX_DEF => "a string",
        TEXT_PREFIX => "a text prefix",
        super::tags::TIMESTAMP => "a timestamp",
        _ => "an unknown extension",
    }
}
