//! Reading a columnar container (`docs/SPEC.md` §22): the header (row
//! count, column shape, optional column index) when the container's tag is read, and the
//! column bodies when the first row is deserialized — only then does serde say which fields
//! the target names, so columns it does not name are skipped without being materialised.
//!
//! Skipping: with a column index a skipped column is jumped over (its masks are read to check
//! that a string column is a block: indexed columns never touch the Dense state); without
//! one it is decoded and dropped, and a per-value string column is read string by string so
//! the intern table and predictors take the same steps as on the encoder.
//!
//! Every count is checked against the remaining input or charged to the output budget before
//! anything is allocated: `M` rows are charged [`ELEMENT_CHARGE`] units each at the header,
//! values as their codecs charge them.

use std::borrow::Cow;

use super::numtext::{self, Form};
use super::{
    Class, KEY_SETS, MAP_FORM, MIN_ROWS, NULLABLE, OPTIONAL, RESIDUAL, VARIANT_FIELDS, WRAPPED,
    mask_len,
};
use crate::codec::cursor::ELEMENT_CHARGE;
use crate::codec::strings::{self, CheckedStrs};
use crate::codec::{self, Kind, Packed};
use crate::error::{Error, ErrorCode, Result};
use crate::qpack::decode::read_packed;
use crate::source::keys::repeated_column;
use crate::source::{Num, Source};
use crate::wire::read::{Reference, Text};
use crate::wire::tags::{self, FALSE, FIXARR, FIXARR_MAX, TRUE};
use crate::wire::varint::{read_uvarint, write_uvarint};

/// One per-value string.
#[derive(Copy, Clone)]
pub(crate) enum StrRef<'de> {
    Borrowed(&'de str),
    Owned(usize, usize),
}

/// What a column holds once loaded: one flat enum, so that a cell is one match.
pub(crate) enum Data<'de> {
    /// Not loaded yet.
    Pending,
    /// Values are in the rows (hybrid).
    Residual,
    /// Not named by the target: only `IgnoredAny` may read it.
    Skipped,
    /// Unsigned integers.
    U64(Vec<u64>),
    /// Signed integers (their bits): a negative one is an `i64`, any other a `u64`, as
    /// row mode reads them.
    I64(Vec<u64>),
    F64(Vec<f64>),
    F32(Vec<f32>),
    Bool(Vec<bool>),
    /// A string block (UTF-8 checked once).
    Block(CheckedStrs<'de>),
    /// Per-value strings: borrowed from the input, or a range of the container's arena
    /// (entries copied out of the intern table).
    Each(Vec<StrRef<'de>>),
    /// A struct, list or tagged column: the values are in its children.
    Nested,
    /// A unit variant of a tagged column: no child column, its values have no payload.
    Unit,
}

impl Data<'_> {
    /// The values whose value `k` is this column's value `slots[k]` (a key-set map's keys,
    /// `docs/SPEC.md` §22.2); `None` when a slot is past the values or the column is not a
    /// leaf (the declaration refused one).
    fn gathered(self, slots: &[u32]) -> Option<Self> {
        fn pick<T: Copy>(v: &[T], slots: &[u32]) -> Option<Vec<T>> {
            slots.iter().map(|&k| v.get(k as usize).copied()).collect()
        }
        Some(match self {
            Data::U64(v) => Data::U64(pick(&v, slots)?),
            Data::I64(v) => Data::I64(pick(&v, slots)?),
            Data::F64(v) => Data::F64(pick(&v, slots)?),
            Data::F32(v) => Data::F32(pick(&v, slots)?),
            Data::Bool(v) => Data::Bool(pick(&v, slots)?),
            Data::Block(b) => Data::Block(b.gathered(slots)?),
            Data::Each(v) => Data::Each(pick(&v, slots)?),
            _ => return None,
        })
    }

    /// Bytes of the first `n` strings of a string column (0 for any other column).
    fn text_bytes(&self, n: usize) -> u64 {
        let len = |i| match self {
            Data::Block(b) => b.row(i).map_or(0, |r| r.map_or_else(str::len, str::len)),
            Data::Each(v) => v.get(i).map_or(0, |r| match *r {
                StrRef::Borrowed(s) => s.len(),
                StrRef::Owned(a, b) => b.saturating_sub(a),
            }),
            _ => 0,
        };
        (0..n).map(|i| len(i) as u64).fold(0, u64::saturating_add)
    }

    /// The loaded values of a numeric column.
    fn nums(p: Packed) -> Self {
        match p {
            Packed::Ints(k, v) if k.is_signed() => Data::I64(v),
            Packed::Ints(_, v) => Data::U64(v),
            Packed::F64s(v) => Data::F64(v),
            Packed::F32s(v) => Data::F32(v),
            Packed::Bools(v) => Data::Bool(v),
        }
    }
}

