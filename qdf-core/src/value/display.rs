//! A readable, Rust-like text form of a [`Value`] (used by `docs/SPEC.md` examples):
//!
//! | value | text |
//! |---|---|
//! | nil, unit, unit struct | `nil`, `()`, `UnitStruct` |
//! | integers | decimal: `7`, `-300`, `340282366920938463463374607431768211455` |
//! | f64 / f32 | Rust `Debug` text, `f32` suffix for f32: `1.5`, `-0.0`, `1.5f32`; NaN with its bits: `NaN(0x7ff8000000000001)` |
//! | char, string | `'a'`, `"hi\n"` (Rust escapes) |
//! | bytes | `b"\x00ab"` |
//! | array, map | `[1, 2]`, `{"a": 1, 2: nil}` |
//! | `Some` wrapper | `Some(nil)` |
//! | variants | `A`, `A(1)`, `A(1, 2)`, `A {"x": 1}` |
//! | timestamp | `timestamp(-2, 1000)` (seconds, nanoseconds) |

use std::fmt::{self, Display, Formatter, Write};

use super::{Value, VariantKind};

impl Display for Value {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Unit => f.write_str("()"),
            Value::UnitStruct => f.write_str("UnitStruct"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::U128(v) => write!(f, "{v}"),
            Value::I128(v) => write!(f, "{v}"),
            Value::F32(v) if v.is_nan() => write!(f, "NaN(0x{:08x})f32", v.to_bits()),
            Value::F32(v) => write!(f, "{v:?}f32"),
            Value::F64(v) if v.is_nan() => write!(f, "NaN(0x{:016x})", v.to_bits()),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::Char(c) => write!(f, "{c:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "b\"{}\"", b.escape_ascii()),
            Value::Array(a) => {
                f.write_char('[')?;
                list(f, a.iter(), |f, v| write!(f, "{v}"))?;
                f.write_char(']')
            }
            Value::Map(m) => {
                f.write_char('{')?;
                list(f, m.iter(), |f, (k, v)| write!(f, "{k}: {v}"))?;
                f.write_char('}')
            }
            Value::Some(v) => write!(f, "Some({v})"),
            Value::Timestamp { secs, nanos } => write!(f, "timestamp({secs}, {nanos})"),
            Value::Variant(v) => match (v.kind, &v.value) {
                (VariantKind::Unit, _) => f.write_str(&v.name),
                (VariantKind::Tuple, Value::Array(a)) => {
                    write!(f, "{}(", v.name)?;
                    list(f, a.iter(), |f, v| write!(f, "{v}"))?;
                    f.write_char(')')
                }
                (VariantKind::Struct, payload) => write!(f, "{} {payload}", v.name),
                (_, payload) => write!(f, "{}({payload})", v.name),
            },
        }
    }
}

fn list<T>(
    f: &mut Formatter<'_>,
    items: impl Iterator<Item = T>,
    mut each: impl FnMut(&mut Formatter<'_>, T) -> fmt::Result,
) -> fmt::Result {
    for (i, item) in items.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        each(f, item)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
