//! The dictionaries one process holds, shared by all its connections: registered by id,
//! rotated (a newer one becomes current while streams on the old one go on) and retired.
//!
//! One lock guards a map from [`DictionaryId`] to [`Dictionary`] and the current id. A
//! lookup clones the `Dictionary` (an `Arc` inside) out of the lock, so a stream keeps its
//! dictionary for as long as it runs, whatever the registry does after. The concurrency
//! (register, lookup, rotate, retire from several threads) is checked with loom:
//! `qdf-core/tests/loom.rs`, run by `.ci/run` with `--cfg loom`.

use std::collections::BTreeMap;
use std::fmt;

#[cfg(loom)]
use loom::sync::RwLock;
#[cfg(not(loom))]
use std::sync::RwLock;

use super::{Dictionary, DictionaryId};

/// The default cap on the bytes a registry holds: 64 MiB (about three dictionaries at the
/// file format's 16 MiB limit, with their indexes).
pub const DEFAULT_MAX_REGISTRY_BYTES: u64 = 64 << 20;

/// What the registry charges for each id it has ever registered, for its whole life (the
/// record that keeps the id from being given to other content): the id, the full SHA-256
/// and a map node's share.
pub const REGISTRY_ID_BYTES: u64 = 64;

/// A process-wide set of [`Dictionary`]s, shared by every connection (put it in an
/// `Arc`, or a `static`): decoders look a message's dictionary up by the id it names
/// ([`crate::dictionary_id`]), encoders start new streams from the
/// [`current`](Self::current) one.
///
/// - **Ids are never remapped:** an id names one content for the registry's whole life.
///   Registering the same dictionary again is a no-op; a different dictionary whose 8-byte
///   id collides is refused ([`RegistryError::IdCollision`]), also after the first was
///   retired.
/// - **Rotation:** [`rotate`](Self::rotate) registers a newer dictionary and makes it
///   current; the previous one stays registered, so streams and messages that name it keep
///   decoding, until [`retire`](Self::retire) removes it. A stream that already holds a
///   dictionary (every lookup returns a clone) is never affected by a later retire.
/// - **Bounded memory:** the heap bytes of the registered dictionaries
///   ([`Dictionary::heap_bytes`]) plus [`REGISTRY_ID_BYTES`] for every id ever registered
///   stay at most the cap given to [`with_max_bytes`](Self::with_max_bytes) (default
///   [`DEFAULT_MAX_REGISTRY_BYTES`]). A retire frees the dictionary's bytes, not its id's:
///   a process that registers a new dictionary every hour spends 0.56 MB a year; one that
///   registers a new one every minute, 33.6 MB a year, and at the default cap is refused
///   ([`RegistryError::Full`]) after about two years, until it restarts.
///
/// Lookups take a read lock and clone an `Arc`: cheap and concurrent. A poisoned lock (a
/// panic inside the registry, which its code does not do) is recovered from: every
/// operation leaves the map consistent before it can panic.
///
/// ```
/// use qdf_core::{Dictionary, DictionaryRegistry, Options};
///
/// let registry = DictionaryRegistry::new();
/// let v1 = Dictionary::from_strs(["checkout", "payment-service"])?;
/// registry.rotate(v1.clone()).expect("fits");
/// let msg = qdf_core::to_vec_with_dictionary(&"checkout", Options::balanced(), &v1)?;
///
/// // Later: a newer dictionary becomes current; messages naming v1 still decode.
/// let v2 = Dictionary::from_strs(["checkout", "cart-service"])?;
/// registry.rotate(v2.clone()).expect("fits");
/// assert_eq!(registry.current().map(|d| d.id()), Some(v2.id()));
/// let id = qdf_core::dictionary_id(&msg)?.expect("names a dictionary");
/// let dict = registry.get(id).expect("v1 is still registered");
/// let s: String = qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), &dict)?;
/// assert_eq!(s, "checkout");
///
/// // Once retired, new lookups miss (decoders answer UnknownDictionary).
/// assert!(registry.retire(v1.id()).expect("not current"));
/// assert!(registry.get(v1.id()).is_none());
/// # Ok::<(), qdf_core::Error>(())
/// ```
pub struct DictionaryRegistry {
    inner: RwLock<Inner>,
    max_bytes: u64,
}

