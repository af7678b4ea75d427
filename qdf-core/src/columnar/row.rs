//! The rows of a columnar container presented to serde: a `SeqAccess` of `M` rows, each a
//! map of the columns present in that row, in column order. Column values come from the
//! loaded column stores through [`CellDe`], which behaves exactly like the row-mode
//! deserializer on the same value; residual values are read inline from the input by the
//! real deserializer (reached through [`RowDecoder`], which `de` implements), in row order,
//! so the Dense state advances as on the encoder.
//!
//! Subset decode: the first row's `deserialize_struct` names the fields the target wants;
//! the others are skipped (see [`Container::load`]). A skipped column shows its key, so
//! `deny_unknown_fields` fails as in row mode, and its value accepts only
//! `deserialize_ignored_any`. Once a row's struct visitor took its key as a field identifier
//! and ignored its value (what serde derive does with a field it does not know), rows
//! deserialized as a struct with the same fields no longer show it: a derived struct ignores
//! it in every row, and handing out 13 ignored keys a row cost the 3-of-16 subset decode
//! over a third of its instructions. Any other request of a row (a map, `Value`, another
//! struct) still shows every key.

use std::borrow::Cow;
use std::marker::PhantomData;

use crate::short::owned_str;
use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, Visitor};

use super::Class;
use super::read::{Column, Container, Data, StrRef, bit};
use crate::codec::strings::CheckedStrs;
use crate::error::{Error, ErrorCode, Result};
use crate::source::{Num, Source};
use crate::wire::ext;

/// What the rows need from the deserializer that presents them: its source, and a serde
/// deserializer over that source for the values that stay in the rows (residual cells).
/// Implemented by [`Deserializer`](crate::Deserializer); static dispatch, so a residual
/// cell costs what a row-mode value does.
pub(crate) trait RowDecoder<'de> {
    /// The deserializer of a residual value.
    type Residual<'a>: de::Deserializer<'de, Error = Error>
    where
        Self: 'a;

    /// The input, budget, depth and Dense state.
    fn source(&mut self) -> &mut Source<'de>;

    /// A deserializer for the next value in the input.
    fn residual(&mut self) -> Self::Residual<'_>;

    /// `visitor` over `map`, refusing a key equal to an earlier key of the same map as row
    /// mode's maps do (`Options::deny_duplicate_keys`, `docs/SPEC.md` §7); a repeat is
    /// reported at offset `at`.
    fn visit_unique_keys<A, V>(map: &mut A, at: u64, visitor: V) -> Result<V::Value>
    where
        A: de::MapAccess<'de, Error = Error>,
        V: Visitor<'de>;
}

/// Visits the columnar container whose tag (`EF` or `F7`) was just read, as a sequence of
/// rows. Errors of the rows themselves (depth, a row asked for as a tuple, serde's missing
/// fields) are at the container's tag; a cell's are at its column (or, residual, in the
/// input).
pub(crate) fn visit_columnar<'de, D: RowDecoder<'de>, V: Visitor<'de>>(
    de: &mut D,
    tag: u8,
    visitor: V,
) -> Result<V::Value> {
    let at = de.source().offset() - 1;
    let c = Container::read_header(de.source(), tag)?;
    de.source().enter()?;
    let m = c.m;
    let mut rows = Rows { de, c, row: 0, at };
    let v = visitor
        .visit_seq(&mut rows)
        .map_err(|e| e.with_offset(at))?;
    let done = rows.row;
    rows.de.source().leave();
    if done != m {
        return Err(Error::mismatch(
            format!("{done} rows"),
            format!("a columnar container of {m} rows"),
        )
        .with_offset(at));
    }
    Ok(v)
}

/// The rows of a container.
struct Rows<'a, 'de, D> {
    de: &'a mut D,
    c: Container<'de>,
    row: usize,
    /// Offset of the container's tag, where the rows' own errors point.
    at: u64,
}

impl<'de, D: RowDecoder<'de>> de::SeqAccess<'de> for Rows<'_, 'de, D> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.row == self.c.m {
            return Ok(None);
        }
        seed.deserialize(RowDe { rows: self }).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.c.m - self.row)
    }
}

impl<'de, D: RowDecoder<'de>> Rows<'_, 'de, D> {
    /// Loads the column bodies before the first row.
    #[inline]
    fn load(&mut self, fields: Option<&'static [&'static str]>) -> Result<()> {
        if self.c.loaded {
            return Ok(());
        }
        self.load_now(fields)
    }

    #[inline(never)]
    fn load_now(&mut self, fields: Option<&'static [&'static str]>) -> Result<()> {
        self.c.load(self.de.source(), fields)
    }

    /// Visits the current row as a map, then moves to the next; `hide`: the row is the
    /// struct the columns were loaded for, so hidden skipped columns are left out.
    fn visit_row<V: Visitor<'de>>(&mut self, visitor: V, hide: bool) -> Result<V::Value> {
        let at = self.at;
        self.de.source().enter().map_err(|e| e.relocated(at))?;
        let r = self.row;
        let Container { cols, arena, .. } = &mut self.c;
        let mut map = RowMap {
            rest: cols,
            cur: None,
            at: r / 8,
            bit: 1 << (r % 8),
            hide,
            de: &mut *self.de,
            arena,
        };
        let v = visitor.visit_map(&mut map)?;
        let left = map.left();
        self.de.source().leave();
        if left != 0 {
            return Err(Error::mismatch(
                "a row read to its end",
                format!("a row with {left} more fields"),
            ));
        }
        self.row += 1;
        Ok(v)
    }
}

/// Requests a row (a struct) cannot answer, refused as row mode refuses them on a struct;
/// each method with the arguments before its visitor.
macro_rules! not_a_row {
    ($($m:ident($($arg:ident: $t:ty),*))*) => {$(
        fn $m<V: Visitor<'de>>(self, $($arg: $t,)* visitor: V) -> Result<V::Value> {
            Err(self.not_a_row(&visitor))
        }
    )*};
}
/// One row, before serde says how it wants it.
struct RowDe<'r, 'a, 'de, D> {
    rows: &'r mut Rows<'a, 'de, D>,
}