/// One column.
pub(crate) struct Column<'de> {
    pub(crate) name: Cow<'de, str>,
    pub(crate) class: Class,
    /// How a string column's values are stored (kind bits `10`/`20`).
    pub(crate) text: Form,
    /// A hex-text column's length and case, when it has no references (a sibling's
    /// references may name it).
    pub(crate) hex: Option<numtext::HexShape>,
    /// A hex column's references, resolved once its siblings are read.
    refs: Option<Box<numtext::Pending<'de>>>,
    /// A tagged column whose values are one-entry maps (kind bit `10`), not variants.
    pub(crate) map_form: bool,
    /// A map column written by key sets (kind bit `10`): once loaded, its key column holds
    /// its keys repeated per entry, read from `key_slots` slots (the keys of its `sets`
    /// key sets).
    pub(crate) key_sets: bool,
    pub(crate) sets: usize,
    pub(crate) key_slots: usize,
    /// A tagged column whose values are each `Some(variant)` (kind bit `20`).
    pub(crate) wrapped: bool,
    /// A struct or list column holding a tagged column's struct or tuple variant's fields
    /// (kind bit `10`, [`VARIANT_FIELDS`]).
    pub(crate) fields: bool,
    pub(crate) optional: bool,
    pub(crate) nullable: bool,
    /// The presence mask (empty unless optional).
    pub(crate) present: &'de [u8],
    /// The non-null mask over present rows (empty unless nullable).
    pub(crate) non_null: &'de [u8],
    pub(crate) data: Data<'de>,
    /// Offset of the column's first byte (its masks or values), where the errors of its
    /// cells point.
    pub(crate) at: u64,
    /// Present rows seen so far (counted in nullable columns only), values handed out so
    /// far.
    pub(crate) next_present: usize,
    pub(crate) next_value: usize,
    /// A skipped column's key was taken as a field identifier (by the current row).
    pub(crate) ident: bool,
    /// A skipped column whose key a row's struct visitor took as an identifier and whose
    /// value it ignored: rows deserialized as the same struct no longer show it.
    pub(crate) hidden: bool,
    /// Neither optional nor hidden: the column shows in every row (the one test a row
    /// makes of a column in the common case).
    pub(crate) always: bool,
    /// A struct column's child columns, a list column's element column, a map column's key
    /// and value columns (`docs/SPEC.md` §22.2), a tagged column's variants (§22.3); their
    /// slots are this column's present non-null values (a list's: its elements; a map's:
    /// its entries; a variant's: the values of its tag).
    pub(crate) children: Vec<Column<'de>>,
    /// A list or map column's lengths, a tagged column's tags, one per present non-null
    /// value.
    pub(crate) lens: Vec<u64>,
    /// A list or map column: elements (entries) handed out so far (the next value starts
    /// there).
    pub(crate) next_elem: usize,
}

/// A container being read.
pub(crate) struct Container<'de> {
    pub(crate) m: usize,
    pub(crate) cols: Vec<Column<'de>>,
    /// Column byte lengths from the column index (`EF` in a message with flag `08`).
    index: Option<Vec<u32>>,
    pub(crate) loaded: bool,
    /// The fields the first row's struct named (`None`: every column was loaded).
    fields: Option<&'static [&'static str]>,
    /// Per-value strings copied out of the intern table.
    pub(crate) arena: String,
}

/// Bit `i` of an LSB-first mask.
#[inline]
pub(crate) fn bit(mask: &[u8], i: usize) -> bool {
    mask[i / 8] >> (i % 8) & 1 == 1
}

fn bad(at: u64, what: &'static str) -> Error {
    Error::at(ErrorCode::BadCodec(what), at)
}