#[derive(Default)]
struct Inner {
    live: BTreeMap<DictionaryId, Dictionary>,
    /// Every id ever registered with the full SHA-256 it named, retired ones included, so
    /// an id is never given to other content ([`REGISTRY_ID_BYTES`] each, charged).
    seen: BTreeMap<DictionaryId, [u8; 32]>,
    current: Option<DictionaryId>,
    bytes: u64,
}

/// Why a [`DictionaryRegistry`] refused an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// The dictionary would take the registry past its cap: `bytes` (the bytes held
    /// already plus the new dictionary's, see [`DictionaryRegistry::held_bytes`]) against
    /// `max`.
    Full {
        /// Bytes the registry would hold.
        bytes: u64,
        /// The registry's cap ([`DictionaryRegistry::with_max_bytes`]).
        max: u64,
    },
    /// Another dictionary with this 8-byte id was registered before (a hash collision, or a
    /// forged file): the id keeps naming the first one.
    IdCollision(DictionaryId),
    /// The dictionary to retire is the current one: [`rotate`](DictionaryRegistry::rotate)
    /// to a newer one first, so encoders always have one to start from.
    RetireCurrent(DictionaryId),
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Full { bytes, max } => write!(
                f,
                "dictionary registry full: {bytes} bytes would exceed its cap of {max}"
            ),
            RegistryError::IdCollision(id) => write!(
                f,
                "dictionary id {id} already names a dictionary with other content"
            ),
            RegistryError::RetireCurrent(id) => {
                write!(f, "dictionary {id} is current: rotate before retiring it")
            }
        }
    }
}

impl std::error::Error for RegistryError {}

impl Default for DictionaryRegistry {
    fn default() -> Self {
        DictionaryRegistry::new()
    }
}

impl fmt::Debug for DictionaryRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.read();
        f.debug_struct("DictionaryRegistry")
            .field("live", &inner.live.keys().collect::<Vec<_>>())
            .field("current", &inner.current)
            .field("bytes", &inner.bytes)
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

impl DictionaryRegistry {
    /// An empty registry with the default cap ([`DEFAULT_MAX_REGISTRY_BYTES`]).
    pub fn new() -> Self {
        DictionaryRegistry::with_max_bytes(DEFAULT_MAX_REGISTRY_BYTES)
    }

    /// An empty registry holding at most `max_bytes` ([`held_bytes`](Self::held_bytes)).
    pub fn with_max_bytes(max_bytes: u64) -> Self {
        DictionaryRegistry {
            inner: RwLock::new(Inner::default()),
            max_bytes,
        }
    }

