//! Columnar containers (`docs/SPEC.md` §22): a sequence of at least
//! [`MIN_ROWS`] structs (at least one with a struct or list column, §22.2, when that is
//! smaller by exact cost) written column by column (tag `EF`), or with the columns that are
//! not one primitive kind kept row-major after the columns (hybrid, tag `F7`).
//!
//! - [`plan`]: the encoder's capture of the rows and the column plan (hard problem 2 in the
//!   design notes: the serializer sees each element once, so rows are buffered as cells and
//!   replayed through the real serializer when the batch does not become columnar);
//! - [`write`]: choosing the column codecs, the size gate, writing the container;
//! - [`read`]: the container header and column bodies on the decoder side;
//! - [`numtext`]: string columns of canonical decimal or hex text stored as numbers or bytes;
//! - [`row`]: the rows presented to serde (a `SeqAccess` of row maps), subset decode;
//! - [`body`]: a leaf column's codec by exact cost, shared by top-level and child columns;
//! - [`nested`]: struct, list and tagged columns (child columns of a column), feature
//!   `NESTED_COLUMNS`.
//!
//! The gate: features `DENSE`, `SHAPE_INTERN` and `QPACK` all on (Balanced, Compression).

pub(crate) mod body;
pub(crate) mod nested;
pub(crate) mod numtext;
pub(crate) mod plan;
pub(crate) mod read;
pub(crate) mod row;
pub(crate) mod tape;
pub(crate) mod write;

use crate::options::{Features, Options};

/// Fewest rows of a columnar container without a struct, list, map or tagged column (with
/// one: 1).
pub(crate) const MIN_ROWS: usize = 16;

/// Kind-byte flag: the column starts with a presence mask (some rows lack the field).
pub(crate) const OPTIONAL: u8 = 0x40;
/// Kind-byte flag: a non-null mask over the present rows follows (some values are `None`).
pub(crate) const NULLABLE: u8 = 0x80;
/// Kind-byte class of a residual column (values stay in the rows of an `F7`); as a tagged
/// column's variant, a unit variant (no child column).
pub(crate) const RESIDUAL: u8 = 0x0F;
/// Kind-byte bit of a tagged column whose values are one-entry maps (not enum variants).
pub(crate) const MAP_FORM: u8 = 0x10;
/// Kind-byte bit of a tagged column whose values are each `Some(variant)` (row mode writes
/// the `F2 05` wrapper before a variant).
pub(crate) const WRAPPED: u8 = 0x20;
/// Kind-byte bit of a struct or list column that is a tagged column's variant: the variant
/// is a struct variant (the struct column holds its fields) or a tuple variant (the list
/// column holds its fields), not a newtype variant around a struct or a sequence
/// (`docs/SPEC.md` §22.3).
pub(crate) const VARIANT_FIELDS: u8 = 0x10;

/// Kind-byte bit of a map column whose maps' key sequences are written once each (its
/// key sets), every map naming its set (`docs/SPEC.md` §22.2, "Key sets").
pub(crate) const KEY_SETS: u8 = 0x10;

/// What a column holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Integers; `neg`: some value is negative (kind 0), else kind 1.
    Int { neg: bool },
    /// `f64` (kind 2).
    F64,
    /// `bool` (kind 3).
    Bool,
    /// Strings (kind 4).
    Str,
    /// `f32` (kind 6).
    F32,
    /// A struct (kind 5): its child columns follow in the declaration.
    Struct,
    /// A list (kind 7): a lengths column, then one element column over the elements.
    List,
    /// A tagged union (kind 8): a tag column, then one child column per variant over the
    /// values of that variant (`docs/SPEC.md` §22.3).
    Tagged,
    /// A map (kind 9): a lengths column, then a key column and a value column over the
    /// entries (`docs/SPEC.md` §22.2).
    Map,
    /// Row-major values (kind `0F`, hybrid only).
    Residual,
}

impl Class {
    /// The low nibble of the kind byte.
    pub(crate) fn nibble(self) -> u8 {
        match self {
            Class::Int { neg: true } => 0,
            Class::Int { neg: false } => 1,
            Class::F64 => 2,
            Class::Bool => 3,
            Class::Str => 4,
            Class::F32 => 6,
            Class::Struct => 5,
            Class::List => 7,
            Class::Tagged => 8,
            Class::Map => 9,
            Class::Residual => RESIDUAL,
        }
    }

    /// The class of a kind byte's low nibble.
    pub(crate) fn from_nibble(n: u8) -> Option<Class> {
        Some(match n {
            0 => Class::Int { neg: true },
            1 => Class::Int { neg: false },
            2 => Class::F64,
            3 => Class::Bool,
            4 => Class::Str,
            6 => Class::F32,
            5 => Class::Struct,
            7 => Class::List,
            8 => Class::Tagged,
            9 => Class::Map,
            RESIDUAL => Class::Residual,
            _ => return None,
        })
    }

    /// A struct, list, map or tagged column: its values are in child columns (§22.2, §22.3).
    pub(crate) fn nested(self) -> bool {
        matches!(
            self,
            Class::Struct | Class::List | Class::Map | Class::Tagged
        )
    }

    /// A list or map column: a lengths column, then element columns (the list's one, the
    /// map's key and value columns) with a slot per element or entry, declared without
    /// names (§22.2).
    pub(crate) fn lengths(self) -> bool {
        matches!(self, Class::List | Class::Map)
    }
}

/// True when `opts` writes columnar containers.
pub(crate) fn enabled(opts: &Options) -> bool {
    opts.has(
        Features::DENSE
            .with(Features::SHAPE_INTERN)
            .with(Features::QPACK),
    )
}

/// True when `opts` writes struct and list columns (`docs/SPEC.md` §22.2).
pub(crate) fn nested_enabled(opts: &Options) -> bool {
    opts.has(Features::NESTED_COLUMNS)
}

/// Bytes of a mask over `n` rows.
pub(crate) fn mask_len(n: usize) -> usize {
    n.div_ceil(8)
}

/// An LSB-first bit mask of `n` bits with the bits of `set` on.
pub(crate) fn mask(n: usize, set: impl Iterator<Item = usize>) -> Vec<u8> {
    let mut m = vec![0u8; mask_len(n)];
    for i in set {
        m[i / 8] |= 1 << (i % 8);
    }
    m
}

/// The declaration of a child column (encoder): its name (empty for a list's elements,
/// which is not written; a variant's name or a one-entry map's key, which may be a
/// captured string), kind byte and own children.
#[derive(Debug)]
pub(crate) struct Decl {
    pub(crate) name: std::borrow::Cow<'static, str>,
    pub(crate) kind: u8,
    pub(crate) children: Vec<Decl>,
}
