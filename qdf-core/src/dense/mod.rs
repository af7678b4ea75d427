//! The Dense session state: intern table, predictors and shape table, driven identically by
//! the encoder and the decoder so the two mirror by construction (`docs/SPEC.md` §14).
//!
//! The encoder asks [`DenseState::encode_str`] how to write each string or byte string
//! (value, map key, field name, variant name) and gets an [`Emission`]; the decoder reports
//! what it read with [`DenseState::define`] (`E0`/`E2`), [`DenseState::resolve`]
//! (`E1`/`E8`/`E9`/`EA`) and [`DenseState::note_inline`] (any plain string or bytes). Both
//! paths make the same state updates in the same order:
//!
//! | read / written | state update |
//! |---|---|
//! | inline str/bin | `lastID` ← invalid |
//! | `E0`/`E2` (define) | new id; ring push; pair(lastID → id); `lastID` ← id |
//! | `E8` (repeat) | pair(lastID → lastID) |
//! | `E1`/`E9`/`EA` | ring push; pair(lastID → id); `lastID` ← id |
//!
//! The encoder picks, for a value already in the table, the first rule that applies
//! (`docs/SPEC.md` §14): `E8` if it is `lastID`; `E1` if the id is below 128; `EA 00` if the pair
//! table predicts it (feature `PAIR_PRED`); `E9 rank` if the ring holds it and the rank's
//! varint is shorter than the id's (feature `MTF`); else `E1 id`. If the chosen reference
//! would be longer than the inline form, it writes the value inline instead (possible only
//! with `min_intern` below 3), so a reference never costs more than Speed.
//!
//! Caps are local. The encoder stops interning at its own caps (values go inline, existing
//! ids stay usable); the decoder rejects a peer that exceeds its caps with
//! [`ErrorCode::SessionCap`] ([`Category::Limit`](crate::Category::Limit)).
//!
//! A renewal (`docs/SPEC.md` §18) empties all of it on both sides at a frame boundary
//! ([`DenseState::renew`]); an encoder session decides when with the policy of `admit`,
//! which also learns whether to intern new values on first or on second sight.
//!
//! An encoder wraps each message in [`DenseState::checkpoint`] … [`DenseState::commit`] or
//! [`DenseState::rollback`]; the checkpoint records table lengths and the MTF ring's head
//! (the ring's spare slots keep the checkpoint's window intact for 128 pushes; a longer
//! message copies it once) and logs pair-table and shape-prediction writes, so it costs O(1)
//! plus O(changes).

mod admit;
mod colshape;
mod cursor;
pub(crate) mod decode;
pub(crate) mod encode;
mod intern;
mod numeric;
mod predict;
mod shape;
mod stats;
#[cfg(test)]
mod tests;
mod text;

pub(crate) use colshape::encode_key as col_shape_key;
#[allow(unused_imports)] // used by ser/de
pub(crate) use cursor::{EndStep, FieldStep, ShapeCursor, StructStart};
pub(crate) use intern::{InternTable, Kind};
#[allow(unused_imports)] // used by ser/shape.rs
pub(crate) use shape::{BaseShapes, NamesHash, ShapePredictor, ShapeTable};
pub use stats::SessionStats;

use admit::{Admission, fingerprint};
use colshape::{ColShapeMark, ColShapes};
use numeric::NumSlots;
pub(crate) use numeric::{
    NUM_CLASSES, NumVal, PREDICTED, TEXT, XOR_MODE, is_predicted, plain_num, slot_class,
};
use predict::{PredMark, Predictors};
use shape::ShapeMark;
use text::NO_TEXT_SLOT;
pub(crate) use text::{Text, inline_str, is_slot_text};
use text::{TextSlots, TextTrial};

use std::sync::Arc;

use crate::error::{Error, ErrorCode, Result};
use crate::options::{Features, Options};
use crate::wire::tags;
use crate::wire::varint::{read_uvarint, uvarint_len, write_uvarint};

/// The wire maximum of intern entries per session: ids stay below 0xFFFF (`docs/SPEC.md` §16.1).
pub(crate) const MAX_WIRE_ENTRIES: u32 = 0xFFFF;

/// The encoder never interns a value longer than `intern_byte_cap / MAX_ENTRY_SHARE`, so one
/// large value cannot use up a long-lived session's byte budget (default: 64 KiB).
const MAX_ENTRY_SHARE: u64 = 64;

/// Bytes of shape names the encoder keeps in reserve before it opens a declaration, because
/// a declaration's names are only known at its end (`docs/SPEC.md` §16.1).
const SHAPE_DECL_RESERVE: u64 = 64 << 10;

/// The least prefix, in bytes, for which the encoder writes a new string as the prefix form
/// instead of defining it (`docs/SPEC.md` §15.3, encoder rules).
const PREFIX_MIN: usize = 12;

/// How the encoder writes one string or byte string.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Emission {
    /// A plain `fixstr`/`str*`/`bin*`, written by the caller.
    Inline,
    /// `E0`/`E2 uvarint(len) bytes`: a new entry.
    Intern,
    /// `E1 uvarint(id)`.
    Ref(u32),
    /// `E8`: the same id as the previous interned value.
    Repeat,
    /// `E9 uvarint(rank)`: the id pushed `rank` pushes ago.
    Mtf(u8),
    /// `EA 00`: the pair table's successor of the previous id.
    Pair,
    /// A string not in the table, in a session that keeps per-field strings
    /// (`docs/SPEC.md` §15.3): nothing is decided or changed yet. The caller tries the
    /// prefix form if the string is a text slot's value, else asks
    /// [`encode_str_decided`](DenseState::encode_str_decided). Never for byte strings.
    Undecided,
}

impl Emission {
    /// Bytes this emission writes for a value of `len` bytes (`Inline`: tag and length only
    /// are not known here, so it returns 0).
    pub(crate) fn wire_len(self, len: usize) -> usize {
        match self {
            Emission::Inline | Emission::Undecided => 0,
            Emission::Intern => 1 + uvarint_len(len as u64) + len,
            Emission::Ref(id) => 1 + uvarint_len(id as u64),
            Emission::Repeat => 1,
            Emission::Mtf(_) | Emission::Pair => 2,
        }
    }

    /// Whether this is a reference (`E1`, `E8`, `E9`, `EA`): the same bytes whatever the
    /// string.
    #[inline(always)]
    pub(crate) fn is_ref(self) -> bool {
        matches!(
            self,
            Emission::Ref(_) | Emission::Repeat | Emission::Mtf(_) | Emission::Pair
        )
    }