    fn read(&self) -> impl std::ops::Deref<Target = Inner> + '_ {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> impl std::ops::DerefMut<Target = Inner> + '_ {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers `dict` so that [`get`](Self::get) finds it by its id; returns the id.
    /// Registering a dictionary that is registered already changes nothing.
    ///
    /// Errors: [`RegistryError::IdCollision`] when the id was given to other content
    /// before (even if that one was retired); [`RegistryError::Full`] past the cap.
    pub fn register(&self, dict: Dictionary) -> Result<DictionaryId, RegistryError> {
        let mut inner = self.write();
        inner.add(dict, self.max_bytes)
    }

    /// Registers `dict` (as [`register`](Self::register)) and makes it the current
    /// dictionary, the one new streams start from. The previous current one stays
    /// registered until retired. Returns the previous current id.
    ///
    /// Errors: those of [`register`](Self::register); the current one is unchanged then.
    pub fn rotate(&self, dict: Dictionary) -> Result<Option<DictionaryId>, RegistryError> {
        let mut inner = self.write();
        let id = inner.add(dict, self.max_bytes)?;
        Ok(inner.current.replace(id))
    }

    /// The dictionary registered under `id`, or `None` (never registered, or retired).
    /// The returned clone keeps working whatever the registry does after.
    pub fn get(&self, id: DictionaryId) -> Option<Dictionary> {
        self.read().live.get(&id).cloned()
    }

    /// The current dictionary (the last [`rotate`](Self::rotate)d one), or `None` before
    /// the first rotation.
    pub fn current(&self) -> Option<Dictionary> {
        let inner = self.read();
        inner.current.and_then(|id| inner.live.get(&id).cloned())
    }

    /// Removes the dictionary `id`, so later lookups miss; messages naming it then fail to
    /// decode with [`ErrorCode::UnknownDictionary`](crate::ErrorCode::UnknownDictionary).
    /// Streams that hold it already go on. Returns whether it was registered. Its id stays
    /// reserved for the same content (it may be registered again).
    ///
    /// Errors: [`RegistryError::RetireCurrent`] for the current dictionary.
    pub fn retire(&self, id: DictionaryId) -> Result<bool, RegistryError> {
        let mut inner = self.write();
        if inner.current == Some(id) {
            return Err(RegistryError::RetireCurrent(id));
        }
        let Some(dict) = inner.live.remove(&id) else {
            return Ok(false);
        };
        inner.bytes -= dict.heap_bytes();
        Ok(true)
    }

    /// The ids registered now, in ascending order.
    pub fn ids(&self) -> Vec<DictionaryId> {
        self.read().live.keys().copied().collect()
    }

    /// Bytes held: [`Dictionary::heap_bytes`] of the registered dictionaries plus
    /// [`REGISTRY_ID_BYTES`] for every id ever registered.
    pub fn held_bytes(&self) -> u64 {
        self.read().bytes
    }

    /// The cap on [`held_bytes`](Self::held_bytes).
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }
}

