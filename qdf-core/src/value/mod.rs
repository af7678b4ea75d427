//! [`Value`]: any qdf value, decoded without a schema.
//!
//! Lossless: every serde kind the wire distinguishes has its own variant, so for every type
//! `T`, `T → bytes → Value → bytes → T` gives back `T`. With the Speed tier the two byte
//! strings are also equal; with the Dense tiers (Balanced, the default, and Compression) they
//! may differ, since a `Value` holds a struct as a map (no struct shape) and a columnar
//! `Vec` of structs as an array of maps (`docs/SPEC.md` §22).
//! Floats compare by bits (so `NaN == NaN` when the payloads agree, and `0.0 != -0.0`), maps
//! keep entry order, integers keep their full 64/128-bit range.
//!
//! ```
//! use qdf_core::Value;
//! let bytes = qdf_core::to_vec(&(1u8, "x", Some(())))?;
//! let v: Value = qdf_core::from_slice(&bytes)?;
//! assert_eq!(v.to_string(), r#"[1, "x", Some(())]"#);
//! assert_eq!(qdf_core::to_vec(&v)?, bytes);
//! # Ok::<(), qdf_core::Error>(())
//! ```

mod access;
mod convert;
mod de;
mod deserializer;
mod display;
mod ser;

pub use deserializer::from_value;

/// The kind of an enum variant in a [`Value::Variant`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariantKind {
    /// `E::A`: no payload.
    Unit,
    /// `E::A(x)`: the payload is `x`.
    Newtype,
    /// `E::A(x, y)`: the payload is a [`Value::Array`].
    Tuple,
    /// `E::A { x, y }`: the payload is a [`Value::Map`] of field name → value.
    Struct,
}

/// An enum variant: kind, name, payload ([`Value::Unit`] for unit variants).
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// Which of the four variant shapes.
    pub kind: VariantKind,
    /// The variant name as written.
    pub name: String,
    /// The payload (see [`VariantKind`]).
    pub value: Value,
}

/// Any qdf value, decoded without a schema.
///
/// Lossless: every serde kind the wire distinguishes has its own variant, so for every type
/// `T`, `T → bytes → Value → bytes → T` gives back `T` (and, in the Speed tier, the two byte
/// strings are equal; the Dense tiers re-encode structs and columnar batches as maps).
/// Floats compare by bits, maps keep entry order, integers keep their full range.
/// `Display` gives a readable Rust-like text (`docs/SPEC.md` §11).
///
/// Dropping a deeply nested `Value` does not recurse (see the `Drop` impl), so values built by
/// hand or decoded with a high depth limit cannot overflow the stack when freed.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// `None` / nil (`C0`).
    #[default]
    Nil,
    /// `()` (`F2 00`).
    Unit,
    /// A unit struct (`F2 01`).
    UnitStruct,
    /// A bool.
    Bool(bool),
    /// A non-negative integer up to `u64::MAX`.
    U64(u64),
    /// A negative integer down to `i64::MIN`.
    I64(i64),
    /// An integer above `u64::MAX`.
    U128(u128),
    /// An integer below `i64::MIN`.
    I128(i128),
    /// An f32, bit-exact.
    F32(f32),
    /// An f64, bit-exact.
    F64(f64),
    /// A char.
    Char(char),
    /// A UTF-8 string.
    Str(String),
    /// A byte string.
    Bytes(Vec<u8>),
    /// An array (sequences, tuples, tuple structs).
    Array(Vec<Value>),
    /// A map (maps and structs), in wire order.
    Map(Vec<(Value, Value)>),
    /// `Some(x)` where `x` itself starts with nil or an extension (`F2 05`); any other
    /// `Some(x)` is just `x` on the wire and decodes as `x`.
    Some(Box<Value>),
    /// An enum variant.
    Variant(Box<Variant>),
    /// A timestamp (tag `F3`, Go meaning): seconds since the Unix epoch and nanoseconds
    /// (at most 999 999 999). Not produced by any serde type; decoded from Go-written data.
    Timestamp {
        /// Seconds since 1970-01-01T00:00:00Z (negative before).
        secs: i64,
        /// Nanoseconds within the second, 0..=999 999 999.
        nanos: u32,
    },
}

