//! Dense emission in the serializer: strings and byte strings through the intern table
//! (`docs/SPEC.md` §14), and structs through the shape table (§15).
//!
//! The decisions live in [`crate::dense`]; this module only writes what they return, so
//! the encoder and the decoder drive one state type.

use serde::Serialize;

use super::{Compound, Serializer};
use crate::dense::{DenseState, EndStep, FieldStep, Kind, ShapeCursor, StructStart};
use crate::error::Result;
use crate::options::{Features, Options};
use crate::wire::tags::{NIL, SHAPE};
use crate::wire::{ext, varint};

/// The encoder's Dense state for one message or one session, `None` outside the Dense tier.
pub(crate) fn new_state(opts: &Options) -> Option<Box<DenseState>> {
    opts.has(Features::DENSE)
        .then(|| Box::new(DenseState::new_encoder(opts)))
}

impl Serializer {
    /// Writes `b` as an intern definition or reference if the Dense tier decides so and
    /// returns `true`; `false` means the caller writes the plain form (and `lastID` has been
    /// reset, as for every inline value).
    #[inline]
    pub(crate) fn write_dense(&mut self, b: &[u8], kind: Kind) -> bool {
        match self.state.dense.as_deref_mut() {
            Some(d) => d.encode_str(b, kind).write(&mut self.out, b, kind),
            None => false,
        }
    }