impl<'de, D: RowDecoder<'de>> de::Deserializer<'de> for RowDe<'_, '_, 'de, D> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.rows.load(None)?;
        self.rows.visit_row(visitor, false)
    }

    /// The fields the target names select the columns to load (on the first row).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.rows.load(Some(fields))?;
        let hide = self.rows.c.same_fields(fields);
        self.rows.visit_row(visitor, hide)
    }

    /// A row is `Some(row)`, as a struct is in row mode (one depth level).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.rows.at;
        self.rows.de.source().enter().map_err(|e| e.relocated(at))?;
        let rows = self.rows;
        let v = visitor.visit_some(RowDe { rows: &mut *rows })?;
        rows.de.source().leave();
        Ok(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    not_a_row! {
        deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_i128() deserialize_u8() deserialize_u16()
        deserialize_u32() deserialize_u64() deserialize_u128() deserialize_f32()
        deserialize_f64() deserialize_char() deserialize_str() deserialize_string()
        deserialize_bytes() deserialize_byte_buf() deserialize_unit() deserialize_seq()
        deserialize_identifier() deserialize_tuple(_len: usize)
        deserialize_tuple_struct(_name: &'static str, _len: usize)
        deserialize_unit_struct(_name: &'static str)
        deserialize_enum(_name: &'static str, _variants: &'static [&'static str])
    }

    serde::forward_to_deserialize_any! {
        map ignored_any
    }
}

impl<'de, D: RowDecoder<'de>> RowDe<'_, '_, 'de, D> {
    /// A row asked for as anything but a struct, a map, an option or any value: row mode's
    /// words ("expected a tuple of size 1, found a struct") at the container's tag.
    #[cold]
    fn not_a_row(&self, expected: &dyn de::Expected) -> Error {
        Error::mismatch(expected.to_string(), "a struct").with_offset(self.rows.at)
    }
}

/// The present columns of one row.
struct RowMap<'r, 'de, D> {
    /// The columns after the last key handed out.
    rest: &'r mut [Column<'de>],
    /// The column whose key was handed out last (`None` once its value was taken).
    cur: Option<&'r mut Column<'de>>,
    /// The row's byte and bit in presence masks.
    at: usize,
    bit: u8,
    /// Leave hidden columns out (see [`Column::hidden`]).
    hide: bool,
    de: &'r mut D,
    /// Per-value strings copied out of the intern table.
    arena: &'r str,
}

impl<D> RowMap<'_, '_, D> {
    /// Whether column `col` shows in this row: it has a value here and is not hidden.
    #[inline(always)]
    fn present(&self, col: &Column<'_>) -> bool {
        col.always || self.present_slow(col)
    }

    /// [`present`](Self::present) for an optional or hidden column.
    #[inline]
    fn present_slow(&self, col: &Column<'_>) -> bool {
        !(self.hide && col.hidden)
            && (!col.optional || col.present.get(self.at).is_some_and(|&b| b & self.bit != 0))
    }

    /// Columns after the last key handed out that have a value in this row.
    #[inline]
    fn left(&self) -> usize {
        if self.rest.is_empty() {
            return 0;
        }
        self.rest.iter().filter(|c| self.present(c)).count()
    }
}

impl<'de, D: RowDecoder<'de>> de::MapAccess<'de> for RowMap<'_, 'de, D> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        while let Some((col, rest)) = std::mem::take(&mut self.rest).split_first_mut() {
            self.rest = rest;
            if !self.present(col) {
                continue;
            }
            let key = seed.deserialize(KeyDe {
                name: &col.name,
                ident: &mut col.ident,
            })?;
            self.cur = Some(col);
            return Ok(Some(key));
        }
        Ok(None)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some(col) = self.cur.take() else {
            return Err(Error::mismatch("a map key before its value", "a value"));
        };
        if let Data::Skipped = col.data {
            // Not materialised: no value to count or read, only ignoring it is accepted
            // (which, after an identifier key, hides the column from the struct's rows).
            let vet = self.hide && col.ident;
            return seed.deserialize(SkippedDe { col, vet });
        }
        column_value(self.de, col, self.arena, seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left())
    }
}

/// The next value of loaded column `col` deserialized by `seed`: a stored or residual cell
/// through [`CellDe`], a struct or list column's value through [`NestedDe`].
#[inline(always)]
fn column_value<'de, D: RowDecoder<'de>, S: DeserializeSeed<'de>>(
    de: &mut D,
    col: &mut Column<'de>,
    arena: &str,
    seed: S,
) -> Result<S::Value> {
    if let Data::Nested = col.data {
        return nested_value(de, col, arena, seed);
    }
    let v = cell(col, arena)?;
    seed.deserialize(CellDe { de, v })
        .map_err(|e| cell_error(e, col))
}

/// [`column_value`] of a struct, list or tagged column.
#[inline(never)]
fn nested_value<'de, D: RowDecoder<'de>, S: DeserializeSeed<'de>>(
    de: &mut D,
    col: &mut Column<'de>,
    arena: &str,
    seed: S,
) -> Result<S::Value> {
    let val = take(col)?;
    let at = col.at;
    if col.class == Class::Tagged {
        let wrap = col.wrapped;
        return seed
            .deserialize(TaggedDe {
                de,
                col,
                arena,
                tag: val.map(|(t, _)| t),
                wrap,
                value_mode: false,
            })
            .map_err(|e| e.with_offset(at));
    }
    // The value's own errors (its children's point at their columns) are at its column.
    seed.deserialize(NestedDe {
        de,
        col,
        arena,
        val,
    })
    .map_err(|e| e.with_offset(at))
}

