//! `impl Serialize for Value`: each variant through the serde call that writes its wire form.
//!
//! Enum variants carry owned names, which serde's `serialize_*_variant` (taking
//! `&'static str`) cannot accept. They go through a private newtype name instead (see
//! `wire::ext::magic`): the qdf serializer writes `F2 <subtype> name payload`, exactly what
//! the typed path writes; other serializers see an externally tagged shape (`"Name"` or
//! `{"Name": payload}`). A timestamp travels the same way, as the text `"secs.nnnnnnnnn"`.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

use super::{Value, Variant, VariantKind};
use crate::wire::ext::magic;

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Nil => s.serialize_none(),
            Value::Unit => s.serialize_unit(),
            Value::UnitStruct => s.serialize_unit_struct(""),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::U64(v) => s.serialize_u64(*v),
            Value::I64(v) => s.serialize_i64(*v),
            Value::U128(v) => s.serialize_u128(*v),
            Value::I128(v) => s.serialize_i128(*v),
            Value::F32(v) => s.serialize_f32(*v),
            Value::F64(v) => s.serialize_f64(*v),
            Value::Char(c) => s.serialize_char(*c),
            Value::Str(v) => s.serialize_str(v),
            Value::Bytes(v) => s.serialize_bytes(v),
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Map(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Value::Some(v) => s.serialize_some(&**v),
            Value::Variant(v) => serialize_variant(v, s),
            Value::Timestamp { secs, nanos } => {
                s.serialize_newtype_struct(magic::TIMESTAMP, &format!("{secs}.{nanos:09}"))
            }
        }
    }
}

fn serialize_variant<S: Serializer>(v: &Variant, s: S) -> Result<S::Ok, S::Error> {
    let name = match v.kind {
        VariantKind::Unit => {
            return s.serialize_newtype_struct(magic::UNIT_VARIANT, v.name.as_str());
        }
        VariantKind::Newtype => magic::NEWTYPE_VARIANT,
        VariantKind::Tuple => magic::TUPLE_VARIANT,
        VariantKind::Struct => magic::STRUCT_VARIANT,
    };
    s.serialize_newtype_struct(name, &Carrier(v))
}

/// `{name: payload}`.
struct Carrier<'a>(&'a Variant);

impl Serialize for Carrier<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0.name.as_str(), &self.0.value)?;
        map.end()
    }
}
