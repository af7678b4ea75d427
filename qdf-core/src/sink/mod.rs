//! The encoder's output: the bytes written so far and the bookkeeping every feature's encode
//! half shares (depth, decoded-output count, header flags the body needs, the Dense state,
//! the column index, the first error of a compound item).
//!
//! The serde [`Serializer`](crate::Serializer) is a thin front over one [`Sink`]; the
//! features below it (Dense, QPack, columnar) write through the sink's methods, never
//! through the serializer, so the dependencies run one way: features → sink, ser → features.
//!
//! - [`write`]: the byte-level forms (integer widths, length headers, strings, byte strings);
//! - [`prim`]: primitive elements of sequences, the probe QPack and the Speed path share.

pub(crate) mod prim;
mod write;

use crate::dense::DenseState;
use crate::error::{Error, ErrorCode, Result};
use crate::options::{Features, Options};
use crate::wire::header::{FLAG_COL_INDEX, FLAG_ENTROPY, FLAG_QPACK};
use crate::wire::tags;

pub(crate) use write::Header;

/// Whether columnar containers may carry a column-length index (only when the caller sets
/// header flag `08` afterwards, i.e. [`to_vec_with`](crate::to_vec_with)), and whether one
/// was written.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct ColIndex {
    pub(crate) allowed: bool,
    pub(crate) written: bool,
}

/// What [`Sink::trial`] restores.
#[derive(Debug)]
pub(crate) struct SinkTrial {
    at: usize,
    tail: Vec<u8>,
    depth: u32,
    body_flags: u8,
    col_index: ColIndex,
    decoded: u64,
    dense: Option<crate::dense::Trial>,
}

/// The output of one encoder: an owned buffer and the state that writing into it keeps.
#[derive(Debug)]
pub(crate) struct Sink {
    out: Vec<u8>,
    opts: Options,
    /// Container levels entered (the count the decoder keeps).
    depth: u32,
    /// The Dense state, `None` outside the Dense tier; a session lends its own.
    dense: Option<Box<DenseState>>,
    /// Header flags the body turned out to need beyond the tier's own: `FLAG_QPACK` once a
    /// QPack (or other codec) tag is written, `FLAG_ENTROPY` once an `FE` block is.
    body_flags: u8,
    /// Column-length index of columnar containers (`COLUMN_INDEX`).
    col_index: ColIndex,
    /// Decoded output of what was written, in the units the decoder charges
    /// (`docs/SPEC.md` §13): string bytes as they are written, containers when they end (in
    /// their final form).
    decoded: u64,
    /// The first error a compound item returned (see [`Sink::poison`]); once set, every
    /// compound `end` fails with a copy of it.
    poisoned: Option<Error>,
    /// String values may be written as hex text: [`Features::HEX_TEXT`] without
    /// `borrowable_strings` (`docs/SPEC.md` §9).
    hex_text: bool,
    /// Trials open ([`Sink::trial`]).
    trials: u32,
    /// The Dense state came from outside this message (a session's, or a pre-shared
    /// dictionary's): its intern table may already hold the message's strings.
    carried: bool,
}

/// The encoder's Dense state for one message or one session, `None` outside the Dense tier.
pub(crate) fn new_dense_state(opts: &Options) -> Option<Box<DenseState>> {
    opts.has(Features::DENSE)
        .then(|| Box::new(DenseState::new_encoder(opts)))
}

impl Sink {
    /// A sink that appends to `buf` (its contents are kept), with a fresh Dense state when
    /// `opts` has the Dense feature and no column index.
    pub(crate) fn new(buf: Vec<u8>, opts: Options) -> Sink {
        let dense = new_dense_state(&opts);
        Sink::with_state(buf, opts, dense, ColIndex::default())
    }

    /// A sink that appends to `buf` with the given Dense state and column-index permission.
    pub(crate) fn with_state(
        buf: Vec<u8>,
        opts: Options,
        dense: Option<Box<DenseState>>,
        col_index: ColIndex,
    ) -> Sink {
        Sink {
            out: buf,
            opts,
            depth: 0,
            dense,
            body_flags: 0,
            col_index,
            decoded: 0,
            poisoned: None,
            trials: 0,
            hex_text: opts.has(Features::HEX_TEXT) && !opts.keeps_strings_borrowable(),
            carried: false,
        }
    }

    /// Marks the Dense state as carried in from outside this message (see
    /// [`carried`](Self::carried)).
    pub(crate) fn set_carried(&mut self) {
        self.carried = true;
    }

