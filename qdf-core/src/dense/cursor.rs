//! The encoder's walk through one struct, or one string-keyed map under `MAP_SHAPE`, under
//! shape interning (`docs/SPEC.md` §15).
//!
//! serde hands fields one at a time, may skip some, and its announced length is not always
//! the true count, so a shape is speculative:
//!
//! - **declaration** `EC 00 uvarint(N)` then N × (name, value); the shape is defined when
//!   the struct ends. N is the number of entries actually written: when serde's length was
//!   wrong the header is rewritten at the end, as for a plain map (no state depends on it).
//! - **reuse** `EC uvarint(id)` then values only, while each field's name equals the shape's
//!   name at that position;
//! - **escape**: at the first field whose name differs (or at the end, if fields are
//!   missing) the encoder writes `F2 SHAPE_ESCAPE` and continues with (name, value) pairs,
//!   closed by the end mark `C0`. No value already written changes, and names after the
//!   escape go through the intern path on both sides, so the predictors stay in step.
//! - **open reuse**: a field after the shape's last one cannot escape in place (the decoder
//!   does not look past the last field), so the encoder inserts `F2 SHAPE_ESCAPE` right after
//!   the reuse header, where no state depends on it: the shape's values follow, then the
//!   (name, value) pairs and the end mark.
//! - **restart**: if the very first field differs, nothing but the `EC id` header has been
//!   written and no state has changed, so the encoder replaces that header: with the reuse
//!   of a shape that starts with this field, else a declaration, else a plain map. A
//!   declaration's header is replaced the same way at its first field when a pre-shared
//!   dictionary holds a shape of that count starting with that field (§25.2). An
//!   escape therefore always follows at least one predicted name, and an escape right after
//!   the reuse header always means an open reuse.
//! - **maps**: a map is shaped only if its first key is a string; a later key that is not a
//!   string is written after `F2 SHAPE_ESCAPE` (which also ends a declaration's names) and,
//!   inside the pairs, is marked by its own `F2 SHAPE_ESCAPE`, so no key can be mistaken for
//!   the end mark.
//!
//! The serializer calls [`DenseState::struct_begin`] (or [`DenseState::map_begin`]), then
//! [`DenseState::struct_field`] (or [`DenseState::other_key`]) before each field, then
//! [`DenseState::struct_end`], and writes what each step returns.

use super::shape::{Owner, PredKey};
use super::{DenseState, NamesHash};
use crate::error::Result;
use crate::options::Features;

/// How a struct starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum StructStart {
    /// No shape: the plain map form.
    Plain,
    /// `EC 00 uvarint(len)`: a declaration.
    Declare,
    /// `EC uvarint(id)`: a speculative reuse.
    Reuse(u32),
}

/// What to write before a field's value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FieldStep {
    /// Nothing: the shape predicted the name (the tests' composition; the encoder asks
    /// [`DenseState::predicts`] itself).
    #[cfg(test)]
    ValueOnly,
    /// The name (through the intern path), then the value.
    Name,
    /// `F2 SHAPE_ESCAPE`, the name, then the value.
    EscapeThenName,
    /// Insert `F2 SHAPE_ESCAPE` after the header of the reuse of shape `id`, then the name.
    OpenThenName(u32),
    /// Replace the struct's header (all that was written) by the header of this start, then
    /// write the name (unless the start is a reuse, which predicts it) and the value.
    Restart(StructStart),
    /// A key that is not a string (maps): insert the open mark after the header of reuse
    /// `open`, write `escape` then `marked` escapes, then the key as any value.
    Key {
        open: Option<u32>,
        escape: bool,
        marked: bool,
    },
}

/// What to write after the last field.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum EndStep {
    /// Nothing.
    Nothing,
    /// The end mark `C0` (after an escape).
    End,
    /// `F2 SHAPE_ESCAPE C0`: fields were missing.
    EscapeThenEnd,
    /// The header was written as `was` with the announced count: replace it by the header of
    /// `now` with `count` entries; then write the end mark if `end`.
    Recount {
        was: StructStart,
        now: StructStart,
        count: usize,
        end: bool,
    },
}

