//! Read accessors for [`Value`]: typed views that return `None` for other kinds.

use super::{Value, Variant};

impl Value {
    /// True for [`Value::Nil`].
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The integer as a u64, if it is one in range.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::U64(v) => Some(*v),
            Value::I64(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    /// The integer as an i64, if it is one in range.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::U64(v) => i64::try_from(*v).ok(),
            Value::I64(v) => Some(*v),
            _ => None,
        }
    }

    /// The float as an f64 (an f32 is widened exactly), if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(v) => Some(*v),
            Value::F32(v) => Some(*v as f64),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The byte string, if this is one.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The entries in wire order, if this is a map (or a struct).
    pub fn as_map(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The variant, if this is one.
    pub fn as_variant(&self) -> Option<&Variant> {
        match self {
            Value::Variant(v) => Some(v),
            _ => None,
        }
    }

    /// The value of the first map entry whose key is the string `key` (a struct field).
    /// Linear in the number of entries.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests;
