//! Dense emission, the encoder's half of the Dense feature: structs and maps through the
//! shape table (`docs/SPEC.md` §15), written into the encoder's output. Strings and byte
//! strings go through the intern table at the output's string hook (§14,
//! [`DenseState::encode_str`]).
//!
//! The decisions live in the rest of [`crate::dense`]; this module only writes what they
//! return, so the encoder and the decoder drive one state type. It writes through [`Out`],
//! which the encoder's sink implements, so Dense does not depend on the sink.

use super::{DenseState, EndStep, FieldStep, ShapeCursor, StructStart};
use crate::error::Result;
use crate::wire::form::{Header, header_bytes};
use crate::wire::tags::{EXT, NIL, SHAPE};
use crate::wire::{ext, varint};

/// What Dense emission writes into: the encoder's bytes, its Dense state and its string hook.
pub(crate) trait Out {
    /// The bytes written so far (appended to, or rewritten from a struct's header on).
    fn out(&mut self) -> &mut Vec<u8>;
    /// The Dense state (only asked for when the encoder has one).
    fn state(&mut self) -> &mut DenseState;
    /// The hook every string goes through (it counts and interns the string).
    fn write_str(&mut self, s: &str) -> Result<()>;
}

/// The name of a field of a shaped struct (or shaped map) whose header starts at `start`,
/// before its value: nothing if the shape predicts it (the common case, inline), else what
/// [`DenseState::struct_field`] asks for, written out of line.
#[inline(always)]
pub(crate) fn shape_name<O: Out>(
    o: &mut O,
    cur: &mut ShapeCursor,
    start: usize,
    key: &str,
) -> Result<()> {
    // Where the value goes: a text slot's string is written there (`docs/SPEC.md` §15.3).
    let at = o.out().len();
    if o.state().predicts(cur, key.as_bytes(), at) {
        return Ok(());
    }
    let step = o.state().struct_field_step(cur, key.as_bytes())?;
    write_field_step(o, step, cur, start, key)
}

/// Writes what [`DenseState::struct_field`] asked for before a name it did not predict.
#[inline(never)]
fn write_field_step<O: Out>(
    o: &mut O,
    step: FieldStep,
    cur: &mut ShapeCursor,
    start: usize,
    key: &str,
) -> Result<()> {
    // No text slot's value follows: a name written next is no slot's string.
    o.state().set_text_slot(usize::MAX, 0);
    match step {
        FieldStep::Name => o.write_str(key),
        FieldStep::EscapeThenName => {
            o.out().extend_from_slice(&[EXT, ext::SHAPE_ESCAPE]);
            o.write_str(key)
        }
        FieldStep::OpenThenName(id) => {
            insert_open_mark(o.out(), start, id);
            o.write_str(key)
        }
        FieldStep::Restart(how) => {
            // Only the header was written since `start`, and it touched no state.
            o.out().truncate(start);
            write_struct_header(o.out(), how, cur.len())?;
            if matches!(how, StructStart::Reuse(_)) {
                return Ok(());
            }
            o.write_str(key)
        }
        FieldStep::Key { .. } => unreachable!("struct_field returns no Key step"),
        #[cfg(test)]
        FieldStep::ValueOnly => Ok(()),
    }
}

/// Before a key that is not a string in a shaped map: the escapes it needs. The caller then
/// writes the key.
pub(crate) fn other_key_escapes<O: Out>(
    o: &mut O,
    cur: &mut ShapeCursor,
    start: usize,
) -> Result<()> {
    if let FieldStep::Key {
        open,
        escape,
        marked,
    } = o.state().other_key(cur)?
    {
        let out = o.out();
        if let Some(id) = open {
            insert_open_mark(out, start, id);
        }
        if escape {
            out.extend_from_slice(&[EXT, ext::SHAPE_ESCAPE]);
        }
        if marked {
            out.extend_from_slice(&[EXT, ext::SHAPE_ESCAPE]);
        }
    }
    Ok(())
}

/// The first key of a map whose header starts at `start` is the string `key`: replaces
/// the plain header (nothing else was written, no state changed) by a shape declaration
/// or reuse if the Dense state picks one, and writes `key` accordingly.
pub(crate) fn map_first_key<O: Out>(
    o: &mut O,
    start: usize,
    len: Option<usize>,
    key: &str,
) -> Result<Option<ShapeCursor>> {
    let Some((mut cur, how)) = o.state().map_begin(len, key.as_bytes()) else {
        o.write_str(key)?;
        return Ok(None);
    };
    o.out().truncate(start);
    write_struct_header(o.out(), how, cur.len())?;
    shape_name(o, &mut cur, start, key)?;
    Ok(Some(cur))
}

/// Turns the reuse of shape `id` at `start` into an open reuse: `F2 0A` right after its
/// header. No state depends on the position of these bytes.
fn insert_open_mark(out: &mut Vec<u8>, start: usize, id: u32) {
    let at = start + struct_header_len(StructStart::Reuse(id), 0);
    out.splice(at..at, [EXT, ext::SHAPE_ESCAPE]);
}

/// Opens a shaped struct of `len` fields as [`DenseState::struct_begin`] decided (`how`): a
/// shape declaration or a shape reuse.
pub(crate) fn open_shaped<O: Out>(o: &mut O, how: StructStart, len: usize) -> Result<()> {
    write_struct_header(o.out(), how, len)
}

/// Writes the header of a struct of `len` fields that starts `how`: a plain map header, a
/// shape declaration or a shape reuse.
fn write_struct_header(out: &mut Vec<u8>, how: StructStart, len: usize) -> Result<()> {
    match how {
        StructStart::Plain => out.extend_from_slice(header_bytes(Header::Map, len)?.as_slice()),
        StructStart::Declare => {
            out.extend_from_slice(&[SHAPE, 0]);
            varint::write_uvarint(out, len as u64);
        }
        StructStart::Reuse(id) => {
            out.push(SHAPE);
            varint::write_uvarint(out, id as u64);
        }
    }
    Ok(())
}

/// Ends a shaped struct whose header starts at `start`: defines a declared shape, closes
/// an escape, or rewrites a header whose count was wrong.
pub(crate) fn shape_end<O: Out>(o: &mut O, cur: ShapeCursor, start: usize) -> Result<()> {
    let step = o.state().struct_end(cur)?;
    let out = o.out();
    match step {
        EndStep::Nothing => {}
        EndStep::End => out.push(NIL),
        EndStep::EscapeThenEnd => {
            out.extend_from_slice(&[EXT, ext::SHAPE_ESCAPE]);
            out.push(NIL);
        }
        EndStep::Recount {
            was,
            now,
            count,
            end,
        } => {
            let old = start..start + struct_header_len(was, cur.len());
            let tail = out.split_off(old.end);
            out.truncate(start);
            write_struct_header(out, now, count)?;
            out.extend_from_slice(&tail);
            if end {
                out.push(NIL);
            }
        }
    }
    Ok(())
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