impl<'de> Container<'de> {
    /// Reads the header after tag `tag` (`EF` or `F7`): `uvarint(M) uvarint(shapeID)`, the
    /// declaration when the id is 0, and the column index.
    ///
    /// Errors: `M` of 0, `M` below 16 without a top-level struct or list column
    /// (`docs/SPEC.md` §22.2), a declaration of no column, an unknown shape id (`UnknownStateId`), a kind byte with an
    /// unknown class or reserved bits (`10`/`20` on a column that is not a string, both), a nullable residual column, residual columns in an
    /// `EF` (or none, or only residual ones, in an `F7`), a declaration over this side's caps
    /// (`SessionCap`), counts beyond the input, the output budget.
    pub(crate) fn read_header(src: &mut Source<'de>, tag: u8) -> Result<Self> {
        let at = src.offset().saturating_sub(1);
        let m = src.uvarint()?;
        if m == 0 {
            return Err(bad(at, "a columnar container with no row"));
        }
        src.charge(m.saturating_mul(ELEMENT_CHARGE))?;
        let m = usize::try_from(m).map_err(|_| bad(at, "row count does not fit in memory"))?;
        let id_at = src.offset();
        let id = src.uvarint()?;
        let mut cols = Vec::new();
        // Column names seen, under `Options::deny_duplicate_keys` (a name declared twice is
        // a repeated key in every row).
        let mut seen = std::collections::HashSet::new();
        if id == 0 {
            let k = src.uvarint()?;
            // The encoder never writes a container without a column (such a batch stays in
            // row mode); accepting one would let 4 bytes stand for M empty rows.
            if k == 0 {
                return Err(bad(at, "a columnar container with no column"));
            }
            // Each column declares a name (≥ 1 byte) and a kind byte.
            src.check_count(k, 2)?;
            cols.reserve(k as usize);
            let mut entries = Vec::with_capacity(k as usize);
            for _ in 0..k {
                let name_at = src.offset();
                let col = read_decl(src, false, &mut entries)?;
                if col.fields {
                    return Err(not_a_variant(name_at));
                }
                if src.dup_keys() && !seen.insert(col.name.to_string()) {
                    return Err(repeated_column(&col.name, name_at));
                }
                cols.push(col);
            }
            let list: Vec<(&[u8], u8)> = entries.iter().map(|(n, k)| (&n[..], *k)).collect();
            src.dense()
                .define_col_shape(&list, false)
                .map_err(|e| e.with_offset(id_at))?;
        } else {
            let unknown = || Error::at(ErrorCode::UnknownStateId(id), id_at);
            let id = u32::try_from(id).map_err(|_| unknown())?;
            let shapes = src
                .dense_ref()
                .map(|d| d.col_shapes())
                .ok_or_else(unknown)?;
            let k = shapes.columns(id).ok_or_else(unknown)?;
            let entries: Vec<(Vec<u8>, u8)> = (0..k)
                .map(|i| shapes.column(id, i).map(|(n, kind)| (n.to_vec(), kind)))
                .collect::<Option<_>>()
                .ok_or_else(unknown)?;
            let mut i = 0;
            while i < entries.len() {
                let col = from_entries(&entries, &mut i).ok_or_else(unknown)?;
                if src.dup_keys() && !seen.insert(col.name.to_string()) {
                    return Err(repeated_column(&col.name, id_at));
                }
                cols.push(col);
            }
        }
        // Below 16 rows only with a struct or list column (`NESTED_COLUMNS`, §22.2): the
        // rule of §22 stays for every container such an encoder could not write.
        if m < MIN_ROWS && !cols.iter().any(|c| c.class.nested()) {
            return Err(bad(
                at,
                "columnar container with fewer than 16 rows and no struct, list or tagged column",
            ));
        }
        let residual = cols.iter().filter(|c| c.class == Class::Residual).count();
        let hybrid = tag == tags::HYBRID;
        if hybrid && (residual == 0 || residual == cols.len()) {
            return Err(bad(at, "F7 needs both residual and transposed columns"));
        }
        if !hybrid && residual > 0 {
            return Err(bad(at, "EF with a residual column"));
        }
        let index = if src.col_index() && !hybrid {
            let k = cols.len() as u64;
            src.check_count(k, 4)?;
            let b = src.take(4 * cols.len(), "the column index")?;
            Some(
                b.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            )
        } else {
            None
        };
        Ok(Container {
            m,
            cols,
            index,
            loaded: false,
            fields: None,
            arena: String::new(),
        })
    }

    /// Loads the column bodies: columns named in `fields` (all when `None`) are decoded,
    /// the others skipped.
    pub(crate) fn load(
        &mut self,
        src: &mut Source<'de>,
        fields: Option<&'static [&'static str]>,
    ) -> Result<()> {
        self.loaded = true;
        self.fields = fields;
        // Hex columns decoded but not wanted, dropped once every column is read.
        let mut unwanted = Vec::new();
        for j in 0..self.cols.len() {
            let start = src.offset();
            let wanted = fields.is_none_or(|f| f.contains(&&*self.cols[j].name));
            let m = self.m;
            let col = &mut self.cols[j];
            col.at = start;
            let v = col.read_masks(src, m)?;
            let indexed = self.index.as_ref().map(|ix| ix[j] as u64);
            if indexed.is_some() && col.class == Class::Str && col.text == Form::Plain {
                expect_block(src)?;
            }
            col.data = match (col.class, wanted, indexed) {
                (Class::Residual, ..) => Data::Residual,
                (_, false, Some(len)) => {
                    let used = src.offset() - start;
                    let rest = len.checked_sub(used).ok_or_else(|| {
                        bad(start, "column index length shorter than the column's masks")
                    })?;
                    src.take(rest as usize, "a column (by the column index)")?;
                    Data::Skipped
                }
                (_, wanted, indexed) => {
                    let d = col.read_body(src, v, indexed.is_some(), &mut self.arena)?;
                    if wanted {
                        d
                    } else if col.hex.is_some() || col.refs.is_some() {
                        // A sibling's references may copy its values, or it has references
                        // to check: dropped once they are resolved.
                        unwanted.push(j);
                        d
                    } else {
                        col.children = Vec::new();
                        col.lens = Vec::new();
                        Data::Skipped
                    }
                }
            };
            if let Some(len) = indexed
                && src.offset() - start != len
            {
                return Err(bad(start, "column length differs from the column index"));
            }
        }
        resolve_refs(&mut self.cols, true)?;
        for j in unwanted {
            let col = &mut self.cols[j];
            col.data = Data::Skipped;
            col.children = Vec::new();
            col.lens = Vec::new();
        }
        Ok(())
    }
}

