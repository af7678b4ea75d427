//! Dense emission in the serializer: strings and byte strings through the intern table
//! (`docs/SPEC.md` §Dense dialect), and structs through the shape table (§Shapes).
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

    /// One field of a shaped struct whose header starts at `start`: the name if the shape
    /// does not predict it, then the value.
    pub(crate) fn shape_field<T: ?Sized + Serialize>(
        &mut self,
        cur: &mut ShapeCursor,
        start: usize,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        let d = self
            .state
            .dense
            .as_deref_mut()
            .expect("shaped structs need Dense state");
        match d.struct_field(cur, key)? {
            FieldStep::ValueOnly => {}
            FieldStep::Name => self.write_str(key)?,
            FieldStep::EscapeThenName => {
                self.write_ext(ext::SHAPE_ESCAPE);
                self.write_str(key)?;
            }
            FieldStep::Restart(how) => {
                // Only the header was written since `start`, and it touched no state.
                self.out.truncate(start);
                self.write_struct_header(how, cur.len())?;
                if !matches!(how, StructStart::Reuse(_)) {
                    self.write_str(key)?;
                }
            }
        }
        value.serialize(self)
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

    /// Ends a shaped struct: defines a declared shape, or closes an escape.
    pub(crate) fn shape_end(&mut self, cur: ShapeCursor) -> Result<()> {
        let d = self
            .state
            .dense
            .as_deref_mut()
            .expect("shaped structs need Dense state");
        match d.struct_end(cur)? {
            EndStep::Nothing => {}
            EndStep::End => self.out.push(NIL),
            EndStep::EscapeThenEnd => {
                self.write_ext(ext::SHAPE_ESCAPE);
                self.out.push(NIL);
            }
        }
        Ok(())
    }
}
