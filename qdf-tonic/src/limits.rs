//! Per-stream caps, chosen by a type because tonic builds codecs with `Default`.
//!
//! Generated tonic code creates a codec with `Codec::default()` for every call, so a codec
//! cannot be handed a runtime configuration. The caps are therefore a type parameter:
//! [`QdfCodec<T, U, L>`](crate::QdfCodec) reads [`Limits::options`] of `L` each time it
//! starts a stream direction.
//!
//! What the caps bound: a decoding session keeps a Dense intern table (entries and the
//! bytes of their strings) and a shape table for the life of one RPC. Without caps a client
//! that streams ever-new strings for hours would grow the server's memory without bound;
//! with them the decoder refuses the message that would cross a cap
//! (`resource_exhausted`, see the crate docs). The message itself is bounded separately by
//! tonic's `max_decoding_message_size` (default 4 MiB).

use qdf_core::{DictionaryRegistry, Options};

/// Caps and tier for the sessions of one codec type: a [`qdf_core::Limits`] value and the
/// encoder's settings, as associated items.
///
/// Every item has a default, so a custom limits type overrides only what it changes; the
/// limits are built in a `const` with [`qdf_core::Limits`]' setters:
///
/// ```
/// use qdf_tonic::{Limits, QdfCodec};
///
/// /// 256 KiB of interned strings per stream direction.
/// #[derive(Debug)]
/// struct SmallTables;
///
/// impl Limits for SmallTables {
///     const LIMITS: qdf_core::Limits = qdf_core::Limits::MANY_STREAMS.max_intern_bytes(256 << 10);
/// }
///
/// // In tonic-build: `.codec_path("qdf_tonic::QdfCodec::<_, _, crate::SmallTables>")`,
/// // or name an alias: `.codec_path("crate::SmallCodec")`.
/// type SmallCodec<T, U> = QdfCodec<T, U, SmallTables>;
///
/// assert_eq!(SmallTables::options().limits.max_intern_bytes, 256 << 10);
/// assert_eq!(SmallTables::options().limits.max_intern_entries, 16_384);
/// # let _ = SmallCodec::<(), ()>::default();
/// ```
///
/// Both peers of an RPC should use the same caps: an encoder stops interning at its own
/// caps, and a decoder rejects a peer whose tables grow past the decoder's caps.
pub trait Limits: Send + 'static {
    /// Every bound of both session sides (default [`qdf_core::Limits::MANY_STREAMS`]: 16 384
    /// intern entries, 1 MiB of interned strings and 1 024 shapes per stream direction,
    /// nesting depth 128, messages up to 8 MiB, qdf's default decoded-output rule).
    ///
    /// [`max_frame_length`](qdf_core::Limits#structfield.max_frame_length) is the largest qdf
    /// body of one message, either direction; a larger one fails with `out_of_range`.
    /// tonic's `max_decoding_message_size` (default 4 MiB) is checked first on receive; raise
    /// both to carry larger messages. [`max_output`](qdf_core::Limits#structfield.max_output),
    /// when set, also makes the encoder refuse a message above it, as the peer's decoder with
    /// the same limit would.
    const LIMITS: qdf_core::Limits = qdf_core::Limits::MANY_STREAMS;
    /// Whether the encoder side renews its session by itself (`qdf_core::Options::session_renewal`,
    /// default on): when the intern table, shapes or their bytes near the caps above, or when
    /// most interned values are never referenced again, the next message starts with a 2-byte
    /// renewal (`docs/SPEC.md` §18) and both sides empty their state, so a stream that lives
    /// for hours keeps interning new values. Off: the tables fill to the caps and later values
    /// go inline for the rest of the stream. Decoders accept renewals either way.
    const SESSION_RENEWAL: bool = true;

    /// The pre-shared dictionaries (`docs/SPEC.md` §25) of this codec type's streams
    /// (default none): a `static` registry, since tonic builds codecs with `Default`.
    ///
    /// Decoding: a stream whose first message names a dictionary is decoded with the
    /// registry's dictionary of that id (looked up once per stream direction, one read lock;
    /// the stream keeps it whatever the registry does after). An id the registry does not
    /// hold (never registered, or retired), or any id without a registry, fails that
    /// message with `invalid_argument` naming the id (qdf's
    /// [`UnknownDictionary`](qdf_core::ErrorCode::UnknownDictionary)), and the stream's
    /// later messages too. One exception: a stream naming the dictionary this side's own
    /// stream of the same call started from (a response in its request's dictionary) is
    /// read with it even if the registry retired it meanwhile, so a client may retire its
    /// old dictionary right after rotating without failing the calls still open on it.
    ///
    /// Encoding: a stream answering a peer that named a dictionary the registry holds
    /// starts from that same dictionary (the peer evidently holds it): an RPC's response
    /// uses the request's dictionary, as long as the first request message was decoded
    /// before the first response message is encoded (always so for unary and
    /// server-streaming calls). Otherwise the stream starts from the registry's
    /// [`current`](DictionaryRegistry::current) one if
    /// [`SEND_CURRENT_DICTIONARY`](Self::SEND_CURRENT_DICTIONARY), else from none.
    ///
    /// ```
    /// use std::sync::LazyLock;
    /// use qdf_core::{Dictionary, DictionaryRegistry};
    /// use qdf_tonic::Limits;
    ///
    /// static DICTIONARIES: LazyLock<DictionaryRegistry> = LazyLock::new(|| {
    ///     let registry = DictionaryRegistry::new();
    ///     let dict = Dictionary::from_strs(["checkout", "payment-service"]).expect("valid");
    ///     registry.rotate(dict).expect("fits");
    ///     registry
    /// });
    ///
    /// /// A client's codec settings: requests start from the current dictionary.
    /// struct WithDictionaries;
    ///
    /// impl Limits for WithDictionaries {
    ///     const SEND_CURRENT_DICTIONARY: bool = true;
    ///     fn dictionaries() -> Option<&'static DictionaryRegistry> {
    ///         Some(&DICTIONARIES)
    ///     }
    /// }
    /// # assert!(WithDictionaries::dictionaries().is_some());
    /// ```
    fn dictionaries() -> Option<&'static DictionaryRegistry> {
        None
    }

    /// Whether a stream that is not answering a peer's dictionary starts from the
    /// [`dictionaries`](Self::dictionaries)' current one (default `false`). Set it where the
    /// peer is known to hold every dictionary this registry makes current, typically on
    /// clients whose server registers each dictionary before the clients rotate to it;
    /// servers usually leave it off and answer in the dictionary of the request. Costs 8
    /// bytes of header per stream direction, and saves the definitions of every string the
    /// dictionary holds. No effect without the `DENSE` feature (the Speed tier).
    const SEND_CURRENT_DICTIONARY: bool = false;

    /// The options both session sides start from: the tier of the encoder (Balanced unless
    /// overridden), [`LIMITS`](Self::LIMITS) and [`SESSION_RENEWAL`](Self::SESSION_RENEWAL).
    /// Decoding reads only the limits; the wire names its tier.
    fn options() -> Options {
        Options::balanced()
            .limits(Self::LIMITS)
            .session_renewal(Self::SESSION_RENEWAL)
    }
}

