//! Loom models of `DictionaryRegistry` (`qdf-core/src/dict/registry.rs`): every interleaving
//! of concurrent register / lookup / rotate / retire. Built only with `--cfg loom`:
//!
//! ```sh
//! RUSTFLAGS="--cfg loom" cargo test -p qdf-core --test loom --release
//! ```
//!
//! What each model checks: ids are unique and never remapped (a lookup returns the content
//! registered under the id or nothing), the byte count and the cap stay exact, the current
//! dictionary is always a registered one, and a dictionary a connection holds keeps decoding
//! after it is retired (no use after retire can fail).
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use qdf_core::{Dictionary, DictionaryRegistry, Options, REGISTRY_ID_BYTES, RegistryError};

fn dict(words: &[&str]) -> Dictionary {
    Dictionary::from_strs(words.iter().copied()).expect("a valid dictionary")
}

/// What registering `d` charges the registry: its heap and its id's record.
fn cost(d: &Dictionary) -> u64 {
    d.heap_bytes() + REGISTRY_ID_BYTES
}

/// Decodes a message naming `d` with a dictionary a lookup returned: the held clone works.
fn decodes_with(held: &Dictionary, d: &Dictionary, word: &str) {
    assert_eq!(held, d, "a lookup returned other content for the id");
    let msg = qdf_core::to_vec_with_dictionary(&word, Options::balanced(), d).expect("encodes");
    let s: String =
        qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), held).expect("decodes");
    assert_eq!(s, word);
}

/// Two connections register the same dictionary while a third looks it up.
#[test]
fn concurrent_register_and_lookup() {
    let a = dict(&["alpha-service", "beta-service"]);
    loom::model(move || {
        let r = Arc::new(DictionaryRegistry::new());
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let (r, a) = (r.clone(), a.clone());
                thread::spawn(move || assert_eq!(r.register(a.clone()), Ok(a.id())))
            })
            .collect();
        let reader = {
            let (r, a) = (r.clone(), a.clone());
            thread::spawn(move || {
                if let Some(held) = r.get(a.id()) {
                    decodes_with(&held, &a, "alpha-service");
                }
            })
        };
        for w in writers {
            w.join().unwrap();
        }
        reader.join().unwrap();
        assert_eq!(r.ids(), vec![a.id()], "registered once");
        assert_eq!(r.held_bytes(), cost(&a));
    });
}

/// A rotation to `b` races with a connection that starts from the current dictionary and
/// with one that decodes a message naming the old `a`.
#[test]
fn rotate_while_streams_start_and_decode() {
    let a = dict(&["alpha-service"]);
    let b = dict(&["beta-service"]);
    loom::model(move || {
        let r = Arc::new(DictionaryRegistry::new());
        r.rotate(a.clone()).expect("fits");
        let rot = {
            let (r, a, b) = (r.clone(), a.clone(), b.clone());
            thread::spawn(move || assert_eq!(r.rotate(b), Ok(Some(a.id()))))
        };
        let starter = {
            let (r, a, b) = (r.clone(), a.clone(), b.clone());
            thread::spawn(move || {
                let cur = r.current().expect("a current dictionary at all times");
                assert!(cur == a || cur == b, "current is a registered dictionary");
            })
        };
        let old = {
            let (r, a) = (r.clone(), a.clone());
            thread::spawn(move || {
                let held = r.get(a.id()).expect("the old one stays until retired");
                decodes_with(&held, &a, "alpha-service");
            })
        };
        rot.join().unwrap();
        starter.join().unwrap();
        old.join().unwrap();
        assert_eq!(r.current(), Some(b.clone()));
        assert_eq!(r.held_bytes(), cost(&a) + cost(&b));
    });
}

/// A retire races with a connection that looks the retired dictionary up: it either misses
/// or holds a dictionary that keeps decoding after the retire.
#[test]
fn retire_while_a_connection_looks_up() {
    let a = dict(&["alpha-service"]);
    let b = dict(&["beta-service"]);
    loom::model(move || {
        let r = Arc::new(DictionaryRegistry::new());
        r.rotate(a.clone()).expect("fits");
        r.rotate(b.clone()).expect("fits");
        let retirer = {
            let (r, a, b) = (r.clone(), a.clone(), b.clone());
            thread::spawn(move || {
                assert_eq!(r.retire(a.id()), Ok(true));
                assert_eq!(r.retire(b.id()), Err(RegistryError::RetireCurrent(b.id())));
            })
        };
        let conn = {
            let (r, a) = (r.clone(), a.clone());
            thread::spawn(move || r.get(a.id()))
        };
        retirer.join().unwrap();
        if let Some(held) = conn.join().unwrap() {
            decodes_with(&held, &a, "alpha-service");
        }
        assert_eq!(r.get(a.id()), None);
        assert_eq!(r.ids(), vec![b.id()]);
        // a's id stays charged: its record keeps the id from other content.
        assert_eq!(r.held_bytes(), cost(&b) + REGISTRY_ID_BYTES);
    });
}

/// Two dictionaries race for room for one: exactly one is registered, the other gets
/// `Full`, and the byte count is that one's.
#[test]
fn the_cap_holds_under_races() {
    let a = dict(&["alpha-service"]);
    let b = dict(&["beta-service!"]);
    assert_eq!(cost(&a), cost(&b));
    let cap = cost(&a) + 1;
    loom::model(move || {
        let r = Arc::new(DictionaryRegistry::with_max_bytes(cap));
        let ts: Vec<_> = [a.clone(), b.clone()]
            .into_iter()
            .map(|d| {
                let r = r.clone();
                thread::spawn(move || r.rotate(d))
            })
            .collect();
        let results: Vec<_> = ts.into_iter().map(|t| t.join().unwrap()).collect();
        let ok = results.iter().filter(|x| x.is_ok()).count();
        assert_eq!(ok, 1, "{results:?}");
        assert!(
            results
                .iter()
                .any(|x| matches!(x, Err(RegistryError::Full { max, .. }) if *max == cap))
        );
        assert_eq!(r.held_bytes(), cost(&a));
        let cur = r.current().expect("the winner is current");
        assert_eq!(r.ids(), vec![cur.id()]);
    });
}
