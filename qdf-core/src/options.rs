//! Encode and decode options: the tier (a set of feature bits) and the limits.
//!
//! [`Options`] is a small `Copy` value with builder methods, like `rmp_serde::config`.
//! The three tiers are presets of [`Features`] bits:
//!
//! | tier | preset | features |
//! |---|---|---|
//! | Speed | [`Options::speed`] | none: plain tags |
//! | Balanced (default) | [`Options::balanced`] | `DENSE | QPACK | SHAPE_INTERN | PAIR_PRED | MTF | NUM_STATE | NESTED_COLUMNS | HEX_TEXT | STR_STATE | FLOAT_SPLIT` |
//! | Compression | [`Options::compression`] | Balanced `| FLOAT_XOR | ENTROPY | FSST` |
//!
//! What the encoder writes today: Balanced = intern table, state-ref predictors, struct shapes,
//! QPack sequences (ALP-RD for floats that it shrinks), columnar containers for sequences of ≥ 16 structs and, in sessions only,
//! per-field numbers and strings across messages (`NUM_STATE`, `STR_STATE`, `docs/SPEC.md`
//! §15.2, §15.3); Compression adds the
//! float XOR/decimal codecs (Gorilla, Chimp128, ALP), FSST string columns and, in one-shot
//! messages, entropy-coded blocks (tag `FE`, tANS) around column values and packed sequences
//! that shrink by exact cost. `COLUMN_INDEX`
//! (in no tier) adds a column-length index to columnar containers of one-shot messages.
//! `MAP_SHAPE` (opt-in, in no preset) adds key-set shapes for maps whose first key is a string
//! (`docs/SPEC.md` §15.1). Sessions and streams clear `ENTROPY` (and `COLUMN_INDEX`).
//!
//! Decoding never needs the tier: the wire is self-describing. Decoding reads only the
//! [`Limits`].

/// A set of encoder feature bits, each `1 << n` (see the constants for what each enables).
///
/// Opaque: build sets from the constants with the set operators (`|` union, `&`
/// intersection, `-` difference, `!` complement within the defined bits) or their `const`
/// forms [`with`](Self::with) / [`without`](Self::without), and test them with
/// [`contains`](Self::contains).
///
/// ```
/// use qdf_core::Features;
/// let f = Features::BALANCED | Features::MAP_SHAPE;
/// assert!(f.contains(Features::DENSE | Features::MAP_SHAPE));
/// assert!(!(f - Features::DENSE).contains(Features::DENSE));
/// assert_eq!(f & Features::MAP_SHAPE, Features::MAP_SHAPE);
/// assert_eq!(!Features::NONE, Features::ALL);
/// assert_eq!(f.bits(), 0x7E1F);
/// assert_eq!(Features::from_bits(0x7E1F), Some(f));
/// assert_eq!(Features::from_bits(0x8000), None);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Features(pub(crate) u32);

/// The bits by name, in bit order (`Debug`).
const FEATURE_NAMES: [(&str, Features); 15] = [
    ("DENSE", Features::DENSE),
    ("QPACK", Features::QPACK),
    ("SHAPE_INTERN", Features::SHAPE_INTERN),
    ("PAIR_PRED", Features::PAIR_PRED),
    ("MTF", Features::MTF),
    ("FLOAT_XOR", Features::FLOAT_XOR),
    ("ENTROPY", Features::ENTROPY),
    ("COLUMN_INDEX", Features::COLUMN_INDEX),
    ("FSST", Features::FSST),
    ("MAP_SHAPE", Features::MAP_SHAPE),
    ("NUM_STATE", Features::NUM_STATE),
    ("NESTED_COLUMNS", Features::NESTED_COLUMNS),
    ("HEX_TEXT", Features::HEX_TEXT),
    ("STR_STATE", Features::STR_STATE),
    ("FLOAT_SPLIT", Features::FLOAT_SPLIT),
];

