//! Encode and decode options: the tier (a set of feature bits) and the limits.
//!
//! [`Options`] is a small `Copy` value with builder methods, like `rmp_serde::config`.
//! The three tiers are presets of [`Features`] bits (bit numbers as in the Go library's
//! options, see `docs/SPEC.md` §Options):
//!
//! | tier | preset | features |
//! |---|---|---|
//! | Speed | [`Options::speed`] | none: plain tags |
//! | Balanced (default) | [`Options::balanced`] | `DENSE | QPACK | SHAPE_INTERN | PAIR_PRED | MTF` |
//! | Compression | [`Options::compression`] | Balanced `| FLOAT_XOR | ENTROPY | FSST` |
//!
//! What the encoder writes today: Balanced = intern table, state-ref predictors, struct shapes,
//! QPack sequences and columnar containers for sequences of ≥ 16 structs; Compression adds the
//! float XOR/decimal codecs (Gorilla, Chimp128, ALP), FSST string columns and, in one-shot
//! messages, entropy-coded blocks (tag `FE`, tANS) around column values and packed sequences
//! that shrink by exact cost. `COLUMN_INDEX`
//! (in no tier) adds a column-length index to columnar containers of one-shot messages.
//! `MAP_SHAPE` (opt-in, in no preset) adds key-set shapes for maps whose first key is a string
//! (`docs/SPEC.md` §15.1). Sessions and streams clear `ENTROPY` (and `COLUMN_INDEX`).
//!
//! Decoding never needs the tier: the wire is self-describing. Decoding reads only the limits.

/// A set of encoder feature bits (Go `Opt*` numbering, `1 << bit`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Features(pub u32);

impl Features {
    /// No features: the Speed tier.
    pub const NONE: Features = Features(0);
    /// Bit 0: the Dense dialect (intern table and state-refs).
    pub const DENSE: Features = Features(1 << 0);
    /// Bit 1: QPack numeric slice codecs.
    pub const QPACK: Features = Features(1 << 1);
    /// Bit 2: shape interning of structs (tag 0xEC).
    pub const SHAPE_INTERN: Features = Features(1 << 2);
    /// Bit 3: Markov-1 pair predictor (tag 0xEA).
    pub const PAIR_PRED: Features = Features(1 << 3);
    /// Bit 4: move-to-front ring predictor (tag 0xE9).
    pub const MTF: Features = Features(1 << 4);
    /// Bit 5: float XOR and decimal codecs (Gorilla, Chimp128, ALP).
    pub const FLOAT_XOR: Features = Features(1 << 5);
    /// Bit 6: entropy-coded blocks (tag `0xFE`, tANS) around QPack values and string column
    /// blocks that shrink by exact cost; one-shot messages only (`docs/SPEC.md`
    /// §Entropy-coded blocks).
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

    /// The Balanced preset, `0x1F`.
    pub const BALANCED: Features = Features(0x1F);
    /// The Compression preset, `0x17F`.
    pub const COMPRESSION: Features = Features(0x17F);

    /// True if every bit of `other` is set in `self`.
    #[inline]
    pub const fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }

    /// `self` with the bits of `other` set.
    #[inline]
    pub const fn with(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// `self` with the bits of `other` cleared.
    #[inline]
    pub const fn without(self, other: Features) -> Features {
        Features(self.0 & !other.0)
    }
}

/// Default nesting limit, counted per container identically on encode and decode.
pub const DEFAULT_MAX_DEPTH: u32 = 128;
/// Default limit on the decoded output of one message (or one session frame): 64 MiB, the
/// way a server bounds request bodies. A message longer than 1 MiB gets
/// [`DEFAULT_OUTPUT_FACTOR`] × its body length instead; see [`Options::output_budget`].
pub const DEFAULT_MAX_OUTPUT: u64 = 64 << 20;
/// Default decoded-output factor of long messages: 64 units per body byte, the most any form
/// without repetition charges per byte (a packed bool or 1-bit integer: 8 units for 1 bit), so
/// a long message is never refused for its size alone.
pub const DEFAULT_OUTPUT_FACTOR: u64 = 64;
/// Strings shorter than this many bytes are never interned (Go `minIntern`).
pub const DEFAULT_MIN_INTERN: u32 = 4;
/// Default cap on intern table entries per session (Go stream cap, 0xFFFF).
pub const DEFAULT_MAX_INTERN_ENTRIES: u32 = 0xFFFF;
/// Default cap on the bytes held by one session's intern table: 4 MiB.
pub const DEFAULT_MAX_INTERN_BYTES: u64 = 4 << 20;
/// Default cap on shapes per session.
pub const DEFAULT_MAX_SHAPES: u32 = 4096;