impl Inner {
    fn add(&mut self, dict: Dictionary, max: u64) -> Result<DictionaryId, RegistryError> {
        let id = dict.id();
        if let Some(sha) = self.seen.get(&id)
            && *sha != dict.sha256()
        {
            return Err(RegistryError::IdCollision(id));
        }
        if self.live.contains_key(&id) {
            return Ok(id);
        }
        let new_id = if self.seen.contains_key(&id) {
            0
        } else {
            REGISTRY_ID_BYTES
        };
        let bytes = self
            .bytes
            .saturating_add(dict.heap_bytes())
            .saturating_add(new_id);
        if bytes > max {
            return Err(RegistryError::Full { bytes, max });
        }
        self.seen.insert(id, dict.sha256());
        self.live.insert(id, dict);
        self.bytes = bytes;
        Ok(id)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn dict(words: &[&str]) -> Dictionary {
        Dictionary::from_strs(words.iter().copied()).expect("a valid dictionary")
    }

    fn cost(d: &Dictionary) -> u64 {
        d.heap_bytes() + REGISTRY_ID_BYTES
    }

    #[test]
    fn register_get_rotate_retire() {
        let r = DictionaryRegistry::new();
        let a = dict(&["alpha-service", "beta-service"]);
        let b = dict(&["gamma-service"]);
        assert_eq!(r.current(), None);
        assert_eq!(r.register(a.clone()), Ok(a.id()));
        assert_eq!(r.register(a.clone()), Ok(a.id()), "idempotent");
        assert_eq!(r.held_bytes(), cost(&a));
        assert!(
            a.heap_bytes() > a.content_bytes(),
            "the index is charged too"
        );
        assert_eq!(r.current(), None, "register does not make current");
        assert_eq!(r.rotate(a.clone()), Ok(None));
        assert_eq!(r.rotate(b.clone()), Ok(Some(a.id())));
        assert_eq!(r.current(), Some(b.clone()));
        assert_eq!(r.get(a.id()), Some(a.clone()));
        let mut ids = vec![a.id(), b.id()];
        ids.sort();
        assert_eq!(r.ids(), ids);
        assert_eq!(r.retire(b.id()), Err(RegistryError::RetireCurrent(b.id())));
        let held = r.get(a.id()).expect("registered");
        assert_eq!(r.retire(a.id()), Ok(true));
        assert_eq!(r.retire(a.id()), Ok(false));
        assert_eq!(r.get(a.id()), None);
        assert_eq!(r.held_bytes(), cost(&b) + REGISTRY_ID_BYTES);
        // The clone taken before the retire still decodes what names it.
        let msg = crate::to_vec_with_dictionary(&"alpha-service", crate::Options::balanced(), &a)
            .expect("encodes");
        let s: String = crate::from_slice_with_dictionary(&msg, crate::Options::balanced(), &held)
            .expect("decodes");
        assert_eq!(s, "alpha-service");
        // Retired ids may come back with the same content, without a second id record.
        assert_eq!(r.register(a.clone()), Ok(a.id()));
        assert_eq!(r.held_bytes(), cost(&a) + cost(&b));
    }

    /// Rotating back and forth between dictionaries holds the bytes steady; each new id
    /// costs its record for good, so a registry of a bounded size refuses an unbounded
    /// number of distinct ids.
    #[test]
    fn rotation_loops_stay_bounded() {
        let a = dict(&["alpha-service"]);
        let b = dict(&["beta-service"]);
        let r = DictionaryRegistry::new();
        for _ in 0..100 {
            r.rotate(a.clone()).expect("fits");
            let _ = r.retire(b.id()).expect("not current");
            r.rotate(b.clone()).expect("fits");
            r.retire(a.id()).expect("not current");
            assert_eq!(r.held_bytes(), cost(&b) + REGISTRY_ID_BYTES);
        }
        // Room for the current dictionary and the next one, each of one 6-byte word, and
        // one more id record: the current and the next plus the records of the retired.
        let cap = 2 * cost(&dict(&["word-0"])) + REGISTRY_ID_BYTES;
        let small = DictionaryRegistry::with_max_bytes(cap);
        let mut refused = None;
        for i in 0..10 {
            let d = dict(&[&format!("word-{i}")]);
            if let Err(e) = small.rotate(d.clone()) {
                refused = Some((i, e));
                break;
            }
            for id in small.ids() {
                if id != d.id() {
                    small.retire(id).expect("not current");
                }
            }
        }
        let (i, e) = refused.expect("distinct ids fill the cap");
        assert_eq!(i, 3, "three ids, then the fourth's record does not fit");
        assert!(
            matches!(e, RegistryError::Full { max, .. } if max == cap),
            "{e}"
        );
    }

    #[test]
    fn cap_is_enforced_and_failures_change_nothing() {
        let a = dict(&["alpha-service"]);
        let b = dict(&["beta-service-with-a-longer-name"]);
        let r = DictionaryRegistry::with_max_bytes(cost(&a) + 1);
        assert_eq!(r.rotate(a.clone()), Ok(None));
        let want = cost(&a) + cost(&b);
        assert_eq!(
            r.rotate(b.clone()),
            Err(RegistryError::Full {
                bytes: want,
                max: cost(&a) + 1
            })
        );
        assert_eq!(
            r.current(),
            Some(a.clone()),
            "a failed rotate keeps the current one"
        );
        assert_eq!(r.ids(), vec![a.id()]);
        assert_eq!(r.held_bytes(), cost(&a));
        assert_eq!(
            RegistryError::Full { bytes: 9, max: 8 }.to_string(),
            "dictionary registry full: 9 bytes would exceed its cap of 8"
        );
    }

    #[test]
    fn an_id_is_never_given_to_other_content() {
        let a = dict(&["alpha-service"]);
        let b = dict(&["beta-service"]);
        let r = DictionaryRegistry::new();
        r.register(a.clone()).expect("fits");
        // Forge a collision: b's content under a's id.
        let mut inner = r.write();
        let forged = inner.add(
            Dictionary {
                id: a.id(),
                ..b.clone()
            },
            u64::MAX,
        );
        assert_eq!(forged, Err(RegistryError::IdCollision(a.id())));
        drop(inner);
        r.rotate(b.clone()).expect("fits");
        r.retire(a.id()).expect("not current");
        let mut inner = r.write();
        let forged = inner.add(
            Dictionary {
                id: a.id(),
                ..b.clone()
            },
            u64::MAX,
        );
        assert_eq!(
            forged,
            Err(RegistryError::IdCollision(a.id())),
            "also after the first was retired"
        );
    }
}