impl std::fmt::Debug for Features {
    /// The set bits by name: `Features(DENSE | QPACK)`, `Features(NONE)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Features(")?;
        let mut sep = "";
        for (name, bit) in FEATURE_NAMES {
            if self.contains(bit) {
                write!(f, "{sep}{name}")?;
                sep = " | ";
            }
        }
        if sep.is_empty() {
            f.write_str("NONE")?;
        }
        f.write_str(")")
    }
}

impl Features {
    /// No features: the Speed tier.
    pub const NONE: Features = Features(0);
    /// Bit 0: the Dense dialect (intern table and state-refs).
    pub const DENSE: Features = Features(1 << 0);
    /// Bit 1: QPack numeric slice codecs.
    pub const QPACK: Features = Features(1 << 1);
    /// Bit 2: shape interning of structs (tag 0xEC); needs `DENSE` (without it structs are
    /// written as plain maps).
    pub const SHAPE_INTERN: Features = Features(1 << 2);
    /// Bit 3: Markov-1 pair predictor (tag 0xEA).
    pub const PAIR_PRED: Features = Features(1 << 3);
    /// Bit 4: move-to-front ring predictor (tag 0xE9).
    pub const MTF: Features = Features(1 << 4);
    /// Bit 5: float XOR and decimal codecs (Gorilla, Chimp128, ALP).
    pub const FLOAT_XOR: Features = Features(1 << 5);
    /// Bit 6: entropy-coded blocks (tag `0xFE`, tANS) around QPack values and string column
    /// blocks that shrink by exact cost; one-shot messages only (`docs/SPEC.md`
    /// §21).
    pub const ENTROPY: Features = Features(1 << 6);
    /// Bit 7: column-length index in columnar containers.
    pub const COLUMN_INDEX: Features = Features(1 << 7);
    /// Bit 8: FSST for high-cardinality string columns.
    pub const FSST: Features = Features(1 << 8);
    /// Bit 9: shape interning of string-keyed maps' key sets (opt-in, needs `DENSE`): a map
    /// whose first key is a string is written as a shape declaration or reuse (tag 0xEC) of
    /// its keys in entry order; later non-string keys are escaped (`docs/SPEC.md` §15.1).
    /// Decoding needs no feature bit.
    pub const MAP_SHAPE: Features = Features(1 << 9);
    /// Bit 10: per-field numeric state in sessions (`docs/SPEC.md` §15.2). A session encoder
    /// with `DENSE` and `SHAPE_INTERN` keeps the last number of every field of its struct
    /// shapes and writes the next one as the predicted value, a delta, a decimal step or a
    /// float XOR when that is shorter. `to_vec` never uses it; decoding needs no feature bit
    /// (every decoder keeps the state: a session's, and `from_slice`'s for the one message,
    /// so a session's first message is also a single message).
    pub const NUM_STATE: Features = Features(1 << 10);
    /// Bit 11: struct and list columns inside columnar containers (child columns of a
    /// column, `docs/SPEC.md` §22.2). Decoders that predate it reject such a container
    /// (the classes were reserved); decoding needs no feature bit.
    pub const NESTED_COLUMNS: Features = Features(1 << 11);
    /// Bit 12: hex text (`docs/SPEC.md` §9). A string value of an even number of hex digits,
    /// all lowercase or all uppercase (OTLP trace ids, Zipkin span ids), is written as
    /// `F2 0B` (inline) or `F2 0C` (an intern definition) in half its length, when that is
    /// strictly shorter than the form it replaces; references stay references. Never with
    /// [`Options::borrowable_strings`], and not for names (struct fields, shapes, columns)
    /// nor inside string columns. Decoding needs no feature bit; a decoder presents the
    /// text as an owned string (a `&str` target cannot borrow it).
    pub const HEX_TEXT: Features = Features(1 << 12);
    /// Bit 13: per-field strings in sessions (`docs/SPEC.md` §15.3). A session encoder with
    /// `DENSE` and `SHAPE_INTERN` sets header flag `40` and keeps the last string of every
    /// field of its struct shapes; a string it would write inline goes out as a prefix of
    /// that string and a new suffix (`F2 0D`) when that is shorter. `to_vec` never uses it;
    /// decoding needs no feature bit (a decoder that predates it refuses the flag,
    /// `BadFlags`). In the Balanced and Compression presets.
    pub const STR_STATE: Features = Features(1 << 13);
    /// Bit 14: ALP-RD float columns (tag `F4`, kinds `0E`/`0F`, `docs/SPEC.md` §19 rule 6):
    /// each value's bits cut in two, the right part bit-packed as it is and the left part
    /// (sign, exponent, a few mantissa bits) through a dictionary of up to 8 entries, for
    /// floats without a decimal form (random, measured, computed: about 3.4 bytes an `f32`
    /// uniform in [−1, 1)). Taken only when strictly smaller than every other float codec
    /// allowed. In the Balanced and Compression presets; decoding needs no feature bit.
    pub const FLOAT_SPLIT: Features = Features(1 << 14);

