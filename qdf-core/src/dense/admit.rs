//! Encoder admission and the renewal policy of a session (`docs/SPEC.md` §18): encoder-only
//! decisions, nothing here is on the wire or mirrored by the decoder.
//!
//! *Admission.* A session starts by interning every eligible string on first sight, as a
//! one-shot message does. Once a generation has defined [`LEARN_AFTER`] entries, the
//! encoder counts how many of them were ever referenced; if fewer than half were (unique ids,
//! request ids, timestamps as text), it learns *second sight*: a new value is written inline
//! and its fingerprint recorded in a direct-mapped filter ([`FILTER_SLOTS`] slots of 32-bit
//! fingerprints, 64 KiB); it is interned when it is seen again while its slot still holds it
//! (the classic "admit on second hit" of cache admission, e.g. TinyLFU's doorkeeper, here
//! reduced to one direct-mapped table). A value seen only once then costs its inline form,
//! and the table holds only values that recur.
//!
//! *Renewal.* The policy asks for a renewal at the next frame boundary when the generation
//! is near one of the encoder's caps (15/16 of the intern entries, the intern bytes, the
//! shapes or the shape-name bytes), or when admission has just been learned (the table is
//! then mostly values that never came back). Before the state is cleared, the fingerprints
//! of every entry referenced in the ending generation are written into the filter, so hot
//! values are interned again on their first sight in the new generation.
//!
//! The fingerprint is an unseeded multiply-rotate hash over 8-byte words: the encoder's
//! output must not depend on a per-process seed (sizes are pinned), and a collision only
//! admits a value early or late, never changes what is decoded.

/// Slots of the second-sight filter (a power of two): 64 KiB of `u32` fingerprints.
pub(crate) const FILTER_SLOTS: usize = 1 << 14;

/// Definitions in a generation before the encoder checks how many were referenced.
pub(crate) const LEARN_AFTER: u32 = 4096;

/// The encoder's admission filter and renewal policy state.
#[derive(Clone)]
pub(crate) struct Admission {
    /// Fingerprints by slot, 0 when empty.
    seen: Box<[u32; FILTER_SLOTS]>,
    /// The automatic policy is on (`Options::session_renewal`); off, renewals happen only
    /// on request and admission stays first sight.
    pub(crate) auto: bool,
    /// Intern a new value only on its second sighting (learned, see the module docs).
    pub(crate) second_sight: bool,
    /// The table length at which the next usefulness check runs (doubles after each).
    pub(crate) next_check: u32,
    /// A renewal is due: the next frame carries it (kept after a failed frame).
    pub(crate) pending: bool,
    /// The table and shape counts at the last policy check (`u64::MAX`: none yet).
    pub(crate) checked: u64,
}

impl std::fmt::Debug for Admission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admission")
            .field("second_sight", &self.second_sight)
            .field("next_check", &self.next_check)
            .field("pending", &self.pending)
            .finish()
    }
}

impl Admission {
    pub(crate) fn new(auto: bool) -> Self {
        Admission {
            auto,
            seen: Box::new([0; FILTER_SLOTS]),
            second_sight: false,
            next_check: LEARN_AFTER,
            pending: false,
            checked: u64::MAX,
        }
    }

    /// Records a sighting of the value with fingerprint `h`; true if its slot already held
    /// it (the second sighting).
    #[inline]
    pub(crate) fn sighted(&mut self, h: u64) -> bool {
        let (slot, fp) = split(h);
        let s = &mut self.seen[slot];
        if *s == fp {
            return true;
        }
        *s = fp;
        false
    }

    /// Marks the value with fingerprint `h` as seen (a hot entry kept across a renewal).
    #[inline]
    pub(crate) fn remember(&mut self, h: u64) {
        let (slot, fp) = split(h);
        self.seen[slot] = fp;
    }

    /// Heap bytes held: the filter.
    pub(crate) fn heap_bytes(&self) -> u64 {
        std::mem::size_of::<[u32; FILTER_SLOTS]>() as u64
    }
}

/// The slot and the non-zero 32-bit fingerprint of hash `h`.
#[inline]
fn split(h: u64) -> (usize, u32) {
    ((h as usize) & (FILTER_SLOTS - 1), (h >> 32) as u32 | 1)
}

/// The unseeded fingerprint hash of `(bytes, is_bin)`: a multiply-rotate over
/// little-endian 8-byte words (the last one zero-padded), the length and the kind folded in,
/// with a final avalanche (the `splitmix64` finaliser).
#[inline]
pub(crate) fn fingerprint(bytes: &[u8], is_bin: bool) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64) << 1 | is_bin as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h.rotate_left(23) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests;