/// Advances struct, list, map or tagged column `col` past its next value: `None` for a
/// null, else the value's slot in the children (a struct: its index among the column's
/// values, and 0; a list: its first element and its length; a map: its first entry and its
/// length; a tagged column: its tag, and its index among the column's values).
#[inline]
fn take(col: &mut Column<'_>) -> Result<Option<(usize, usize)>> {
    if col.nullable {
        let p = col.next_present;
        col.next_present += 1;
        if !bit(col.non_null, p) {
            return Ok(None);
        }
    }
    let k = col.next_value;
    col.next_value += 1;
    if col.class == Class::Tagged {
        // The tags were checked against the variants when the column was loaded.
        let tag = *col.lens.get(k).ok_or_else(short_column)?;
        return Ok(Some((tag as usize, k)));
    }
    if !col.class.lengths() {
        return Ok(Some((k, 0)));
    }
    let len = col.lens.get(k).ok_or_else(short_column)?;
    // The lengths' sum was checked against the element column when it was loaded.
    let len = *len as usize;
    let first = col.next_elem;
    col.next_elem += len;
    Ok(Some((first, len)))
}

/// Takes loaded column `col`'s next value as a self-describing target (`deserialize_any`,
/// `Value`) takes it, entering and leaving the depth levels [`NestedDe`] and [`TaggedDe`]
/// enter to present it, without presenting it: the `inspect` walker's account of the
/// decoder's depth limit. A struct or list value is one level; a tagged value one for the
/// `Some` of kind bit `20` and one for a payload; a cell none (its column is not advanced:
/// no value below it has levels).
///
/// Errors: `DepthLimit` at the column whose level is one too many, as the decoder's.
pub(crate) fn enter_value_levels(src: &mut Source<'_>, col: &mut Column<'_>) -> Result<()> {
    if !matches!(col.data, Data::Nested) {
        return Ok(());
    }
    let Some((k, len)) = take(col)? else {
        return Ok(());
    };
    let levels = match col.class {
        Class::Tagged => {
            let child = col.children.get(k).ok_or_else(short_column)?;
            u32::from(col.wrapped) + u32::from(!matches!(child.data, Data::Unit))
        }
        _ => 1,
    };
    let at = col.at;
    for _ in 0..levels {
        src.enter().map_err(|e| e.relocated(at))?;
    }
    match col.class {
        Class::Tagged => {
            if let Some(child) = col.children.get_mut(k) {
                enter_value_levels(src, child)?;
            }
        }
        Class::List | Class::Map => {
            for _ in 0..len {
                // A map's entry: its key, then its value, as the decoder reads them.
                for c in &mut col.children {
                    enter_value_levels(src, c)?;
                }
            }
        }
        _ => {
            for c in &mut col.children {
                // As `RowMap::present_slow` reads a child's mask.
                if !c.optional || c.present.get(k / 8).is_some_and(|&b| b >> (k % 8) & 1 == 1) {
                    enter_value_levels(src, c)?;
                }
            }
        }
    }
    for _ in 0..levels {
        src.leave();
    }
    Ok(())
}

/// Advances loaded column `col` past its next value, and a struct or list column's children
/// past that value's slots (a value ignored by the target).
fn skip_value(col: &mut Column<'_>, arena: &str) -> Result<()> {
    if !matches!(col.data, Data::Nested) {
        return cell(col, arena).map(|_| ());
    }
    let val = take(col)?;
    skip_children(col, val, arena)
}

/// Advances the children of struct, list, map or tagged column `col` past the slots of
/// value `val` ([`take`]).
fn skip_children(col: &mut Column<'_>, val: Option<(usize, usize)>, arena: &str) -> Result<()> {
    let Some((k, len)) = val else {
        return Ok(());
    };
    if col.class == Class::Tagged {
        let child = col.children.get_mut(k).ok_or_else(short_column)?;
        if !matches!(child.data, Data::Unit) {
            skip_value(child, arena)?;
        }
        return Ok(());
    }
    if col.class.lengths() {
        // A list's element column, a map's key and value columns: `len` slots each.
        for c in &mut col.children {
            for _ in 0..len {
                skip_value(c, arena)?;
            }
        }
        return Ok(());
    }
    for c in &mut col.children {
        if !c.optional || bit(c.present, k) {
            skip_value(c, arena)?;
        }
    }
    Ok(())
}

/// One value of a struct, list or map column (`docs/SPEC.md` §22.2), presented as row mode
/// presents the same value: a null as `None`, a struct as a map of its children present in
/// this slot (in column order), a list as a sequence of its elements, a map as a map of its
/// entries (in entry order); each one depth level, as in row mode.
struct NestedDe<'x, 'de, D> {
    de: &'x mut D,
    col: &'x mut Column<'de>,
    arena: &'x str,
    /// What [`take`] returned for this value.
    val: Option<(usize, usize)>,
}

impl<'de, D: RowDecoder<'de>> de::Deserializer<'de> for NestedDe<'_, 'de, D> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit(visitor, true)
    }

    /// A struct target reads a map value without the repeated-key check (serde derive
    /// refuses a repeated field itself), as row mode does.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.visit(visitor, false)
    }

    /// `None` for a null value, else `Some(value)` (one depth level, as row mode counts it).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.val.is_none() {
            return visitor.visit_none();
        }
        let at = self.col.at;
        self.de.source().enter().map_err(|e| e.relocated(at))?;
        let NestedDe {
            de,
            col,
            arena,
            val,
        } = self;
        let v = visitor.visit_some(NestedDe {
            de: &mut *de,
            col,
            arena,
            val,
        })?;
        de.source().leave();
        Ok(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    /// The value's children are stepped over (their counters stay in step).
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        skip_children(self.col, self.val, self.arena)?;
        visitor.visit_unit()
    }

    /// A map value of one entry whose key is a string is the variant its key names, as row
    /// mode reads a 1-entry map (`docs/SPEC.md` §8): a column of such maps that the tagged
    /// form refused (a variant with too few values) is a map column, and an externally
    /// tagged enum must still read it. Any other value is presented as `deserialize_any`
    /// presents it.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let (Class::Map, Some((_, len))) = (self.col.class, self.val) else {
            return self.visit(visitor, true);
        };
        if len != 1 {
            return Err(Error::mismatch(
                "an enum variant as a 1-entry map",
                format!("a map of {len} entries"),
            ));
        }
        let at = self.col.at;
        let [keys, vals] = self.col.children.as_mut_slice() else {
            return Err(short_column());
        };
        // Row mode takes a variant name from a string only.
        if keys.class != Class::Str {
            return Err(Error::mismatch(
                "a variant name",
                "a map key that is not a string",
            ));
        }
        self.de.source().enter().map_err(|e| e.relocated(at))?;
        let v = visitor.visit_enum(EntryEnum {
            de: &mut *self.de,
            keys,
            vals,
            arena: self.arena,
        })?;
        self.de.source().leave();
        Ok(v)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// The one entry of a map column's value read as an enum variant: the key column's next