    /// The Balanced preset, `0x7C1F`: bits 0–4, `NUM_STATE`, `NESTED_COLUMNS`, `HEX_TEXT`,
    /// `STR_STATE` and `FLOAT_SPLIT`.
    pub const BALANCED: Features = Features(0x7C1F);
    /// The Compression preset, `0x7D7F`: Balanced plus `FLOAT_XOR`, `ENTROPY` and `FSST`.
    pub const COMPRESSION: Features = Features(0x7D7F);
    /// Every defined bit, `0x7FFF`.
    pub const ALL: Features = Features(0x7FFF);

    /// The bits as a `u32` (bit `n` is the feature constant `1 << n` above).
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set with these bits, if every one is a defined feature (`bits & !0x7FFF == 0`).
    #[inline]
    pub const fn from_bits(bits: u32) -> Option<Features> {
        if bits & !Features::ALL.0 == 0 {
            Some(Features(bits))
        } else {
            None
        }
    }

    /// True if every bit of `other` is set in `self`.
    #[inline]
    pub const fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }

    /// `self | other`, usable in `const` items.
    #[inline]
    pub const fn with(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// `self - other` (the bits of `other` cleared), usable in `const` items.
    #[inline]
    pub const fn without(self, other: Features) -> Features {
        Features(self.0 & !other.0)
    }
}

impl std::ops::BitOr for Features {
    type Output = Features;
    /// The union.
    fn bitor(self, rhs: Features) -> Features {
        self.with(rhs)
    }
}

impl std::ops::BitOrAssign for Features {
    fn bitor_assign(&mut self, rhs: Features) {
        *self = *self | rhs;
    }
}

impl std::ops::BitAnd for Features {
    type Output = Features;
    /// The intersection.
    fn bitand(self, rhs: Features) -> Features {
        Features(self.0 & rhs.0)
    }
}

impl std::ops::BitAndAssign for Features {
    fn bitand_assign(&mut self, rhs: Features) {
        *self = *self & rhs;
    }
}

impl std::ops::Sub for Features {
    type Output = Features;
    /// The difference: the bits of `self` not in `rhs`.
    fn sub(self, rhs: Features) -> Features {
        self.without(rhs)
    }
}

impl std::ops::SubAssign for Features {
    fn sub_assign(&mut self, rhs: Features) {
        *self = *self - rhs;
    }
}

impl std::ops::Not for Features {
    type Output = Features;
    /// The complement within [`Features::ALL`].
    fn not(self) -> Features {
        Features(!self.0 & Features::ALL.0)
    }
}

/// Strings shorter than this many bytes are never interned.
const DEFAULT_MIN_INTERN: u32 = 4;