    /// Opens struct `name` with `len` fields: a shape declaration or reuse under
    /// `SHAPE_INTERN`, else the plain map. `levels` as in [`Compound::open`].
    pub(crate) fn open_struct(
        &mut self,
        name: &'static str,
        len: usize,
        levels: u32,
    ) -> Result<Compound<'_>> {
        let Some(d) = self.state.dense.as_deref_mut() else {
            return Compound::open(self, super::write::Header::Map, Some(len), levels);
        };
        let (cur, start) = d.struct_begin(name, len);
        match start {
            StructStart::Plain => {
                Compound::open(self, super::write::Header::Map, Some(len), levels)
            }
            how => {
                self.enter()?;
                let at = self.out.len();
                self.write_struct_header(how, len)?;
                Ok(Compound::shaped(self, cur, at, levels))
            }
        }
    }

    /// The name of a field of a shaped struct (or shaped map) whose header starts at
    /// `start`, before its value: nothing if the shape predicts it (the common case, inline),
    /// else what [`DenseState::struct_field`] asks for, written out of line.
    #[inline(always)]
    pub(crate) fn shape_name(
        &mut self,
        cur: &mut ShapeCursor,
        start: usize,
        key: &str,
    ) -> Result<()> {
        match self.dense_mut().struct_field(cur, key.as_bytes())? {
            FieldStep::ValueOnly => Ok(()),
            step => self.write_field_step(step, cur, start, key),
        }
    }

    /// Writes what [`DenseState::struct_field`] asked for before a name it did not predict.
    #[inline(never)]
    fn write_field_step(
        &mut self,
        step: FieldStep,
        cur: &mut ShapeCursor,
        start: usize,
        key: &str,
    ) -> Result<()> {
        match step {
            FieldStep::ValueOnly => Ok(()),
            FieldStep::Name => self.write_str(key),
            FieldStep::EscapeThenName => {
                self.write_ext(ext::SHAPE_ESCAPE);
                self.write_str(key)
            }
            FieldStep::OpenThenName(id) => {
                self.insert_open_mark(start, id);
                self.write_str(key)
            }
            FieldStep::Restart(how) => {
                // Only the header was written since `start`, and it touched no state.
                self.out.truncate(start);
                self.write_struct_header(how, cur.len())?;
                if matches!(how, StructStart::Reuse(_)) {
                    return Ok(());
                }
                self.write_str(key)
            }
            FieldStep::Key { .. } => unreachable!("struct_field returns no Key step"),
        }
    }

    /// A key that is not a string in a shaped map: the escapes it needs, then the key.
    pub(crate) fn shape_other_key<T: ?Sized + Serialize>(
        &mut self,
        cur: &mut ShapeCursor,
        start: usize,
        key: &T,
    ) -> Result<()> {
        if let FieldStep::Key {
            open,
            escape,
            marked,
        } = self.dense_mut().other_key(cur)?
        {
            if let Some(id) = open {
                self.insert_open_mark(start, id);
            }
            if escape {
                self.write_ext(ext::SHAPE_ESCAPE);
            }
            if marked {
                self.write_ext(ext::SHAPE_ESCAPE);
            }
        }
        key.serialize(self)
    }

    /// True if maps may be shaped (feature `MAP_SHAPE` with Dense state).
    #[inline]
    pub(crate) fn map_shapes(&self) -> bool {
        self.state.dense.is_some() && self.opts.has(Features::MAP_SHAPE)
    }

    /// The first key of a map whose header starts at `start` is the string `key`: replaces
    /// the plain header (nothing else was written, no state changed) by a shape declaration
    /// or reuse if the Dense state picks one, and writes `key` accordingly.
    pub(crate) fn map_first_key(
        &mut self,
        start: usize,
        len: Option<usize>,
        key: &str,
    ) -> Result<Option<ShapeCursor>> {
        let Some((mut cur, how)) = self.dense_mut().map_begin(len, key.as_bytes()) else {
            self.write_str(key)?;
            return Ok(None);
        };
        self.out.truncate(start);
        self.write_struct_header(how, cur.len())?;
        self.shape_name(&mut cur, start, key)?;
        Ok(Some(cur))
    }

    #[inline(always)]
    fn dense_mut(&mut self) -> &mut DenseState {
        self.state
            .dense
            .as_deref_mut()
            .expect("shaped structs need Dense state")
    }

    /// Turns the reuse of shape `id` at `start` into an open reuse: `F2 0A` right after its
    /// header. No state depends on the position of these bytes.
    fn insert_open_mark(&mut self, start: usize, id: u32) {
        let at = start + struct_header_len(StructStart::Reuse(id), 0);
        self.out
            .splice(at..at, [crate::wire::tags::EXT, ext::SHAPE_ESCAPE]);
    }

    fn write_struct_header(&mut self, how: StructStart, len: usize) -> Result<()> {
        match how {
            StructStart::Plain => self.write_header(super::write::Header::Map, len)?,
            StructStart::Declare => {
                self.out.extend_from_slice(&[SHAPE, 0]);
                varint::write_uvarint(&mut self.out, len as u64);
            }
            StructStart::Reuse(id) => {
                self.out.push(SHAPE);
                varint::write_uvarint(&mut self.out, id as u64);
            }
        }
        Ok(())
    }

    /// Ends a shaped struct whose header starts at `start`: defines a declared shape, closes
    /// an escape, or rewrites a header whose count was wrong.
    pub(crate) fn shape_end(&mut self, cur: ShapeCursor, start: usize) -> Result<()> {
        match self.dense_mut().struct_end(cur)? {
            EndStep::Nothing => {}
            EndStep::End => self.out.push(NIL),
            EndStep::EscapeThenEnd => {
                self.write_ext(ext::SHAPE_ESCAPE);
                self.out.push(NIL);
            }
            EndStep::Recount {
                was,
                now,
                count,
                end,
            } => {
                let old = start..start + struct_header_len(was, cur.len());
                let tail = self.out.split_off(old.end);
                self.out.truncate(start);
                self.write_struct_header(now, count)?;
                self.out.extend_from_slice(&tail);
                if end {
                    self.out.push(NIL);
                }
            }
        }
        Ok(())
    }
}

/// Bytes of the header `how` writes for `len` entries.
fn struct_header_len(how: StructStart, len: usize) -> usize {
    match how {
        StructStart::Plain => match len {
            0..=0xFF => 2,
            0x100..=0xFFFF => 3,
            _ => 5,
        },
        StructStart::Declare => 2 + varint::uvarint_len(len as u64),
        StructStart::Reuse(id) => 1 + varint::uvarint_len(id as u64),
    }
}