/// value names it, the value column's next value is its payload (any variant kind, as row
/// mode's 1-entry map form).
struct EntryEnum<'x, 'de, D> {
    de: &'x mut D,
    keys: &'x mut Column<'de>,
    vals: &'x mut Column<'de>,
    arena: &'x str,
}

impl<'de, D: RowDecoder<'de>> de::EnumAccess<'de> for EntryEnum<'_, 'de, D> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = column_value(&mut *self.de, &mut *self.keys, self.arena, seed)?;
        Ok((v, self))
    }
}

impl<'de, D: RowDecoder<'de>> de::VariantAccess<'de> for EntryEnum<'_, 'de, D> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        column_value(self.de, self.vals, self.arena, PhantomData::<()>)
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        column_value(self.de, self.vals, self.arena, seed)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        column_value(self.de, self.vals, self.arena, Tuple(len, visitor))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        column_value(self.de, self.vals, self.arena, Struct(fields, visitor))
    }
}

impl<'de, D: RowDecoder<'de>> NestedDe<'_, 'de, D> {
    /// Presents the value to `visitor`, one depth level deeper (a null as `None`); `keys`: a
    /// map value's keys are checked for repeats under `Options::deny_duplicate_keys`.
    fn visit<V: Visitor<'de>>(self, visitor: V, keys: bool) -> Result<V::Value> {
        let Some((k, len)) = self.val else {
            return visitor.visit_none();
        };
        let at = self.col.at;
        self.de.source().enter().map_err(|e| e.relocated(at))?;
        // Each branch's result is returned as it came (not unpacked and wrapped again),
        // so that the visitor's value is not copied on its way out.
        let r = if self.col.class == Class::List {
            let Some(elem) = self.col.children.first_mut() else {
                return Err(short_column());
            };
            let mut seq = Elems {
                de: &mut *self.de,
                col: elem,
                arena: self.arena,
                left: len,
            };
            let r = visitor.visit_seq(&mut seq);
            if r.is_ok() && seq.left != 0 {
                return Err(Error::mismatch(
                    "a list read to its end",
                    format!("a list with {} more elements", seq.left),
                ));
            }
            r
        } else if self.col.class == Class::Map {
            let [keys_col, vals_col] = self.col.children.as_mut_slice() else {
                return Err(short_column());
            };
            let check = keys && self.de.source().dup_keys();
            // A repeat is reported at the key column's first byte (a key's own bytes are
            // inside its column's body).
            let keys_at = keys_col.at;
            let (r, left) = match (StrBlock::of(keys_col), StrBlock::of(vals_col)) {
                // String keys and values (a `HashMap<String, String>`, attributes): each
                // entry reads a row of each block, without `cell`'s dispatch per value.
                (Some(keys), Some(vals)) => {
                    let mut map = BlockEntries {
                        de: &mut *self.de,
                        keys,
                        vals,
                        turn: Turn::new(len),
                    };
                    let r = visit_entries::<D, _, _>(&mut map, check, keys_at, visitor);
                    (r, map.turn.left)
                }
                _ => {
                    let mut map = Entries {
                        de: &mut *self.de,
                        keys: keys_col,
                        vals: vals_col,
                        arena: self.arena,
                        turn: Turn::new(len),
                    };
                    let r = visit_entries::<D, _, _>(&mut map, check, keys_at, visitor);
                    (r, map.turn.left)
                }
            };
            if r.is_ok() && left != 0 {
                return Err(Error::mismatch(
                    "a map read to its end",
                    format!("a map with {left} more entries"),
                ));
            }
            r
        } else {
            let mut map = RowMap {
                rest: &mut self.col.children,
                cur: None,
                at: k / 8,
                bit: 1 << (k % 8),
                hide: false,
                de: &mut *self.de,
                arena: self.arena,
            };
            let r = visitor.visit_map(&mut map);
            if r.is_ok() {
                let left = map.left();
                if left != 0 {
                    return Err(Error::mismatch(
                        "a struct read to its end",
                        format!("a struct with {left} more fields"),
                    ));
                }
            }
            r
        };
        if r.is_ok() {
            self.de.source().leave();
        }
        r
    }
}

/// The entries of one map value: the next `left` values of the key column, each followed
/// by the next value of the value column.
struct Entries<'x, 'de, D> {
    de: &'x mut D,
    keys: &'x mut Column<'de>,
    vals: &'x mut Column<'de>,
    arena: &'x str,
    turn: Turn,
}

/// Where a map value's entries are: `left` still to read, and whether a key was handed out
/// and its value not yet (serde's `MapAccess` order: key, value, key, …).
struct Turn {
    left: usize,
    value_next: bool,
}

impl Turn {
    fn new(left: usize) -> Self {
        Turn {
            left,
            value_next: false,
        }
    }

    /// Whether a key is next (`false`: the map is read to its end).
    #[inline(always)]
    fn key(&mut self) -> Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        if self.value_next {
            return Err(Error::mismatch("a map value before the next key", "a key"));
        }
        self.left -= 1;
        self.value_next = true;
        Ok(true)
    }

    /// Checks that a key was handed out before this value.
    #[inline(always)]
    fn value(&mut self) -> Result<()> {
        if !self.value_next {
            return Err(Error::mismatch("a map key before its value", "a value"));
        }
        self.value_next = false;
        Ok(())
    }
}