#[derive(Copy, Clone, Debug)]
enum Mode {
    Plain,
    /// A plain map after a restart: its header holds `len` and is rewritten if that is wrong.
    PlainCounted,
    Declare,
    Reuse(u32),
    /// (name, value) pairs until the end mark, after an escape of a reuse (`declared: false`)
    /// or of a declaration (`declared: true`, whose header is then recounted).
    Tail {
        declared: bool,
    },
}

/// One struct (or shaped map) in progress.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ShapeCursor {
    owner: Owner,
    /// The count written in the header (serde's announced length, for maps a guess).
    len: usize,
    idx: usize,
    /// The running hash of the first `hashed` names (see [`DenseState::struct_field`]).
    hash: NamesHash,
    hashed: usize,
    /// The hash of the first name alone, once known.
    first: Option<NamesHash>,
    mode: Mode,
    /// In [`Mode::Reuse`], the stored-name indices `names.0..names.1` of the shape's
    /// fields (the predicted name of field `idx` is stored name `names.0 + idx`), else empty.
    names: (usize, usize),
    /// [`DenseState::slot_mode`]: the [`slot_class`](super::slot_class) bits whose values
    /// have slots (0 without slot state; per-field numbers, and strings with flag `40`,
    /// `docs/SPEC.md` §15.2, §15.3). One byte, so the cursor, which is moved by value,
    /// keeps its size.
    slots: u8,
}

impl ShapeCursor {
    /// The count written in the struct's header.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The numeric slot of the field just named (`docs/SPEC.md` §15.2): its stored-name
    /// index while the struct is a reuse whose names were all predicted (so the decoder
    /// reads the value without a name), `None` otherwise or without slot state.
    #[inline(always)]
    pub(crate) fn slot(&self) -> Option<usize> {
        if self.slots == 0 {
            return None;
        }
        self.reuse_slot()
    }

    /// [`slot`](Self::slot) for a caller that has seen [`slot_classes`](Self::slot_classes)
    /// nonzero already (one test fewer per value).
    #[inline(always)]
    pub(crate) fn reuse_slot(&self) -> Option<usize> {
        match self.mode {
            Mode::Reuse(_) if self.idx > 0 => Some(self.names.0 + self.idx - 1),
            _ => None,
        }
    }

    /// Whether the Dense state keeps per-field strings (`docs/SPEC.md` §15.3).
    #[inline(always)]
    pub(crate) fn texts(&self) -> bool {
        self.slots & super::TEXT != 0
    }

    /// The [`slot_class`](super::slot_class) bits whose values have slots (see `slots`).
    #[inline(always)]
    pub(crate) fn slot_classes(&self) -> u8 {
        self.slots
    }

    fn key(&self) -> PredKey {
        match self.owner {
            Owner::Struct(_) => (self.owner, self.len, None),
            Owner::Map => (self.owner, self.len, self.first),
        }
    }

    fn first_key(&self) -> Option<PredKey> {
        match self.owner {
            Owner::Struct(_) => Some((self.owner, self.len, self.first)),
            Owner::Map => None,
        }
    }
}

impl DenseState {
    /// Starts struct `name` with `len` fields (serde's `serialize_struct` arguments).
    /// Inline: its one caller opens every struct.
    #[inline]
    pub(crate) fn struct_begin(
        &mut self,
        name: &'static str,
        len: usize,
    ) -> (ShapeCursor, StructStart) {
        let owner = Owner::Struct(name);
        let (mode, start) = if !self.has(Features::SHAPE_INTERN) {
            (Mode::Plain, StructStart::Plain)
        } else if let Some(id) = self.shape_pred.predict((owner, len, None)) {
            (Mode::Reuse(id), StructStart::Reuse(id))
        } else if self.may_declare_shape() {
            self.begin_shape();
            (Mode::Declare, StructStart::Declare)
        } else {
            (Mode::Plain, StructStart::Plain)
        };
        let cur = ShapeCursor {
            owner,
            len,
            idx: 0,
            hash: NamesHash::default(),
            hashed: 0,
            first: None,
            names: self.reuse_names(mode),
            mode,
            slots: self.slot_mode(),
        };
        (cur, start)
    }

