//! The public API, pinned two ways, so that adding, removing or changing a public item fails a
//! test until the change is deliberate:
//!
//! 1. `every_root_item_is_nameable`: names every item re-exported at the crate root (a
//!    removed or renamed item fails to compile).
//! 2. `public_items_match_the_list`: lists every publicly reachable item with its signature
//!    and compares the list with the checked-in `tests/public_api.txt`. After a deliberate
//!    change, regenerate the list with
//!    `UPDATE_PUBLIC_API=1 cargo test -p qdf-core --all-features --test public_api` and
//!    review its diff.
//!
//! The lister parses the sources with `syn` (stable Rust, no rustdoc JSON) and starts from
//! `src/lib.rs`: it follows every `pub mod` and every `pub use` (through any chain of
//! re-exports, globs included) to the item's definition, wherever it lives, so a file that
//! becomes public through a new `pub use` is listed without naming it here, and moving a
//! private file changes nothing. Each item is listed under its public path (`qdf_core::…`),
//! not its file: a struct with its `pub` fields and derives, an enum with its variants and
//! their fields, a function with its signature, and for every public type the `pub` items
//! of its inherent `impl` blocks and its trait `impl`s, found in any module of the crate
//! (`cfg(test)` modules excepted). `#[doc(hidden)]` modules (the `unstable` feature's) are
//! listed but not entered. Not seen: `impl`s written inside `macro_rules!` bodies.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

#[test]
fn every_root_item_is_nameable() {
    use qdf_core::{
        Category, Compound, DecoderSession, Deserializer, EncoderSession, Error, ErrorCode,
        Features, FrameStatus, Limits, Options, Result, Serializer, SessionStats, StreamDecoder,
        StreamEncoder, Value, Variant, VariantKind, from_reader, from_reader_with, from_slice,
        from_slice_with, from_value, inspect, take_from_slice, take_from_slice_with, to_value,
        to_vec, to_vec_with, to_writer, to_writer_with,
    };
    let _ = (
        from_slice::<Value>,
        from_slice_with::<Value>,
        take_from_slice::<Value>,
        take_from_slice_with::<Value>,
        from_reader::<&[u8], Value>,
        from_reader_with::<&[u8], Value>,
        to_vec::<Value>,
        to_vec_with::<Value>,
        to_writer::<Vec<u8>, Value>,
        to_writer_with::<Vec<u8>, Value>,
        to_value::<Value>,
        from_value::<Value>,
        std::any::type_name::<Result<()>>(),
        Options::default(),
    );
    let _ = (
        std::any::type_name::<Category>(),
        std::any::type_name::<Compound<'_>>(),
        std::any::type_name::<DecoderSession>(),
        std::any::type_name::<Deserializer<'_>>(),
        std::any::type_name::<EncoderSession>(),
        std::any::type_name::<Error>(),
        std::any::type_name::<ErrorCode>(),
        std::any::type_name::<Features>(),
        std::any::type_name::<FrameStatus>(),
        std::any::type_name::<Limits>(),
        std::any::type_name::<Serializer>(),
        std::any::type_name::<SessionStats>(),
        std::any::type_name::<StreamDecoder<&[u8]>>(),
        std::any::type_name::<StreamEncoder<Vec<u8>>>(),
        std::any::type_name::<Variant>(),
        std::any::type_name::<VariantKind>(),
    );
    let _ = (inspect::message, inspect::stream, inspect::kind_name);
    let _ = (
        std::any::type_name::<inspect::Event<'_>>(),
        std::any::type_name::<inspect::EventKind<'_>>(),
        std::any::type_name::<inspect::InspectError>(),
        std::any::type_name::<inspect::StreamSummary>(),
        std::any::type_name::<inspect::FrameAt>(),
    );
}

/// A module's path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// What a path names: an item of a module (by name), or a module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Def {
    Item(ModPath, String),
    Module(ModPath),
}

/// The crate's sources, parsed on demand, one entry per module (inline modules included).
struct Crate {
    src: PathBuf,
    modules: HashMap<ModPath, Vec<syn::Item>>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("test"))
}