/// The default caps: Balanced tier and [`qdf_core::Limits::MANY_STREAMS`] (16 384 intern
/// entries, 1 MiB of interned strings and 1 024 shapes per stream direction, nesting depth
/// 128, messages up to 8 MiB).
///
/// Chosen for a server holding many concurrent streams: the tables of one stream direction
/// stay near a megabyte however long it lives. A stream of telemetry batches typically
/// interns a few hundred distinct service, host, span and attribute names.
#[derive(Copy, Clone, Debug, Default)]
pub struct DefaultLimits;

impl Limits for DefaultLimits {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_limits_options() {
        let o = DefaultLimits::options();
        assert_eq!(o.features, qdf_core::Features::BALANCED);
        assert_eq!(o.limits, qdf_core::Limits::MANY_STREAMS);
        assert_eq!(o.limits.max_intern_entries, 16_384);
        assert_eq!(o.limits.max_intern_bytes, 1 << 20);
        assert_eq!(o.limits.max_shapes, 1024);
        assert_eq!(o.limits.max_depth, 128);
        assert_eq!(o.limits.output_budget(10), 64 << 20);
        assert_eq!(o.limits.max_frame_length, 8 << 20);
        assert!(o.session_renewal);
    }

    #[test]
    fn overridden_consts_reach_the_options() {
        struct Tight;
        impl Limits for Tight {
            const LIMITS: qdf_core::Limits = qdf_core::Limits::MANY_STREAMS
                .max_intern_entries(8)
                .max_output(4096);
            const SESSION_RENEWAL: bool = false;
        }
        let o = Tight::options();
        assert_eq!(o.limits.max_intern_entries, 8);
        assert_eq!(o.limits.max_intern_bytes, 1 << 20);
        assert_eq!(o.features, qdf_core::Features::BALANCED);
        assert_eq!(o.limits.output_budget(1 << 20), 4096);
        assert!(!o.session_renewal);
    }
}
