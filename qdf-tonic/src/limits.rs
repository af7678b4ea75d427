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

use qdf_core::Options;

/// Caps and tier for the sessions of one codec type.
///
/// Every constant has a default, so a custom limits type overrides only what it changes:
///
/// ```
/// use qdf_tonic::{Limits, QdfCodec};
///
/// /// 256 KiB of interned strings per stream direction.
/// #[derive(Debug)]
/// struct SmallTables;
///
/// impl Limits for SmallTables {
///     const MAX_INTERN_BYTES: u64 = 256 << 10;
/// }
///
/// // In tonic-build: `.codec_path("qdf_tonic::QdfCodec::<_, _, crate::SmallTables>")`,
/// // or name an alias: `.codec_path("crate::SmallCodec")`.
/// type SmallCodec<T, U> = QdfCodec<T, U, SmallTables>;
///
/// assert_eq!(SmallTables::options().intern_byte_cap(), 256 << 10);
/// assert_eq!(SmallTables::options().intern_entry_cap(), 16_384);
/// # let _ = SmallCodec::<(), ()>::default();
/// ```
///
/// Both peers of an RPC should use the same caps: an encoder stops interning at its own
/// caps, and a decoder rejects a peer whose tables grow past the decoder's caps.
pub trait Limits: Send + 'static {
    /// Most intern table entries one stream direction may hold.
    const MAX_INTERN_ENTRIES: u32 = 16_384;
    /// Most bytes of interned strings one stream direction may hold.
    const MAX_INTERN_BYTES: u64 = 1 << 20;
    /// Most interned shapes (struct field-name lists) one stream direction may hold.
    const MAX_SHAPES: u32 = 1024;
    /// Deepest nesting of containers in one message.
    const MAX_DEPTH: u32 = qdf_core::DEFAULT_MAX_DEPTH;
    /// Largest qdf body of one message, in bytes, either direction (default 8 MiB); a
    /// larger one fails with `out_of_range`. tonic's `max_decoding_message_size` (default
    /// 4 MiB) is checked first on receive; raise both to carry larger messages.
    const MAX_MESSAGE_LEN: usize = qdf_core::session::DEFAULT_MAX_FRAME_LEN;
    /// Decoded-output limit per message, both directions (`qdf_core::Options::max_output`);
    /// `None` keeps qdf's default rule, `max(64 MiB, 64 × message length)`. The encoder
    /// refuses a message above it, as the peer's decoder with the same limit would.
    const MAX_OUTPUT: Option<u64> = None;
    /// Whether the encoder side renews its session by itself (`qdf_core::Options::session_renewal`,
    /// default on): when the intern table, shapes or their bytes near the caps above, or when
    /// most interned values are never referenced again, the next message starts with a 2-byte
    /// renewal (`docs/SPEC.md` §18) and both sides empty their state, so a stream that lives
    /// for hours keeps interning new values. Off: the tables fill to the caps and later values
    /// go inline for the rest of the stream. Decoders accept renewals either way.
    const SESSION_RENEWAL: bool = true;

    /// The options both session sides start from: the tier of the encoder (Balanced unless
    /// overridden) and the caps above. Decoding reads only the caps; the wire names its tier.
    fn options() -> Options {
        let opts = Options::balanced()
            .max_intern_entries(Self::MAX_INTERN_ENTRIES)
            .max_intern_bytes(Self::MAX_INTERN_BYTES)
            .max_shapes(Self::MAX_SHAPES)
            .max_depth(Self::MAX_DEPTH)
            .session_renewal(Self::SESSION_RENEWAL);
        match Self::MAX_OUTPUT {
            Some(bytes) => opts.max_output(bytes),
            None => opts,
        }
    }
}

/// The default caps: Balanced tier, 16 384 intern entries, 1 MiB of interned strings and
/// 1 024 shapes per stream direction, nesting depth 128, messages up to 8 MiB.
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
        assert_eq!(o.feature_bits(), qdf_core::Features::BALANCED);
        assert_eq!(o.intern_entry_cap(), 16_384);
        assert_eq!(o.intern_byte_cap(), 1 << 20);
        assert_eq!(o.shape_cap(), 1024);
        assert_eq!(o.depth_limit(), 128);
        assert_eq!(o.output_budget(10), qdf_core::DEFAULT_MAX_OUTPUT);
        assert_eq!(DefaultLimits::MAX_MESSAGE_LEN, 8 << 20);
        assert!(o.renews());
    }

    #[test]
    fn overridden_consts_reach_the_options() {
        struct Tight;
        impl Limits for Tight {
            const MAX_INTERN_ENTRIES: u32 = 8;
            const MAX_OUTPUT: Option<u64> = Some(4096);
            const SESSION_RENEWAL: bool = false;
        }
        let o = Tight::options();
        assert_eq!(o.intern_entry_cap(), 8);
        assert_eq!(o.intern_byte_cap(), 1 << 20);
        assert_eq!(o.feature_bits(), qdf_core::Features::BALANCED);
        assert_eq!(o.output_budget(1 << 20), 4096);
        assert!(!o.renews());
    }
}
