//! Dense's decode half: the per-body decoder state, intern definitions and references
//! (`docs/SPEC.md` §14).
//!
//! Every string read goes through the source's `read_text`, which sends the Dense tags here
//! ([`DecState::read_text`]) and reports plain strings with [`DecState::note_inline`], so the
//! decoder's state follows the encoder's exactly. Entries defined in the current body borrow from the input
//! (their bytes are contiguous there); entries from earlier frames of a session come out of
//! the table, copied.

use std::borrow::Cow;

use super::{DenseState, Kind};
use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;
use crate::wire::budget::Budget;
use crate::wire::read::{Reference, SliceRead, Text};
use crate::wire::tags::{INTERN_BIN, INTERN_STR, STATE_REF};

/// Per-body decoder state: the Dense state (created on the first Dense tag, or lent by a
/// session) and the input slices of the entries defined in this body.
#[derive(Debug)]
pub(crate) struct DecState<'de> {
    dense: Option<Box<DenseState>>,
    opts: Options,
    /// `spans[i]` holds id `first_id + i`, defined in this body: a string already checked
    /// as UTF-8 when it was defined, or bytes.
    spans: Vec<Local<'de>>,
    first_id: u32,
    /// A plain string or byte string was read since the Dense state last heard of one: its
    /// [`DenseState::note_inline`] is still owed. Settled before any use of the state and
    /// when it goes back to a session, so the state's updates stay in wire order, while a
    /// plain string costs one store instead of a test of `dense` (most bodies have none).
    inline_owed: bool,
    /// The state goes back to a session: intern entries keep their bytes for later bodies.
    session: bool,
    /// The text of the last hex form read (`F2 0B`, `F2 0C`, or a reference to an `F2 0C`
    /// entry of this body): printed here, so it is handed out as copied, never borrowed.
    hex: String,
}

impl<'de> DecState<'de> {
    /// State for one body: `dense` continues a session, `None` starts empty with the caps of
    /// `opts`; `session`: the state is given back afterwards ([`into_dense`](Self::into_dense)).
    pub(crate) fn new(opts: &Options, dense: Option<Box<DenseState>>, session: bool) -> Self {
        let first_id = dense.as_ref().map_or(0, |d| d.entries());
        DecState {
            dense,
            opts: *opts,
            spans: Vec::new(),
            first_id,
            inline_owed: false,
            session,
            hex: String::new(),
        }
    }

    /// The Dense state, created on first use, with any owed `note_inline` applied.
    #[inline(always)]
    pub(crate) fn dense(&mut self) -> &mut DenseState {
        if self.dense.is_none() {
            self.create_dense();
        }
        let d = self.dense.as_deref_mut().expect("created above");
        if std::mem::take(&mut self.inline_owed) {
            d.note_inline();
        }
        d
    }

    /// The first Dense tag of a stateless body (or of a session's first body).
    #[cold]
    #[inline(never)]
    fn create_dense(&mut self) {
        self.dense.get_or_insert_with(|| {
            Box::new(if self.session {
                DenseState::new_session_decoder(&self.opts)
            } else {
                DenseState::new_decoder(&self.opts, false)
            })
        });
    }

    /// The Dense state if any was used, for shape lookups (which do not read the
    /// predictions, so an owed `note_inline` can wait).
    #[inline]
    pub(crate) fn dense_ref(&self) -> Option<&DenseState> {
        self.dense.as_deref()
    }

    /// Gives the Dense state back to a session, with any owed `note_inline` applied.
    pub(crate) fn into_dense(mut self) -> Option<Box<DenseState>> {
        if self.inline_owed
            && let Some(d) = self.dense.as_deref_mut()
        {
            d.note_inline();
        }
        self.dense
    }
}

