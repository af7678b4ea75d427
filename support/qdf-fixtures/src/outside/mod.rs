//! Shapes qdf was not designed for, generated in the style of public benchmark datasets that
//! users hold qdf up against (issue #19, #20): a web access log, a save game of players with
//! inventories, a float mesh, and a game state of nested enums and tuples. Own generators,
//! seeded and deterministic like [`crate::synth`].

pub mod gamestate;
pub mod mesh;
pub mod savegame;
pub mod weblog;

use crate::Visitor;

/// Calls `v` on the four shapes at their benchmark sizes: a 10 000-line web log, 500 players,
/// 125 000 triangles, 1 000 game-state updates.
pub fn visit_outside<V: Visitor>(v: &mut V) {
    v.visit("WebLog 10000", &weblog::web_log(10_000));
    v.visit("SaveGame 500", &savegame::save_game(500));
    v.visit("Mesh 125000", &mesh::mesh(125_000));
    v.visit("GameState 1000", &gamestate::game_state(1_000));
}