impl<'de, D: RowDecoder<'de>> de::MapAccess<'de> for Entries<'_, 'de, D> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.turn.key()? {
            return Ok(None);
        }
        column_value(&mut *self.de, &mut *self.keys, self.arena, seed).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.turn.value()?;
        column_value(&mut *self.de, &mut *self.vals, self.arena, seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.turn.left)
    }
}

/// `visitor` over the entries of a map value, with the repeated-key check when `check`
/// (a repeat reported at `keys_at`).
#[inline(always)]
fn visit_entries<'de, D, A, V>(
    map: &mut A,
    check: bool,
    keys_at: u64,
    visitor: V,
) -> Result<V::Value>
where
    D: RowDecoder<'de>,
    A: de::MapAccess<'de, Error = Error>,
    V: Visitor<'de>,
{
    if check {
        D::visit_unique_keys(map, keys_at, visitor)
    } else {
        visitor.visit_map(map)
    }
}

/// A non-nullable string block column, a map's key or value column, borrowed apart from
/// its [`Column`]: its next value is a row of the block, read without [`cell`]'s match on
/// the column's data.
struct StrBlock<'x, 'de> {
    strs: &'x CheckedStrs<'de>,
    /// The column's `next_value`.
    next: &'x mut usize,
    /// Where the errors of its cells point (see [`stored_error`]).
    name: &'x str,
    at: u64,
}

impl<'x, 'de> StrBlock<'x, 'de> {
    /// `col` when it is a non-nullable string block.
    #[inline]
    fn of(col: &'x mut Column<'de>) -> Option<Self> {
        match col {
            Column {
                nullable: false,
                data: Data::Block(strs),
                next_value,
                name,
                at,
                ..
            } => Some(StrBlock {
                strs,
                next: next_value,
                name,
                at: *at,
            }),
            _ => None,
        }
    }

    /// The column's next value deserialized by `seed` (as [`column_value`] would).
    #[inline(always)]
    fn value<D: RowDecoder<'de>, S: DeserializeSeed<'de>>(
        &mut self,
        de: &mut D,
        seed: S,
    ) -> Result<S::Value> {
        let k = *self.next;
        *self.next += 1;
        let v = match self.strs.row(k) {
            Some(Ok(s)) => CellVal::Str(s),
            Some(Err(s)) => CellVal::Copied(s),
            None => return Err(short_column()),
        };
        // Matched, not `map_err`: the closure would move a large value.
        match seed.deserialize(CellDe { de, v }) {
            Ok(v) => Ok(v),
            Err(e) => Err(stored_error(e, self.name, self.at)),
        }
    }
}

/// [`Entries`] over two [`StrBlock`]s.
struct BlockEntries<'x, 'de, D> {
    de: &'x mut D,
    keys: StrBlock<'x, 'de>,
    vals: StrBlock<'x, 'de>,
    turn: Turn,
}

impl<'de, D: RowDecoder<'de>> de::MapAccess<'de> for BlockEntries<'_, 'de, D> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.turn.key()? {
            return Ok(None);
        }
        self.keys.value(&mut *self.de, seed).map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.turn.value()?;
        self.vals.value(&mut *self.de, seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.turn.left)
    }
}

/// The elements of one list value: the next `left` values of the element column.
struct Elems<'x, 'de, D> {
    de: &'x mut D,
    col: &'x mut Column<'de>,
    arena: &'x str,
    left: usize,
}

impl<'de, D: RowDecoder<'de>> de::SeqAccess<'de> for Elems<'_, 'de, D> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        column_value(&mut *self.de, &mut *self.col, self.arena, seed).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// One value of a tagged column (`docs/SPEC.md` §22.3), presented as row mode presents the
/// same value: a null as `None`; `Some(variant)` (kind bit `20`) with its wrapper, one depth
/// level; a variant to an enum target as that variant, to `Value` with its kind, to any
/// other visitor as row mode's `deserialize_any` shows it (a unit variant as its name, a
/// newtype variant as a one-entry map, one level); a one-entry map (kind bit `10`) as a
/// map, one level, and to an enum target as a variant (as row mode reads a 1-entry map).
struct TaggedDe<'x, 'de, D> {
    de: &'x mut D,
    col: &'x mut Column<'de>,
    arena: &'x str,
    /// The value's tag (its variant); `None` for a null.
    tag: Option<usize>,
    /// The `Some` wrapper is still to be shown.
    wrap: bool,
    /// `Value` asked (its private newtype name): a variant goes to `visit_enum`.
    value_mode: bool,
}

impl<'x, 'de, D: RowDecoder<'de>> TaggedDe<'x, 'de, D> {
    /// Runs `f` one depth level deeper (errors at the column, as row mode's at the value).
    fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let at = self.col.at;
        self.de.source().enter().map_err(|e| e.relocated(at))?;
        let v = f(self)?;
        self.de.source().leave();
        Ok(v)
    }

    /// The variant of tag `tag`, with the value's payload column.
    fn variant(self, tag: usize) -> Result<Variant<'x, 'de, D>> {
        let map_form = self.col.map_form;
        let child = self.col.children.get_mut(tag).ok_or_else(short_column)?;
        let kind = match (&child.data, child.fields, child.class) {
            (Data::Unit, ..) => ext::UNIT_VARIANT,
            (_, true, Class::Struct) => ext::STRUCT_VARIANT,
            (_, true, _) => ext::TUPLE_VARIANT,
            _ => ext::NEWTYPE_VARIANT,
        };
        Ok(Variant {
            de: self.de,
            kind,
            child,
            arena: self.arena,
            map_form,
        })
    }
}