    /// Whether the Dense state came from a session or a pre-shared dictionary, which the
    /// strings of this message may refer to and later messages will. Tagged columns
    /// (`docs/SPEC.md` §22.3) are not written then (measured larger than row mode's
    /// references when their child string columns were blocks), batches below 16 rows of
    /// more than 4 096 events are not tried as containers, and child string columns price
    /// the dictionary by the column's head (`columnar::write`, `columnar::nested`).
    #[inline]
    pub(crate) fn carried(&self) -> bool {
        self.carried
    }

    /// The bytes written so far.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// Bytes in the buffer.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    /// The buffer.
    pub(crate) fn into_inner(self) -> Vec<u8> {
        self.out
    }

    /// Ends the body: the buffer, the Dense state (handed back), and the header flags the
    /// body needs beyond the tier's (`FLAG_QPACK`, `FLAG_ENTROPY`, `FLAG_COL_INDEX`).
    pub(crate) fn into_parts(self) -> (Vec<u8>, Option<Box<DenseState>>, u8) {
        let mut flags = self.body_flags;
        if self.col_index.written {
            flags |= FLAG_COL_INDEX;
        }
        (self.out, self.dense, flags)
    }

    /// The options.
    #[inline(always)]
    pub(crate) fn opts(&self) -> &Options {
        &self.opts
    }

    /// True if the options have every feature of `f`.
    #[inline(always)]
    pub(crate) fn has(&self, f: Features) -> bool {
        self.opts.has(f)
    }

    /// The Dense state, `None` outside the Dense tier.
    #[inline(always)]
    pub(crate) fn dense(&self) -> Option<&DenseState> {
        self.dense.as_deref()
    }

    /// The Dense state, mutably.
    #[inline(always)]
    pub(crate) fn dense_mut(&mut self) -> Option<&mut DenseState> {
        self.dense.as_deref_mut()
    }

    /// The [`slot_class`](crate::dense::slot_class) of the value at `out[at]` (0 past the end).
    #[inline(always)]
    pub(crate) fn slot_class_at(&self, at: usize) -> u8 {
        self.out.get(at).map_or(0, |&t| crate::dense::slot_class(t))
    }

    /// The value of shape field slot `k` was just written at `at..`: the Dense state keeps its
    /// number and may rewrite it in a shorter predicted form (`docs/SPEC.md` §15.2).
    #[inline]
    pub(crate) fn encode_num(&mut self, at: usize, k: usize) {
        if let Some(d) = self.dense.as_deref_mut() {
            d.encode_num(&mut self.out, at, k);
        }
    }

    /// Whether a string, Dense string tag or hex text, which a slot's text follows, starts
    /// at `out[at]`.
    #[inline(always)]
    pub(crate) fn text_at(&self, at: usize) -> bool {
        match self.out.get(at) {
            Some(&tags::EXT) => self
                .out
                .get(at + 1)
                .is_some_and(|&s| crate::wire::ext::is_hex(s)),
            Some(&t) => crate::dense::is_slot_text(t),
            None => false,
        }
    }

    /// The value of shape field slot `k` was just written at `at..` and starts with a string
    /// tag: a session that keeps per-field strings updates the slot's text and may rewrite
    /// the string as a prefix form (`docs/SPEC.md` §15.3).
    #[inline(always)]
    pub(crate) fn encode_text(&mut self, at: usize, k: usize) {
        if let Some(d) = self.dense.as_deref_mut()
            && d.tracks_texts()
        {
            d.encode_text(&mut self.out, at, k);
        }
    }

    /// True if maps may be shaped (feature `MAP_SHAPE` with Dense state).
    #[inline]
    pub(crate) fn map_shapes(&self) -> bool {
        self.dense.is_some() && self.opts.has(Features::MAP_SHAPE)
    }