/// Encode tier and decode limits. `Default` is [`Options::balanced`].
///
/// ```
/// use qdf_core::Options;
/// let o = Options::speed().max_depth(64).max_output(16 << 20);
/// assert_eq!(o.depth_limit(), 64);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    features: Features,
    max_depth: u32,
    max_output: Option<u64>,
    min_intern: u32,
    max_intern_entries: u32,
    max_intern_bytes: u64,
    max_shapes: u32,
    deny_duplicate_keys: bool,
    borrowable_strings: bool,
    session_renewal: bool,
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
            max_depth: DEFAULT_MAX_DEPTH,
            max_output: None,
            min_intern: DEFAULT_MIN_INTERN,
            max_intern_entries: DEFAULT_MAX_INTERN_ENTRIES,
            max_intern_bytes: DEFAULT_MAX_INTERN_BYTES,
            max_shapes: DEFAULT_MAX_SHAPES,
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

    /// The feature bits.
    pub const fn feature_bits(&self) -> Features {
        self.features
    }

    /// True if the feature is on.
    #[inline]
    pub const fn has(&self, f: Features) -> bool {
        self.features.contains(f)
    }

    /// Nesting limit (containers deep), default [`DEFAULT_MAX_DEPTH`]. Encode refuses what
    /// decode would refuse with the same options.
    ///
    /// The limit is also what keeps the stack bounded: decoding into [`Value`](crate::Value),
    /// encoding one, and its `Clone` and `PartialEq` recurse once per level (decoding into
    /// `Value` takes roughly half a KiB of stack a level in release builds, so about 2 000
    /// levels overflow a 1 MiB stack). Raise the limit only as far as the thread's stack
    /// allows: a 2 MiB tokio worker holds a few thousand levels, not `u32::MAX`. Dropping a
    /// deep `Value` does not recurse.
    pub const fn max_depth(mut self, depth: u32) -> Options {
        self.max_depth = depth;
        self
    }

    /// The nesting limit.
    pub const fn depth_limit(&self) -> u32 {
        self.max_depth
    }

    /// Fixes the decoded-output limit of every message (and session frame) at `bytes` units,
    /// for decode and encode alike (default: see [`Options::output_budget`]).
    ///
    /// Decoded output is counted as `docs/SPEC.md` §13 defines it: a unit per byte of every
    /// string and byte string handed out (inline or interned, each time it is referenced), per
    /// array element and per map or struct entry, 8 per packed (QPack or column) element, 8
    /// per row of a columnar container. The decoder fails with [`ErrorCode::OutputLimit`]
    /// before it would pass the limit; the encoder counts the same units and refuses, with the
    /// same error, a message that the decoder would refuse under the same options.
    ///
    /// The limit bounds work and allocation, not what a message may mean: a borrowed `&str`
    /// target or a skipped field is charged like an owned one.
    ///
    /// [`ErrorCode::OutputLimit`]: crate::ErrorCode::OutputLimit
    pub const fn max_output(mut self, bytes: u64) -> Options {
        self.max_output = Some(bytes);
        self
    }

    /// The decoded-output limit of a message whose body (header and frame length excluded)
    /// is `input_len` bytes long: the [`max_output`](Options::max_output) set, else
    /// `max(DEFAULT_MAX_OUTPUT, DEFAULT_OUTPUT_FACTOR × input_len)` (64 MiB, or 64 units per
    /// body byte above 1 MiB of body).
    pub const fn output_budget(&self, input_len: u64) -> u64 {
        match self.max_output {
            Some(b) => b,
            None => {
                let scaled = input_len.saturating_mul(DEFAULT_OUTPUT_FACTOR);
                if scaled > DEFAULT_MAX_OUTPUT {
                    scaled
                } else {
                    DEFAULT_MAX_OUTPUT
                }
            }
        }
    }

    /// Minimum length in bytes of a string the encoder interns (default 4).
    pub const fn min_intern(mut self, len: u32) -> Options {
        self.min_intern = len;
        self
    }

    /// The minimum intern length: `u32::MAX` (nothing is interned) under
    /// [`borrowable_strings`](Self::borrowable_strings).
    pub const fn intern_min_len(&self) -> u32 {
        if self.borrowable_strings {
            u32::MAX
        } else {
            self.min_intern
        }
    }

    /// Caps the intern table entries of a session (default 65 535, the wire maximum).
    /// The encoder stops interning at its cap; the decoder rejects a peer above its cap.
    pub const fn max_intern_entries(mut self, n: u32) -> Options {
        self.max_intern_entries = n;
        self
    }

    /// The intern entry cap.
    pub const fn intern_entry_cap(&self) -> u32 {
        self.max_intern_entries
    }

    /// Caps the bytes held by a session's intern table (default 4 MiB).
    pub const fn max_intern_bytes(mut self, n: u64) -> Options {
        self.max_intern_bytes = n;
        self
    }

    /// The intern byte cap.
    pub const fn intern_byte_cap(&self) -> u64 {
        self.max_intern_bytes
    }

    /// Caps the shapes of a session (default 4 096).
    pub const fn max_shapes(mut self, n: u32) -> Options {
        self.max_shapes = n;
        self
    }

    /// The shape cap.
    pub const fn shape_cap(&self) -> u32 {
        self.max_shapes
    }

    /// Decoding: a map entry whose key equals an earlier key of the same map is a `Data`
    /// error (`TypeMismatch`) at the repeated key, for map targets (`HashMap`, `BTreeMap`,
    /// `Value` maps, anything read through `deserialize_map` or `deserialize_any`). Off by
    /// default: every entry is handed to the map's visitor in wire order, so `HashMap` and
    /// `BTreeMap` keep the last value and `Value` keeps every entry. Keys compare as decoded
    /// values (a string and a byte string with the same bytes are one key, floats by bits);
    /// struct targets refuse duplicate fields either way (serde derive). Costs a set of the
    /// keys seen per map (`docs/SPEC.md` §7).
    pub const fn deny_duplicate_keys(mut self, deny: bool) -> Options {
        self.deny_duplicate_keys = deny;
        self
    }

    /// Whether decoding refuses repeated map keys.
    pub const fn denies_duplicate_keys(&self) -> bool {
        self.deny_duplicate_keys
    }

    /// Encoding: every string value stays in the message as its bytes, so a decoder can
    /// lend it out as `&'de str` (default off). Without it, a `&str` field decodes only
    /// where the string lies in the input as written: a string the encoder interned
    /// (repeated, ≥ [`min_intern`](Self::min_intern) bytes) or packed into a compressed
    /// string column (front-coded FA, alphabet FB, FSST F6, dictionary-index FC: batches of
    /// ≥ 16 structs) is rebuilt by the decoder, and a `&str` target then fails with a
    /// `TypeMismatch` naming the field. With it, nothing is interned and string columns use
    /// only the blocks whose rows lie in the input: F9 constant, F5 dictionary, F8 raw slab
    /// (`docs/SPEC.md` §2.2). The wire is unchanged (any decoder reads it); messages with
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

    /// Whether the encoder keeps every string borrowable ([`borrowable_strings`](Self::borrowable_strings)).
    pub const fn keeps_strings_borrowable(&self) -> bool {
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
    pub const fn renews(&self) -> bool {
        self.session_renewal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_go_bits() {
        assert_eq!(Options::speed().feature_bits().0, 0);
        assert_eq!(Options::balanced().feature_bits().0, 0x1F);
        assert_eq!(Options::compression().feature_bits().0, 0x17F);
        assert_eq!(Options::default(), Options::balanced());
    }

    #[test]
    fn output_budget_default_and_fixed() {
        let o = Options::default();
        assert_eq!(o.output_budget(10), 64 << 20);
        assert_eq!(o.output_budget(1 << 20), 64 << 20);
        assert_eq!(o.output_budget((1 << 20) + 1), (64 << 20) + 64);
        assert_eq!(o.output_budget(8 << 20), 512 << 20);
        assert_eq!(o.output_budget(u64::MAX), u64::MAX);
        assert_eq!(o.max_output(5).output_budget(1 << 20), 5);
    }
}