    /// Starts a map of `len` entries (`None`: unknown) whose first key is the string
    /// `first` (feature `MAP_SHAPE`): the reuse of a shape predicted for `(len, first)` whose
    /// first name is `first`, else a declaration, else `None` (a plain map). The caller then
    /// reports `first` with [`struct_field`](Self::struct_field).
    pub(crate) fn map_begin(
        &mut self,
        len: Option<usize>,
        first: &[u8],
    ) -> Option<(ShapeCursor, StructStart)> {
        if !self.has(Features::MAP_SHAPE) {
            return None;
        }
        let len = len.unwrap_or(usize::MAX);
        let h1 = self.shape_pred.feed(NamesHash::default(), first);
        let (mode, start) = match self.shape_pred.predict((Owner::Map, len, Some(h1))) {
            Some(id) if self.shapes.name_is(id, 0, first) => {
                (Mode::Reuse(id), StructStart::Reuse(id))
            }
            _ if let Some(id) = self.shapes.base_shape(len, first) => {
                (Mode::Reuse(id), StructStart::Reuse(id))
            }
            _ if self.may_declare_shape() => {
                self.begin_shape();
                (Mode::Declare, StructStart::Declare)
            }
            _ => return None,
        };
        let cur = ShapeCursor {
            owner: Owner::Map,
            // The header needs a count now; an unknown one is rewritten at the end.
            len: if len == usize::MAX { 0 } else { len },
            idx: 0,
            hash: NamesHash::default(),
            hashed: 0,
            first: Some(h1),
            names: self.reuse_names(mode),
            mode,
            slots: self.slot_mode(),
        };
        Some((cur, start))
    }

    /// The next field is named `key`, and its value is written from `out[at]` on: what to
    /// write before it.
    ///
    /// The running names hash is only needed when a struct leaves its predicted shape (an
    /// escape or a restart) or declares one, so a reuse whose names match hashes nothing:
    /// [`catch_up`](Self::catch_up) folds in the predicted names when it is needed. Plain
    /// structs never need it.
    ///
    /// The encoder takes the same steps apart ([`super::encode::shape_name`]): the inline
    /// [`predicts`](Self::predicts), then [`struct_field_step`](Self::struct_field_step).
    #[cfg(test)]
    pub(crate) fn struct_field(
        &mut self,
        cur: &mut ShapeCursor,
        key: &[u8],
        at: usize,
    ) -> Result<FieldStep> {
        if self.predicts(cur, key, at) {
            return Ok(FieldStep::ValueOnly);
        }
        self.struct_field_step(cur, key)
    }

    /// The inline part of [`struct_field`](Self::struct_field): counts the field, and
    /// whether it is a reuse's predicted name (then nothing is written before the value).
    /// With per-field strings a predicted field's value, written from `out[at]` on, has
    /// its text slot (`docs/SPEC.md` §15.3), which the string hook learns here: a store
    /// in the inline path, where an out-of-line step per field cost ≈ 70 instructions.
    /// `false` sends the caller to [`struct_field_step`](Self::struct_field_step).
    #[inline(always)]
    pub(crate) fn predicts(&mut self, cur: &mut ShapeCursor, key: &[u8], at: usize) -> bool {
        let k = cur.names.0 + cur.idx;
        cur.idx += 1;
        // `names` is empty outside a reuse, so this is the reuse's predicted-name test.
        if !(k < cur.names.1 && self.shapes.name_at_is(k, key)) {
            return false;
        }
        if cur.texts() {
            self.set_text_slot(at, k);
        }
        true
    }

