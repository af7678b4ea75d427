//! The serde [`Serializer`]: writes the Speed-tier row form (`docs/SPEC.md` §2) into a
//! `Vec<u8>`.
//!
//! Layout decisions live here and in [`compound`]; the byte-level forms (integer widths, length
//! headers) live in [`write`]. Every string and byte string — values, map keys, struct field
//! names, variant names — is written by [`Serializer::write_str`] / [`Serializer::write_bytes`],
//! so a dialect that interns strings changes exactly those two methods.

mod compound;
mod dense;
mod dupkeys;
mod prim;
pub(crate) mod qpack;
mod serde_impl;
mod shape_key;
mod write;

pub use compound::Compound;

use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;

/// Per-message encoder state that later dialects extend (intern table, shapes). The Dense
/// state is `None` in the Speed tier; a session lends its own with
/// [`encode_body_with_state`].
#[derive(Debug, Default)]
pub(crate) struct EncState {
    pub(crate) dense: Option<Box<crate::dense::DenseState>>,
    /// Header flags the body turned out to need beyond the tier's own: `FLAG_QPACK` once a
    /// QPack (or other codec) tag is written.
    pub(crate) body_flags: u8,
}

/// A qdf serializer writing the message *body* (no header) into an owned buffer.
///
/// Most callers use [`to_vec`](crate::to_vec), which writes the 5-byte header and then the body.
/// Use this type directly to append several bodies to one buffer or to reuse an allocation:
///
/// ```
/// use serde::Serialize;
/// let mut ser = qdf_core::Serializer::new(qdf_core::Options::speed());
/// (1u8, "hi").serialize(&mut ser).unwrap();
/// assert_eq!(ser.into_inner(), [0xA2, 0x01, 0x82, b'h', b'i']);
/// ```
///
/// With the Dense feature (Balanced, Compression) the serializer keeps one intern table and
/// shape table for everything written through it, so bodies after the first refer back to
/// earlier ones: decode them in order with one state, or use one serializer per message
/// ([`EncoderSession`](crate::EncoderSession) does this bookkeeping for streams).
///
/// Errors: nesting deeper than [`Limits::max_depth`](crate::Limits::max_depth) (`Limit`), a
/// string, byte string, sequence or map longer than `u32::MAX` (`Data`). A `Serialize` impl that reports a length
/// and then writes a different number of elements is tolerated (the header is rewritten).
///
/// An error inside a compound poisons the serializer: a `Serialize` impl that ignores the
/// error of an element, field, key or value and goes on has left a partial item in the
/// buffer, so every later compound `end` (the enclosing ones included) returns a copy of
/// that first error instead of `Ok`, and so does [`to_vec`](crate::to_vec). After an error
/// the buffer holds a partial value: discard the serializer (or truncate, as
/// [`to_vec`](crate::to_vec) does). The decoded-output limit (`docs/SPEC.md` §13) is checked
/// by [`to_vec_with`](crate::to_vec_with) and the sessions, which know where a message ends;
/// a serializer used directly does not check it.
#[derive(Debug)]
pub struct Serializer {
    pub(crate) out: Vec<u8>,
    pub(crate) opts: Options,
    pub(crate) depth: u32,
    /// Extension subtype of a `Value` enum variant announced by a private newtype name and
    /// written by the next `serialize_str` (unit) or `serialize_map` (others).
    pending_variant: Option<u8>,
    pub(crate) state: EncState,
    /// Column-length index of columnar containers (`COLUMN_INDEX`).
    pub(crate) col_index: ColIndex,
    /// Decoded output of what was written, in the units the decoder charges
    /// (`docs/SPEC.md` §13): string bytes as they are written, containers when they end (in
    /// their final form). [`encode_body`] refuses a body above the decoder's limit.
    pub(crate) decoded: u64,
    /// The first error a compound item returned (see [`Serializer::poison`]); once set,
    /// every compound `end` fails with a copy of it.
    poisoned: Option<Error>,
    /// The next array must be a plain array (a tuple variant's payload): no QPack, no
    /// columnar container. Taken by the next [`Compound::open`].
    plain_array: bool,
}

