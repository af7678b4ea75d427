//! The decode source: the input cursor, the output budget, the nesting depth and the Dense
//! state of one body, with the tag-level parsing ([`parse`]) that every reader of qdf bytes
//! shares: the serde [`Deserializer`](crate::Deserializer), the columnar reader and the
//! `inspect` walker.
//!
//! Strict: each value has one encoding (smallest integer and length forms, minimal varints,
//! `F2 05` only where needed); anything else is a `Syntax` error. Bounded: every count is
//! checked against the remaining input before it is used, nesting is limited per container
//! exactly as the encoder counts it, and materialised output is charged to an output budget in
//! one place ([`Source::charge`]).

pub(crate) mod keys;
pub(crate) mod parse;

use std::borrow::Cow;

use crate::dense::decode::DecState;
use crate::dense::{DenseState, NumVal, Text as SlotText, inline_str, is_predicted, plain_num};
use crate::dict::Dictionary;
use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;
use crate::wire::budget::Budget;
use crate::wire::header;
use crate::wire::read::{Reference, SliceRead, Text};
use crate::wire::tags;

pub(crate) use parse::Num;

/// What a decode reads from: one body and the state that goes with it.
#[derive(Debug)]
pub(crate) struct Source<'de> {
    read: SliceRead<'de>,
    budget: Budget,
    depth: u32,
    max_depth: u32,
    state: DecState<'de>,
    /// Header flag `08`: every `EF` container carries a column index.
    col_index: bool,
    /// [`Options::deny_duplicate_keys`]: map targets refuse a repeated key.
    dup_keys: bool,
}

impl<'de> Source<'de> {
    /// A source over a headerless body whose first byte is at offset `base`, with a fresh
    /// Dense state.
    pub(crate) fn new(body: &'de [u8], base: u64, opts: &Options) -> Self {
        Source {
            read: SliceRead::new(body, base),
            budget: Budget::new(opts.output_budget(body.len() as u64)),
            depth: 0,
            max_depth: opts.depth_limit(),
            state: DecState::new(opts, None, false),
            col_index: false,
            dup_keys: opts.denies_duplicate_keys(),
        }
    }

    /// A source over a whole message (header, then one body).
    ///
    /// Errors: a bad header (`Syntax`) or a short one (`Eof`), the checksum flag.
    pub(crate) fn message(input: &'de [u8], opts: &Options) -> Result<Self> {
        Self::message_with(input, opts, None)
    }

    /// [`message`](Self::message) whose body may start from `dict` (`docs/SPEC.md` §25): used
    /// when the header names it (flag `20`), ignored otherwise.
    ///
    /// Errors: those of [`message`](Self::message); [`ErrorCode::UnknownDictionary`] (at
    /// offset 5) when the header names a dictionary other than `dict`, or one and `dict` is
    /// `None`; `UnexpectedEof` for input cut inside the id.
    pub(crate) fn message_with(
        input: &'de [u8],
        opts: &Options,
        dict: Option<&Dictionary>,
    ) -> Result<Self> {
        let flags = header::read_header(input)?;
        // The checksum flag describes frames: a single message has none.
        if flags & header::FLAG_CHECKSUM != 0 {
            return Err(Error::at(ErrorCode::BadFlags(flags), 4));
        }
        let base = match header::read_dict_id(input, flags)? {
            None => None,
            Some(found) => match dict {
                Some(d) if d.id().to_bytes() == found => Some(d.base()),
                _ => {
                    let held = dict.map(|d| d.id().to_bytes());
                    return Err(header::unknown_dictionary(found, held));
                }
            },
        };
        let start = header::header_len(flags);
        let body = &input[start..];
        let mut src = Self::new(body, start as u64, opts);
        // A message that starts a stream with flag 40 (a unary gRPC message, §24) keeps
        // per-field strings from its first byte.
        if base.is_some() || flags & header::FLAG_TEXTS != 0 {
            let mut dense = DenseState::new_decoder(opts, false).for_flags(flags);
            if let Some(base) = base {
                dense = dense.on_base(base);
            }
            src.state = DecState::new(opts, Some(Box::new(dense)), false);
        }
        src.col_index = flags & header::FLAG_COL_INDEX != 0;
        Ok(src)
    }