    /// Appends a non-inline emission; returns `false` for [`Emission::Inline`], which the
    /// caller writes with the plain tags, and for [`Emission::Undecided`]. The forms of
    /// one or two fixed bytes (a steady stream's strings) are written inline: the call
    /// cost more than the bytes.
    #[inline(always)]
    pub(crate) fn write(self, out: &mut Vec<u8>, bytes: &[u8], kind: Kind) -> bool {
        // Two fixed bytes (a variable length would be a `memcpy` call).
        let form = match self {
            Emission::Inline | Emission::Undecided => return false,
            Emission::Ref(id) if id < 0x80 => [tags::STATE_REF, id as u8],
            Emission::Repeat => {
                out.push(tags::REPEAT);
                return true;
            }
            Emission::Mtf(rank) => [tags::MTF, rank],
            Emission::Pair => [tags::PAIR, 0],
            Emission::Intern => {
                write_def(out, bytes, kind);
                return true;
            }
            Emission::Ref(id) => {
                write_long_ref(out, id);
                return true;
            }
        };
        out.extend_from_slice(&form);
        true
    }
}

/// [`Emission::write`] of a definition: `E0`/`E2 uvarint(len) bytes`.
#[inline(never)]
fn write_def(out: &mut Vec<u8>, bytes: &[u8], kind: Kind) {
    out.push(match kind {
        Kind::Str => tags::INTERN_STR,
        Kind::Bin => tags::INTERN_BIN,
    });
    write_uvarint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// [`Emission::write`] of a reference to an id of two bytes or more.
#[inline(never)]
fn write_long_ref(out: &mut Vec<u8>, id: u32) {
    out.push(tags::STATE_REF);
    write_uvarint(out, id as u64);
}

/// Bytes of the plain (Speed) form of a string or byte string of `len` bytes.
#[inline]
pub(crate) fn inline_len(len: usize, kind: Kind) -> usize {
    crate::wire::form::text_len(len, kind == Kind::Str)
}

/// Local limits and switches of one side.
#[derive(Copy, Clone, Debug)]
struct Config {
    features: Features,
    min_intern: usize,
    entry_cap: u32,
    byte_cap: u64,
    shape_cap: u32,
    /// See [`DenseState::slot_mode`] (kept here, in padding, so the state keeps its size).
    slot_mode: u8,
    /// The dictionary holds strings shorter than `min_intern`: the encoder looks those up
    /// in it (in padding too).
    short_base: bool,
}

/// What a Dense state started from a pre-shared dictionary (`docs/SPEC.md` §25) shares with
/// it: its entries and shapes (cloning is two `Arc` clones). The dictionary builds it.
#[derive(Clone, Debug)]
pub(crate) struct DictBase {
    pub(crate) entries: Arc<InternTable>,
    pub(crate) shapes: Arc<BaseShapes>,
    /// Bytes of the shortest entry: an encoder whose `min_intern` is above it looks
    /// shorter strings up in the dictionary (`docs/SPEC.md` §25.2).
    pub(crate) min_len: usize,
}

/// What an encoder checkpoint must restore.
#[derive(Clone, Debug)]
struct Mark {
    table_len: u32,
    hits: u64,
    misses: u64,
    pred: PredMark,
    shapes: ShapeMark,
    col_shapes: ColShapeMark,
}

/// What a [`DenseState::trial`] restores.
#[derive(Debug)]
pub(crate) struct Trial {
    table_len: u32,
    hits: u64,
    misses: u64,
    pred: predict::PredTrial,
    shapes: ShapeMark,
    shape_pred: (usize, usize, bool),
    col_shapes: ColShapeMark,
    nums: Option<(usize, bool)>,
    texts: Option<TextTrial>,
}

/// The mirrored Dense state of one side of a session (or of one message).
#[derive(Clone, Debug)]
pub(crate) struct DenseState {
    cfg: Config,
    table: InternTable,
    pred: Predictors,
    shapes: ShapeTable,
    shape_pred: ShapePredictor,
    col_shapes: ColShapes,
    /// Per-field numeric state (`docs/SPEC.md` §15.2): session decoders always, session
    /// encoders with `NUM_STATE`; `None` for one-shot messages, which never carry it.
    nums: Option<Box<NumSlots>>,
    /// Per-field strings (`docs/SPEC.md` §15.3): both sides of a stream whose header has
    /// flag `40`; `None` everywhere else.
    texts: Option<Box<TextSlots>>,
    mark: Option<Mark>,
    /// Encoder sessions: per id of this generation, 1 once referenced (admission learning).
    used: Vec<u8>,
    /// Encoder sessions: admission filter and renewal policy (`None`: one-shot messages
    /// and decoders).
    admit: Option<Box<Admission>>,
    counts: Counts,
}

/// Session counters reported by [`DenseState::stats`].
#[derive(Copy, Clone, Debug, Default)]
struct Counts {
    /// References written or read (`E1`, `E8`, `E9`, `EA`).
    hits: u64,
    /// Definitions, plus (encoder) eligible strings written inline.
    misses: u64,
    /// Entries dropped by renewals.
    evictions: u64,
    /// Renewals applied; the generation is this plus one.
    renewals: u64,
}

impl DenseState {
    fn with(opts: &Options, table: InternTable) -> Self {
        DenseState {
            cfg: Config {
                features: opts.feature_bits(),
                min_intern: opts.intern_min_len() as usize,
                entry_cap: opts.intern_entry_cap().min(MAX_WIRE_ENTRIES),
                byte_cap: opts.intern_byte_cap(),
                shape_cap: opts.shape_cap(),
                slot_mode: 0,
                short_base: false,
            },
            table,
            pred: Predictors::new(),
            shapes: ShapeTable::default(),
            shape_pred: ShapePredictor::default(),
            col_shapes: ColShapes::default(),
            nums: None,
            texts: None,
            mark: None,
            used: Vec::new(),
            admit: None,
            counts: Counts::default(),
        }
    }

    /// This fresh state on top of a pre-shared dictionary (`docs/SPEC.md` §25): its intern
    /// entries are ids `0..n`, the state's own entries follow; its shapes are ids `1..=s`,
    /// the state's own declarations follow. O(1).
    pub(crate) fn on_base(mut self, base: DictBase) -> Self {
        let table = std::mem::replace(&mut self.table, InternTable::new(false));
        self.table = table.on_base(base.entries);
        self.pred.set_base(self.table.base_len());
        self.shapes = std::mem::take(&mut self.shapes).on_base(base.shapes);
        self.cfg.short_base = base.min_len < self.cfg.min_intern;
        self
    }

    /// Own entries (the dictionary's, shared, not counted).
    #[inline]
    fn own_entries(&self) -> u32 {
        self.table.len() - self.table.base_len()
    }

    /// Encoder state of a session with renewal on: admission learning and the renewal
    /// policy of [`admit`].
    pub(crate) fn new_session_encoder(opts: &Options) -> Self {
        let mut s = DenseState::new_encoder(opts).with_num_slots();
        s.admit = Some(Box::new(Admission::new(opts.renews())));
        if crate::wire::header::texts_on(opts) {
            s.texts = Some(Box::default());
        }
        s.set_slot_mode();
        s
    }

    /// This decoder state for a body under header `flags`: with flag `40` it keeps the
    /// per-field strings of `docs/SPEC.md` §15.3.
    pub(crate) fn for_flags(mut self, flags: u8) -> Self {
        if flags & crate::wire::header::FLAG_TEXTS != 0 && self.texts.is_none() {
            self.texts = Some(Box::default());
        }
        self.set_slot_mode();
        self
    }

    /// This encoder state predicting numbers from their field's last one (`docs/SPEC.md`
    /// §15.2: within a message, and across a session's), when it has `NUM_STATE` and
    /// `SHAPE_INTERN`.
    pub(crate) fn with_num_slots(mut self) -> Self {
        if self.has(Features::NUM_STATE) && self.has(Features::SHAPE_INTERN) {
            self.nums = Some(Box::default());
            self.set_slot_mode();
        }
        self
    }

    /// Encoder state: features, `min_intern` and caps from `opts`.
    pub(crate) fn new_encoder(opts: &Options) -> Self {
        DenseState::with(opts, InternTable::new(true))
    }

    /// Decoder state: caps from `opts` (the features are the peer's business); `keep`: the
    /// intern entries' bytes are kept for later bodies (a session), else only counted.
    /// Per-field numbers are always tracked: the peer may predict them whatever this side's
    /// features say, and a session's first message, predictions and all, is also a single
    /// message (`docs/SPEC.md` §15.2, §24).
    pub(crate) fn new_decoder(opts: &Options, keep: bool) -> Self {
        let table = if keep {
            InternTable::new(false)
        } else {
            InternTable::new_uncopied()
        };
        let mut s = DenseState::with(opts, table);
        s.nums = Some(Box::default());
        s.set_slot_mode();
        s
    }

    /// Decoder state of a session: entries keep their bytes for later bodies.
    pub(crate) fn new_session_decoder(opts: &Options) -> Self {
        DenseState::new_decoder(opts, true)
    }

    /// True if the encoder feature is on.
    #[inline]
    pub(crate) fn has(&self, f: Features) -> bool {
        self.cfg.features.contains(f)
    }

    /// Whether string `s` is in the intern table (a per-value string of it is a reference).
    pub(crate) fn interned(&self, s: &[u8]) -> bool {
        self.table.contains(s, Kind::Str)
    }

    /// Intern entries defined so far.
    #[inline]
    pub(crate) fn entries(&self) -> u32 {
        self.table.len()
    }

    /// The table sizes a session reports.
    pub(crate) fn stats(&self) -> SessionStats {
        SessionStats {
            intern_entries: self.own_entries(),
            intern_bytes: self.table.byte_len(),
            shapes: self.shapes.len(),
            col_shapes: self.col_shapes.len(),
            shape_bytes: self.shapes.charged() + self.col_shapes.charged(),
            heap_bytes: self.heap_bytes(),
            hits: self.counts.hits,
            misses: self.counts.misses,
            evictions: self.counts.evictions,
            renewals: self.counts.renewals,
        }
    }

    /// Heap bytes this state holds, itself included (it lives in a `Box`): every table,
    /// index, predictor and prediction map, by allocated capacity. O(1).
    pub(crate) fn heap_bytes(&self) -> u64 {
        std::mem::size_of::<DenseState>() as u64
            + self.table.heap_bytes()
            + self.pred.heap_bytes()
            + self.shapes.heap_bytes()
            + self.shape_pred.heap_bytes()
            + self.col_shapes.heap_bytes()
            + self.nums.as_ref().map_or(0, |n| {
                std::mem::size_of::<NumSlots>() as u64 + n.heap_bytes()
            })
            + self.texts.as_ref().map_or(0, |t| {
                std::mem::size_of::<TextSlots>() as u64 + t.heap_bytes()
            })
            + self.used.capacity() as u64
            + self.admit.as_ref().map_or(0, |a| {
                std::mem::size_of::<Admission>() as u64 + a.heap_bytes()
            })
    }

    // ---- encoder ------------------------------------------------------------------------

    fn may_intern(&self, len: usize) -> bool {
        let len = len as u64;
        self.table.len() < self.cfg.entry_cap
            && len <= self.cfg.byte_cap / MAX_ENTRY_SHARE
            && self.table.byte_len() + len <= self.cfg.byte_cap
    }

    /// Decides how to write `bytes` and applies the state update of that emission.
    ///
    /// The common case inline: a non-empty value in the front cache with an id below 128
    /// that is not `lastID` is `E1 id` (the first rule that applies, and never longer than
    /// the inline form); everything else takes [`encode_str_other`](Self::encode_str_other).
    #[inline(always)]
    pub(crate) fn encode_str(&mut self, bytes: &[u8], kind: Kind) -> Emission {
        if !bytes.is_empty()
            && bytes.len() >= self.cfg.min_intern
            && let Some(id) = self.table.cached(bytes, kind)
            && id < 128
            && id != self.pred.last_raw()
        {
            // Ids below 128 count as used without marking (see `renew`, `renewal_due`).
            self.counts.hits += 1;
            self.pred.touch(id);
            return Emission::Ref(id);
        }
        self.encode_str_other(bytes, kind)
    }

    /// [`encode_str`](Self::encode_str) of a string for which it returned
    /// [`Emission::Undecided`] (or would): the emission without the prefix form.
    pub(crate) fn encode_str_decided(&mut self, bytes: &[u8], kind: Kind) -> Emission {
        // The deferral is off for this call: one instance of the miss path, which then keeps
        // its inlined lookups (a second instance made them calls).
        let mode = self.cfg.slot_mode;
        self.cfg.slot_mode &= !TEXT;
        let e = self.encode_str_other(bytes, kind);
        self.cfg.slot_mode = mode;
        e
    }

    /// [`encode_str`](Self::encode_str) for every other value. A string that is not in the
    /// table of a session that keeps per-field strings is [`Emission::Undecided`]: only on
    /// this path, so other sessions' strings pay one test per miss and nothing else.
    #[inline(never)]
    fn encode_str_other(&mut self, bytes: &[u8], kind: Kind) -> Emission {
        if bytes.len() >= self.cfg.min_intern {
            let miss = match self.table.find_or_hash(bytes, kind) {
                Ok(id) => return self.encode_ref(id, inline_len(bytes.len(), kind)),
                Err(miss) => miss,
            };
            if self.defers(kind) {
                return Emission::Undecided;
            }
            self.counts.misses += 1;
            if self.may_intern(bytes.len()) && self.admits(bytes, kind) {
                let id = self.table.push_hashed(bytes, kind, miss);
                self.defined(id);
                if self.admit.is_some() {
                    self.used.push(0);
                    debug_assert_eq!(self.used.len(), self.own_entries() as usize);
                }
                return Emission::Intern;
            }
        } else if self.cfg.short_base
            && let Some(id) = self.table.find_in_base(bytes, kind)
        {
            // Never interned, but a dictionary entry: its reference (if shorter).
            return self.encode_ref(id, inline_len(bytes.len(), kind));
        } else if self.defers(kind) {
            return Emission::Undecided;
        }
        self.pred.reset_last();
        Emission::Inline
    }

    /// Whether a string of `kind` not in the table is [`Emission::Undecided`]: strings in a
    /// session that keeps per-field strings.
    #[inline(always)]
    fn defers(&self, kind: Kind) -> bool {
        self.cfg.slot_mode & TEXT != 0 && kind == Kind::Str
    }

    /// A reference to `id` is written or read: counted, and (encoder sessions) marked used.
    #[inline(always)]
    fn hit(&mut self, id: u32) {
        self.counts.hits += 1;
        // `used` has a slot per own entry; a dictionary id wraps to no slot.
        let own = id.wrapping_sub(self.table.base_len());
        if let Some(u) = self.used.get_mut(own as usize) {
            *u = 1;
        }
    }

    /// Whether a new value is interned now: always, unless the session learned second
    /// sight and this is the value's first sighting.
    #[inline]
    fn admits(&mut self, bytes: &[u8], kind: Kind) -> bool {
        match self.admit.as_deref_mut() {
            Some(a) if a.second_sight => a.sighted(fingerprint(bytes, kind == Kind::Bin)),
            _ => true,
        }
    }

    fn encode_ref(&mut self, id: u32, inline: usize) -> Emission {
        let last = self.pred.last();
        if last == Some(id) {
            self.hit(id);
            self.pred.repeat(id);
            return Emission::Repeat;
        }
        let e = if id < 128 {
            Emission::Ref(id)
        } else if self.has(Features::PAIR_PRED)
            && last.and_then(|l| self.pred.pair_after(l)) == Some(id)
        {
            Emission::Pair
        } else if self.has(Features::MTF)
            && let Some(rank) = self.pred.rank_of(id)
            && uvarint_len(rank) < uvarint_len(id as u64)
        {
            Emission::Mtf(rank as u8)
        } else {
            Emission::Ref(id)
        };
        if e.wire_len(0) > inline {
            self.pred.reset_last();
            return Emission::Inline;
        }
        self.hit(id);
        self.pred.touch(id);
        e
    }

    /// Can the encoder open one more shape declaration within its caps?
    pub(crate) fn may_declare_shape(&self) -> bool {
        let shapes = self.shapes.len() as u64 + self.shapes.open_count() as u64;
        shapes < self.cfg.shape_cap as u64
            && self.shapes.charged() + SHAPE_DECL_RESERVE <= self.cfg.byte_cap
    }

    // ---- decoder ------------------------------------------------------------------------

    fn define_unchecked(&mut self, bytes: &[u8], kind: Kind) -> u32 {
        let id = self.table.push(bytes, kind);
        self.defined(id);
        id
    }

    /// The predictor's update for the entry `id` just pushed.
    #[inline]
    fn defined(&mut self, id: u32) {
        self.pred.grow(self.table.len());
        self.pred.touch(id);
    }

    /// `E0`/`E2` read: defines the next id. Errors with [`ErrorCode::SessionCap`] if the
    /// peer exceeds this side's entry or byte cap.
    pub(crate) fn define(&mut self, bytes: &[u8], kind: Kind) -> Result<u32> {
        if self.table.len() >= self.cfg.entry_cap {
            return Err(Error::new(ErrorCode::SessionCap {
                what: "intern table entries",
                cap: self.cfg.entry_cap.into(),
                limit: "max_intern_entries",
            }));
        }
        if self.table.byte_len() + bytes.len() as u64 > self.cfg.byte_cap {
            return Err(Error::new(ErrorCode::SessionCap {
                what: "intern table bytes",
                cap: self.cfg.byte_cap,
                limit: "max_intern_bytes",
            }));
        }
        self.counts.misses += 1;
        Ok(self.define_unchecked(bytes, kind))
    }

    /// A plain string or bytes was read or written: `lastID` becomes invalid.
    #[inline]
    pub(crate) fn note_inline(&mut self) {
        self.pred.reset_last();
    }

    /// Reads the payload of reference tag `tag` (`E1`, `E8`, `E9` or `EA`) from the front of
    /// `buf`, applies the state update, and returns the id and the payload bytes used.
    ///
    /// Errors: [`ErrorCode::UnknownStateId`] for an id, rank or prediction the state does
    /// not hold (ranks ≥ 128 included), [`ErrorCode::BadCodec`] for a pair rank other than
    /// 0, varint errors, and [`ErrorCode::BadTag`] for any other tag.
    #[inline]
    pub(crate) fn resolve(&mut self, tag: u8, buf: &[u8]) -> Result<(u32, usize)> {
        // The common cases inline: `E1` with a one- or two-byte id, `EA 00` with a pair
        // prediction, `E9` with a one-byte rank the ring holds; everything else (and every
        // error) goes through `resolve_other`, which applies the full rules.
        let hit = match (tag, buf) {
            (tags::STATE_REF, &[b, ..]) if b < 0x80 => Some((b as u32, 1)),
            (tags::STATE_REF, &[b0, b1, ..]) if (1..0x80).contains(&b1) => {
                Some(((b0 & 0x7F) as u32 | (b1 as u32) << 7, 2))
            }
            (tags::PAIR, &[0, ..]) => self
                .pred
                .last()
                .and_then(|last| self.pred.pair_after(last))
                .map(|id| (id, 1)),
            (tags::MTF, &[r, ..]) if r < 0x80 => self.pred.ring_at(r as u64).map(|id| (id, 1)),
            _ => None,
        };
        if let Some((id, used)) = hit
            && id < self.table.len()
        {
            self.counts.hits += 1;
            self.pred.touch(id);
            return Ok((id, used));
        }
        self.resolve_other(tag, buf)
    }

    /// The state update of `E1 id` with a one-byte `id` below [`entries`](Self::entries)
    /// (what [`resolve`](Self::resolve) does for it; callers that tested this themselves
    /// skip the rest).
    #[inline(always)]
    pub(crate) fn resolve_short(&mut self, id: u32) {
        debug_assert!(id < 0x80 && id < self.table.len());
        self.counts.hits += 1;
        self.pred.touch(id);
    }

    /// [`resolve`](Self::resolve) for every other reference (and every error).
    #[inline(never)]
    fn resolve_other(&mut self, tag: u8, buf: &[u8]) -> Result<(u32, usize)> {
        let r = self.resolve_rules(tag, buf);
        if r.is_ok() {
            self.counts.hits += 1;
        }
        r
    }

    /// The full reference rules of [`resolve`](Self::resolve).
    fn resolve_rules(&mut self, tag: u8, buf: &[u8]) -> Result<(u32, usize)> {
        match tag {
            tags::STATE_REF => {
                let (id, used) = read_uvarint(buf)?;
                if id >= self.table.len() as u64 {
                    return Err(Error::new(ErrorCode::UnknownStateId(id)));
                }
                self.pred.touch(id as u32);
                Ok((id as u32, used))
            }
            tags::REPEAT => {
                let id = self.last_or_err()?;
                self.pred.repeat(id);
                Ok((id, 0))
            }
            tags::MTF => {
                let (rank, used) = read_uvarint(buf)?;
                let id = self
                    .pred
                    .ring_at(rank)
                    .ok_or_else(|| Error::new(ErrorCode::UnknownStateId(rank)))?;
                self.pred.touch(id);
                Ok((id, used))
            }
            tags::PAIR => {
                let (rank, used) = read_uvarint(buf)?;
                if rank != 0 {
                    return Err(Error::new(ErrorCode::BadCodec("pair rank must be 0")));
                }
                let last = self.last_or_err()?;
                let id = self
                    .pred
                    .pair_after(last)
                    .ok_or_else(|| Error::new(ErrorCode::UnknownStateId(last as u64)))?;
                self.pred.touch(id);
                Ok((id, used))
            }
            found => Err(Error::new(ErrorCode::BadTag {
                found,
                expected: "a Dense reference (E1, E8, E9, EA)",
            })),
        }
    }

    fn last_or_err(&self) -> Result<u32> {
        // No valid lastID: the id the peer meant is unknown; u64::MAX stands for "none".
        // `ok_or_else`: the error is boxed, and this runs for every E8/EA reference.
        self.pred
            .last()
            .ok_or_else(|| Error::new(ErrorCode::UnknownStateId(u64::MAX)))
    }

    /// The bytes and kind of entry `id` (ids from [`define`](Self::define) or
    /// [`resolve`](Self::resolve) are defined); `None` from a decoder that does not keep
    /// the bytes (one body's, whose references are all served from the input).
    #[inline(always)]
    pub(crate) fn entry(&self, id: u32) -> Option<(&[u8], Kind)> {
        self.table.get(id)
    }

    // ---- shapes (both sides) --------------------------------------------------------------

    /// The shape table.
    #[inline]
    pub(crate) fn shapes(&self) -> &ShapeTable {
        &self.shapes
    }

    /// Opens a shape declaration (`EC 00 N` written or read).
    pub(crate) fn begin_shape(&mut self) {
        self.shapes.begin_decl();
    }

    /// The next field name of the innermost open declaration.
    pub(crate) fn shape_name(&mut self, name: &[u8]) {
        self.shapes.decl_name(name);
    }

    /// Completes the innermost declaration; see [`ShapeTable::end_decl`] for the caps.
    pub(crate) fn end_shape(&mut self) -> Result<u32> {
        self.shapes.end_decl(self.cfg.shape_cap, self.cfg.byte_cap)
    }

    // ---- column shapes (both sides) ------------------------------------------------------

    /// The column-shape table of columnar containers.
    #[inline]
    pub(crate) fn col_shapes(&self) -> &ColShapes {
        &self.col_shapes
    }

    /// Can the encoder declare one more column shape within its caps?
    pub(crate) fn may_declare_col_shape(&self) -> bool {
        (self.col_shapes.len() as u64) < self.cfg.shape_cap as u64
            && self.col_shapes.charged() + SHAPE_DECL_RESERVE <= self.cfg.byte_cap
    }

    /// Defines the next column shape (`EF`/`F7` declaration written or read); `SessionCap`
    /// beyond this side's caps.
    pub(crate) fn define_col_shape(&mut self, cols: &[(&[u8], u8)], encoder: bool) -> Result<u32> {
        self.col_shapes
            .define(cols, self.cfg.shape_cap, self.cfg.byte_cap, encoder)
    }

    // ---- per-field numbers (both sides) ---------------------------------------------------

    /// Whether this side keeps per-field numeric state (`docs/SPEC.md` §15.2).
    #[inline(always)]
    pub(crate) fn tracks_numbers(&self) -> bool {
        self.nums.is_some()
    }

    /// Encoder: the value of slot `k` was just written plain at `out[at..]`; see
    /// [`NumSlots::encode`].
    #[inline]
    pub(crate) fn encode_num(&mut self, out: &mut Vec<u8>, at: usize, k: usize) {
        if let Some(n) = self.nums.as_deref_mut() {
            n.encode(out, at, k);
        }
    }

    /// Decoder: the plain number `v` was read as the value of slot `k`.
    #[inline]
    pub(crate) fn observe_num(&mut self, k: usize, v: NumVal) {
        if let Some(n) = self.nums.as_deref_mut() {
            n.observe(k, v);
        }
    }

    /// Decoder: the predicted form `tag` (consumed), payload at the front of `buf`, as the
    /// value of slot `k`; the value and the payload bytes used. Errors as
    /// [`NumSlots::decode`], and [`ErrorCode::BadTag`] on a side that keeps no state.
    pub(crate) fn decode_num(&mut self, k: usize, tag: u8, buf: &[u8]) -> Result<(NumVal, usize)> {
        match self.nums.as_deref_mut() {
            Some(n) => n.decode(k, tag, buf),
            None => Err(Error::new(ErrorCode::BadTag {
                found: tag,
                expected: "a value (predicted numbers need a session)",
            })),
        }
    }

    /// The decimal exponent the slot `k` keeps (`docs/SPEC.md` §15.2; 0 on a side that
    /// keeps no state).
    pub(crate) fn num_exp(&self, k: usize) -> u8 {
        self.nums.as_deref().map_or(0, |n| n.exp(k))
    }

    // ---- per-field strings (both sides) ---------------------------------------------------

    /// Whether this side keeps per-field strings (`docs/SPEC.md` §15.3).
    #[inline(always)]
    pub(crate) fn tracks_texts(&self) -> bool {
        self.texts.is_some()
    }

    /// The slot state of this side as shape cursors and accesses keep it: the
    /// [`slot_class`] bits whose values have slots, 0 without slot state, [`NUM_CLASSES`]
    /// with per-field numbers, and [`TEXT`] too with per-field strings.
    #[inline(always)]
    pub(crate) fn slot_mode(&self) -> u8 {
        self.cfg.slot_mode
    }

    /// Recomputes [`slot_mode`](Self::slot_mode) after `nums` or `texts` changed.
    fn set_slot_mode(&mut self) {
        self.cfg.slot_mode = match (
            self.nums.is_some() || self.texts.is_some(),
            self.texts.is_some(),
        ) {
            (false, _) => 0,
            (true, false) => NUM_CLASSES,
            (true, true) => NUM_CLASSES | TEXT,
        };
    }

    /// The text of slot `k` ([`Text::Empty`] on a side that keeps none).
    #[inline]
    pub(crate) fn slot_text(&self, k: usize) -> Text {
        self.texts.as_deref().map_or(Text::Empty, |t| t.get(k))
    }

    /// The bytes of an own text of [`slot_text`](Self::slot_text).
    pub(crate) fn own_text(&self, off: u32, len: u32) -> &[u8] {
        self.texts.as_deref().map_or(&[], |t| t.own(off, len))
    }

    /// Encoder: the value of text slot `k` is written from `out[at]` on; a string written
    /// there is the whole value.
    #[inline(always)]
    pub(crate) fn set_text_slot(&mut self, at: usize, k: usize) {
        if let Some(t) = self.texts.as_deref_mut() {
            t.pending = (at, k);
        }
    }

    /// Encoder: the text slot whose whole value a string written at `out[at]` is, if any
    /// (and none after this).
    #[inline]
    pub(crate) fn take_text_slot(&mut self, at: usize) -> Option<usize> {
        let t = self.texts.as_deref_mut()?;
        let (from, k) = std::mem::replace(&mut t.pending, NO_TEXT_SLOT);
        (from == at).then_some(k)
    }

    /// Slot `k`'s value was the string `bytes`, written inline or as a prefix form: the
    /// slot keeps its own copy (within the live bound).
    pub(crate) fn observe_own_text(&mut self, k: usize, bytes: &[u8]) {
        if let Some(t) = self.texts.as_deref_mut() {
            t.set_own(k, bytes);
        }
    }

    /// Slot `k`'s value was just read or written as a string definition (`E0`, `F2 0C`):
    /// the entry is `lastID` now and becomes the slot's text (`docs/SPEC.md` §15.3; a
    /// reference leaves the text, and a bytes entry is no text).
    pub(crate) fn observe_def_text(&mut self, k: usize) {
        if let Some(t) = self.texts.as_deref_mut()
            && let Some(id) = self.pred.last()
            && self.table.kind(id) == Some(Kind::Str)
        {
            t.set_entry(k, id);
        }
    }

    /// Slot `k`'s value was the hex text token at the front of `b` (`F2 0B`/`F2 0C`,
    /// `docs/SPEC.md` §9), just read or written: a definition makes its entry the slot's
    /// text, as `E0` does; an inline one gives the slot its string (the printed digits) as
    /// own bytes, as an inline string does (§15.3). Anything else leaves the slot.
    pub(crate) fn observe_hex_text(&mut self, k: usize, b: &[u8]) {
        match crate::wire::hex::token(b) {
            Some((true, _, _)) => self.observe_def_text(k),
            Some((false, packed, upper)) => {
                if let Some(t) = self.texts.as_deref_mut() {
                    // Its own `extend` instance (the identity `map`): sharing the hex
                    // columns' one changed how that one compiled (+0.3 % Logs decode).
                    #[allow(clippy::map_identity)]
                    t.set_own_with(k, 2 * packed.len(), |a| {
                        a.extend(crate::wire::hex::digits(packed, upper).map(|d| d));
                    });
                }
            }
            None => {}
        }
    }

    /// Encoder: the string `bytes` is the whole value of text slot `k` and is about to be
    /// written. If it is not in the intern table, was not seen before (the admission filter,
    /// first sighting), keeps at least [`PREFIX_MIN`] bytes of the slot's text, and the prefix
    /// form is strictly shorter than the inline form, writes `F2 0D uvarint(p) s` instead of a definition (a URL with a new
    /// id is seldom seen again; a value that comes back is interned on its second sighting,
    /// so low-cardinality fields keep their references), applies its state updates (an
    /// inline string for §14.1; the slot's text) and returns `true`; else changes nothing
    /// (but the filter) and returns `false`.
    pub(crate) fn encode_prefix(&mut self, out: &mut Vec<u8>, bytes: &[u8], k: usize) -> bool {
        let Some(texts) = self.texts.as_deref_mut() else {
            return false;
        };
        let p = match texts.get(k) {
            Text::Empty => return false,
            Text::Entry(id) => self
                .table
                .get(id)
                .map_or(0, |(last, _)| text::common_prefix(last, bytes)),
            Text::Own { off, len } => text::common_prefix(texts.own(off, len), bytes),
        };
        let rest = bytes.len() - p;
        // Only a string that keeps a long part of its field's last one skips its definition:
        // a shorter match is often a value that recurs, whose references later are worth
        // more (measured on the README's datasets: no stream grew).
        if p < PREFIX_MIN {
            return false;
        }
        if p == 0
            || 2 + uvarint_len(p as u64) + inline_len(rest, Kind::Str)
                >= inline_len(bytes.len(), Kind::Str)
            || self.table.find(bytes, Kind::Str).is_some()
        {
            return false;
        }
        // A value seen before recurs: it is interned (and referenced later) as usual. The
        // admission filter of §18 remembers the first sighting (its fingerprint is stored).
        if let Some(a) = self.admit.as_deref_mut()
            && a.sighted(fingerprint(bytes, false))
        {
            return false;
        }
        texts.set_own(k, bytes);
        out.extend_from_slice(&[tags::EXT, crate::wire::ext::TEXT_PREFIX]);
        write_uvarint(out, p as u64);
        let head = crate::wire::form::header_bytes(crate::wire::form::Header::Str, rest)
            .expect("shorter than the string");
        out.extend_from_slice(head.as_slice());
        out.extend_from_slice(&bytes[p..]);
        self.pred.reset_last();
        if bytes.len() >= self.cfg.min_intern {
            self.counts.misses += 1;
        }
        true
    }

    /// Encoder: the value of slot `k` was just written at `out[at..]` and starts with an
    /// inline string, a string definition or hex text. Updates the slot's text (`docs/SPEC.md` §15.3) and, for an
    /// inline string, rewrites it in place as `F2 0D uvarint(p) s` when that is strictly
    /// shorter (`p`: the longest common prefix with the slot's last text, at a character
    /// boundary).
    #[inline(never)]
    pub(crate) fn encode_text(&mut self, out: &mut Vec<u8>, at: usize, k: usize) {
        let Some(texts) = self.texts.as_deref_mut() else {
            return;
        };
        if out[at] == tags::INTERN_STR {
            return self.observe_def_text(k);
        }
        if out[at] == tags::EXT {
            return self.observe_hex_text(k, &out[at..]);
        }
        let Some((h, len)) = inline_str(&out[at..]) else {
            return;
        };
        debug_assert_eq!(at + h + len, out.len(), "a string value is one token");
        let bytes = &out[at + h..at + h + len];
        let p = match texts.get(k) {
            Text::Empty => 0,
            Text::Entry(id) => self
                .table
                .get(id)
                .map_or(0, |(last, _)| text::common_prefix(last, bytes)),
            Text::Own { off, len } => text::common_prefix(texts.own(off, len), bytes),
        };
        texts.set_own(k, bytes);
        if p == 0 {
            return;
        }
        let rest = len - p;
        let cost = 2 + uvarint_len(p as u64) + inline_len(rest, Kind::Str);
        if cost >= h + len {
            return;
        }
        // Shorter than the token it replaces: the suffix moves left, then the head goes in.
        let head = crate::wire::form::header_bytes(crate::wire::form::Header::Str, rest)
            .expect("shorter than a string already written");
        let suffix_at = at + 2 + uvarint_len(p as u64) + head.len;
        out.copy_within(at + h + p..at + h + len, suffix_at);
        out[at] = tags::EXT;
        out[at + 1] = crate::wire::ext::TEXT_PREFIX;
        let n = numeric::put_uvarint(&mut out[at + 2..], p as u64);
        out[at + 2 + n..suffix_at].copy_from_slice(head.as_slice());
        out.truncate(at + cost);
    }

    // ---- encoder checkpoints ------------------------------------------------------------

    /// Records the state before an encoder message. Nested checkpoints are not supported.
    /// Inline: one call a message.
    #[inline]
    pub(crate) fn checkpoint(&mut self) {
        let pred = self.pred.mark();
        self.shape_pred.mark();
        // Texts first: the numbers' step stays last, as before per-field strings.
        if let Some(t) = self.texts.as_deref_mut() {
            t.mark();
        }
        if let Some(n) = self.nums.as_deref_mut() {
            n.mark();
        }
        self.mark = Some(Mark {
            table_len: self.table.len(),
            hits: self.counts.hits,
            misses: self.counts.misses,
            pred,
            shapes: self.shapes.mark(),
            col_shapes: self.col_shapes.mark(),
        });
    }

    /// Starts a trial: a mark inside the message (and inside an open checkpoint, or not),
    /// so the encoder can write one form of a value, measure it, and go back to write
    /// another (`columnar::write`). Trials nest; each ends with [`trial_keep`] or
    /// [`trial_rollback`], innermost first. The admission filter is not restored: it only
    /// steers the encoder's choices, it is not mirrored.
    ///
    /// [`trial_keep`]: Self::trial_keep
    /// [`trial_rollback`]: Self::trial_rollback
    pub(crate) fn trial(&mut self) -> Trial {
        Trial {
            table_len: self.table.len(),
            hits: self.counts.hits,
            misses: self.counts.misses,
            pred: self.pred.trial(),
            shapes: self.shapes.mark(),
            shape_pred: self.shape_pred.trial(),
            col_shapes: self.col_shapes.mark(),
            nums: self.nums.as_deref_mut().map(NumSlots::trial),
            texts: self.texts.as_deref_mut().map(TextSlots::trial),
        }
    }

    /// Keeps the changes since trial `t`.
    pub(crate) fn trial_keep(&mut self, t: Trial) {
        self.pred.trial_keep(t.pred);
        self.shape_pred.trial_keep(t.shape_pred);
        if let (Some(n), Some(m)) = (self.nums.as_deref_mut(), t.nums) {
            n.trial_keep(m);
        }
        if let (Some(x), Some(m)) = (self.texts.as_deref_mut(), t.texts) {
            x.trial_keep(m);
        }
    }

    /// Restores the state of trial `t` exactly.
    pub(crate) fn trial_rollback(&mut self, t: Trial) {
        self.table.truncate(t.table_len);
        // `used` holds the session's own entries only: ids above the dictionary base.
        self.used
            .truncate((t.table_len - self.table.base_len()) as usize);
        self.counts.hits = t.hits;
        self.counts.misses = t.misses;
        self.pred.trial_rollback(t.pred);
        self.shapes.rollback(&t.shapes);
        self.shape_pred
            .trial_rollback(t.shape_pred, self.shapes.len());
        self.col_shapes.rollback(&t.col_shapes);
        if let (Some(n), Some(m)) = (self.nums.as_deref_mut(), t.nums) {
            n.trial_rollback(m);
        }
        if let (Some(x), Some(m)) = (self.texts.as_deref_mut(), t.texts) {
            x.trial_rollback(m);
        }
    }

    /// Keeps every change since [`checkpoint`](Self::checkpoint).
    pub(crate) fn commit(&mut self) {
        self.mark = None;
        self.pred.commit();
        self.shape_pred.commit();
        if let Some(t) = self.texts.as_deref_mut() {
            t.commit();
        }
        if let Some(n) = self.nums.as_deref_mut() {
            n.commit();
        }
    }

    /// Restores the state of the last [`checkpoint`](Self::checkpoint) exactly.
    pub(crate) fn rollback(&mut self) {
        let Some(mark) = self.mark.take() else {
            return;
        };
        self.table.truncate(mark.table_len);
        self.used
            .truncate((mark.table_len - self.table.base_len()) as usize);
        self.counts.hits = mark.hits;
        self.counts.misses = mark.misses;
        self.pred.rollback(&mark.pred, mark.table_len);
        self.shapes.rollback(&mark.shapes);
        self.shape_pred.rollback(self.shapes.len());
        self.col_shapes.rollback(&mark.col_shapes);
        if let Some(n) = self.nums.as_deref_mut() {
            n.rollback();
        }
        if let Some(t) = self.texts.as_deref_mut() {
            t.rollback();
        }
    }

    // ---- renewal (both sides) -------------------------------------------------------------

    /// Renewals applied so far (the generation number of the current state).
    #[inline]
    pub(crate) fn generation(&self) -> u64 {
        self.counts.renewals
    }

    /// Clears everything the peer mirrors — intern table, `lastID`, ring, pair table,
    /// shapes, column shapes — keeping the allocations (`docs/SPEC.md` §18). Outside a
    /// checkpoint. The encoder first remembers its referenced entries in the admission
    /// filter, so hot values are interned again on first sight.
    pub(crate) fn renew(&mut self) {
        debug_assert!(self.mark.is_none());
        if let Some(a) = self.admit.as_deref_mut() {
            // Ids below 128 are remembered whatever their mark: the encoder's fast path
            // does not mark them.
            let base = self.table.base_len();
            for (own, &u) in self.used.iter().enumerate() {
                let id = base + own as u32;
                if (u != 0 || id < 128)
                    && let Some((bytes, kind)) = self.table.get(id)
                {
                    a.remember(fingerprint(bytes, kind == Kind::Bin));
                }
            }
        }
        self.counts.evictions += u64::from(self.own_entries());
        self.table.clear();
        self.used.clear();
        self.pred.renew();
        self.shapes.clear();
        self.shape_pred.renew();
        self.col_shapes.clear();
        if let Some(n) = self.nums.as_deref_mut() {
            n.clear();
        }
        if let Some(t) = self.texts.as_deref_mut() {
            t.clear();
        }
    }

    /// Decoder: applies the renewal `FF uvarint(generation)` at the front of `body`
    /// (`docs/SPEC.md` §18): checks that the generation is the next one and empties the
    /// state. Returns the bytes it took. Errors, body-relative: the uvarint's (at 1) and
    /// [`ErrorCode::BadRenewal`] at 1, with the state untouched.
    pub(crate) fn apply_renewal(&mut self, body: &[u8]) -> Result<usize> {
        let (found, used) =
            read_uvarint(body.get(1..).unwrap_or(&[])).map_err(|e| e.with_offset(1))?;
        let expected = self.generation() + 1;
        if found != expected {
            return Err(Error::at(ErrorCode::BadRenewal { expected, found }, 1));
        }
        self.renew();
        self.renewed();
        Ok(1 + used)
    }

    /// A renewal was applied and is final (the decoder read it; the encoder's frame that
    /// carries it was written).
    pub(crate) fn renewed(&mut self) {
        self.counts.renewals += 1;
        if let Some(a) = self.admit.as_deref_mut() {
            a.pending = false;
            a.next_check = admit::LEARN_AFTER;
            a.checked = u64::MAX;
        }
    }

    /// Encoder: should the next frame carry a renewal? Applies the policy of [`admit`]
    /// (caps near, or admission just learned); a renewal once due stays due until a frame
    /// carries it. Always false without the policy (renewal off, one-shot messages).
    pub(crate) fn renewal_due(&mut self) -> bool {
        let Some(a) = self.admit.as_deref_mut() else {
            return false;
        };
        if a.pending || !a.auto {
            return a.pending;
        }
        // Nothing was defined or declared since the last check: nothing to decide (the
        // common case of a steady stream, one compare).
        let sizes = self.table.len() as u64
            | (self.shapes.len() as u64 + self.col_shapes.len() as u64) << 32;
        if sizes == a.checked {
            return false;
        }
        a.checked = sizes;
        let near = |n: u64, cap: u64| n > 0 && n >= cap - cap / 16;
        let cfg = &self.cfg;
        // Own entries against what the dictionary leaves of the id space: a renewal cannot
        // free the dictionary's ids, so they never make one due.
        let (base, len) = (
            self.table.base_len(),
            self.table.len() - self.table.base_len(),
        );
        if near(
            u64::from(len),
            u64::from(cfg.entry_cap.saturating_sub(base)),
        ) || near(self.table.byte_len(), cfg.byte_cap)
            || near(
                u64::from(self.shapes.own_len()),
                u64::from(
                    cfg.shape_cap
                        .saturating_sub(self.shapes.len() - self.shapes.own_len()),
                ),
            )
            || near(u64::from(self.col_shapes.len()), u64::from(cfg.shape_cap))
            || near(self.shapes.charged(), cfg.byte_cap)
            || near(self.col_shapes.charged(), cfg.byte_cap)
        {
            a.pending = true;
        } else if len >= a.next_check {
            a.next_check = len.saturating_mul(2);
            let used = self
                .used
                .iter()
                .enumerate()
                .filter(|&(own, &u)| u != 0 || base as usize + own < 128)
                .count();
            if !a.second_sight && used * 2 < len as usize {
                a.second_sight = true;
                a.pending = true;
            }
        }
        a.pending
    }

    /// Encoder: asks for a renewal at the next frame (the caller's policy).
    pub(crate) fn request_renewal(&mut self) {
        if let Some(a) = self.admit.as_deref_mut() {
            a.pending = true;
        }
    }
}