impl<'de, D: RowDecoder<'de>> de::Deserializer<'de> for TaggedDe<'_, 'de, D> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let Some(tag) = self.tag else {
            return visitor.visit_none();
        };
        if self.wrap {
            return self.deeper(|t| {
                visitor.visit_some(TaggedDe {
                    de: &mut *t.de,
                    col: &mut *t.col,
                    arena: t.arena,
                    tag: t.tag,
                    wrap: false,
                    value_mode: false,
                })
            });
        }
        let value_mode = self.value_mode && !self.col.map_form;
        let at = self.col.at;
        let v = self.variant(tag)?;
        if value_mode {
            return v.visit_enum(visitor, at);
        }
        if v.kind == ext::UNIT_VARIANT {
            return NameDe::new(&v.child.name).deserialize_any(visitor);
        }
        v.de.source().enter().map_err(|e| e.relocated(at))?;
        let mut map = OneEntry { v, state: 0 };
        let r = visitor.visit_map(&mut map)?;
        if map.state != 2 {
            return Err(Error::mismatch(
                "a map read to its end",
                "a map with 1 more entry",
            ));
        }
        map.v.de.source().leave();
        Ok(r)
    }

    /// `None` for a null, else `Some(value)` (one depth level, as row mode counts it); the
    /// wrapper of kind bit `20` is that `Some`.
    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if self.tag.is_none() {
            return visitor.visit_none();
        }
        self.deeper(|t| {
            visitor.visit_some(TaggedDe {
                de: &mut *t.de,
                col: &mut *t.col,
                arena: t.arena,
                tag: t.tag,
                wrap: false,
                value_mode: false,
            })
        })
    }

    /// The variant (a one-entry map's key names it); a `Some` wrapper is seen through.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let Some(tag) = self.tag else {
            return visitor.visit_none();
        };
        let at = self.col.at;
        self.variant(tag)?.visit_enum(visitor, at)
    }

    /// `Value`'s private name turns variants into `visit_enum`, as in row mode.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == crate::wire::ext::magic::VALUE {
            self.value_mode = true;
        }
        visitor.visit_newtype_struct(self)
    }

    /// The payload column is stepped over (its counters stay in step).
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(tag) = self.tag {
            let idx = self.col.next_value - 1;
            skip_children(self.col, Some((tag, idx)), self.arena)?;
        }
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// One variant of a tagged column's value: its name (the child column's) and payload (the
/// child column's next value; none for a unit variant; a tuple or struct variant's fields
/// a list or struct value).
struct Variant<'x, 'de, D> {
    de: &'x mut D,
    child: &'x mut Column<'de>,
    arena: &'x str,
    /// The variant's kind, as row mode's extension subtype (`F2 06`–`F2 09`, §8).
    kind: u8,
    /// The column's values are one-entry maps: any variant request reads the entry's value
    /// (row mode's 1-entry map form).
    map_form: bool,
}

impl<'de, D: RowDecoder<'de>> Variant<'_, 'de, D> {
    /// `visitor.visit_enum` with this variant, one depth level deeper unless it is a unit
    /// variant (as row mode counts `F2 06` to `F2 09`; a tuple or struct variant's fields are
    /// one more, as its array or map is).
    fn visit_enum<V: Visitor<'de>>(self, visitor: V, at: u64) -> Result<V::Value> {
        if self.kind == ext::UNIT_VARIANT {
            return visitor.visit_enum(self);
        }
        let Variant {
            de,
            child,
            arena,
            kind,
            map_form,
        } = self;
        de.source().enter().map_err(|e| e.relocated(at))?;
        let v = visitor.visit_enum(Variant {
            de: &mut *de,
            child,
            arena,
            kind,
            map_form,
        })?;
        de.source().leave();
        Ok(v)
    }

    /// The error of a variant request of the wrong kind, in row mode's words.
    #[cold]
    fn wrong_kind(&self, expected: &'static str) -> Error {
        Error::mismatch(expected, ext::subtype_name(self.kind))
    }
}

impl<'de, D: RowDecoder<'de>> de::EnumAccess<'de> for Variant<'_, 'de, D> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = seed.deserialize(NameDe {
            name: &self.child.name,
            kind: self.kind,
        })?;
        Ok((v, self))
    }
}

impl<'de, D: RowDecoder<'de>> de::VariantAccess<'de> for Variant<'_, 'de, D> {
    type Error = Error;
    // As row mode's `VariantAccess`: a variant answers the request of its own kind, the
    // one-entry map form (its value is any payload) every request but a unit's.
    fn unit_variant(self) -> Result<()> {
        match (self.kind, self.map_form) {
            (ext::UNIT_VARIANT, _) => Ok(()),
            (_, true) => column_value(self.de, self.child, self.arena, PhantomData::<()>),
            _ => Err(self.wrong_kind("a unit variant")),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        if self.kind != ext::NEWTYPE_VARIANT {
            return Err(self.wrong_kind("a newtype variant"));
        }
        column_value(self.de, self.child, self.arena, seed)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        if !self.map_form && self.kind != ext::TUPLE_VARIANT {
            return Err(self.wrong_kind("a tuple variant"));
        }
        column_value(self.de, self.child, self.arena, Tuple(len, visitor))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if !self.map_form && self.kind != ext::STRUCT_VARIANT {
            return Err(self.wrong_kind("a struct variant"));
        }
        column_value(self.de, self.child, self.arena, Struct(fields, visitor))
    }
}

/// A variant's payload read as a tuple (a tuple variant's fields, or a one-entry map's
/// value read as them).
struct Tuple<V>(usize, V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Tuple<V> {
    type Value = V::Value;
    fn deserialize<T: de::Deserializer<'de>>(
        self,
        d: T,
    ) -> std::result::Result<V::Value, T::Error> {
        d.deserialize_tuple(self.0, self.1)
    }
}

/// A variant's payload read as a struct (a struct variant's fields, or a one-entry map's
/// value read as them).
struct Struct<V>(&'static [&'static str], V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Struct<V> {
    type Value = V::Value;
    fn deserialize<T: de::Deserializer<'de>>(
        self,
        d: T,
    ) -> std::result::Result<V::Value, T::Error> {
        d.deserialize_struct("", self.0, self.1)
    }
}

/// A variant (or a one-entry map) as a map of one entry `{name: payload}`; `state`: 0 before
/// the key, 1 before the value, 2 done.
struct OneEntry<'x, 'de, D> {
    v: Variant<'x, 'de, D>,
    state: u8,
}

