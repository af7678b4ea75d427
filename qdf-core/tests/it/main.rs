//! qdf-core's integration tests, one module per concern, in one test binary (as 32 files they
//! were 32 binaries, each linking qdf-core and its dev-dependencies again). `session_memory`
//! (a counting global allocator) and `public_api` (syn) stay separate binaries. Run one
//! module with `cargo test -p qdf-core --test it MODULE::`.

mod common;

mod break10;
mod break11;
mod break12;
mod break7;
mod break8;
mod break9;
mod checksum;
mod columnar;
mod data_model;
mod datetime_text;
mod dense;
mod dictionary;
mod dictionary_numbers;
mod dictionary_shapes;
mod dictionary_shapes_break;
mod encode_duplicate_keys;
mod encoder_safety;
mod entropy;
mod fast_paths;
mod fuzz_corpus;
mod hex_refs;
mod hex_text;
mod hostile;
mod inspect;
mod key_sets;
mod map_columns;
mod nested_columns;
mod nested_wire;
mod new_user;
mod num_state;
mod number_text;
mod output_limit;
mod proptests;
mod qpack_fuzz_corpus;
mod qpack_serde;
mod regression;
mod regression_hostile_new;
mod regression_inspect_entropy_kind;
mod serde_attrs;
mod shapes;
mod small_containers;
mod spec_examples;
mod str_state;
mod stream_framing;
mod tagged_columns;
mod tagged_wire;
mod tans_fuzz_corpus;
mod tape_probes;
mod to_vec_into;
mod typed_targets;
mod value_other_formats;
mod value_serde;
mod variant_columns;
mod walker_depth;