impl<'de> DecState<'de> {
    /// The bytes of intern entry `id`: from the input if this body defined it (printed for
    /// hex text, `F2 0C`), else from the table (`None` for an id not defined, or when the
    /// table keeps no bytes).
    pub(crate) fn entry_bytes(&self, id: u32) -> Option<Cow<'_, [u8]>> {
        let local = id.checked_sub(self.first_id).map(|i| i as usize);
        if let Some(&l) = local.and_then(|i| self.spans.get(i)) {
            return Some(match l {
                Local::Str(s) => Cow::Borrowed(s.as_bytes()),
                Local::Bin(b) => Cow::Borrowed(b),
                Local::Hex(b, upper) => Cow::Owned(crate::wire::hex::digits(b, upper).collect()),
            });
        }
        self.dense_ref()?.entry(id).map(|(b, _)| Cow::Borrowed(b))
    }
}

/// An intern entry defined in the body being read, as it lies in the input.
#[derive(Clone, Copy, Debug)]
enum Local<'de> {
    /// Checked as UTF-8 when defined.
    Str(&'de str),
    Bin(&'de [u8]),
    /// Defined by `F2 0C`: its packed bytes and whether its letters are uppercase (the text
    /// is printed again for each reference).
    Hex(&'de [u8], bool),
}

/// Prints `bytes` as hex digits into `out` (cleared first), high nibble first; `upper`:
/// letters `A`–`F`, else `a`–`f` (`docs/SPEC.md` §9).
fn print_hex(bytes: &[u8], upper: bool, out: &mut String) {
    out.clear();
    out.reserve(bytes.len() * 2);
    out.extend(crate::wire::hex::digits(bytes, upper).map(char::from));
}

#[inline(always)]
fn utf8(b: &[u8], at: u64) -> Result<&str> {
    crate::utf8::utf8(b).map_err(|e| bad_utf8(e, at))
}

#[cold]
fn bad_utf8(e: std::str::Utf8Error, at: u64) -> Error {
    Error::at(ErrorCode::InvalidUtf8, at + e.valid_up_to() as u64)
}

impl<'de> DecState<'de> {
    /// A plain string or byte string was read (the Dense state hears of it when next used).
    #[inline(always)]
    pub(crate) fn note_inline(&mut self) {
        self.inline_owed = true;
    }

    /// Reads the string or bytes that Dense tag `tag` (already consumed from `read`, one of
    /// E0, E1, E2, E8, E9, EA) stands for, charging its length to `budget`.
    ///
    /// Inline: the common case, `E1` with a one-byte id the table holds (the same test as
    /// [`DenseState::resolve`]'s), which cannot fail but on the budget or UTF-8.
    #[inline(always)]
    pub(crate) fn read_text(
        &mut self,
        read: &mut SliceRead<'de>,
        budget: &mut Budget,
        tag: u8,
    ) -> Result<Text<'de, '_>> {
        if tag == STATE_REF
            && let Some(&b) = read.rest().first()
            && b < 0x80
            && self.dense_ref().is_some_and(|d| (b as u32) < d.entries())
        {
            let at = read.offset();
            read.take(1, "a Dense reference")?;
            self.dense().resolve_short(b as u32);
            return self.ref_text(read, budget, b as u32, at);
        }
        self.read_other(read, budget, tag)
    }

    /// [`read_text`](Self::read_text) for every other tag: the references here, the
    /// definitions out of line (a lean function for the many references of a batch's
    /// residual strings).
    #[inline(never)]
    fn read_other(
        &mut self,
        read: &mut SliceRead<'de>,
        budget: &mut Budget,
        tag: u8,
    ) -> Result<Text<'de, '_>> {
        if tag == INTERN_STR || tag == INTERN_BIN {
            return self.read_intern(read, budget, tag);
        }
        let at = read.offset();
        let (id, used) = self
            .dense()
            .resolve(tag, read.rest())
            .map_err(|e| e.with_offset(at))?;
        read.take(used, "a Dense reference")?;
        self.ref_text(read, budget, id, at)
    }

    /// `E0`/`E2` (tag consumed): defines the next id with the bytes that follow.
    #[inline(never)]
    fn read_intern(
        &mut self,
        read: &mut SliceRead<'de>,
        budget: &mut Budget,
        tag: u8,
    ) -> Result<Text<'de, '_>> {
        let at = read.offset();
        let len = read.uvarint()?;
        read.check_count(len, 1)?;
        let bytes = read.take(len as usize, "interned bytes")?;
        budget.charge(len, read)?;
        let kind = if tag == INTERN_STR {
            Kind::Str
        } else {
            Kind::Bin
        };
        let text = match kind {
            Kind::Str => Text::Str(Reference::Borrowed(utf8(bytes, at)?)),
            Kind::Bin => Text::Bytes(Reference::Borrowed(bytes)),
        };
        self.dense()
            .define(bytes, kind)
            .map_err(|e| e.with_offset(at))?;
        self.spans.push(match &text {
            Text::Str(Reference::Borrowed(s)) => Local::Str(s),
            _ => Local::Bin(bytes),
        });
        Ok(text)
    }

    /// `F2 0B` (`define` false) or `F2 0C` (tag and subtype consumed): the hex text that
    /// follows, charged its 2L characters; `F2 0C` defines the next id as that string, with
    /// `E0`'s state update, `F2 0B` updates the state as an inline string (`docs/SPEC.md`
    /// §9, §14.1). The text is printed into this state's buffer, so it comes out copied.
    ///
    /// Errors: `BadCodec` for `n < 2` (no byte), at the payload; a byte count past the
    /// input `LengthOverrun`; the output limit and session caps as for `E0`.
    #[inline(never)]
    pub(crate) fn read_hex(
        &mut self,
        read: &mut SliceRead<'de>,
        budget: &mut Budget,
        define: bool,
    ) -> Result<Text<'de, '_>> {
        let at = read.offset();
        let n = read.uvarint()?;
        if n < 2 {
            return Err(Error::at(
                ErrorCode::BadCodec("hex text of no byte (n < 2)"),
                at,
            ));
        }
        let (len, upper) = (n >> 1, n & 1 == 1);
        read.check_count(len, 1)?;
        let bytes = read.take(len as usize, "hex text bytes")?;
        budget.charge(2 * len, read)?;
        let mut text = std::mem::take(&mut self.hex);
        print_hex(bytes, upper, &mut text);
        if define {
            let defined = self.dense().define(text.as_bytes(), Kind::Str);
            if let Err(e) = defined {
                return Err(e.with_offset(at));
            }
            self.spans.push(Local::Hex(bytes, upper));
        } else {
            self.note_inline();
        }
        self.hex = text;
        Ok(Text::Str(Reference::Copied(&self.hex)))
    }

    /// The text of resolved entry `id` (a reference at `at`), charged to `budget`: borrowed
    /// from the input if it was defined in this body (a string checked then), else copied
    /// out of the table.
    #[inline(always)]
    fn ref_text(
        &mut self,
        read: &SliceRead<'de>,
        budget: &mut Budget,
        id: u32,
        at: u64,
    ) -> Result<Text<'de, '_>> {
        let local = id.checked_sub(self.first_id).map(|i| i as usize);
        if let Some(&l) = local.and_then(|i| self.spans.get(i)) {
            return Ok(match l {
                Local::Str(s) => {
                    budget.charge(s.len() as u64, read)?;
                    Text::Str(Reference::Borrowed(s))
                }
                Local::Bin(b) => {
                    budget.charge(b.len() as u64, read)?;
                    Text::Bytes(Reference::Borrowed(b))
                }
                Local::Hex(b, upper) => {
                    budget.charge(2 * b.len() as u64, read)?;
                    print_hex(b, upper, &mut self.hex);
                    Text::Str(Reference::Copied(&self.hex))
                }
            });
        }
        let Some((bytes, kind)) = self.dense_ref().and_then(|d| d.entry(id)) else {
            // Not reached: without a session every entry is defined in this body (above).
            return Err(Error::at(ErrorCode::UnknownStateId(id.into()), at));
        };
        budget.charge(bytes.len() as u64, read)?;
        Ok(match kind {
            Kind::Str => Text::Str(Reference::Copied(utf8(bytes, at)?)),
            Kind::Bin => Text::Bytes(Reference::Copied(bytes)),
        })
    }
}
