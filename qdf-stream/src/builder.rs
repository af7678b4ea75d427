//! [`Builder`]: every [`QdfCodec`] setting, in the style of `LengthDelimitedCodec::builder()`.

use std::sync::Arc;

use qdf_core::{DecoderSession, Dictionary, DictionaryRegistry, EncoderSession, Limits, Options};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::{Framed, FramedRead, FramedWrite};

use crate::QdfCodec;

/// Configures and creates a [`QdfCodec`] or a transport framed with one.
///
/// ```
/// use qdf_stream::QdfCodec;
/// use qdf_core::Options;
///
/// let codec: QdfCodec<String> = QdfCodec::builder()
///     .options(Options::balanced())
///     .max_frame_length(1 << 20)
///     .max_intern_entries(10_000)
///     .new_codec();
/// assert_eq!(codec.max_frame_length(), 1 << 20);
/// assert_eq!(codec.limits().max_intern_entries, 10_000);
/// ```
///
/// Limits are set by their [`Limits`] names (`max_frame_length(n)`, `max_intern_entries(n)`,
/// …, or all at once with [`limits`](Self::limits)) and read back from the built codec
/// ([`QdfCodec::limits`], [`QdfCodec::max_frame_length`]), as tokio-util's builders do.
///
/// A builder is `Clone`, not `Copy` (it may hold a [`Dictionary`] or a registry's `Arc`):
/// clone it to build codecs with the same settings on several connections; cloning costs
/// at most two reference-count increments.
#[derive(Clone, Debug)]
pub struct Builder {
    opts: Options,
    checksum: bool,
    backpressure_boundary: Option<usize>,
    renew: RenewPolicy,
    dictionary: Option<Dictionary>,
    registry: Option<Arc<DictionaryRegistry>>,
}

/// When a codec's encoder renews its session on its own schedule (`docs/SPEC.md` §18), on
/// top of the session's policy (near its caps). `None` fields never trigger.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RenewPolicy {
    pub(crate) messages: Option<u64>,
    pub(crate) bytes: Option<u64>,
    pub(crate) age: Option<std::time::Duration>,
}

/// Where a decoder finds the dictionary its peer's stream header names, once it arrives.
#[derive(Clone, Debug)]
pub(crate) struct DictionaryLookup {
    pub(crate) registry: Arc<DictionaryRegistry>,
    /// [`Builder::dictionary`], tried when the registry misses.
    pub(crate) fixed: Option<Dictionary>,
}

impl DictionaryLookup {
    /// The dictionary to decode a stream naming `id` with: the registry's, else the fixed
    /// one if it is `id`, else the registry's current one or the fixed one (so that the
    /// session's `UnknownDictionary` error names a dictionary this side holds), else none.
    pub(crate) fn resolve(&self, id: qdf_core::DictionaryId) -> Option<Dictionary> {
        self.registry
            .get(id)
            .or_else(|| self.fixed.clone().filter(|d| d.id() == id))
            .or_else(|| self.registry.current())
            .or_else(|| self.fixed.clone())
    }
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// Balanced options with [`Limits::DEFAULT`] (8 MiB frames), tokio-util's default
    /// backpressure boundary (8 KiB).
    pub fn new() -> Self {
        Builder {
            opts: Options::balanced(),
            checksum: false,
            backpressure_boundary: None,
            renew: RenewPolicy::default(),
            dictionary: None,
            registry: None,
        }
    }

    /// The tier and every limit (default [`Options::balanced`]), replacing limits set
    /// before: call it first. The ColumnIndex and entropy features are always off in streams.
    pub fn options(&mut self, opts: Options) -> &mut Self {
        self.opts = opts;
        self
    }

    /// Every limit at once (default [`Limits::DEFAULT`]), keeping the tier.
    pub fn limits(&mut self, limits: Limits) -> &mut Self {
        self.opts = self.opts.limits(limits);
        self
    }

    /// The largest frame body, in bytes, written or accepted (default 8 MiB,
    /// [`Limits::max_frame_length`](Limits#structfield.max_frame_length)). A larger
    /// outgoing value fails with `FrameTooLarge` before any byte is written; a larger incoming
    /// length prefix fails as soon as it arrives.
    pub fn max_frame_length(&mut self, len: usize) -> &mut Self {
        self.opts = self.opts.max_frame_length(len);
        self
    }