    /// Container levels entered so far.
    #[inline(always)]
    pub(crate) fn depth(&self) -> u32 {
        self.depth
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

    /// The decoded output counted so far.
    pub(crate) fn decoded(&self) -> u64 {
        self.decoded
    }

    /// Records that a QPack or other codec tag was written (header flag `02`, a hint).
    #[inline]
    pub(crate) fn note_codec_tag(&mut self) {
        self.body_flags |= FLAG_QPACK;
    }

    /// Records that an entropy-coded block (tag `FE`) was written (header flag `04`, a hint).
    #[inline]
    pub(crate) fn note_entropy(&mut self) {
        self.body_flags |= FLAG_ENTROPY;
    }

    /// True if columnar containers may carry a column-length index.
    #[inline]
    pub(crate) fn col_index_allowed(&self) -> bool {
        self.col_index.allowed
    }

    /// Records that a columnar container wrote a column-length index (header flag `08`).
    #[inline]
    pub(crate) fn note_col_index(&mut self) {
        self.col_index.written = true;
    }

    /// Wraps `block` (a QPack value or string block) in an entropy-coded block when the
    /// encoder's options have [`Features::ENTROPY`] and that is strictly smaller (exact cost);
    /// counts the decoded bytes the decoder will charge and notes the header flag. Returns
    /// the bytes to write.
    pub(crate) fn entropy_wrap(&mut self, block: Vec<u8>) -> Vec<u8> {
        if !self.opts.has(Features::ENTROPY) {
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

    /// Appends one byte.
    #[inline(always)]
    pub(crate) fn push(&mut self, b: u8) {
        self.out.push(b);
    }

    /// Appends `b`.
    #[inline]
    pub(crate) fn extend(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    /// Appends `v` as an unsigned LEB128 varint.
    #[inline]
    pub(crate) fn write_uvarint(&mut self, v: u64) {
        crate::wire::varint::write_uvarint(&mut self.out, v);
    }

    /// Starts a trial at output offset `at` (at most [`len`](Self::len)): what is written
    /// from `at` on may be measured and then taken back exactly, bytes, counts, flags and
    /// Dense state (see `DenseState::trial`). The bytes after `at` are kept for the
    /// rollback, so a trial may rewrite them.
    pub(crate) fn trial(&mut self, at: usize) -> SinkTrial {
        self.trials += 1;
        SinkTrial {
            at,
            tail: self.out[at..].to_vec(),
            depth: self.depth,
            body_flags: self.body_flags,
            col_index: self.col_index,
            decoded: self.decoded,
            dense: self.dense.as_deref_mut().map(DenseState::trial),
        }
    }

    /// Trials open: a value measured inside a trial that is itself inside one is written
    /// once more per level, so callers stop trying past a few levels.
    pub(crate) fn trials_open(&self) -> u32 {
        self.trials
    }

    /// Keeps what was written since trial `t`.
    pub(crate) fn trial_keep(&mut self, t: SinkTrial) {
        self.trials -= 1;
        if let (Some(d), Some(m)) = (self.dense.as_deref_mut(), t.dense) {
            d.trial_keep(m);
        }
    }

    /// Takes back everything written since trial `t`.
    pub(crate) fn trial_rollback(&mut self, t: SinkTrial) {
        self.trials -= 1;
        self.out.truncate(t.at);
        self.out.extend_from_slice(&t.tail);
        self.depth = t.depth;
        self.body_flags = t.body_flags;
        self.col_index = t.col_index;
        self.decoded = t.decoded;
        if let (Some(d), Some(m)) = (self.dense.as_deref_mut(), t.dense) {
            d.trial_rollback(m);
        }
    }

    /// Drops every byte from `at` on (what was written there is rewritten).
    #[inline]
    pub(crate) fn truncate(&mut self, at: usize) {
        self.out.truncate(at);
    }

    /// Replaces the bytes at `range` by `with` (a header rewritten in place, a marker
    /// inserted with an empty range).
    pub(crate) fn splice(&mut self, range: std::ops::Range<usize>, with: &[u8]) {
        self.out.splice(range, with.iter().copied());
    }

    /// Appends `n` zero bytes (room patched later with [`Sink::patch`]).
    pub(crate) fn zeros(&mut self, n: usize) {
        self.out.resize(self.out.len() + n, 0);
    }

    /// Overwrites the bytes at `at..at + b.len()` (already written) with `b`.
    pub(crate) fn patch(&mut self, at: usize, b: &[u8]) {
        self.out[at..at + b.len()].copy_from_slice(b);
    }

    /// The byte at `at`, if written.
    #[inline]
    pub(crate) fn byte_at(&self, at: usize) -> Option<u8> {
        self.out.get(at).copied()
    }

    /// Writes `F2 <subtype>`.
    #[inline]
    pub(crate) fn write_ext(&mut self, subtype: u8) {
        self.out.extend_from_slice(&[tags::EXT, subtype]);
    }
}

/// The Dense emission writes through the sink: its bytes, its state, its string hook.
impl crate::dense::encode::Out for Sink {
    #[inline(always)]
    fn out(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    #[inline(always)]
    fn state(&mut self) -> &mut DenseState {
        self.dense
            .as_deref_mut()
            .expect("shaped structs need Dense state")
    }

    #[inline(always)]
    fn write_str(&mut self, s: &str) -> Result<()> {
        Sink::write_str(self, s)
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