impl Container<'_> {
    /// Whether a row deserialized as a struct naming `fields` is the struct the columns
    /// were loaded for, whose ignored keys need not be shown again.
    #[inline]
    pub(crate) fn same_fields(&self, fields: &[&str]) -> bool {
        self.fields
            .is_some_and(|f| std::ptr::eq(f, fields) || f == fields)
    }
}

impl<'de> Column<'de> {
    fn new(name: Cow<'de, str>, kind: u8, at: u64) -> Result<Self> {
        // Bits 10/20: number text on a string column (both: date-time text), the map form
        // or the `Some` wrapper (not both) on a tagged column; bit 10 on a struct or list
        // column, a variant's fields (where it may be: `read_decl`), on a map column, key
        // sets; nowhere else.
        let text = Form::from_kind(kind);
        let class = Class::from_nibble(kind & 0x0F)
            .filter(|&c| match text {
                Form::Plain => true,
                Form::DateTime => c == Class::Str,
                Form::Decimal => matches!(
                    c,
                    Class::Str | Class::Tagged | Class::Struct | Class::List | Class::Map
                ),
                Form::Hex => matches!(c, Class::Str | Class::Tagged),
            })
            .ok_or_else(|| bad(at, "column kind byte"))?;
        let tagged = class == Class::Tagged;
        let fields = matches!(class, Class::Struct | Class::List) && kind & VARIANT_FIELDS != 0;
        let key_sets = class == Class::Map && kind & KEY_SETS != 0;
        let nullable = kind & NULLABLE != 0;
        if class == Class::Residual && nullable {
            return Err(bad(at, "a residual column cannot be nullable"));
        }
        Ok(Column {
            name,
            class,
            text: if tagged || fields || key_sets {
                Form::Plain
            } else {
                text
            },
            hex: None,
            refs: None,
            map_form: tagged && kind & MAP_FORM != 0,
            key_sets,
            sets: 0,
            key_slots: 0,
            wrapped: tagged && kind & WRAPPED != 0,
            fields,
            optional: kind & OPTIONAL != 0,
            nullable,
            present: &[],
            non_null: &[],
            data: Data::Pending,
            at: 0,
            next_present: 0,
            next_value: 0,
            ident: false,
            hidden: false,
            always: kind & OPTIONAL == 0,
            children: Vec::new(),
            lens: Vec::new(),
            next_elem: 0,
        })
    }

    /// Hides the column from rows of the struct it was skipped for.
    pub(crate) fn hide(&mut self) {
        self.hidden = true;
        self.always = false;
    }

    /// The kind byte.
    pub(crate) fn kind(&self) -> u8 {
        let mut k = self.class.nibble() | self.text.bits();
        if self.map_form {
            k |= MAP_FORM;
        }
        if self.wrapped {
            k |= WRAPPED;
        }
        if self.fields {
            k |= VARIANT_FIELDS;
        }
        if self.key_sets {
            k |= KEY_SETS;
        }
        if self.optional {
            k |= OPTIONAL;
        }
        if self.nullable {
            k |= NULLABLE;
        }
        k
    }

    /// Reads the presence and non-null masks; returns the number of values `V`.
    fn read_masks(&mut self, src: &mut Source<'de>, m: usize) -> Result<usize> {
        let p = if self.optional {
            self.present = read_mask(src, m)?;
            popcount(self.present)
        } else {
            m
        };
        if !self.nullable {
            return Ok(p);
        }
        self.non_null = read_mask(src, p)?;
        Ok(popcount(self.non_null))
    }
}

