//! Map keys under `MAP_SHAPE`: finds out whether a key is a string without writing anything
//! for any other kind (`docs/SPEC.md` §15, maps).
//!
//! serde gives a map key as `&T: Serialize`, so the only way to learn its kind is to let it
//! call a serializer. [`StrKey`] hands a string (also one inside a newtype struct) to its
//! callback, which writes it as a shape name; for every other kind it writes nothing and
//! records a miss, and the caller serializes the key again through the real serializer.

use serde::Serialize;
use serde::ser::Impossible;

use crate::error::{Error, ErrorCode, Result};
use crate::refuse::refuse;
use crate::wire::ext::magic;

/// A serializer that accepts only strings: `f` gets the string; any other kind sets `*miss`
/// and fails before anything is written.
pub(crate) struct StrKey<'m, F> {
    pub(crate) f: F,
    pub(crate) miss: &'m mut bool,
}

impl<F> StrKey<'_, F> {
    fn miss(self) -> Error {
        *self.miss = true;
        Error::new(ErrorCode::Unsupported("a map key that is not a string"))
    }
}

impl<F: FnOnce(&str) -> Result<()>> serde::Serializer for StrKey<'_, F> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        (self.f)(v)
    }

    /// Transparent, except the private names that carry `Value` variants and timestamps.
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if magic::variant_kind(name).is_some() {
            return Err(self.miss());
        }
        value.serialize(self)
    }

    // `Some(key)` is not shaped either: a shaped name decodes as a plain string.
    refuse! {
        Self::miss; serialize_bool serialize_i8 serialize_i16 serialize_i32 serialize_i64
        serialize_i128 serialize_u8 serialize_u16 serialize_u32 serialize_u64 serialize_u128
        serialize_f32 serialize_f64 serialize_char serialize_bytes serialize_none serialize_unit
        serialize_unit_struct serialize_unit_variant serialize_some serialize_newtype_variant
        compounds
    }
}