    /// Continues a session's Dense state (`None`: a fresh one that a session keeps; its
    /// entries keep their bytes), given back by [`into_dense`](Self::into_dense).
    pub(crate) fn carry_dense(&mut self, opts: &Options, dense: Option<Box<DenseState>>) {
        self.state = DecState::new(opts, dense, true);
    }

    /// The Dense state, for a session to carry to its next body.
    pub(crate) fn into_dense(self) -> Option<Box<DenseState>> {
        self.state.into_dense()
    }

    /// Fails with `TrailingBytes` unless all input was consumed.
    pub(crate) fn end(&self) -> Result<()> {
        match self.read.remaining() {
            0 => Ok(()),
            n => Err(self.read.error(ErrorCode::TrailingBytes(n as u64))),
        }
    }

    /// Header flag `08`: every `EF` container carries a column index.
    #[inline]
    pub(crate) fn col_index(&self) -> bool {
        self.col_index
    }

    /// Map targets refuse a repeated key ([`Options::deny_duplicate_keys`]).
    #[inline]
    pub(crate) fn dup_keys(&self) -> bool {
        self.dup_keys
    }

    /// The Dense state, created on first use.
    #[inline(always)]
    pub(crate) fn dense(&mut self) -> &mut DenseState {
        self.state.dense()
    }

    /// The Dense state if any was used, for shape lookups.
    #[inline]
    pub(crate) fn dense_ref(&self) -> Option<&DenseState> {
        self.state.dense_ref()
    }

    /// Adds the current offset to an error that has none (visitor errors).
    #[cold]
    pub(crate) fn locate(&self, e: Error) -> Error {
        e.with_offset(self.read.offset())
    }

    /// Charges `units` of materialised output (bytes of strings, elements of containers)
    /// against the message's decoded-output limit (`docs/SPEC.md` §13).
    ///
    /// Hook: the ONE place output is charged; Dense back-references and QPack runs charge
    /// their expansion here too.
    #[inline]
    pub(crate) fn charge(&mut self, units: u64) -> Result<()> {
        self.budget.charge(units, &self.read)
    }

    /// Gives back `units` charged for output that will not be produced (the fields of a
    /// shape after an escape). Never more than was charged.
    #[inline]
    pub(crate) fn refund(&mut self, units: u64) {
        self.budget.refund(units);
    }

