//! The serde [`Serializer`]: writes the Speed-tier row form (`docs/SPEC.md` §2) into a
//! `Vec<u8>`.
//!
//! The serializer is a thin serde front over a [`Sink`], the encoder's output: layout
//! decisions live here and in [`compound`], which hands sequences to QPack
//! ([`crate::qpack::encode`]) and the columnar collector ([`crate::columnar`]) and structs to
//! Dense ([`crate::dense::encode`]); the byte-level forms live in the sink. Every string and
//! byte string — values, map keys, struct field names, variant names — is written by
//! [`Sink::write_str`] / [`Sink::write_bytes`], so a dialect that interns strings changes
//! exactly those two methods.

mod compound;
mod dupkeys;
mod serde_impl;
mod shape_key;

pub use compound::Compound;

use crate::columnar::write::ValueWriter;
use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;
use crate::sink::{ColIndex, Sink};

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
/// string, byte string, sequence or map longer than `u32::MAX` (`Data`). A `Serialize` impl
/// that reports a length and then writes a different number of elements is tolerated (the
/// header is rewritten).
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
    /// The output and the state every feature's encode half shares.
    sink: Sink,
    /// Extension subtype of a `Value` enum variant announced by a private newtype name and
    /// written by the next `serialize_str` (unit) or `serialize_map` (others).
    pending_variant: Option<u8>,
    /// The next array must be a plain array (a tuple variant's payload): no QPack, no
    /// columnar container. Taken by the next [`Compound::open`].
    plain_array: bool,
    /// Under `Options::deny_duplicate_keys`: the keys of the maps and structs still open,
    /// one set each (a [`Compound`] holds its index; no `Drop` field in the hot type).
    key_sets: Vec<dupkeys::KeySet>,
    /// An emptied columnar batch kept for the next sequence (`Batch::recycle`).
    spare_batch: Option<Box<crate::columnar::plan::Batch>>,
}

impl Serializer {
    /// A serializer with an empty buffer and fresh Dense state, writing bodies with `opts`'
    /// features (no header: prepend one, or use [`to_vec_with`](crate::to_vec_with), to get
    /// a message `from_slice` reads). Allocates nothing until the first write.
    pub fn new(opts: Options) -> Self {
        Self::with_buffer(Vec::new(), opts)
    }

    /// A serializer that appends to `buf`: its contents are kept in front of what is
    /// written, and its capacity is reused (pass a cleared `Vec` to encode into a recycled
    /// buffer). Offsets in errors count from the start of `buf`.
    pub fn with_buffer(buf: Vec<u8>, opts: Options) -> Self {
        Serializer::over(Sink::new(buf, opts))
    }

    /// An empty batch for a sequence that announced `len` elements: the kept one
    /// ([`recycle`](Self::recycle)) or a new one.
    pub(crate) fn take_batch(
        &mut self,
        len: usize,
        check_keys: bool,
    ) -> Box<crate::columnar::plan::Batch> {
        match self.spare_batch.take() {
            Some(mut b) => {
                b.reuse(len, check_keys);
                b
            }
            None => Box::new(crate::columnar::plan::Batch::new(len, check_keys)),
        }
    }

    /// Keeps the finished batch `b` for the next sequence when it is small enough
    /// (`Batch::recycle`), else drops it.
    pub(crate) fn recycle(&mut self, mut b: Box<crate::columnar::plan::Batch>) {
        if b.recycle() {
            self.spare_batch = Some(b);
        }
    }

    /// The serde front over `sink`.
    fn over(sink: Sink) -> Self {
        Serializer {
            sink,
            pending_variant: None,
            plain_array: false,
            key_sets: Vec::new(),
            spare_batch: None,
        }
    }

    /// The buffer so far: what `with_buffer` was given, then every body written.
    pub fn as_bytes(&self) -> &[u8] {
        self.sink.bytes()
    }

    /// Ends the serializer and returns its buffer (the Dense state is dropped). After an
    /// error it holds a partial value: truncate it to its length before the failed call.
    pub fn into_inner(self) -> Vec<u8> {
        self.sink.into_inner()
    }