    /// Ends every frame this codec writes with a CRC-32C of its bytes (default off; header
    /// flag `10`, `docs/SPEC.md` §17): 4 bytes per frame, and the peer refuses a damaged
    /// frame with [`ErrorCode::ChecksumMismatch`](qdf_core::ErrorCode::ChecksumMismatch)
    /// (which breaks its session) instead of decoding it. TCP's 16-bit checksum lets some
    /// damage through; TLS does not, so over TLS this is rarely worth the bytes.
    ///
    /// Decoding needs no setting: every codec checks the frames of a peer whose stream
    /// header has the flag, and reads streams without it as before.
    pub fn checksum(&mut self, on: bool) -> &mut Self {
        self.checksum = on;
        self
    }

    /// Session cap on intern table entries (default 65 535). The encoder sends values inline
    /// once its table is full; the decoder refuses a peer that exceeds its own cap (`Limit`).
    pub fn max_intern_entries(&mut self, n: u32) -> &mut Self {
        self.opts = self.opts.max_intern_entries(n);
        self
    }

    /// Session cap on the bytes held by the intern table (default 4 MiB): with the shape cap,
    /// this bounds the memory a connection's sessions hold.
    pub fn max_intern_bytes(&mut self, n: u64) -> &mut Self {
        self.opts = self.opts.max_intern_bytes(n);
        self
    }

    /// Session cap on shapes (default 4 096).
    pub fn max_shapes(&mut self, n: u32) -> &mut Self {
        self.opts = self.opts.max_shapes(n);
        self
    }

    /// Renews the encoder's session after this many frames since the last renewal (default:
    /// never by count). A renewal (`docs/SPEC.md` §18, 2 bytes) empties both sides' Dense
    /// state at a frame boundary while the connection stays open: the peer's memory and any
    /// vocabulary that stopped recurring are released, hot values are sent again once. The
    /// session also renews by itself near its caps ([`Options::session_renewal`]).
    pub fn renew_after_messages(&mut self, n: u64) -> &mut Self {
        self.renew.messages = Some(n);
        self
    }

    /// Renews the encoder's session once this many bytes were written since the last renewal
    /// (default: never by bytes); see [`renew_after_messages`](Self::renew_after_messages).
    pub fn renew_after_bytes(&mut self, n: u64) -> &mut Self {
        self.renew.bytes = Some(n);
        self
    }

    /// Renews the encoder's session at the first frame written once this much time passed
    /// since the last renewal (or the first frame); default never by age. See
    /// [`renew_after_messages`](Self::renew_after_messages).
    pub fn renew_after(&mut self, age: std::time::Duration) -> &mut Self {
        self.renew.age = Some(age);
        self
    }

    /// Starts every stream this builder's codecs write from the pre-shared dictionary `dict`
    /// (`docs/SPEC.md` §25), and lets their decoders read a peer's stream that names it.
    ///
    /// Encoder: the stream header gets flag `20` and the dictionary's 8-byte id (13 header
    /// bytes instead of 5), and strings the dictionary holds are sent as 2-byte references
    /// (for its first 128 entries) from the first frame on, instead of being defined once per
    /// connection. A renewal returns to the dictionary, not to empty tables. Ignored by the
    /// Speed tier ([`QdfCodec::fast`]), which writes no Dense tags: its stream names no
    /// dictionary. The peer must hold the same dictionary (this setting, or a
    /// [`dictionary_registry`](Self::dictionary_registry) that has it registered).
    ///
    /// Decoder: a peer stream naming `dict` is read from it; one naming no dictionary is read
    /// as usual; one naming another fails at its header with
    /// [`ErrorCode::UnknownDictionary`](qdf_core::ErrorCode::UnknownDictionary) (a
    /// [`QdfCodecError::Qdf`](crate::QdfCodecError::Qdf) of category `Syntax`, frame 0,
    /// stream byte 5), which breaks the decoder. With a registry as well, the registry is
    /// asked first.
    ///
    /// ```
    /// use qdf_core::Dictionary;
    /// use qdf_stream::QdfCodec;
    ///
    /// let dict = Dictionary::from_strs(["checkout", "payment-service"])?;
    /// let codec: QdfCodec<String> = QdfCodec::builder().dictionary(dict.clone()).new_codec();
    /// assert_eq!(codec.encoder_session().dictionary_id(), Some(dict.id()));
    /// # Ok::<(), qdf_core::Error>(())
    /// ```
    pub fn dictionary(&mut self, dict: Dictionary) -> &mut Self {
        self.dictionary = Some(dict);
        self
    }