/// Every bound a decoder (and the encoder, which refuses what the decoder would refuse)
/// applies: nesting, decoded output, session tables, frame and input sizes.
///
/// One type for every entry point: [`Options`] carries one (`opts.limits`), and the stream
/// codec builder, the gRPC codec's limits and the HTTP extractors read theirs from it.
/// Fields are public to read (`opts.limits.max_depth`); each has a `const` setter of the
/// same name, so a limits value can be built in a `const` item:
///
/// ```
/// use qdf_core::{Limits, Options};
/// const TIGHT: Limits = Limits::DEFAULT.max_depth(32).max_intern_bytes(256 << 10);
/// let opts = Options::balanced().limits(TIGHT);
/// assert_eq!(opts.limits.max_depth, 32);
/// assert_eq!(opts.limits.max_intern_entries, 65_535); // the rest keep their defaults
/// ```
///
/// # Defaults
///
/// [`Limits::DEFAULT`] (also `Limits::default()`): depth 128; decoded output 64 MiB, or 64
/// units per body byte above 1 MiB of body; per session 65 535 intern entries (the wire's
/// most), 4 MiB of interned bytes and 4 096 shapes; frames up to 8 MiB; `from_reader` input
/// up to 64 MiB. The session caps bound what one connection's decoder holds (a few MiB per
/// direction) while keeping the intern hit rate of long streams: lower caps make the encoder
/// renew its session sooner (`docs/SPEC.md` §18) and send hot values again.
///
/// [`Limits::MANY_STREAMS`] is the smaller preset for servers that hold many concurrent
/// streams (the gRPC codec's default): 16 384 entries, 1 MiB of interned bytes and 1 024
/// shapes, so one stream direction stays near a megabyte however long it lives; a stream of
/// telemetry batches typically interns a few hundred distinct names, well under these.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// Nesting limit (containers deep), counted per container identically on encode and
    /// decode; default 128.
    ///
    /// The limit is also what keeps the stack bounded: decoding into [`Value`](crate::Value),
    /// encoding one, and its `Clone` and `PartialEq` recurse once per level (decoding into
    /// `Value` takes roughly half a KiB of stack a level in release builds, so about 2 000
    /// levels overflow a 1 MiB stack). Raise the limit only as far as the thread's stack
    /// allows: a 2 MiB tokio worker holds a few thousand levels, not `u32::MAX`. Dropping a
    /// deep `Value` does not recurse.
    pub max_depth: u32,
    /// The decoded-output limit of every message (and session frame), in units, for decode
    /// and encode alike; `None` (default) applies the rule of
    /// [`output_budget`](Self::output_budget).
    ///
    /// Decoded output is counted as `docs/SPEC.md` §13 defines it: a unit per byte of every
    /// string and byte string handed out (inline or interned, each time it is referenced), per
    /// array element and per map or struct entry, 8 per packed (QPack or column) element, 8
    /// per row of a columnar container. The decoder fails with [`ErrorCode::OutputLimit`]
    /// before it would pass the limit; the encoder counts the same units and refuses, with the
    /// same error, a message that the decoder would refuse under the same options. The limit
    /// bounds work and allocation, not what a message may mean: a borrowed `&str` target or a
    /// skipped field is charged like an owned one.
    ///
    /// [`ErrorCode::OutputLimit`]: crate::ErrorCode::OutputLimit
    pub max_output: Option<u64>,
    /// Intern table entries of a session (default 65 535, the wire maximum). The encoder
    /// stops interning at its cap; the decoder rejects a peer above its cap
    /// ([`ErrorCode::SessionCap`](crate::ErrorCode::SessionCap)).
    pub max_intern_entries: u32,
    /// Bytes held by a session's intern table (default 4 MiB): the entries' contents. The
    /// shape table and the column-shape table are each charged against the same cap
    /// separately (a field name costs its length + 4 bytes, a column's name its length + 5).
    /// At its cap the encoder writes new strings inline and new structs without a new shape
    /// (ids already defined stay usable; a session with renewal on renews first,
    /// `docs/SPEC.md` §18); a decoder whose peer defines past it fails with
    /// [`ErrorCode::SessionCap`](crate::ErrorCode::SessionCap) (`Limit`).
    pub max_intern_bytes: u64,
    /// Shapes (struct field-name lists, map key sets) of a session (default 4 096), and,
    /// counted separately, column shapes of columnar containers. At the cap the encoder writes
    /// structs with their field names (row by row, no new container shape); a decoder whose
    /// peer declares past it fails with [`ErrorCode::SessionCap`](crate::ErrorCode::SessionCap)
    /// (`Limit`).
    pub max_shapes: u32,
    /// The largest frame body a session writes or accepts, in bytes (default 8 MiB). A larger
    /// outgoing value fails with [`ErrorCode::FrameTooLarge`](crate::ErrorCode::FrameTooLarge)
    /// before any byte is written; a larger incoming length prefix fails as soon as it
    /// arrives.
    pub max_frame_length: usize,
    /// The most bytes [`from_reader`](crate::from_reader) reads (default 64 MiB): it reads at
    /// most one byte more, and a longer input fails with
    /// [`ErrorCode::InputTooLarge`](crate::ErrorCode::InputTooLarge) (`Limit`) without
    /// being decoded.
    pub max_input: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