fn is_doc_hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc") && a.meta.to_token_stream().to_string().contains("hidden")
    })
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// The item's visibility, attributes and name, for the kinds a path can name.
fn item_parts(item: &syn::Item) -> Option<(&syn::Visibility, &[syn::Attribute], String)> {
    use syn::Item::*;
    Some(match item {
        Const(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        Enum(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        Fn(i) => (&i.vis, &i.attrs[..], i.sig.ident.to_string()),
        Mod(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        Static(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        Struct(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        Trait(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        Type(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        Union(i) => (&i.vis, &i.attrs[..], i.ident.to_string()),
        _ => return None,
    })
}

/// The leaves of a `use` tree: the path to each leaf, and the name it is brought in as
/// (`None` for a glob).
fn use_leaves(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    use syn::UseTree::*;
    match tree {
        Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        Name(n) if n.ident == "self" => {
            out.push((prefix.clone(), prefix.last().cloned()));
        }
        Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            out.push((path, Some(n.ident.to_string())));
        }
        Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push((path, Some(r.rename.to_string())));
        }
        Glob(_) => out.push((prefix.clone(), None)),
        Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

impl Crate {
    fn new(root: &Path) -> Crate {
        Crate {
            src: root.join("src"),
            modules: HashMap::new(),
        }
    }

    /// The items of module `path`, loading its file (`a/b.rs` or `a/b/mod.rs`) or taking an
    /// inline module's body; `None` for a module that does not exist.
    fn items(&mut self, path: &[String]) -> Option<&[syn::Item]> {
        if !self.modules.contains_key(path) {
            let items = if path.is_empty() {
                parse(&self.src.join("lib.rs"))
            } else {
                let (last, parent) = path.split_last().unwrap();
                let decl = self.items(parent)?.iter().find_map(|i| match i {
                    syn::Item::Mod(m) if m.ident == last && !is_cfg_test(&m.attrs) => {
                        Some(m.content.as_ref().map(|(_, items)| items.clone()))
                    }
                    _ => None,
                })?;
                match decl {
                    Some(items) => items,
                    None => {
                        let dir = path.iter().fold(self.src.clone(), |d, s| d.join(s));
                        let file = dir.with_extension("rs");
                        parse(&if file.exists() {
                            file
                        } else {
                            dir.join("mod.rs")
                        })
                    }
                }
            };
            self.modules.insert(path.to_vec(), items);
        }
        self.modules.get(path).map(Vec::as_slice)
    }

    /// Whether `path` names a module of the crate.
    fn is_module(&mut self, path: &[String]) -> bool {
        self.items(path).is_some()
    }

    /// What `segs` names, seen from module `from` (edition 2018 paths: `crate::`, `self::`,
    /// `super::`, a child module, or a name the module imports). `None` for other crates'
    /// items.
    fn resolve(&mut self, from: &[String], segs: &[String], depth: u32) -> Option<Def> {
        if depth > 16 || segs.is_empty() {
            return None;
        }
        let mut base: ModPath = from.to_vec();
        let mut rest = segs;
        match segs[0].as_str() {
            "crate" => {
                base.clear();
                rest = &segs[1..];
            }
            "self" => rest = &segs[1..],
            _ => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
            }
        }
        // Walk the modules of the path, then look up its last name.
        for (i, seg) in rest.iter().enumerate() {
            let last = i + 1 == rest.len();
            let mut child = base.clone();
            child.push(seg.clone());
            if self.is_module(&child) && !(last && self.defines(&base, seg)) {
                base = child;
                if last {
                    return Some(Def::Module(base));
                }
                continue;
            }
            let def = self.lookup(&base, seg, depth)?;
            if last {
                return Some(def);
            }
            match def {
                Def::Module(m) => base = m,
                Def::Item(..) => return None,
            }
        }
        Some(Def::Module(base))
    }

    /// Whether module `m` defines an item (not a module) called `name`.
    fn defines(&mut self, m: &[String], name: &str) -> bool {
        self.items(m).is_some_and(|items| {
            items.iter().any(|i| {
                !matches!(i, syn::Item::Mod(_))
                    && item_parts(i).is_some_and(|(_, attrs, n)| n == name && !is_cfg_test(attrs))
            })
        })
    }

    /// `name` in module `m`: a definition there, else what a `use` of `m` brings in under
    /// that name, else what a glob `use` brings in.
    fn lookup(&mut self, m: &[String], name: &str, depth: u32) -> Option<Def> {
        if self.defines(m, name) {
            return Some(Def::Item(m.to_vec(), name.to_string()));
        }
        let (named, globs) = self.uses(m);
        for (path, alias) in named {
            if alias == name {
                return self.resolve(m, &path, depth + 1);
            }
        }
        for path in globs {
            if let Some(Def::Module(g)) = self.resolve(m, &path, depth + 1)
                && let Some(d) = self.lookup(&g, name, depth + 1)
            {
                return Some(d);
            }
        }
        None
    }

    /// The `use` leaves of module `m` (any visibility, `cfg(test)` excepted): named ones as
    /// (path, alias), then the globs' paths.
    #[allow(clippy::type_complexity)]
    fn uses(&mut self, m: &[String]) -> (Vec<(Vec<String>, String)>, Vec<Vec<String>>) {
        let mut named = Vec::new();
        let mut globs = Vec::new();
        for item in self.items(m).unwrap_or(&[]) {
            if let syn::Item::Use(u) = item
                && !is_cfg_test(&u.attrs)
            {
                let mut leaves = Vec::new();
                use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                for (path, alias) in leaves {
                    match alias {
                        Some(a) => named.push((path, a)),
                        None => globs.push(path),
                    }
                }
            }
        }
        (named, globs)
    }

    /// The item `name` defined in module `m`.
    fn definition(&mut self, m: &[String], name: &str) -> Option<syn::Item> {
        self.items(m)?
            .iter()
            .find(|i| {
                !matches!(i, syn::Item::Mod(_))
                    && item_parts(i).is_some_and(|(_, attrs, n)| n == name && !is_cfg_test(attrs))
            })
            .cloned()
    }

    /// Every module of the crate (private ones too), `cfg(test)` ones excepted.
    fn all_modules(&mut self) -> Vec<ModPath> {
        let mut out = Vec::new();
        let mut todo = vec![ModPath::new()];
        while let Some(m) = todo.pop() {
            let children: Vec<String> = self
                .items(&m)
                .unwrap_or(&[])
                .iter()
                .filter_map(|i| match i {
                    syn::Item::Mod(md) if !is_cfg_test(&md.attrs) => Some(md.ident.to_string()),
                    _ => None,
                })
                .collect();
            for c in children {
                let mut child = m.clone();
                child.push(c);
                if !todo.contains(&child) && !out.contains(&child) {
                    todo.push(child);
                }
            }
            out.push(m);
        }
        out.sort();
        out
    }
}

fn parse(file: &Path) -> Vec<syn::Item> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    syn::parse_file(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .items
}

/// Tokens as Rust is usually written: `fn f<T: ?Sized>(x: &T) -> Result<Vec<u8>>`.
fn render(t: &impl ToTokens) -> String {
    #[derive(PartialEq)]
    enum Atom {
        Open(char),
        Close(char),
        Word(String),
        Op(String),
    }
    fn flatten(ts: TokenStream, out: &mut Vec<Atom>) {
        let mut pending = String::new();
        for tt in ts {
            match tt {
                TokenTree::Punct(p) => {
                    pending.push(p.as_char());
                    if p.as_char() == '\'' {
                        continue; // a lifetime: joined with the ident after it
                    }
                    if p.spacing() == Spacing::Alone {
                        out.push(Atom::Op(std::mem::take(&mut pending)));
                    }
                }
                TokenTree::Ident(i) => {
                    out.push(Atom::Word(format!("{}{i}", std::mem::take(&mut pending))));
                }
                TokenTree::Literal(l) => out.push(Atom::Word(l.to_string())),
                TokenTree::Group(g) => {
                    let (o, c) = match g.delimiter() {
                        Delimiter::Parenthesis => ('(', ')'),
                        Delimiter::Bracket => ('[', ']'),
                        Delimiter::Brace => ('{', '}'),
                        Delimiter::None => (' ', ' '),
                    };
                    out.push(Atom::Open(o));
                    flatten(g.stream(), out);
                    out.push(Atom::Close(c));
                }
            }
        }
        if !pending.is_empty() {
            out.push(Atom::Op(pending));
        }
    }
    let mut atoms = Vec::new();
    flatten(t.to_token_stream(), &mut atoms);
    // A trailing comma is how rustfmt splits a long list, not part of the item.
    let mut i = 0;
    while i + 1 < atoms.len() {
        if atoms[i] == Atom::Op(",".into()) && matches!(atoms[i + 1], Atom::Close(_)) {
            atoms.remove(i);
        } else {
            i += 1;
        }
    }
    let mut s = String::new();
    let mut prev: Option<&Atom> = None;
    for a in &atoms {
        let space = match (prev, a) {
            (None, _) | (Some(Atom::Open(_)), _) | (_, Atom::Close(_)) => false,
            (_, Atom::Op(o)) if matches!(o.as_str(), "," | ";" | ":" | "::") => false,
            (Some(Atom::Word(_) | Atom::Op(_)), Atom::Op(o)) if o == "<" => {
                !matches!(prev, Some(Atom::Word(_))) && prev != Some(&Atom::Op("::".into()))
            }
            (_, Atom::Op(o)) if o == ">" => false,
            (Some(Atom::Op(p)), _)
                if matches!(p.as_str(), "&" | "::" | "<" | "?" | "*" | "#" | "!") =>
            {
                false
            }
            (Some(Atom::Word(w)), Atom::Open('(' | '[')) => {
                w.starts_with('\'')
                    || matches!(
                        w.as_str(),
                        "for" | "in" | "mut" | "dyn" | "impl" | "where" | "as"
                    )
            }
            (Some(Atom::Op(p)), Atom::Open('(' | '[')) => p != ">",
            _ => true,
        };
        if space {
            s.push(' ');
        }
        match a {
            Atom::Open(c) | Atom::Close(c) => {
                if *c != ' ' {
                    s.push(*c)
                }
            }
            Atom::Word(w) | Atom::Op(w) => s.push_str(w),
        }
        prev = Some(a);
    }
    s
}

/// A function's signature as callers see it: `mut` bindings of parameters (`mut self`,
/// `mut reader: R`) are the body's business.
fn signature(sig: &syn::Signature) -> String {
    let mut sig = sig.clone();
    for arg in &mut sig.inputs {
        match arg {
            syn::FnArg::Receiver(r) if r.reference.is_none() => r.mutability = None,
            syn::FnArg::Typed(t) => {
                if let syn::Pat::Ident(p) = &mut *t.pat {
                    p.mutability = None;
                }
            }
            _ => {}
        }
    }
    render(&sig)
}

/// Attributes worth pinning: `#[non_exhaustive]`, `#[doc(hidden)]`, and the derives.
fn marks(attrs: &[syn::Attribute]) -> String {
    let mut s = String::new();
    for a in attrs {
        if a.path().is_ident("non_exhaustive") {
            s.push_str(" #[non_exhaustive]");
        } else if a.path().is_ident("doc") && is_doc_hidden(std::slice::from_ref(a)) {
            s.push_str(" #[doc(hidden)]");
        } else if a.path().is_ident("derive") {
            write!(s, " #[{}]", render(&a.meta)).unwrap();
        }
    }
    s
}

struct Lister {
    krate: Crate,
    lines: Vec<String>,
    /// Public types by definition, with the path they are listed under.
    types: BTreeMap<(ModPath, String), String>,
    /// Modules already listed (a glob and a `pub mod` may reach the same one).
    seen: Vec<(ModPath, String)>,
}

impl Lister {
    /// Lists the public items of module `m`, reachable as `public`.
    fn module(&mut self, m: &[String], public: &str) {
        if self.seen.iter().any(|(sm, p)| sm == m && p == public) {
            return;
        }
        self.seen.push((m.to_vec(), public.to_string()));
        let items = self.krate.items(m).unwrap_or(&[]).to_vec();
        for item in &items {
            match item {
                syn::Item::Use(u) if is_pub(&u.vis) && !is_cfg_test(&u.attrs) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                    for (path, alias) in leaves {
                        let def = self.krate.resolve(m, &path, 0);
                        match (def, alias) {
                            (Some(Def::Module(g)), None) => self.module(&g, public),
                            (Some(def), Some(alias)) => {
                                self.def(&def, &format!("{public}::{alias}"))
                            }
                            (None, alias) => self.lines.push(format!(
                                "{public}::{}: use {} (not in this crate)",
                                alias.as_deref().unwrap_or("*"),
                                path.join("::")
                            )),
                            (Some(Def::Item(..)), None) => unreachable!("a glob names a module"),
                        }
                    }
                }
                _ => {
                    if let Some((vis, attrs, name)) = item_parts(item)
                        && is_pub(vis)
                        && !is_cfg_test(attrs)
                    {
                        let path = format!("{public}::{name}");
                        match item {
                            syn::Item::Mod(_) => {
                                let mut child = m.to_vec();
                                child.push(name);
                                self.def(&Def::Module(child), &path)
                            }
                            _ => self.item(m, item, &path),
                        }
                    }
                }
            }
        }
    }

    fn def(&mut self, def: &Def, path: &str) {
        match def {
            Def::Module(m) => {
                let (parent, name) = m
                    .split_last()
                    .map(|(n, p)| (p.to_vec(), n.clone()))
                    .unwrap();
                let attrs = self
                    .krate
                    .items(&parent)
                    .unwrap_or(&[])
                    .iter()
                    .find_map(|i| match i {
                        syn::Item::Mod(md) if md.ident == name && is_pub(&md.vis) => {
                            Some(md.attrs.clone())
                        }
                        _ => None,
                    })
                    .unwrap_or_default();
                let hidden = is_doc_hidden(&attrs);
                self.lines.push(format!("{path}: mod{}", marks(&attrs)));
                if !hidden {
                    self.module(m, path);
                }
            }
            Def::Item(m, name) => {
                let item = self
                    .krate
                    .definition(m, name)
                    .expect("resolved to a definition");
                self.item(m, &item, path);
            }
        }
    }

    /// One item defined in module `m`, listed as `path`.
    fn item(&mut self, m: &[String], item: &syn::Item, path: &str) {
        let name = item_parts(item).map(|p| p.2).unwrap_or_default();
        let mut push = |s: String| self.lines.push(s);
        match item {
            syn::Item::Fn(f) => push(format!("{path}: {}{}", signature(&f.sig), marks(&f.attrs))),
            syn::Item::Const(c) => push(format!(
                "{path}: const {}: {}{}",
                c.ident,
                render(&c.ty),
                marks(&c.attrs)
            )),
            syn::Item::Static(c) => push(format!("{path}: static {}: {}", c.ident, render(&c.ty))),
            syn::Item::Type(t) => push(format!(
                "{path}: type {}{} = {}",
                t.ident,
                render(&t.generics),
                render(&t.ty)
            )),
            syn::Item::Struct(s) => {
                push(format!(
                    "{path}: struct {}{}{}",
                    s.ident,
                    render(&s.generics),
                    marks(&s.attrs)
                ));
                for (i, f) in s.fields.iter().enumerate() {
                    if is_pub(&f.vis) {
                        let fname = f.ident.as_ref().map_or(i.to_string(), |n| n.to_string());
                        push(format!("{path}::{fname}: field {}", render(&f.ty)));
                    }
                }
            }
            syn::Item::Enum(e) => {
                push(format!(
                    "{path}: enum {}{}{}",
                    e.ident,
                    render(&e.generics),
                    marks(&e.attrs)
                ));
                for v in &e.variants {
                    match &v.fields {
                        syn::Fields::Unnamed(f) => {
                            let types: Vec<String> =
                                f.unnamed.iter().map(|f| render(&f.ty)).collect();
                            push(format!(
                                "{path}::{}: variant {}({})",
                                v.ident,
                                v.ident,
                                types.join(", ")
                            ))
                        }
                        fields => {
                            push(format!("{path}::{}: variant", v.ident));
                            for f in fields {
                                if let Some(n) = &f.ident {
                                    push(format!(
                                        "{path}::{}::{n}: field {}",
                                        v.ident,
                                        render(&f.ty)
                                    ));
                                }
                            }
                        }
                    }
                }
            }
            syn::Item::Trait(t) => {
                push(format!("{path}: trait {}{}", t.ident, render(&t.generics)));
                for ti in &t.items {
                    if let syn::TraitItem::Fn(f) = ti {
                        push(format!("{path}::{}: {}", f.sig.ident, signature(&f.sig)));
                    }
                }
            }
            syn::Item::Union(u) => push(format!("{path}: union {}", u.ident)),
            _ => return,
        }
        if matches!(
            item,
            syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Trait(_) | syn::Item::Union(_)
        ) {
            self.types.insert((m.to_vec(), name), path.to_string());
        }
    }

    /// The `impl` blocks of the public types, in every module.
    fn impls(&mut self) {
        for m in self.krate.all_modules() {
            let items = self.krate.items(&m).unwrap_or(&[]).to_vec();
            for item in &items {
                let syn::Item::Impl(imp) = item else { continue };
                if is_cfg_test(&imp.attrs) {
                    continue;
                }
                let mut ty = &*imp.self_ty;
                while let syn::Type::Reference(r) = ty {
                    ty = &r.elem;
                }
                let syn::Type::Path(tp) = ty else { continue };
                let segs: Vec<String> = tp
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let Some(Def::Item(dm, dn)) = self.krate.resolve(&m, &segs, 0) else {
                    continue;
                };
                let Some(public) = self.types.get(&(dm, dn)).cloned() else {
                    continue;
                };
                match &imp.trait_ {
                    Some((bang, trait_path, _)) => {
                        let trait_text = self.canonical(&m, trait_path);
                        self.lines.push(format!(
                            "{public}: impl{} {}{trait_text} for {}",
                            render(&imp.generics),
                            if bang.is_some() { "!" } else { "" },
                            render(&imp.self_ty)
                        ));
                    }
                    None => {
                        for ii in &imp.items {
                            match ii {
                                syn::ImplItem::Fn(f) if is_pub(&f.vis) => self.lines.push(format!(
                                    "{public}::{}: {}{}",
                                    f.sig.ident,
                                    signature(&f.sig),
                                    marks(&f.attrs)
                                )),
                                syn::ImplItem::Const(c) if is_pub(&c.vis) => {
                                    self.lines.push(format!(
                                        "{public}::{}: const {}: {}",
                                        c.ident,
                                        c.ident,
                                        render(&c.ty)
                                    ))
                                }
                                syn::ImplItem::Type(t) if is_pub(&t.vis) => self
                                    .lines
                                    .push(format!("{public}::{}: type {}", t.ident, render(&t.ty))),
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
    }

    /// A trait path with its first segment expanded through the module's `use`s
    /// (`fmt::Display` → `std::fmt::Display`), so that moving an `impl` between files that
    /// import differently does not change its line.
    fn canonical(&mut self, m: &[String], path: &syn::Path) -> String {
        let text = render(path);
        let first = path.segments[0].ident.to_string();
        let (named, _) = self.krate.uses(m);
        match named.into_iter().find(|(_, alias)| *alias == first) {
            Some((full, _))
                if !matches!(
                    full.first().map(String::as_str),
                    Some("crate" | "self" | "super")
                ) =>
            {
                let rest = text.strip_prefix(&first).unwrap_or(&text);
                format!("{}{rest}", full.join("::"))
            }
            _ => text,
        }
    }
}

/// One line per public item (see the module docs), sorted.
fn list_public_items(root: &Path) -> String {
    let mut l = Lister {
        krate: Crate::new(root),
        lines: Vec::new(),
        types: BTreeMap::new(),
        seen: Vec::new(),
    };
    l.module(&[], "qdf_core");
    l.impls();
    l.lines.sort();
    let mut out = String::new();
    for line in l.lines {
        writeln!(out, "{line}").unwrap();
    }
    out
}

#[test]
fn public_items_match_the_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let got = list_public_items(root);
    let path = root.join("tests/public_api.txt");
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        let added: Vec<_> = got
            .lines()
            .filter(|l| !want.lines().any(|w| w == *l))
            .collect();
        let removed: Vec<_> = want
            .lines()
            .filter(|l| !got.lines().any(|g| g == *l))
            .collect();
        panic!(
            "the public API changed: added {added:#?}, removed {removed:#?}; if deliberate, \
             rerun with UPDATE_PUBLIC_API=1 and commit tests/public_api.txt"
        );
    }
}

#[test]
fn the_lister_sees_items_fields_impls_and_reexports() {
    let list = list_public_items(Path::new(env!("CARGO_MANIFEST_DIR")));
    for line in [
        // A root function, with its signature.
        "qdf_core::from_reader: fn from_reader<R: std::io::Read, T: DeserializeOwned>(reader: R) -> Result<T>",
        // A field, a method and an associated const of a type defined in `options.rs`.
        "qdf_core::Limits::max_depth: field u32",
        "qdf_core::Limits::max_depth: const fn max_depth(self, depth: u32) -> Limits",
        "qdf_core::Limits::MANY_STREAMS: const MANY_STREAMS: Limits",
        // Reached through two re-exports (`session` → `dense` → `dense/stats.rs`).
        "qdf_core::SessionStats: struct SessionStats #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)] #[non_exhaustive]",
        // An inherent method in a sibling file of the type's definition (`value/access.rs`).
        "qdf_core::Value::as_bool: fn as_bool(&self) -> Option<bool>",
        // A trait impl, its trait path expanded through the file's `use`s.
        "qdf_core::Error: impl std::fmt::Display for Error",
        // An enum variant with a field.
        "qdf_core::ErrorCode::OutputLimit::needed: field u64",
        // A `pub mod` and a glob re-export inside it (`inspect/event.rs`).
        "qdf_core::inspect: mod",
        "qdf_core::inspect::kind_name: fn kind_name(kind: u8) -> &'static str",
        // The serde impls of the serializer, on `&mut Serializer`.
        "qdf_core::Serializer: impl<'a> serde::Serializer for &'a mut Serializer",
        // A hidden module is listed, not entered.
        "qdf_core::wire: mod #[doc(hidden)]",
    ] {
        assert!(
            list.lines().any(|l| l == line),
            "{line} missing from\n{list}"
        );
    }
    // Crate-private items are not listed, nor what hidden modules hold.
    assert!(!list.contains("depth_limit"), "{list}");
    assert!(!list.contains("with_offset"), "{list}");
    assert!(!list.contains("qdf_core::wire::"), "{list}");
    // Every root `pub use` resolved to a definition in this crate.
    assert!(!list.contains("not in this crate"), "{list}");
}

#[test]
fn the_renderer_writes_rust_as_rustfmt_does() {
    let sig: syn::Signature = syn::parse_str(
        "fn f<'a, T: ?Sized + Serialize>(x: &'a mut T, y: [u8; 4], z: (u8, &str)) -> Result<Vec<u8>>",
    )
    .unwrap();
    assert_eq!(
        render(&sig),
        "fn f<'a, T: ?Sized + Serialize>(x: &'a mut T, y: [u8; 4], z: (u8, &str)) -> Result<Vec<u8>>"
    );
    let sig: syn::Signature = syn::parse_str(
        "fn g(mut self, mut sink: &mut dyn FnMut(&Event<'_>), b: &'de [u8],) -> std::result::Result<(), E>",
    )
    .unwrap();
    assert_eq!(
        signature(&sig),
        "fn g(self, sink: &mut dyn FnMut(&Event<'_>), b: &'de [u8]) -> std::result::Result<(), E>"
    );
}