impl<'de> Column<'de> {
    /// Reads the children of a struct, list, map or tagged column with `v` present non-null
    /// values (its masks read), one depth level deeper: a list's or map's lengths column
    /// first (a uint column of `v` values, whose sum is charged to the output budget before
    /// the element columns are read; a key-set map's sets instead, [`KeySets::read`], its
    /// key column then repeated per entry), a tagged column's tag column (a uint column of `v`
    /// values, each below the variant count), then each child's masks and body over the
    /// struct's `v` values, the list's elements, the map's entries (its key column, then its
    /// value column) or the values of the variant's tag (a unit variant has no child
    /// column). `indexed`: string leaves must be blocks (they never touch the
    /// Dense state).
    fn read_children(
        &mut self,
        src: &mut Source<'de>,
        v: usize,
        indexed: bool,
        arena: &mut String,
    ) -> Result<()> {
        // A tagged column's slots per variant, a key-set map's per key and value column.
        let mut per_child = Vec::new();
        let mut key_sets = None;
        let slots = if self.key_sets {
            let sets = KeySets::read(src, v)?;
            self.key_slots = sets.key_slots;
            self.sets = sets.count;
            per_child = vec![sets.key_slots, sets.gather.len()];
            self.lens = std::mem::take(&mut key_sets.insert(sets).lens);
            0
        } else if self.class == Class::Tagged {
            let at = src.offset();
            let Packed::Ints(_, tags) = read_nums(src, Class::Int { neg: false }, v)? else {
                return Err(bad(at, "tags must be a uint column"));
            };
            per_child = vec![0usize; self.children.len()];
            for &t in &tags {
                let n = usize::try_from(t)
                    .ok()
                    .and_then(|t| per_child.get_mut(t))
                    .ok_or_else(|| bad(at, "a tag past the tagged column's variants"))?;
                *n += 1;
            }
            self.lens = tags;
            0
        } else if self.class.lengths() {
            let at = src.offset();
            let Packed::Ints(_, lens) = read_nums(src, Class::Int { neg: false }, v)? else {
                return Err(bad(at, "list or map lengths must be a uint column"));
            };
            let total = lens
                .iter()
                .try_fold(0u64, |acc, &l| acc.checked_add(l))
                .ok_or_else(|| bad(at, "list or map lengths overflow"))?;
            src.charge(total.saturating_mul(ELEMENT_CHARGE))?;
            self.lens = lens;
            usize::try_from(total)
                .map_err(|_| bad(at, "list or map lengths do not fit in memory"))?
        } else {
            v
        };
        src.enter()?;
        for (i, c) in self.children.iter_mut().enumerate() {
            c.at = src.offset();
            let slots = per_child.get(i).copied().unwrap_or(slots);
            if c.class == Class::Residual {
                // A unit variant (only a tagged column declares one): no bytes.
                c.data = Data::Unit;
                continue;
            }
            let cv = c.read_masks(src, slots)?;
            if indexed && c.class == Class::Str && c.text == Form::Plain {
                expect_block(src)?;
            }
            c.data = c.read_body(src, cv, indexed, arena)?;
        }
        // Only a struct column's children are siblings (`docs/SPEC.md` §22.1).
        resolve_refs(&mut self.children, self.class == Class::Struct)?;
        if let (Some(sets), Some(keys)) = (key_sets, self.children.first_mut()) {
            keys.data = std::mem::replace(&mut keys.data, Data::Pending)
                .gathered(&sets.gather)
                .ok_or_else(|| bad(keys.at, "a key set past the key column"))?;
            // Each entry presents its key's bytes, as a dictionary block charges its rows.
            src.charge(keys.data.text_bytes(sets.gather.len()))?;
        }
        src.leave();
        Ok(())
    }

    /// Reads the values of a column that is not residual, its masks read (`v` values):
    /// numbers, strings (per-value, a block, or number text) or a struct, list, map or
    /// tagged column's children (a hex column's references: [`Data::Pending`] until
    /// [`resolve_refs`]).
    fn read_body(
        &mut self,
        src: &mut Source<'de>,
        v: usize,
        indexed: bool,
        arena: &mut String,
    ) -> Result<Data<'de>> {
        Ok(match self.class {
            c if c.nested() => {
                self.read_children(src, v, indexed, arena)?;
                Data::Nested
            }
            Class::Str if self.text != Form::Plain => {
                match numtext::read(src, self.text, v, indexed)? {
                    numtext::Read::Values(strs, hex) => {
                        self.hex = hex;
                        Data::Block(strs)
                    }
                    numtext::Read::Refs(p) => {
                        self.refs = Some(p);
                        Data::Pending
                    }
                }
            }
            Class::Str => read_strs(src, v, arena)?,
            class => Data::nums(read_nums(src, class, v)?),
        })
    }
}

/// A key-set map column's sets and the maps' choices of them (`docs/SPEC.md` §22.2), read
/// before its key column.
struct KeySets {
    /// Sets (`S`).
    count: usize,
    /// Keys in all sets: the key column's slots.
    key_slots: usize,
    /// Per map, its entry count (its set's length).
    lens: Vec<u64>,
    /// Per entry of all maps, the key column slot holding its key.
    gather: Vec<u32>,
}