    /// The `names` of a cursor in `mode`.
    fn reuse_names(&self, mode: Mode) -> (usize, usize) {
        match mode {
            Mode::Reuse(id) => {
                let r = self.shapes.name_indices(id);
                (r.start, r.end)
            }
            _ => (0, 0),
        }
    }

    /// Sets `cur`'s mode, keeping `names` in step.
    fn set_mode(&self, cur: &mut ShapeCursor, mode: Mode) {
        cur.names = self.reuse_names(mode);
        cur.mode = mode;
    }

    /// The out-of-line part of [`struct_field`](Self::struct_field), for a name the shape
    /// does not predict.
    #[inline(never)]
    pub(crate) fn struct_field_step(
        &mut self,
        cur: &mut ShapeCursor,
        key: &[u8],
    ) -> Result<FieldStep> {
        let step = match cur.mode {
            Mode::Plain | Mode::PlainCounted => FieldStep::Name,
            Mode::Tail { .. } => {
                self.feed_name(cur, key);
                FieldStep::Name
            }
            // Only the header was written: a pre-shared dictionary's shape that starts
            // with this field replaces the declaration (`docs/SPEC.md` §25.2).
            Mode::Declare
                if cur.idx == 1
                    && let Some(id) = self.shapes.base_shape(cur.len, key) =>
            {
                self.shapes.abort_decl();
                self.feed_name(cur, key);
                self.set_mode(cur, Mode::Reuse(id));
                FieldStep::Restart(StructStart::Reuse(id))
            }
            Mode::Declare => {
                self.feed_name(cur, key);
                self.shape_name(key);
                FieldStep::Name
            }
            Mode::Reuse(id) if cur.idx == 1 => {
                self.feed_name(cur, key);
                let start = self.restart(cur, id, key);
                FieldStep::Restart(start)
            }
            Mode::Reuse(id) => {
                self.catch_up(cur, id, cur.idx - 1);
                self.feed_name(cur, key);
                self.set_mode(cur, Mode::Tail { declared: false });
                if self.shape_len(id) < cur.idx {
                    FieldStep::OpenThenName(id)
                } else {
                    FieldStep::EscapeThenName
                }
            }
        };
        Ok(step)
    }

    /// Folds `key`, the name of field `cur.idx`, into the names hash (and, for the first
    /// field, into `first`).
    #[inline]
    fn feed_name(&self, cur: &mut ShapeCursor, key: &[u8]) {
        cur.hash = self.shape_pred.feed(cur.hash, key);
        cur.hashed += 1;
        if cur.idx == 1 && cur.first.is_none() {
            cur.first = Some(cur.hash);
        }
    }

    /// In a reuse of shape `id`, every name so far was the shape's: folds the names at
    /// positions `cur.hashed..upto` into the hash, giving what hashing each name as it came
    /// would have given.
    fn catch_up(&self, cur: &mut ShapeCursor, id: u32, upto: usize) {
        while cur.hashed < upto {
            let name = self.shapes.field_name(id, cur.hashed).unwrap_or_default();
            cur.hash = self.shape_pred.feed(cur.hash, name);
            cur.hashed += 1;
            if cur.hashed == 1 && cur.first.is_none() {
                cur.first = Some(cur.hash);
            }
        }
    }