impl Value {
    /// `Some(x)` in canonical form: [`Value::Some`] only when the wire needs the wrapper,
    /// else `x` itself.
    pub fn some(x: Value) -> Value {
        if x.needs_some_wrapper() {
            Value::Some(Box::new(x))
        } else {
            x
        }
    }

    /// True if this value's encoding starts with `C0` or `F2`.
    fn needs_some_wrapper(&self) -> bool {
        matches!(
            self,
            Value::Nil
                | Value::Unit
                | Value::UnitStruct
                | Value::Char(_)
                | Value::U128(_)
                | Value::I128(_)
                | Value::Some(_)
                | Value::Variant(_)
        )
    }

    /// Moves the value out, leaving [`Value::Nil`] (`Value` implements `Drop`, so fields
    /// cannot be moved out by pattern).
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }

    /// Moves this value's direct children into `out` (used by the iterative `Drop`).
    fn drain_children(&mut self, out: &mut Vec<Value>) {
        match self {
            Value::Array(a) => out.append(a),
            Value::Map(m) => {
                for (k, v) in m.drain(..) {
                    out.push(k);
                    out.push(v);
                }
            }
            Value::Some(b) => out.push(b.take()),
            Value::Variant(v) => out.push(v.value.take()),
            _ => {}
        }
    }

    /// True for values without children.
    fn is_leaf(&self) -> bool {
        match self {
            Value::Array(a) => a.is_empty(),
            Value::Map(m) => m.is_empty(),
            Value::Some(b) => b.is_leaf(),
            Value::Variant(v) => v.value.is_leaf(),
            _ => true,
        }
    }
}

impl Drop for Value {
    /// Frees nested values with an explicit stack instead of recursion.
    fn drop(&mut self) {
        let has_deep_child = match self {
            Value::Array(a) => a.iter().any(|v| !v.is_leaf()),
            Value::Map(m) => m.iter().any(|(k, v)| !k.is_leaf() || !v.is_leaf()),
            Value::Some(b) => !b.is_leaf(),
            Value::Variant(v) => !v.value.is_leaf(),
            _ => false,
        };
        if !has_deep_child {
            return;
        }
        let mut stack = Vec::new();
        self.drain_children(&mut stack);
        while let Some(mut v) = stack.pop() {
            v.drain_children(&mut stack);
        }
    }
}

impl PartialEq for Value {
    /// Structural equality; floats compare by bits, integers by value whatever their
    /// variant (a hand-built `U128(5)` equals the canonical `U64(5)` that decoding gives).
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Nil, Nil) | (Unit, Unit) | (UnitStruct, UnitStruct) => true,
            (Bool(a), Bool(b)) => a == b,
            (U64(_) | I64(_) | U128(_) | I128(_), U64(_) | I64(_) | U128(_) | I128(_)) => {
                self.as_int() == other.as_int()
            }
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (Char(a), Char(b)) => a == b,
            (Str(a), Str(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Map(a), Map(b)) => a == b,
            (Some(a), Some(b)) => a == b,
            (Variant(a), Variant(b)) => a == b,
            (Timestamp { secs: a, nanos: x }, Timestamp { secs: b, nanos: y }) => a == b && x == y,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Value {
    /// An integer variant's value: its sign and its two's-complement bits, one form for
    /// every variant that can hold it.
    fn as_int(&self) -> Option<(bool, u128)> {
        let v = match *self {
            Value::U64(v) => i128::from(v),
            Value::I64(v) => i128::from(v),
            Value::I128(v) => v,
            Value::U128(v) => return Some((false, v)),
            _ => return None,
        };
        Some((v < 0, v as u128))
    }
}

#[cfg(test)]
mod tests;
