//! The sizes a session reports of its Dense tables.

/// The sizes of a session's Dense tables, from [`EncoderSession::stats`](crate::EncoderSession::stats) and
/// [`DecoderSession::stats`](crate::DecoderSession::stats): what the session holds in memory beyond its buffers, bounded
/// by the caps of its [`Options`](crate::Options) (`max_intern_entries`, `max_intern_bytes`, `max_shapes`).
///
/// All zero for a session without Dense state: a stream without `FLAG_DENSE` (the Speed
/// tier), or a decoder before the first body of a Dense stream. A Dense encoder holds its
/// (empty) state from the start, so only its `heap_bytes` is non-zero before the first
/// frame. An encoder's tables grow (a failed message is rolled back) until a renewal
/// (`docs/SPEC.md` §18) empties them; a decoder's mirror them, until the session breaks.
///
/// ```
/// use qdf_core::{EncoderSession, Options, SessionStats};
///
/// let mut enc = EncoderSession::new(Options::speed());
/// enc.encode_frame(&("attic", 21.5f64), &mut Vec::new())?;
/// assert_eq!(enc.stats(), SessionStats::default()); // Speed keeps no state
///
/// let mut enc = EncoderSession::new(Options::balanced());
/// enc.encode_frame(&("attic", "attic", 21.5f64), &mut Vec::new())?;
/// let s = enc.stats();
/// assert_eq!((s.intern_entries, s.intern_bytes), (1, 5)); // "attic" once
/// assert!(s.heap_bytes > 2048); // the ring, the front cache, the tables
/// # Ok::<(), qdf_core::Error>(())
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SessionStats {
    /// Intern table entries defined (strings and byte strings sent once), at most
    /// `max_intern_entries` (and the wire's 65 535).
    pub intern_entries: u32,
    /// Bytes of the intern table's entries (their contents), at most `max_intern_bytes`.
    pub intern_bytes: u64,
    /// Struct (and map key-set) shapes defined, at most `max_shapes`.
    pub shapes: u32,
    /// Column shapes of columnar containers defined, at most `max_shapes`.
    pub col_shapes: u32,
    /// Bytes the shape and column-shape tables charge against `max_intern_bytes` (a field
    /// name's length plus 4; a column's name its length plus 5, its kind byte included).
    pub shape_bytes: u64,
    /// Heap bytes this side's Dense state holds: the tables above as allocated, plus what
    /// only this side keeps (the encoder's content index and front cache, its shape
    /// predictions and checkpoint undo logs; both sides' predictor ring and pair table and
    /// the per-field numbers of `docs/SPEC.md` §15.2, which only the decoder keeps when the
    /// encoder runs without `NUM_STATE`). So, unlike the other fields, it differs between an
    /// encoder and its decoder. Every
    /// part is capped (`docs/SPEC.md` §16, Caps), so it stays flat however long the session
    /// runs once the caps are reached. Allocations are kept for reuse: a failed (rolled
    /// back) message may leave it higher while the tables are as before.
    pub heap_bytes: u64,
    /// References written or read (`E1`, `E8`, `E9`, `EA`), over the whole session.
    pub hits: u64,
    /// Strings that were not in the table: definitions (`E0`, `E2`), plus on the encoder
    /// the strings of at least `min_intern` bytes it wrote inline (caps reached, or not
    /// admitted yet: `docs/SPEC.md` §18), over the whole session.
    pub misses: u64,
    /// Intern entries dropped by renewals, over the whole session.
    pub evictions: u64,
    /// Renewals (`docs/SPEC.md` §18) written or read: the generation of the current state.
    pub renewals: u64,
}