    /// Runs a codec over the unread input (`f(input, offset of its first byte, budget
    /// left)`, returning a value and the bytes it used), charging what it decodes to the
    /// budget, and consumes those bytes. An output-limit error is restated for the whole
    /// message.
    #[inline]
    pub(crate) fn decode_with<T>(
        &mut self,
        what: &'static str,
        f: impl FnOnce(&'de [u8], u64, &mut u64) -> Result<(T, usize)>,
    ) -> Result<T> {
        let at = self.read.offset();
        let (v, used) = f(self.read.rest(), at, self.budget.left_mut())
            .map_err(|e| self.budget.rebase(e, at))?;
        self.read.take(used, what)?;
        Ok(v)
    }

    /// Enters one container level (array, map, `Some`, enum variant with a payload).
    #[inline]
    pub(crate) fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.read.error(ErrorCode::DepthLimit(self.max_depth)));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves one container level.
    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Offset of the next byte in the caller's input.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.read.offset()
    }

    /// The unread bytes.
    #[inline(always)]
    pub(crate) fn rest(&self) -> &'de [u8] {
        self.read.rest()
    }

    /// Bytes not yet read.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.read.remaining()
    }

    /// The next byte without consuming it.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.read.peek()
    }

    /// Consumes one byte.
    #[inline]
    pub(crate) fn next(&mut self, expected: &'static str) -> Result<u8> {
        self.read.next(expected)
    }

    /// Consumes `n` bytes, borrowed from the input.
    #[inline(always)]
    pub(crate) fn take(&mut self, n: usize, expected: &'static str) -> Result<&'de [u8]> {
        self.read.take(n, expected)
    }

    /// Consumes a strict uvarint.
    #[inline]
    pub(crate) fn uvarint(&mut self) -> Result<u64> {
        self.read.uvarint()
    }

    /// Fails unless `count` items of at least `min_bytes` each fit in the remaining input.
    #[inline]
    pub(crate) fn check_count(&self, count: u64, min_bytes: u64) -> Result<()> {
        self.read.check_count(count, min_bytes)
    }

    /// An error at the current offset.
    #[cold]
    pub(crate) fn error(&self, code: ErrorCode) -> Error {
        self.read.error(code)
    }

    /// An `UnexpectedEof` error at the current offset.
    #[cold]
    pub(crate) fn eof(&self, expected: &'static str) -> Error {
        self.read.eof(expected)
    }

    /// Whether the values of shape fields have numeric slots (a session's Dense state).
    #[inline]
    pub(crate) fn tracks_numbers(&self) -> bool {
        self.dense_ref().is_some_and(DenseState::tracks_numbers)
    }

    /// The value of numeric slot `k` is next and is a plain number (`docs/SPEC.md` §15.2):
    /// the slot keeps it, and the value is left for the caller to read (a truncated token
    /// leaves the slot alone and fails there). Out of line: the per-field path stays small.
    #[inline(never)]
    pub(crate) fn observe_plain(&mut self, k: usize) {
        if let Some(v) = plain_num(self.rest()) {
            self.dense().observe_num(k, v);
        }
    }

    /// The plain number `n` was just read as the value of numeric slot `k`
    /// (`docs/SPEC.md` §15.2): the slot keeps it (a 128-bit integer, which no slot keeps,
    /// leaves it alone).
    #[inline]
    pub(crate) fn observe_read(&mut self, k: usize, n: Num) {
        let v = match n {
            Num::U64(v) => NumVal::Int(v as i128),
            Num::I64(v) => NumVal::Int(v as i128),
            Num::F32(v) => NumVal::F32(v.to_bits()),
            Num::F64(v) => NumVal::F64(v.to_bits()),
            Num::U128(_) | Num::I128(_) => return,
        };
        self.dense().observe_num(k, v);
    }

    /// The value of numeric slot `k` is next (`docs/SPEC.md` §15.2): a predicted form is
    /// resolved against the slot and consumed, giving the number and its offset; a plain
    /// number updates the slot and is left for the caller to read (`None`), as is any other
    /// value (which leaves the slot alone).
    ///
    /// Errors: those of [`DenseState::decode_num`], at the form's payload.
    pub(crate) fn slotted(&mut self, k: usize) -> Result<Option<(Num, u64)>> {
        let rest = self.rest();
        match rest.first() {
            Some(&tag) if is_predicted(tag) => {
                let at = self.offset();
                let (v, used) = self
                    .dense()
                    .decode_num(k, tag, &rest[1..])
                    .map_err(|e| e.shifted(at + 1).with_offset(at + 1))?;
                self.take(1 + used, "a predicted number")?;
                Ok(Some((Num::from(v), at)))
            }
            _ => {
                if let Some(v) = plain_num(rest) {
                    self.dense().observe_num(k, v);
                }
                Ok(None)
            }
        }
    }

    /// The [`slot_class`](crate::dense::slot_class) bits whose values have slots in a reuse
    /// ([`DenseState::slot_mode`]; 0 without a Dense state).
    #[inline]
    pub(crate) fn slot_classes(&self) -> u8 {
        self.dense_ref().map_or(0, DenseState::slot_mode)
    }

    /// Whether the values of shape fields keep per-field strings (a stream with header flag
    /// `40`, `docs/SPEC.md` §15.3).
    #[inline]
    pub(crate) fn tracks_texts(&self) -> bool {
        self.dense_ref().is_some_and(DenseState::tracks_texts)
    }

    /// The value of slot `k` is next and starts with `F2 0D` (`docs/SPEC.md` §15.3): reads
    /// the prefix form, builds the string (the first `p` bytes of the slot's text, then the
    /// suffix) and makes it the slot's text. Returns the string, `p`, the suffix as it lies
    /// in the input and the form's offset. The prefix is charged to the output budget (its
    /// copy is no larger than the text the state holds already); the suffix is charged as
    /// any inline string.
    ///
    /// Errors: [`ErrorCode::BadCodec`] at the payload for an empty text, `p` of 0 or beyond
    /// the text, or `p` inside a character; a suffix that is not an inline string
    /// (`BadTag`); varint, string and budget errors.
    #[inline(never)]
    pub(crate) fn slot_prefix(&mut self, k: usize) -> Result<(String, usize, &'de str, u64)> {
        let at = self.offset();
        self.take(2, "a text prefix")?;
        let pay = self.offset();
        let p = self.uvarint()?;
        let bad = |what: &'static str| Error::at(ErrorCode::BadCodec(what), pay);
        let Some(text) = self.text_bytes(k) else {
            return Err(bad("a text prefix in a field that holds no string"));
        };
        if p == 0 || p > text.len() as u64 {
            return Err(bad(
                "a text prefix of 0 bytes or longer than the field's string",
            ));
        }
        let p = p as usize;
        if !utf8_boundary(&text, p) {
            return Err(bad("a text prefix that cuts a character"));
        }
        let mut out = text[..p].to_vec();
        self.charge(p as u64)?;
        let stag = self.next_tag()?;
        if !matches!(stag, tags::FIXSTR..=tags::FIXSTR_MAX | tags::STR8..=tags::STR32) {
            return Err(self.bad_tag(stag, "an inline string after a text prefix"));
        }
        let suffix = match self.read_text(stag)? {
            Some(Text::Str(Reference::Borrowed(s))) => s,
            _ => return Err(self.bad_tag(stag, "an inline string after a text prefix")),
        };
        out.extend_from_slice(suffix.as_bytes());
        // Valid by construction: a UTF-8 text cut at a character boundary, then UTF-8.
        let s = String::from_utf8(out).map_err(|_| bad("a text prefix that is not UTF-8"))?;
        self.dense().observe_own_text(k, s.as_bytes());
        Ok((s, p, suffix, at))
    }

    /// The bytes of slot `k`'s text, `None` when it is empty (or no state keeps texts);
    /// owned only for an entry this body defined as hex text (printed).
    fn text_bytes(&self, k: usize) -> Option<Cow<'_, [u8]>> {
        let d = self.dense_ref()?;
        match d.slot_text(k) {
            SlotText::Empty => None,
            SlotText::Entry(id) => self.state.entry_bytes(id),
            SlotText::Own { off, len } => Some(Cow::Borrowed(d.own_text(off, len))),
        }
    }

    /// The value of slot `k`, which started with the inline string, string definition or
    /// `F2`, `tag` at the front of `before`, was read: its string becomes the slot's text
    /// (`docs/SPEC.md` §15.3); hex text as its encoder's state learns it (§9).
    #[inline(never)]
    pub(crate) fn observe_text(&mut self, k: usize, tag: u8, before: &'de [u8]) {
        if tag == tags::INTERN_STR {
            self.dense().observe_def_text(k);
        } else if tag == tags::EXT {
            self.dense().observe_hex_text(k, before);
        } else if let Some((h, len)) = inline_str(before) {
            self.dense().observe_own_text(k, &before[h..h + len]);
        }
    }
}

/// Whether `p` (at most `b.len()`) is a UTF-8 character boundary of `b`.
#[inline]
fn utf8_boundary(b: &[u8], p: usize) -> bool {
    p == b.len() || (b[p] & 0xC0) != 0x80
}