impl KeySets {
    /// Reads `uvarint(S)`, the sets' lengths (a uint column of `S` values) and the maps'
    /// sets (a uint column of `v` values, each below `S`). The keys of all sets and then the
    /// entries of all maps are charged [`ELEMENT_CHARGE`] units each before anything of
    /// their size is allocated.
    ///
    /// Errors (`BadCodec`): `S` of 0 or above `v`, a column that is not a uint column, a
    /// set past `S`, lengths whose sum overflows or passes 2^32 (the key column's slots are
    /// 32-bit); the output budget.
    fn read(src: &mut Source<'_>, v: usize) -> Result<KeySets> {
        let at = src.offset();
        let s = src.uvarint()?;
        let s = usize::try_from(s)
            .ok()
            .filter(|&s| s >= 1 && s <= v)
            .ok_or_else(|| bad(at, "a map column's key sets must number from 1 to its maps"))?;
        let lens_at = src.offset();
        let Packed::Ints(_, set_lens) = read_nums(src, Class::Int { neg: false }, s)? else {
            return Err(bad(lens_at, "key set lengths must be a uint column"));
        };
        let too_many = |at| bad(at, "key set lengths past 2^32 keys");
        let mut starts = Vec::with_capacity(s);
        let mut key_slots = 0u64;
        for &l in &set_lens {
            starts.push(key_slots);
            key_slots = key_slots
                .checked_add(l)
                .filter(|&n| n <= u64::from(u32::MAX))
                .ok_or_else(|| too_many(lens_at))?;
        }
        src.charge(key_slots.saturating_mul(ELEMENT_CHARGE))?;
        let sets_at = src.offset();
        let Packed::Ints(_, sets) = read_nums(src, Class::Int { neg: false }, v)? else {
            return Err(bad(sets_at, "map key sets must be a uint column"));
        };
        let mut entries = 0u64;
        let mut lens = Vec::with_capacity(v);
        for &k in &sets {
            let l = *usize::try_from(k)
                .ok()
                .and_then(|k| set_lens.get(k))
                .ok_or_else(|| bad(sets_at, "a map's key set past the key sets"))?;
            entries = entries
                .checked_add(l)
                .ok_or_else(|| bad(sets_at, "map lengths overflow"))?;
            lens.push(l);
        }
        src.charge(entries.saturating_mul(ELEMENT_CHARGE))?;
        let entries = usize::try_from(entries)
            .map_err(|_| bad(sets_at, "map lengths do not fit in memory"))?;
        let mut gather = Vec::with_capacity(entries);
        for &k in &sets {
            // Checked above: `k` < S, each set's keys below 2^32.
            let (start, l) = (starts[k as usize], set_lens[k as usize]);
            gather.extend((start..start + l).map(|slot| slot as u32));
        }
        Ok(KeySets {
            count: s,
            key_slots: key_slots as usize,
            lens,
            gather,
        })
    }
}