    /// The next key of a shaped map is not a string: how to write it (the value follows).
    /// A declaration's names end here (the shape is defined with the names so far).
    pub(crate) fn other_key(&mut self, cur: &mut ShapeCursor) -> Result<FieldStep> {
        cur.idx += 1;
        let step = match cur.mode {
            Mode::Plain | Mode::PlainCounted => FieldStep::Key {
                open: None,
                escape: false,
                marked: false,
            },
            Mode::Tail { .. } => FieldStep::Key {
                open: None,
                escape: false,
                marked: true,
            },
            Mode::Declare => {
                self.end_declaration(cur)?;
                self.set_mode(cur, Mode::Tail { declared: true });
                FieldStep::Key {
                    open: None,
                    escape: true,
                    marked: true,
                }
            }
            Mode::Reuse(id) => {
                self.catch_up(cur, id, cur.idx - 1);
                self.set_mode(cur, Mode::Tail { declared: false });
                let open = self.shape_len(id) < cur.idx;
                FieldStep::Key {
                    open: open.then_some(id),
                    escape: !open,
                    marked: true,
                }
            }
        };
        Ok(step)
    }

    fn shape_len(&self, id: u32) -> usize {
        self.shapes.field_count(id).unwrap_or(0)
    }

    /// The first field `key` is not shape `id`'s: pick a new start for the struct.
    fn restart(&mut self, cur: &mut ShapeCursor, id: u32, key: &[u8]) -> StructStart {
        if let Some(k) = cur.first_key()
            && let Some(other) = self.shape_pred.predict(k)
            && other != id
            && self.shapes.name_is(other, 0, key)
        {
            self.set_mode(cur, Mode::Reuse(other));
            return StructStart::Reuse(other);
        }
        if let Some(other) = self.shapes.base_shape(cur.len, key)
            && other != id
        {
            self.set_mode(cur, Mode::Reuse(other));
            return StructStart::Reuse(other);
        }
        if self.may_declare_shape() {
            self.begin_shape();
            self.shape_name(key);
            self.set_mode(cur, Mode::Declare);
            return StructStart::Declare;
        }
        self.set_mode(cur, Mode::PlainCounted);
        StructStart::Plain
    }

    /// Completes the open declaration of `cur` and records the prediction.
    fn end_declaration(&mut self, cur: &ShapeCursor) -> Result<()> {
        let id = self.end_shape()?;
        self.shape_pred
            .declared(cur.key(), cur.first_key(), cur.hash, id);
        Ok(())
    }

    /// The struct is done: defines a declared shape, updates predictions after an escape.
    pub(crate) fn struct_end(&mut self, mut cur: ShapeCursor) -> Result<EndStep> {
        let recount = |was, end| EndStep::Recount {
            was,
            now: was,
            count: cur.idx,
            end,
        };
        match cur.mode {
            Mode::Plain => Ok(EndStep::Nothing),
            Mode::PlainCounted if cur.idx == cur.len => Ok(EndStep::Nothing),
            Mode::PlainCounted => Ok(recount(StructStart::Plain, false)),
            Mode::Declare => {
                self.end_declaration(&cur)?;
                if cur.idx == cur.len {
                    return Ok(EndStep::Nothing);
                }
                Ok(recount(StructStart::Declare, false))
            }
            Mode::Tail { declared: true } => Ok(recount(StructStart::Declare, true)),
            Mode::Reuse(id) if cur.idx == 0 && self.shape_len(id) > 0 => {
                // Nothing after the header, which no state depends on: an empty plain map
                // (an escape right after the header would mean an open reuse).
                Ok(EndStep::Recount {
                    was: StructStart::Reuse(id),
                    now: StructStart::Plain,
                    count: 0,
                    end: false,
                })
            }
            Mode::Reuse(id) => {
                if cur.idx == self.shape_len(id) {
                    // After a restart the record used another shape: predict that one.
                    self.shape_pred.used(cur.key(), id);
                    return Ok(EndStep::Nothing);
                }
                let upto = cur.idx;
                self.catch_up(&mut cur, id, upto);
                self.shape_pred.escaped(cur.key(), cur.hash);
                Ok(EndStep::EscapeThenEnd)
            }
            Mode::Tail { declared: false } => {
                self.shape_pred.escaped(cur.key(), cur.hash);
                Ok(EndStep::End)
            }
        }
    }
}

#[cfg(test)]
mod tests;