impl<'de, D: RowDecoder<'de>> de::MapAccess<'de> for OneEntry<'_, 'de, D> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.state != 0 {
            return Ok(None);
        }
        self.state = 1;
        seed.deserialize(NameDe::new(&self.v.child.name)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if self.state != 1 {
            return Err(Error::mismatch("a map key before its value", "a value"));
        }
        self.state = 2;
        column_value(&mut *self.v.de, &mut *self.v.child, self.v.arena, seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.state == 0))
    }
}

/// A variant name or a one-entry map's key: a string, borrowed from the input when the
/// declaration is there. Asked for `Value`'s private `KIND` tuple struct, `(kind, name)`.
struct NameDe<'x, 'de> {
    name: &'x Cow<'de, str>,
    /// The extension subtype `Value` learns the variant's kind from.
    kind: u8,
}

impl<'x, 'de> NameDe<'x, 'de> {
    fn new(name: &'x Cow<'de, str>) -> Self {
        NameDe {
            name,
            kind: crate::wire::ext::NEWTYPE_VARIANT,
        }
    }
}

impl<'de> de::Deserializer<'de> for NameDe<'_, 'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.name {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_str(s),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        if name == crate::wire::ext::magic::KIND {
            return visitor.visit_seq(KindSeq {
                kind: Some(self.kind),
                name: Some(self),
            });
        }
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple map struct enum identifier
        ignored_any
    }
}

/// `(kind, name)` of a variant, for `Value`: each handed out once, in that order.
struct KindSeq<'x, 'de> {
    kind: Option<u8>,
    name: Option<NameDe<'x, 'de>>,
}

impl<'de> de::SeqAccess<'de> for KindSeq<'_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if let Some(kind) = self.kind.take() {
            return seed
                .deserialize(serde::de::value::U8Deserializer::<Error>::new(kind))
                .map(Some);
        }
        match self.name.take() {
            Some(name) => seed.deserialize(name).map(Some),
            None => Ok(None),
        }
    }
}

/// The next value of a loaded column (its key was just handed out): advances the column's
/// counters. One match on the column's data; a value past the column's end (the masks'
/// counts were checked against the values when the column was loaded, so not reached) is an
/// error.
#[inline(always)]
fn cell<'x, 'de>(col: &'x mut Column<'de>, arena: &'x str) -> Result<CellVal<'x, 'de>> {
    // Present rows are counted only where the non-null mask needs a position.
    if col.nullable {
        let p = col.next_present;
        col.next_present += 1;
        if !bit(col.non_null, p) {
            return Ok(CellVal::Null);
        }
    }
    let k = col.next_value;
    col.next_value += 1;
    let v = match &col.data {
        Data::Residual => Some(CellVal::Residual),
        Data::Skipped | Data::Pending => Some(CellVal::Skipped(&col.name)),
        // Struct, list and tagged columns are presented by `nested_value`; a unit variant
        // has no values.
        Data::Nested | Data::Unit => None,
        Data::U64(v) => v.get(k).map(|&x| CellVal::U64(x)),
        Data::I64(v) => v.get(k).map(|&x| match x as i64 {
            n if n < 0 => CellVal::I64(n),
            _ => CellVal::U64(x),
        }),
        Data::F64(v) => v.get(k).map(|&x| CellVal::F64(x)),
        Data::F32(v) => v.get(k).map(|&x| CellVal::F32(x)),
        Data::Bool(v) => v.get(k).map(|&x| CellVal::Bool(x)),
        Data::Block(s) => s.row(k).map(|r| match r {
            Ok(b) => CellVal::Str(b),
            Err(a) => CellVal::Copied(a),
        }),
        Data::Each(v) => v.get(k).and_then(|r| match *r {
            StrRef::Borrowed(s) => Some(CellVal::Str(s)),
            StrRef::Owned(a, b) => arena.get(a..b).map(CellVal::Copied),
        }),
    };
    v.ok_or_else(short_column)
}

/// A column name as a map key: borrowed from the input when the declaration is there.
struct KeyDe<'x, 'de> {
    name: &'x Cow<'de, str>,
    /// Set when the key is taken as a field identifier.
    ident: &'x mut bool,
}

impl<'de> de::Deserializer<'de> for KeyDe<'_, 'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.name {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_str(s),
        }
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        *self.ident = true;
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        ignored_any
    }
}

/// The value of a column the first row's type did not name: only `deserialize_ignored_any`
/// succeeds, and hides the column when `vet` is set.
struct SkippedDe<'x, 'c> {
    col: &'x mut Column<'c>,
    vet: bool,
}

impl<'de> de::Deserializer<'de> for SkippedDe<'_, '_> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(skipped(&self.col.name))
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.vet {
            self.col.hide();
        }
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier
    }
}

/// An error of a stored cell: at the column's offset (the value has none of its own), with
/// the column named in a type mismatch. A borrowed `&str` (serde's visitor expects "a
/// borrowed string") over a string the decoder rebuilt (FA, FB, F6 blocks) or copied out of
/// the intern table also says why and what to use instead.
/// A residual value was read from the input: its errors point there already.
#[cold]
fn cell_error(e: Error, col: &Column<'_>) -> Error {
    if let Data::Residual = col.data {
        return e;
    }
    stored_error(e, &col.name, col.at)
}

/// [`cell_error`] of a stored cell of column `name` at offset `at`.
#[cold]
fn stored_error(e: Error, name: &str, at: u64) -> Error {
    // A list's element column and a map's key and value columns have no name (§22.2).
    let name = if name.is_empty() {
        Cow::Borrowed("an element, key or value of a list or map column")
    } else {
        Cow::Owned(format!("`{name}`"))
    };
    let e = match e.code() {
        _ if e.wants_borrowed_str() => Error::mismatch(
            format!("a borrowed string for field {name}"),
            "a string the decoder rebuilt from a compressed string column (or copied out \
             of its intern table), which cannot be borrowed from the input: use `String` \
             or `#[serde(borrow)] Cow<'a, str>` for this field",
        ),
        ErrorCode::TypeMismatch { expected, found } => {
            Error::mismatch(expected.clone(), format!("{found} (column {name})"))
        }
        _ => e,
    };
    // A stored value has no offset of its own (a depth error's is where the reader is).
    e.relocated(at)
}