impl Limits {
    /// Decoded-output limit of a message of up to 1 MiB of body: 64 MiB, the way a server
    /// bounds request bodies (see [`output_budget`](Self::output_budget)).
    const OUTPUT_FLOOR: u64 = 64 << 20;
    /// Decoded-output units allowed per body byte of longer messages: 64, the most any form
    /// without repetition charges per byte (a packed bool or 1-bit integer: 8 units for 1
    /// bit), so a long message is never refused for its size alone.
    const OUTPUT_FACTOR: u64 = 64;

    /// The defaults (see the type's docs).
    pub const DEFAULT: Limits = Limits {
        max_depth: 128,
        max_output: None,
        max_intern_entries: 0xFFFF,
        max_intern_bytes: 4 << 20,
        max_shapes: 4096,
        max_frame_length: 8 << 20,
        max_input: 64 << 20,
    };

    /// Smaller session caps for servers holding many concurrent streams (16 384 intern
    /// entries, 1 MiB of interned bytes, 1 024 shapes; the rest as [`DEFAULT`](Self::DEFAULT)):
    /// the default of the gRPC codec.
    pub const MANY_STREAMS: Limits = Limits {
        max_intern_entries: 16_384,
        max_intern_bytes: 1 << 20,
        max_shapes: 1024,
        ..Limits::DEFAULT
    };

    /// Sets [`max_depth`](Self#structfield.max_depth).
    pub const fn max_depth(mut self, depth: u32) -> Limits {
        self.max_depth = depth;
        self
    }

    /// Fixes [`max_output`](Self#structfield.max_output) at `units`.
    pub const fn max_output(mut self, units: u64) -> Limits {
        self.max_output = Some(units);
        self
    }

    /// Sets [`max_intern_entries`](Self#structfield.max_intern_entries).
    pub const fn max_intern_entries(mut self, n: u32) -> Limits {
        self.max_intern_entries = n;
        self
    }

    /// Sets [`max_intern_bytes`](Self#structfield.max_intern_bytes).
    pub const fn max_intern_bytes(mut self, n: u64) -> Limits {
        self.max_intern_bytes = n;
        self
    }

    /// Sets [`max_shapes`](Self#structfield.max_shapes).
    pub const fn max_shapes(mut self, n: u32) -> Limits {
        self.max_shapes = n;
        self
    }

    /// Sets [`max_frame_length`](Self#structfield.max_frame_length).
    pub const fn max_frame_length(mut self, bytes: usize) -> Limits {
        self.max_frame_length = bytes;
        self
    }

    /// Sets [`max_input`](Self#structfield.max_input).
    pub const fn max_input(mut self, bytes: u64) -> Limits {
        self.max_input = bytes;
        self
    }