    /// The options it was built with.
    pub fn options(&self) -> &Options {
        self.sink.opts()
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
    let mut state = crate::sink::new_dense_state(opts);
    let index = ColIndex {
        allowed: opts.has(crate::options::Features::COLUMN_INDEX),
        written: false,
    };
    encode_body_flags(value, opts, out, &mut state, index, false)
}

/// The struct shapes a message of `value` under `opts` on a pre-shared dictionary declares
/// (the state marked carried, so its columns are planned as they will be there), as
/// field-name lists in id order (none without `SHAPE_INTERN`): what a dictionary trained on
/// such messages may pre-load (`docs/SPEC.md` §25.4). Errors: those of [`encode_body`].
pub(crate) fn declared_shapes<T: ?Sized + serde::Serialize>(
    value: &T,
    opts: &Options,
) -> Result<Vec<Vec<Vec<u8>>>> {
    let mut state = crate::sink::new_dense_state(opts);
    encode_body_flags(
        value,
        opts,
        &mut Vec::new(),
        &mut state,
        ColIndex::default(),
        true,
    )?;
    let Some(t) = state.as_deref().map(|s| s.shapes()) else {
        return Ok(Vec::new());
    };
    let names = |id| t.name_indices(id).filter_map(|k| t.name_at(k));
    Ok((1..=t.len())
        .map(|id| names(id).map(<[u8]>::to_vec).collect())
        .collect())
}

/// [`encode_body`] starting from the Dense state `state` (a one-shot message on a
/// pre-shared dictionary, `docs/SPEC.md` §25).
pub(crate) fn encode_body_from<T: ?Sized + serde::Serialize>(
    value: &T,
    opts: &Options,
    out: &mut Vec<u8>,
    state: crate::dense::DenseState,
) -> Result<u8> {
    let index = ColIndex {
        allowed: opts.has(crate::options::Features::COLUMN_INDEX),
        written: false,
    };
    encode_body_flags(value, opts, out, &mut Some(Box::new(state)), index, true)
}

/// [`encode_body`] with a session's Dense state (taken and given back). The state is not
/// rolled back here: the session checkpoints it.
pub(crate) fn encode_body_with_state<T: ?Sized + serde::Serialize>(
    value: &T,
    opts: &Options,
    out: &mut Vec<u8>,
    dense: &mut Option<Box<crate::dense::DenseState>>,
) -> Result<()> {
    encode_body_flags(value, opts, out, dense, ColIndex::default(), true).map(|_| ())
}

fn encode_body_flags<T: ?Sized + serde::Serialize>(
    value: &T,
    opts: &Options,
    out: &mut Vec<u8>,
    dense: &mut Option<Box<crate::dense::DenseState>>,
    col_index: ColIndex,
    carried: bool,
) -> Result<u8> {
    let start = out.len();
    let mut sink = Sink::with_state(std::mem::take(out), *opts, dense.take(), col_index);
    if carried {
        sink.set_carried();
    }
    let mut ser = Serializer::over(sink);
    // An error an impl ignored inside the top-level compound is caught by that compound's
    // `end`; the poison check also covers a value whose last compound never ended.
    let r = value.serialize(&mut ser).and_then(|()| {
        let sink = &ser.sink;
        sink.check_poison()?;
        // What the decoder would refuse under the same options is refused here.
        let limit = opts.output_budget((sink.len() - start) as u64);
        if sink.decoded() > limit {
            let code = ErrorCode::OutputLimit {
                needed: sink.decoded(),
                limit,
            };
            return Err(Error::at(code, sink.len() as u64));
        }
        Ok(())
    });
    let (bytes, state, flags) = ser.sink.into_parts();
    *dense = state;
    *out = bytes;
    match r {
        Ok(()) => Ok(flags),
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

/// The serializer as the columnar writer sees it ([`ValueWriter`]): captured cells (residual
/// values, the fields of replayed rows) go through serde, or, as lists of structs, are read
/// off the tape; everything else goes through the sink. A private wrapper, so the
/// crate-private trait is not implemented on the public type.
pub(crate) struct Front<'s>(pub(crate) &'s mut Serializer);

impl ValueWriter for Front<'_> {
    #[inline(always)]
    fn sink(&mut self) -> &mut Sink {
        &mut self.0.sink
    }

    #[inline]
    fn write_value<T: ?Sized + serde::Serialize>(&mut self, v: &T) -> Result<()> {
        v.serialize(&mut *self.0)
    }

    #[inline]
    fn variant_pending(&self) -> bool {
        self.0.pending_variant.is_some()
    }

    fn write_struct_seq(&mut self, tape: &crate::columnar::tape::Tape, at: usize) -> Result<bool> {
        compound::Compound::struct_seq(self.0, tape, at)
    }

    fn write_row(&mut self, b: &crate::columnar::plan::Rows<'_>, r: usize) -> Result<()> {
        compound::Compound::row(self.0, b, r)
    }
}

#[cfg(test)]
mod tests;