    /// Lets the decoders of this builder's codecs read a peer stream that names any
    /// dictionary `registry` holds: when the peer's stream header arrives, the id it names is
    /// looked up ([`DictionaryRegistry::get`], one read lock) and the decoder holds that
    /// dictionary for the rest of the stream, whatever the registry does after (a later
    /// [`retire`](DictionaryRegistry::retire) does not affect a stream already started).
    /// An id the registry does not hold (never registered, or retired), and that the
    /// [`dictionary`](Self::dictionary) set here is not, fails at the header with
    /// [`ErrorCode::UnknownDictionary`](qdf_core::ErrorCode::UnknownDictionary) (category
    /// `Syntax`, frame 0, stream byte 5; its `held` is the registry's current id, else that
    /// of the [`dictionary`](Self::dictionary) set here, if any), which breaks the decoder.
    /// A stream naming no dictionary is read as usual.
    ///
    /// Encoder: unless [`dictionary`](Self::dictionary) chose one, each codec's stream
    /// starts from the registry's [`current`](DictionaryRegistry::current) dictionary as
    /// of [`new_codec`](Self::new_codec) (none before the first rotation), so codecs built
    /// after a [`rotate`](DictionaryRegistry::rotate) write the newer one while older
    /// connections keep theirs.
    pub fn dictionary_registry(&mut self, registry: Arc<DictionaryRegistry>) -> &mut Self {
        self.registry = Some(registry);
        self
    }

    /// Backpressure hint for [`new_write`](Self::new_write) / [`new_framed`](Self::new_framed):
    /// once this many bytes are buffered, `poll_ready` flushes before accepting another
    /// message, so a writer holds at most this boundary plus one frame (tokio-util's default
    /// is 8 KiB). Larger values batch more small frames per write.
    pub fn backpressure_boundary(&mut self, bytes: usize) -> &mut Self {
        self.backpressure_boundary = Some(bytes);
        self
    }

    /// A codec with these settings that receives `D` and sends `&E`; both are usually
    /// inferred (`let c: QdfCodec<Reply, Request> = builder.new_codec();`).
    pub fn new_codec<D, E: ?Sized>(&self) -> QdfCodec<D, E> {
        let mut enc = EncoderSession::new(self.opts).with_checksum(self.checksum);
        let encode_with = self
            .dictionary
            .clone()
            .or_else(|| self.registry.as_ref().and_then(|r| r.current()));
        if let Some(d) = encode_with {
            enc = enc.with_dictionary(d);
        }
        let mut dec = DecoderSession::new(self.opts);
        let lookup = match (&self.registry, &self.dictionary) {
            (Some(r), fixed) => Some(DictionaryLookup {
                registry: Arc::clone(r),
                fixed: fixed.clone(),
            }),
            (None, Some(d)) => {
                dec = dec.with_dictionary(d.clone());
                None
            }
            (None, None) => None,
        };
        QdfCodec::from_sessions(enc, dec, self.renew, lookup)
    }

    /// `io` read as a stream of `D`.
    pub fn new_read<T: AsyncRead, D>(&self, io: T) -> FramedRead<T, QdfCodec<D>> {
        FramedRead::new(io, self.new_codec())
    }

    /// `io` written as a sink of `&E` (`E` may be unsized, e.g. `str`; a writer decodes
    /// nothing, hence `()`).
    pub fn new_write<T: AsyncWrite, E: ?Sized>(&self, io: T) -> FramedWrite<T, QdfCodec<(), E>> {
        let mut w = FramedWrite::new(io, self.new_codec());
        if let Some(b) = self.backpressure_boundary {
            w.set_backpressure_boundary(b);
        }
        w
    }

    /// `io` as both a stream of `D` and a sink of `&D`. For different types each way, frame
    /// [`new_codec`](Self::new_codec)`::<Incoming, Outgoing>()` yourself.
    pub fn new_framed<T: AsyncRead + AsyncWrite, D>(&self, io: T) -> Framed<T, QdfCodec<D>> {
        let mut f = Framed::new(io, self.new_codec());
        if let Some(b) = self.backpressure_boundary {
            f.set_backpressure_boundary(b);
        }
        f
    }
}