    /// The decoded-output limit of a message whose body (header and frame length excluded)
    /// is `input_len` bytes long: [`max_output`](Self#structfield.max_output) if set, else
    /// `max(64 MiB, 64 × input_len)` (64 units per body byte above 1 MiB of body).
    pub const fn output_budget(&self, input_len: u64) -> u64 {
        match self.max_output {
            Some(b) => b,
            None => {
                let scaled = input_len.saturating_mul(Self::OUTPUT_FACTOR);
                if scaled > Self::OUTPUT_FLOOR {
                    scaled
                } else {
                    Self::OUTPUT_FLOOR
                }
            }
        }
    }
}

/// Encode tier, encoder settings and decode [`Limits`]. `Default` is [`Options::balanced`].
///
/// # Reading and setting
///
/// Every setting is a public field, read by name, and set by the method of the same name,
/// which takes and returns the options by value (so presets chain, also in `const` items):
///
/// | setting | read | set |
/// |---|---|---|
/// | feature bits | `opts.features` | [`features(f)`](Self::features) |
/// | all limits | `opts.limits` | [`limits(l)`](Self::limits) |
/// | one limit | `opts.limits.max_depth` … | [`max_depth(n)`](Self::max_depth) … (or on [`Limits`]) |
/// | `min_intern` | `opts.min_intern` | [`min_intern(n)`](Self::min_intern) |
/// | `deny_duplicate_keys` | `opts.deny_duplicate_keys` | [`deny_duplicate_keys(b)`](Self::deny_duplicate_keys) |
/// | `borrowable_strings` | `opts.borrowable_strings` | [`borrowable_strings(b)`](Self::borrowable_strings) |
/// | `session_renewal` | `opts.session_renewal` | [`session_renewal(b)`](Self::session_renewal) |
///
/// The adapters follow the same rule: their builders set limits by these names, and what
/// they built reports its [`Limits`].
///
/// ```
/// use qdf_core::{Features, Options};
/// let o = Options::speed().max_depth(64).max_output(16 << 20);
/// assert_eq!(o.limits.max_depth, 64);
/// assert_eq!(o.limits.max_output, Some(16 << 20));
/// assert_eq!(o.features, Features::NONE);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The encoder's feature bits (the tier); decoding never needs them, the wire is
    /// self-describing.
    pub features: Features,
    /// Decode limits, which the encoder also honours (it refuses what a decoder with the same
    /// options would refuse).
    pub limits: Limits,
    /// Minimum length in bytes of a string the encoder interns (default 4); shorter strings
    /// are always written inline (`docs/SPEC.md` §14).
    pub min_intern: u32,
    /// Repeated map keys are refused (decoding and encoding); see
    /// [`deny_duplicate_keys`](Self::deny_duplicate_keys).
    pub deny_duplicate_keys: bool,
    /// The encoder keeps every string borrowable; see
    /// [`borrowable_strings`](Self::borrowable_strings).
    pub borrowable_strings: bool,
    /// Encoder sessions renew by themselves; see [`session_renewal`](Self::session_renewal).
    pub session_renewal: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options::balanced()
    }
}

impl Options {
    const fn with_features(features: Features) -> Options {
        Options {
            features,
            limits: Limits::DEFAULT,
            min_intern: DEFAULT_MIN_INTERN,
            deny_duplicate_keys: false,
            borrowable_strings: false,
            session_renewal: true,
        }
    }

    /// The Speed tier: plain tags, no interning, no codecs.
    pub const fn speed() -> Options {
        Options::with_features(Features::NONE)
    }

    /// The Balanced tier (default): Dense intern table, predictors, shapes, QPack sequences.
    pub const fn balanced() -> Options {
        Options::with_features(Features::BALANCED)
    }

    /// The Compression tier: Balanced plus the float XOR/decimal codecs, FSST string columns
    /// and entropy-coded blocks (one-shot messages).
    pub const fn compression() -> Options {
        Options::with_features(Features::COMPRESSION)
    }

    /// Replaces the feature bits.
    pub const fn features(mut self, features: Features) -> Options {
        self.features = features;
        self
    }

    /// Replaces every limit.
    pub const fn limits(mut self, limits: Limits) -> Options {
        self.limits = limits;
        self
    }