/// A value the masks promised is missing (counts are checked when the column is loaded, so
/// this is not reached).
#[cold]
fn short_column() -> Error {
    Error::new(crate::error::ErrorCode::BadCodec(
        "a column holds fewer values than its masks",
    ))
}

/// One cell's value.
#[derive(Copy, Clone)]
enum CellVal<'x, 'de> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    /// Borrowed from the input.
    Str(&'de str),
    /// Rebuilt or copied by the decoder.
    Copied(&'x str),
    /// A column the target did not name (its name).
    Skipped(&'x str),
    /// In the input, read by the real deserializer.
    Residual,
}

/// A cell presented to serde: behaves like the row-mode deserializer on the same value.
struct CellDe<'x, 'de, D> {
    de: &'x mut D,
    v: CellVal<'x, 'de>,
}

impl<'de, D: RowDecoder<'de>> CellDe<'_, 'de, D> {
    /// `deserialize_f32` (`narrow`) and `deserialize_f64`.
    fn float<V: Visitor<'de>>(self, visitor: V, narrow: bool) -> Result<V::Value> {
        match self.v {
            // The common cells first: a float column.
            CellVal::F64(x) => visitor.visit_f64(x),
            CellVal::F32(x) => visitor.visit_f32(x),
            CellVal::Residual if narrow => {
                de::Deserializer::deserialize_f32(self.de.residual(), visitor)
            }
            CellVal::Residual => de::Deserializer::deserialize_f64(self.de.residual(), visitor),
            CellVal::U64(v) => {
                Num::U64(v).check_float_target(narrow)?;
                visitor.visit_u64(v)
            }
            CellVal::I64(v) => {
                Num::I64(v).check_float_target(narrow)?;
                visitor.visit_i64(v)
            }
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }
}

/// The error of a request other than `deserialize_ignored_any` for a skipped column.
#[cold]
fn skipped(name: &str) -> Error {
    Error::mismatch(
        format!("a value of column `{name}`"),
        "a column skipped because the first row's type did not name it",
    )
}

/// Methods that read residual cells from the input and present stored cells through
/// `deserialize_any`.
macro_rules! cell_methods {
    ($($m:ident)*) => {$(
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let CellVal::Residual = self.v {
                return de::Deserializer::$m(self.de.residual(), visitor);
            }
            self.deserialize_any(visitor)
        }
    )*};
}

impl<'de, D: RowDecoder<'de>> de::Deserializer<'de> for CellDe<'_, 'de, D> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v {
            CellVal::Null => visitor.visit_none(),
            CellVal::Bool(b) => visitor.visit_bool(b),
            CellVal::U64(v) => visitor.visit_u64(v),
            CellVal::I64(v) => visitor.visit_i64(v),
            CellVal::F32(v) => visitor.visit_f32(v),
            CellVal::F64(v) => visitor.visit_f64(v),
            CellVal::Str(s) => visitor.visit_borrowed_str(s),
            CellVal::Copied(s) => visitor.visit_str(s),
            CellVal::Skipped(name) => Err(skipped(name)),
            CellVal::Residual => de::Deserializer::deserialize_any(self.de.residual(), visitor),
        }
    }

    cell_methods! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_char deserialize_str
        deserialize_bytes deserialize_byte_buf deserialize_map deserialize_identifier
        deserialize_seq
    }

    /// An integer cell only when the float holds it exactly, as row mode reads it.
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.float(visitor, true)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.float(visitor, false)
    }

    /// A string cell as an owned `String` built here (as row mode builds them), else as
    /// [`deserialize_any`](Self::deserialize_any).
    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => de::Deserializer::deserialize_string(self.de.residual(), visitor),
            CellVal::Str(s) | CellVal::Copied(s) => visitor.visit_string(owned_str(s)),
            _ => self.deserialize_any(visitor),
        }
    }

    /// `None` for a null cell, else `Some(cell)` (one depth level, as row mode counts it).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => de::Deserializer::deserialize_option(self.de.residual(), visitor),
            CellVal::Skipped(name) => Err(skipped(name)),
            CellVal::Null => visitor.visit_none(),
            v => {
                self.de.source().enter()?;
                let r = visitor.visit_some(CellDe {
                    de: &mut *self.de,
                    v,
                });
                self.de.source().leave();
                r
            }
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => de::Deserializer::deserialize_unit(self.de.residual(), visitor),
            CellVal::Null => visitor.visit_unit(),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => {
                de::Deserializer::deserialize_unit_struct(self.de.residual(), name, visitor)
            }
            CellVal::Null => visitor.visit_unit(),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => {
                de::Deserializer::deserialize_newtype_struct(self.de.residual(), name, visitor)
            }
            CellVal::Skipped(n) => Err(skipped(n)),
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => {
                de::Deserializer::deserialize_tuple(self.de.residual(), len, visitor)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => {
                de::Deserializer::deserialize_tuple_struct(self.de.residual(), name, len, visitor)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => {
                de::Deserializer::deserialize_struct(self.de.residual(), name, fields, visitor)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    /// A string cell is a unit variant by name, as a bare string is in row mode.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => {
                de::Deserializer::deserialize_enum(self.de.residual(), name, variants, visitor)
            }
            CellVal::Str(s) => visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(s)),
            CellVal::Copied(s) => visitor.visit_enum(StrDeserializer::<Error>::new(s)),
            _ => self.deserialize_any(visitor),
        }
    }

    /// The one request a skipped column accepts.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v {
            CellVal::Residual => {
                de::Deserializer::deserialize_ignored_any(self.de.residual(), visitor)
            }
            _ => visitor.visit_unit(),
        }
    }
}