/// Prints the values of the hex columns of `cols` (one container's, or one column's
/// children) whose references name a sibling (`docs/SPEC.md` §22.1), once all are read.
/// `siblings`: whether `cols` are siblings (a container's columns, a struct column's
/// children; not a list's element, a map's key and value, a tagged column's variants).
///
/// Errors: as [`numtext::resolve`]; any reference where `cols` are not siblings.
fn resolve_refs(cols: &mut [Column<'_>], siblings: bool) -> Result<()> {
    for i in 0..cols.len() {
        let Some(p) = cols[i].refs.take() else {
            continue;
        };
        let sibling = usize::try_from(p.col)
            .ok()
            .filter(|&c| siblings && c != i)
            .and_then(|c| cols.get(c))
            .and_then(|c| match (&c.data, c.hex) {
                (Data::Block(strs), Some(sh)) => Some((sh, strs)),
                _ => None,
            });
        let strs = numtext::resolve(&p, sibling)?;
        cols[i].data = Data::Block(strs);
    }
    Ok(())
}

/// Checks that an indexed string column starts with a string block.
fn expect_block(src: &Source<'_>) -> Result<()> {
    match src.peek() {
        Some(t) if strings::is_block_tag(t) => Ok(()),
        Some(_) => Err(src.error(ErrorCode::BadCodec(
            "an indexed string column must be a string block",
        ))),
        None => Err(src.eof("a string column block")),
    }
}

/// Reads one column's declaration (`docs/SPEC.md` §22.2, §22.3): its name (not for a list's
/// element column or a map's key and value columns), kind byte and, for a struct, list, map
/// or tagged column, its children one depth level deeper; pushes its column-shape table entries onto `entries` (a struct's or
/// tagged column's entry is `uvarint(child count)` then its name).
///
/// Errors: a struct column without a child or a tagged column without a variant, a residual
/// child (other than a tagged column's unit variant, kind `0F`, which a one-entry-map column
/// cannot have), an optional element, key, value or variant column, a repeated child name under
/// `deny_duplicate_keys`, nesting past the depth limit.
fn read_decl<'de>(
    src: &mut Source<'de>,
    elem: bool,
    entries: &mut Vec<(Vec<u8>, u8)>,
) -> Result<Column<'de>> {
    let name = if elem {
        Cow::Borrowed("")
    } else {
        let tag = src.next_tag()?;
        match src.read_text(tag)? {
            Some(Text::Str(Reference::Borrowed(s))) => Cow::Borrowed(s),
            Some(Text::Str(Reference::Copied(s))) => Cow::Owned(s.to_owned()),
            _ => return Err(src.unexpected(tag, "a column name")),
        }
    };
    let kind_at = src.offset();
    let kind = src.next("a column kind byte")?;
    let mut col = Column::new(name, kind, kind_at)?;
    let entry = entries.len();
    entries.push((col.name.as_bytes().to_vec(), kind));
    let k = match col.class {
        Class::Struct | Class::Tagged => {
            let k = src.uvarint()?;
            if k == 0 {
                return Err(bad(
                    kind_at,
                    if col.class == Class::Struct {
                        "a struct column with no child column"
                    } else {
                        "a tagged column with no variant"
                    },
                ));
            }
            // Each child declares a name (≥ 1 byte) and a kind byte.
            src.check_count(k, 2)?;
            let mut e = Vec::with_capacity(entries[entry].0.len() + 2);
            write_uvarint(&mut e, k);
            e.extend_from_slice(&entries[entry].0);
            entries[entry].0 = e;
            k
        }
        Class::List => 1,
        Class::Map => 2,
        _ => return Ok(col),
    };
    src.enter()?;
    let list = col.class.lengths();
    let tagged = col.class == Class::Tagged;
    let mut seen = std::collections::HashSet::new();
    col.children.reserve(k as usize);
    for _ in 0..k {
        let at = src.offset();
        let c = read_decl(src, list, entries)?;
        // A tagged column's unit variant is kind `0F` exactly, in the enum form only.
        if c.class == Class::Residual && !(tagged && !col.map_form && c.kind() == RESIDUAL) {
            return Err(bad(at, "a child column cannot be residual"));
        }
        if list && c.optional {
            return Err(bad(
                at,
                "a list's or map's element column cannot be optional",
            ));
        }
        if tagged && c.optional {
            return Err(bad(at, "a variant's column cannot be optional"));
        }
        // A variant's fields: only under a tagged column in the enum form.
        let variants = tagged && !col.map_form;
        if c.fields && !variants {
            return Err(not_a_variant(at));
        }
        if c.fields && c.nullable {
            return Err(bad(
                at,
                "a tuple or struct variant's column cannot be nullable",
            ));
        }
        if col.key_sets && col.children.is_empty() && (c.class.nested() || c.nullable) {
            return Err(bad(
                at,
                "a key-set map's key column must be a leaf column without nulls",
            ));
        }
        if col.class == Class::Struct && src.dup_keys() && !seen.insert(c.name.to_string()) {
            return Err(repeated_column(&c.name, at));
        }
        col.children.push(c);
    }
    src.leave();
    Ok(col)
}

/// The column at entry `*i` of a reused column shape (entries as [`read_decl`] made them,
/// so well formed), its children after it; `None` for an entry that is not.
fn from_entries<'de>(entries: &[(Vec<u8>, u8)], i: &mut usize) -> Option<Column<'de>> {
    let (e, kind) = entries.get(*i)?;
    *i += 1;
    let class = Class::from_nibble(kind & 0x0F)?;
    let (k, name) = match class {
        Class::Struct | Class::Tagged => {
            let (k, used) = read_uvarint(e).ok()?;
            (k, &e[used..])
        }
        Class::List => (1, &e[..]),
        Class::Map => (2, &e[..]),
        _ => (0, &e[..]),
    };
    let name = std::str::from_utf8(name).ok()?;
    let mut col = Column::new(Cow::Owned(name.to_owned()), *kind, 0).ok()?;
    let variants = col.class == Class::Tagged && !col.map_form;
    for _ in 0..k {
        let c = from_entries(entries, i)?;
        if c.fields && !variants {
            return None;
        }
        col.children.push(c);
    }
    Some(col)
}

/// The error of kind bit `10` on a struct or list column that is not a tagged column's
/// variant (enum form), at the column's declaration.
#[cold]
fn not_a_variant(at: u64) -> Error {
    bad(
        at,
        "kind bit 10 on a struct or list column outside a tagged column's variants",
    )
}

fn popcount(mask: &[u8]) -> usize {
    mask.iter().map(|b| b.count_ones() as usize).sum()
}