    /// The feature bits (crate-internal name).
    #[inline]
    pub(crate) const fn feature_bits(&self) -> Features {
        self.features
    }

    /// True if the feature is on.
    #[inline]
    pub(crate) const fn has(&self, f: Features) -> bool {
        self.features.contains(f)
    }

    /// Sets [`limits.max_depth`](Limits#structfield.max_depth) (default 128). Encode
    /// refuses what decode would refuse with the same options; mind the stack (see there).
    pub const fn max_depth(mut self, depth: u32) -> Options {
        self.limits.max_depth = depth;
        self
    }

    /// The nesting limit.
    pub(crate) const fn depth_limit(&self) -> u32 {
        self.limits.max_depth
    }

    /// Fixes [`limits.max_output`](Limits#structfield.max_output) at `units`, for decode and
    /// encode alike (default: the
    /// rule of [`Limits::output_budget`]).
    pub const fn max_output(mut self, units: u64) -> Options {
        self.limits.max_output = Some(units);
        self
    }

    /// [`Limits::output_budget`] of these options' limits.
    pub(crate) const fn output_budget(&self, input_len: u64) -> u64 {
        self.limits.output_budget(input_len)
    }

    /// Sets [`limits.max_intern_entries`](Limits#structfield.max_intern_entries) (default 65 535).
    pub const fn max_intern_entries(mut self, n: u32) -> Options {
        self.limits.max_intern_entries = n;
        self
    }

    /// The intern entry cap.
    pub(crate) const fn intern_entry_cap(&self) -> u32 {
        self.limits.max_intern_entries
    }

    /// Sets [`limits.max_intern_bytes`](Limits#structfield.max_intern_bytes) (default 4 MiB).
    pub const fn max_intern_bytes(mut self, n: u64) -> Options {
        self.limits.max_intern_bytes = n;
        self
    }

    /// The intern byte cap.
    pub(crate) const fn intern_byte_cap(&self) -> u64 {
        self.limits.max_intern_bytes
    }

    /// Sets [`limits.max_shapes`](Limits#structfield.max_shapes) (default 4 096).
    pub const fn max_shapes(mut self, n: u32) -> Options {
        self.limits.max_shapes = n;
        self
    }

    /// The shape cap.
    pub(crate) const fn shape_cap(&self) -> u32 {
        self.limits.max_shapes
    }

    /// Sets [`limits.max_frame_length`](Limits#structfield.max_frame_length) (default 8 MiB),
    /// for sessions created with these options.
    pub const fn max_frame_length(mut self, bytes: usize) -> Options {
        self.limits.max_frame_length = bytes;
        self
    }

    /// Sets [`limits.max_input`](Limits#structfield.max_input) (default 64 MiB), the most
    /// [`from_reader_with`](crate::from_reader_with) reads.
    pub const fn max_input(mut self, bytes: u64) -> Options {
        self.limits.max_input = bytes;
        self
    }

    /// Sets the minimum length in bytes of a string the encoder interns (default 4).
    pub const fn min_intern(mut self, len: u32) -> Options {
        self.min_intern = len;
        self
    }

    /// The minimum intern length: `u32::MAX` (nothing is interned) under
    /// [`borrowable_strings`](Self::borrowable_strings).
    pub(crate) const fn intern_min_len(&self) -> u32 {
        if self.borrowable_strings {
            u32::MAX
        } else {
            self.min_intern
        }
    }