/// Whether columnar containers may carry a column-length index (only when the caller sets
/// header flag `08` afterwards, i.e. [`to_vec_with`](crate::to_vec_with)), and whether one
/// was written.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct ColIndex {
    pub(crate) allowed: bool,
    pub(crate) written: bool,
}

impl Serializer {
    /// A serializer with an empty buffer.
    pub fn new(opts: Options) -> Self {
        Self::with_buffer(Vec::new(), opts)
    }

    /// A serializer that appends to `buf` (its contents are kept).
    pub fn with_buffer(buf: Vec<u8>, opts: Options) -> Self {
        Serializer {
            out: buf,
            opts,
            depth: 0,
            pending_variant: None,
            state: EncState {
                dense: dense::new_state(&opts),
                body_flags: 0,
            },
            col_index: ColIndex::default(),
            decoded: 0,
            poisoned: None,
            plain_array: false,
        }
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.out
    }

    /// The buffer.
    pub fn into_inner(self) -> Vec<u8> {
        self.out
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Enters one container level (array, map, struct, `Some` wrapper, enum variant with a
    /// payload); the same count the decoder keeps.
    #[inline]
    pub(crate) fn enter(&mut self) -> Result<()> {
        if self.depth >= self.opts.depth_limit() {
            return Err(Error::at(
                ErrorCode::DepthLimit(self.opts.depth_limit()),
                self.out.len() as u64,
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// A `Value` variant's payload is expected next (its kind is pending).
    #[inline]
    pub(crate) fn variant_pending(&self) -> bool {
        self.pending_variant.is_some()
    }

    /// Leaves `levels` container levels.
    #[inline]
    pub(crate) fn leave(&mut self, levels: u32) {
        self.depth -= levels;
    }

    /// Adds `units` of decoded output (what the decoder will charge for what was written).
    #[inline(always)]
    pub(crate) fn count_output(&mut self, units: u64) {
        self.decoded = self.decoded.saturating_add(units);
    }

    /// Records that a QPack or other codec tag was written (header flag `02`, a hint).
    #[inline]
    pub(crate) fn note_codec_tag(&mut self) {
        self.state.body_flags |= crate::wire::header::FLAG_QPACK;
    }

    /// Records that an entropy-coded block (tag `FE`) was written (header flag `04`, a hint).
    #[inline]
    pub(crate) fn note_entropy(&mut self) {
        self.state.body_flags |= crate::wire::header::FLAG_ENTROPY;
    }

    /// Wraps `block` (a QPack value or string block) in an entropy-coded block when the
    /// encoder's options have [`Features::ENTROPY`](crate::options::Features::ENTROPY) and that is
    /// strictly smaller (exact cost); counts the decoded bytes the decoder will charge and
    /// notes the header flag. Returns the bytes to write.
    pub(crate) fn entropy_wrap(&mut self, block: Vec<u8>) -> Vec<u8> {
        if !self.opts.has(crate::options::Features::ENTROPY) {
            return block;
        }
        match crate::codec::entropy::wrap(&block) {
            Some(w) => {
                self.count_output(block.len() as u64);
                self.note_entropy();
                w
            }
            None => block,
        }
    }

    /// Records that a compound item (element, field, key or value) failed with `e`: the
    /// bytes of that item may be partial, so if the `Serialize` impl ignores the error and
    /// goes on, the value must not end `Ok` with bytes no decoder accepts. Keeps the first
    /// error; hands `e` back. Only failures pass here: the `Ok` path costs one test of the
    /// result the caller already has.
    #[cold]
    #[inline(never)]
    pub(crate) fn poison(&mut self, e: Error) -> Error {
        if self.poisoned.is_none() {
            self.poisoned = Some(copy_poison(&e));
        }
        e
    }

    /// `Err` (a copy of the first error) if a compound item failed earlier.
    #[inline(always)]
    pub(crate) fn check_poison(&self) -> Result<()> {
        match &self.poisoned {
            None => Ok(()),
            Some(e) => Err(copy_poison(e)),
        }
    }

    /// Writes `F2 <subtype>`.
    #[inline]
    pub(crate) fn write_ext(&mut self, subtype: u8) {
        self.out
            .extend_from_slice(&[crate::wire::tags::EXT, subtype]);
    }
}

/// Appends the body of `value` to `out` (no header) and returns the header flags the body
/// needs beyond the tier's (`FLAG_QPACK` if a codec tag was written, `FLAG_COL_INDEX` if a
/// columnar container wrote a column index). On error `out` is truncated back to its length at
/// entry, so a caller's buffer never holds half a message.
///
/// A body whose decoded output is above `opts.output_budget(body length)` is refused with
/// [`ErrorCode::OutputLimit`] (at the offset of its end): a decoder with the same options
/// would refuse it.
///
/// Hook for sessions and framing: the one place a body is produced.
pub(crate) fn encode_body<T: ?Sized + serde::Serialize>(
    value: &T,
    opts: &Options,
    out: &mut Vec<u8>,
) -> Result<u8> {
    let mut state = dense::new_state(opts);
    let index = ColIndex {
        allowed: opts.has(crate::options::Features::COLUMN_INDEX),
        written: false,
    };
    encode_body_flags(value, opts, out, &mut state, index)
}

/// [`encode_body`] with a session's Dense state (taken and given back). The state is not
/// rolled back here: the session checkpoints it.
pub(crate) fn encode_body_with_state<T: ?Sized + serde::Serialize>(
    value: &T,
    opts: &Options,
    out: &mut Vec<u8>,
    dense: &mut Option<Box<crate::dense::DenseState>>,
) -> Result<()> {
    encode_body_flags(value, opts, out, dense, ColIndex::default()).map(|_| ())
}

fn encode_body_flags<T: ?Sized + serde::Serialize>(
    value: &T,
    opts: &Options,
    out: &mut Vec<u8>,
    dense: &mut Option<Box<crate::dense::DenseState>>,
    col_index: ColIndex,
) -> Result<u8> {
    let start = out.len();
    let mut ser = Serializer {
        out: std::mem::take(out),
        opts: *opts,
        depth: 0,
        pending_variant: None,
        state: EncState {
            dense: dense.take(),
            body_flags: 0,
        },
        col_index,
        decoded: 0,
        poisoned: None,
        plain_array: false,
    };
    // An error an impl ignored inside the top-level compound is caught by that compound's
    // `end`; the poison check also covers a value whose last compound never ended.
    let r = value.serialize(&mut ser).and_then(|()| {
        ser.check_poison()?;
        // What the decoder would refuse under the same options is refused here.
        let limit = opts.output_budget((ser.out.len() - start) as u64);
        if ser.decoded > limit {
            let code = ErrorCode::OutputLimit {
                needed: ser.decoded,
                limit,
            };
            return Err(Error::at(code, ser.out.len() as u64));
        }
        Ok(())
    });
    *dense = ser.state.dense.take();
    let mut flags = ser.state.body_flags;
    if ser.col_index.written {
        flags |= crate::wire::header::FLAG_COL_INDEX;
    }
    *out = ser.into_inner();
    match r {
        Ok(()) => Ok(flags),
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

/// A copy of the poisoning error (cold: only a refused value gets here).
#[cold]
#[inline(never)]
fn copy_poison(e: &Error) -> Error {
    let copy = Error::new(e.code().clone());
    match e.offset() {
        Some(at) => copy.with_offset(at),
        None => copy,
    }
}

#[cfg(test)]
mod tests;