/// A mask over `n` rows; padding bits must be zero.
fn read_mask<'de>(src: &mut Source<'de>, n: usize) -> Result<&'de [u8]> {
    let len = mask_len(n);
    let at = src.offset();
    let mask = src.take(len, "a column mask")?;
    if !n.is_multiple_of(8) && mask[len - 1] >> (n % 8) != 0 {
        return Err(bad(at + len as u64 - 1, "mask padding bits must be zero"));
    }
    Ok(mask)
}

/// Reads `v` numbers or bools of `class`: a QPack value or a plain array.
fn read_nums<'de>(src: &mut Source<'de>, class: Class, v: usize) -> Result<Packed> {
    let at = src.offset();
    let tag = src.next_tag()?;
    let packed = if codec::is_qpack_tag(tag) {
        read_packed(src, tag)?
    } else if matches!(tag, FIXARR..=FIXARR_MAX | tags::ARR16 | tags::ARR32) {
        let n = src.array_len(tag)?.unwrap_or(0);
        if n != v {
            return Err(bad(at, "column value count differs from its masks"));
        }
        src.charge((n as u64).saturating_mul(ELEMENT_CHARGE))?;
        read_plain(src, class, n)?
    } else {
        return Err(src.unexpected(tag, "column values (a QPack value or an array)"));
    };
    if packed.len() != v {
        return Err(bad(at, "column value count differs from its masks"));
    }
    let ok = match (&packed, class) {
        (Packed::Ints(k, vals), Class::Int { neg }) => {
            k.is_signed() == neg && (!neg || vals.iter().any(|&x| (x as i64) < 0))
        }
        (Packed::F64s(_), Class::F64) | (Packed::F32s(_), Class::F32) => true,
        (Packed::Bools(_), Class::Bool) => true,
        _ => false,
    };
    if !ok {
        return Err(bad(at, "column values do not match the column kind"));
    }
    Ok(packed)
}

/// `n` plain elements of `class` (array header read).
fn read_plain<'de>(src: &mut Source<'de>, class: Class, n: usize) -> Result<Packed> {
    let wrong = |src: &Source<'de>, t: u8| src.unexpected(t, "a column value of the column's kind");
    Ok(match class {
        Class::Bool => {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(match src.next_tag()? {
                    FALSE => false,
                    TRUE => true,
                    t => return Err(wrong(src, t)),
                });
            }
            Packed::Bools(v)
        }
        Class::F64 | Class::F32 => {
            let mut f64s = Vec::new();
            let mut f32s = Vec::new();
            for _ in 0..n {
                let t = src.next_tag()?;
                match (class, src.read_num(t)?) {
                    (Class::F64, Some(Num::F64(x))) => f64s.push(x),
                    (Class::F32, Some(Num::F32(x))) => f32s.push(x),
                    _ => return Err(wrong(src, t)),
                }
            }
            if class == Class::F64 {
                Packed::F64s(f64s)
            } else {
                Packed::F32s(f32s)
            }
        }
        _ => {
            let neg = class == (Class::Int { neg: true });
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let t = src.next_tag()?;
                match src.read_num(t)? {
                    Some(Num::U64(x)) if !neg || x <= i64::MAX as u64 => v.push(x),
                    Some(Num::I64(x)) if neg => v.push(x as u64),
                    _ => return Err(wrong(src, t)),
                }
            }
            Packed::Ints(if neg { Kind::I64 } else { Kind::U64 }, v)
        }
    })
}

/// Reads `v` strings: a string block, or `v` per-value strings through the Dense rules.
fn read_strs<'de>(src: &mut Source<'de>, v: usize, arena: &mut String) -> Result<Data<'de>> {
    match src.peek() {
        None => Err(src.eof("a string column")),
        Some(t) if strings::is_block_tag(t) => {
            let col = src.decode_with("a string block", |rest, at, left| {
                let (col, used) =
                    strings::decode_block(rest, 0, v, left).map_err(|e| e.shifted(at))?;
                let col = col.into_checked().map_err(|e| e.with_offset(at))?;
                Ok((col, used))
            })?;
            Ok(Data::Block(col))
        }
        Some(_) => {
            let mut out = Vec::with_capacity(v);
            for _ in 0..v {
                let tag = src.next_tag()?;
                match src.read_text(tag)? {
                    Some(Text::Str(Reference::Borrowed(s))) => out.push(StrRef::Borrowed(s)),
                    Some(Text::Str(Reference::Copied(s))) => {
                        let start = arena.len();
                        arena.push_str(s);
                        out.push(StrRef::Owned(start, arena.len()));
                    }
                    _ => return Err(src.unexpected(tag, "a string of a string column")),
                }
            }
            Ok(Data::Each(out))
        }
    }
}
