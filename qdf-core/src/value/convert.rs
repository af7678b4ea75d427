//! `From` conversions into [`Value`] and `Index` by map key or array position.
//!
//! Integers take the variant decoding gives them (non-negative → `U64`, negative → `I64`,
//! 128-bit only outside the 64-bit ranges), so `Value::from(x) == to_value(&x)?`.

use std::collections::BTreeMap;
use std::ops::Index;

use super::Value;

macro_rules! from_unsigned {
    ($($t:ty)*) => {$(
        impl From<$t> for Value {
            #[allow(clippy::unnecessary_cast)] // `u64 as u64` in one expansion
            fn from(v: $t) -> Value {
                Value::U64(v as u64)
            }
        }
    )*};
}

macro_rules! from_signed {
    ($($t:ty)*) => {$(
        impl From<$t> for Value {
            #[allow(clippy::unnecessary_cast)] // `i64 as i64` in one expansion
            fn from(v: $t) -> Value {
                let v = v as i64;
                if v >= 0 { Value::U64(v as u64) } else { Value::I64(v) }
            }
        }
    )*};
}

from_unsigned!(u8 u16 u32 u64 usize);
from_signed!(i8 i16 i32 i64 isize);

impl From<u128> for Value {
    fn from(v: u128) -> Value {
        match u64::try_from(v) {
            Ok(u) => Value::U64(u),
            Err(_) => Value::U128(v),
        }
    }
}

impl From<i128> for Value {
    fn from(v: i128) -> Value {
        if let Ok(u) = u64::try_from(v) {
            Value::U64(u)
        } else if let Ok(i) = i64::try_from(v) {
            Value::I64(i)
        } else if let Ok(u) = u128::try_from(v) {
            Value::U128(u)
        } else {
            Value::I128(v)
        }
    }
}

impl From<f32> for Value {
    fn from(v: f32) -> Value {
        Value::F32(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::F64(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}

impl From<char> for Value {
    fn from(v: char) -> Value {
        Value::Char(v)
    }
}

impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Str(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Str(v.to_owned())
    }
}

impl From<()> for Value {
    fn from((): ()) -> Value {
        Value::Unit
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    /// `None` is [`Value::Nil`], `Some(x)` is [`Value::some`]`(x.into())`.
    fn from(v: Option<T>) -> Value {
        match v {
            None => Value::Nil,
            Some(x) => Value::some(x.into()),
        }
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    /// An array.
    fn from(v: Vec<T>) -> Value {
        Value::Array(v.into_iter().map(Into::into).collect())
    }
}

impl<K: Into<Value>, V: Into<Value>> From<BTreeMap<K, V>> for Value {
    /// A map, in key order.
    fn from(m: BTreeMap<K, V>) -> Value {
        Value::Map(m.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl<T: Into<Value>> FromIterator<T> for Value {
    /// An array.
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Value {
        Value::Array(iter.into_iter().map(Into::into).collect())
    }
}

/// What `v["missing"]` and `v[99]` return, as `serde_json` does.
static NIL: Value = Value::Nil;

impl Index<&str> for Value {
    type Output = Value;
    /// The value of the first entry whose key is the string `key` ([`Value::get`]);
    /// [`Value::Nil`] if there is none or this is not a map.
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NIL)
    }
}

impl Index<&String> for Value {
    type Output = Value;
    /// As `v[key.as_str()]`.
    fn index(&self, key: &String) -> &Value {
        &self[key.as_str()]
    }
}

impl Index<usize> for Value {
    type Output = Value;
    /// Element `i` of an array; [`Value::Nil`] if out of range or this is not an array.
    fn index(&self, i: usize) -> &Value {
        self.as_array().and_then(|a| a.get(i)).unwrap_or(&NIL)
    }
}