    /// Decoding: a map entry whose key equals an earlier key of the same map is a `Data`
    /// error (`TypeMismatch`) at the repeated key, for map targets (`HashMap`, `BTreeMap`,
    /// `Value` maps, anything read through `deserialize_map` or `deserialize_any`). Off by
    /// default: every entry is handed to the map's visitor in wire order, so `HashMap` and
    /// `BTreeMap` keep the last value and `Value` keeps every entry. Keys compare as decoded
    /// values (a string and a byte string with the same bytes are one key, floats by bits);
    /// struct targets refuse duplicate fields either way (serde derive). Costs a set of the
    /// keys seen per map (`docs/SPEC.md` §7).
    ///
    /// Encoding: a map whose key equals an earlier key of the same map is refused with the
    /// same `TypeMismatch` error (at the output offset of the repeat), so that whatever the
    /// encoder accepts a decoder with the same options accepts. Struct field names are not
    /// checked: a derived `Serialize` never repeats one, and serde's derived `Deserialize`
    /// refuses a hand-written repeat with or without this option. Keys compare as the decoder compares them; each key is encoded
    /// and decoded once more to get its canonical form, so the option costs about that much
    /// per key. Off, encoding writes every entry as given.
    pub const fn deny_duplicate_keys(mut self, deny: bool) -> Options {
        self.deny_duplicate_keys = deny;
        self
    }

    /// Whether decoding refuses repeated map keys.
    pub(crate) const fn denies_duplicate_keys(&self) -> bool {
        self.deny_duplicate_keys
    }

    /// Encoding: every string value stays in the message as its bytes, so a decoder can
    /// lend it out as `&'de str` (default off). Without it, a `&str` field decodes only
    /// where the string lies in the input as written: a string the encoder interned
    /// (repeated, ≥ [`min_intern`](Self::min_intern) bytes) or packed into a compressed
    /// string column (front-coded FA, alphabet FB, FSST F6, dictionary-index FC: batches of
    /// ≥ 16 structs) or wrote as hex text ([`Features::HEX_TEXT`]) is rebuilt by the
    /// decoder, and a `&str` target then fails with a `TypeMismatch` that says so (naming
    /// the field when the string came from a column). With it, nothing is interned and
    /// string columns use only the blocks whose rows lie in the input: F9 constant, F5 dictionary, F8 raw slab
    /// (`docs/SPEC.md` §20). The wire is unchanged (any decoder reads it); messages with
    /// repeated strings grow. The alternative on the decoding side: `String` or
    /// `#[serde(borrow)] Cow<'a, str>` fields, which take either form.
    ///
    /// ```
    /// use qdf_core::Options;
    /// # #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    /// # struct Span<'a> { name: &'a str, n: u32 }
    /// let names: Vec<String> = (0..100).map(|i| format!("name-{i}")).collect();
    /// let spans: Vec<Span> = names.iter().map(|name| Span { name, n: 7 }).collect();
    /// assert!(qdf_core::from_slice::<Vec<Span>>(&qdf_core::to_vec(&spans)?).is_err());
    /// let bytes = qdf_core::to_vec_with(&spans, Options::balanced().borrowable_strings(true))?;
    /// let back: Vec<Span> = qdf_core::from_slice(&bytes)?; // every `name` borrows from `bytes`
    /// assert_eq!(back, spans);
    /// # Ok::<(), qdf_core::Error>(())
    /// ```
    pub const fn borrowable_strings(mut self, on: bool) -> Options {
        self.borrowable_strings = on;
        self
    }

    /// Whether the encoder keeps every string borrowable.
    pub(crate) const fn keeps_strings_borrowable(&self) -> bool {
        self.borrowable_strings
    }

    /// Dense encoder sessions renew their state by themselves and learn admission (default
    /// on; `docs/SPEC.md` §18): a renewal (`FF` before a frame's body, 2 bytes) when the
    /// intern table, the shapes or their bytes pass 15/16 of this side's caps, or when fewer
    /// than half of a generation's first 4 096 definitions (then 8 192, …) were ever
    /// referenced, in which case new values are interned from then on only on their second
    /// sighting. Off: the state only grows until its caps (values then go inline), and a
    /// session renews only when asked ([`EncoderSession::renew`](crate::EncoderSession::renew)).
    /// One-shot messages never renew. Decoders accept renewals either way.
    pub const fn session_renewal(mut self, on: bool) -> Options {
        self.session_renewal = on;
        self
    }

    /// Whether encoder sessions renew by themselves.
    pub(crate) const fn renews(&self) -> bool {
        self.session_renewal
    }
}

#[cfg(test)]
mod tests;
