//! A save game of 500 players, shaped like the `minecraft_savedata` dataset of the Rust
//! serialization benchmark: unit enums, nested structs, `Option`s of structs, tuples of floats,
//! fixed arrays, and per-player inventories (lists of small structs) and string lists.

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng};

/// The players of one world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct SaveGame {
    /// One record per player.
    pub players: Vec<Player>,
}

/// A game mode.
#[derive(
    Clone, Copy, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode,
)]
pub enum GameType {
    /// Survival.
    Survival,
    /// Creative.
    Creative,
    /// Adventure.
    Adventure,
    /// Spectator.
    Spectator,
}

/// An inventory slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Item {
    /// Stack size.
    pub count: i8,
    /// Slot index.
    pub slot: u8,
    /// `minecraft:…` item id.
    pub id: String,
}

/// What a player may do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Abilities {
    /// Blocks per tick.
    pub walk_speed: f32,
    /// Blocks per tick.
    pub fly_speed: f32,
    /// May fly.
    pub may_fly: bool,
    /// Is flying.
    pub flying: bool,
    /// Takes no damage.
    pub invulnerable: bool,
    /// May place blocks.
    pub may_build: bool,
    /// Breaks blocks at once.
    pub instabuild: bool,
}

/// A mob or vehicle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Entity {
    /// `minecraft:…` entity id.
    pub id: String,
    /// Position, blocks.
    pub pos: (f64, f64, f64),
    /// Velocity, blocks per tick.
    pub motion: (f64, f64, f64),
    /// Yaw and pitch, degrees.
    pub rotation: (f32, f32),
    /// Blocks fallen.
    pub fall_distance: f32,
    /// Ticks on fire.
    pub fire: u16,
    /// Ticks of air.
    pub air: u16,
    /// On the ground.
    pub on_ground: bool,
    /// Ignores gravity.
    pub no_gravity: bool,
    /// Takes no damage.
    pub invulnerable: bool,
    /// Ticks until it may use a portal.
    pub portal_cooldown: i32,
    /// UUID as four words.
    pub uuid: [u32; 4],
    /// Name tag.
    pub custom_name: Option<String>,
}

/// The vehicle a player rides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Vehicle {
    /// UUID of the ridden entity.
    pub uuid: [u32; 4],
    /// The ridden entity.
    pub entity: Entity,
}

/// Recipes a player knows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct RecipeBook {
    /// Unlocked recipe ids.
    pub recipes: Vec<String>,
    /// Recipes not yet shown.
    pub to_be_displayed: Vec<String>,
    /// Filter toggle.
    pub is_filtering_craftable: bool,
    /// Book open.
    pub is_gui_open: bool,
}

/// One player's saved state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Player {
    /// Current mode.
    pub game_type: GameType,
    /// Mode before the last change.
    pub previous_game_type: GameType,
    /// Score.
    pub score: i64,
    /// `minecraft:overworld` and so on.
    pub dimension: String,
    /// Hotbar slot.
    pub selected_item_slot: u32,
    /// The item in hand.
    pub selected_item: Item,
    /// Spawn point, blocks.
    pub spawn: (i64, i64, i64),
    /// Spawn forced.
    pub spawn_forced: Option<bool>,
    /// Ticks asleep.
    pub sleep_timer: u16,
    /// Hunger state.
    pub food_exhaustion_level: f32,
    /// Hunger state.
    pub food_saturation_level: f32,
    /// Hunger state.
    pub food_tick_timer: u32,
    /// Experience level.
    pub xp_level: u32,
    /// Progress to the next level, 0..1.
    pub xp_p: f32,
    /// Total experience.
    pub xp_total: i32,
    /// Enchantment seed.
    pub xp_seed: i32,
    /// Inventory, 0–36 items.
    pub inventory: Vec<Item>,
    /// Ender chest, 0–27 items.
    pub ender_items: Vec<Item>,
    /// Abilities.
    pub abilities: Abilities,
    /// Where the player last entered the nether.
    pub entered_nether_position: Option<(f64, f64, f64)>,
    /// What the player rides.
    pub root_vehicle: Option<Vehicle>,
    /// A parrot on the shoulder.
    pub shoulder_entity_left: Option<Entity>,
    /// Credits seen.
    pub seen_credits: bool,
    /// Recipes.
    pub recipe_book: RecipeBook,
}

const ITEMS: [&str; 16] = [
    "minecraft:dirt",
    "minecraft:stone",
    "minecraft:cobblestone",
    "minecraft:oak_log",
    "minecraft:oak_planks",
    "minecraft:torch",
    "minecraft:iron_ingot",
    "minecraft:gold_ingot",
    "minecraft:diamond",
    "minecraft:iron_pickaxe",
    "minecraft:diamond_sword",
    "minecraft:bread",
    "minecraft:cooked_beef",
    "minecraft:bow",
    "minecraft:arrow",
    "minecraft:redstone",
];
const ENTITIES: [&str; 6] = [
    "minecraft:horse",
    "minecraft:pig",
    "minecraft:boat",
    "minecraft:minecart",
    "minecraft:parrot",
    "minecraft:strider",
];
const DIMENSIONS: [&str; 3] = [
    "minecraft:overworld",
    "minecraft:the_nether",
    "minecraft:the_end",
];
const NAMES: [&str; 6] = ["Polly", "Rusty", "Blue", "Captain", "Kiwi", "Mango"];
const MODES: [GameType; 4] = [
    GameType::Survival,
    GameType::Creative,
    GameType::Adventure,
    GameType::Spectator,
];

fn item(r: &mut Rng, slot: u8) -> Item {
    Item {
        count: 1 + r.int_n(64) as i8,
        slot,
        id: r.pick(&ITEMS).to_owned(),
    }
}

fn items(r: &mut Rng, max: u64) -> Vec<Item> {
    let n = r.int_n(max + 1) as u8;
    (0..n).map(|slot| item(r, slot)).collect()
}

fn triple(r: &mut Rng, scale: f64) -> (f64, f64, f64) {
    (
        (r.float() - 0.5) * scale,
        (r.float() - 0.5) * scale,
        (r.float() - 0.5) * scale,
    )
}

fn uuid(r: &mut Rng) -> [u32; 4] {
    [
        r.u64() as u32,
        r.u64() as u32,
        r.u64() as u32,
        r.u64() as u32,
    ]
}

fn entity(r: &mut Rng) -> Entity {
    Entity {
        id: r.pick(&ENTITIES).to_owned(),
        pos: triple(r, 2000.0),
        motion: triple(r, 1.0),
        rotation: (
            (r.float() * 360.0) as f32,
            (r.float() * 180.0 - 90.0) as f32,
        ),
        fall_distance: r.float() as f32,
        fire: r.int_n(2) as u16,
        air: 300,
        on_ground: r.int_n(2) == 0,
        no_gravity: false,
        invulnerable: false,
        portal_cooldown: 0,
        uuid: uuid(r),
        custom_name: (r.int_n(4) == 0).then(|| r.pick(&NAMES).to_owned()),
    }
}

fn recipes(r: &mut Rng, max: u64) -> Vec<String> {
    let n = r.int_n(max + 1);
    (0..n).map(|_| r.pick(&ITEMS).to_owned()).collect()
}

/// `n` players with random state and inventories.
pub fn save_game(n: usize) -> SaveGame {
    let mut r = Rng::pcg(0x7361_7665, 0x0002);
    let players = (0..n)
        .map(|_| {
            let mode = MODES[r.index(4)];
            Player {
                game_type: mode,
                previous_game_type: if r.int_n(8) == 0 {
                    MODES[r.index(4)]
                } else {
                    mode
                },
                score: r.int(10_000),
                dimension: r.pick(&DIMENSIONS).to_owned(),
                selected_item_slot: r.int_n(9) as u32,
                selected_item: item(&mut r, 0),
                spawn: (
                    r.int(20_000) - 10_000,
                    64 + r.int(64),
                    r.int(20_000) - 10_000,
                ),
                spawn_forced: (r.int_n(2) == 0).then(|| r.int_n(2) == 0),
                sleep_timer: 0,
                food_exhaustion_level: r.float() as f32 * 4.0,
                food_saturation_level: r.float() as f32 * 20.0,
                food_tick_timer: r.int_n(80) as u32,
                xp_level: r.int_n(50) as u32,
                xp_p: r.float() as f32,
                xp_total: r.int(5_000) as i32,
                xp_seed: r.u64() as i32,
                inventory: items(&mut r, 36),
                ender_items: items(&mut r, 27),
                abilities: Abilities {
                    walk_speed: 0.1,
                    fly_speed: 0.05,
                    may_fly: mode == GameType::Creative,
                    flying: false,
                    invulnerable: mode == GameType::Creative,
                    may_build: true,
                    instabuild: mode == GameType::Creative,
                },
                entered_nether_position: (r.int_n(2) == 0).then(|| triple(&mut r, 4000.0)),
                root_vehicle: (r.int_n(4) == 0).then(|| Vehicle {
                    uuid: uuid(&mut r),
                    entity: entity(&mut r),
                }),
                shoulder_entity_left: (r.int_n(8) == 0).then(|| entity(&mut r)),
                seen_credits: r.int_n(2) == 0,
                recipe_book: RecipeBook {
                    recipes: recipes(&mut r, 40),
                    to_be_displayed: recipes(&mut r, 8),
                    is_filtering_craftable: r.int_n(2) == 0,
                    is_gui_open: false,
                },
            }
        })
        .collect();
    SaveGame { players }
}

/// The protobuf twin of [`SaveGame`] (enums as `int32`, tuples as small messages, UUIDs as
/// packed `fixed32`).
pub mod pb {
    /// `message SaveGame`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SaveGame {
        /// `repeated Player players = 1`.
        #[prost(message, repeated, tag = "1")]
        pub players: Vec<Player>,
    }

    /// `message Item`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Item {
        /// `int32 count = 1`.
        #[prost(int32, tag = "1")]
        pub count: i32,
        /// `uint32 slot = 2`.
        #[prost(uint32, tag = "2")]
        pub slot: u32,
        /// `string id = 3`.
        #[prost(string, tag = "3")]
        pub id: String,
    }

    /// `message Vec3d`.
    #[derive(Clone, Copy, PartialEq, prost::Message)]
    pub struct Vec3d {
        /// x.
        #[prost(double, tag = "1")]
        pub x: f64,
        /// y.
        #[prost(double, tag = "2")]
        pub y: f64,
        /// z.
        #[prost(double, tag = "3")]
        pub z: f64,
    }

    /// `message Vec3i`.
    #[derive(Clone, Copy, PartialEq, prost::Message)]
    pub struct Vec3i {
        /// x.
        #[prost(int64, tag = "1")]
        pub x: i64,
        /// y.
        #[prost(int64, tag = "2")]
        pub y: i64,
        /// z.
        #[prost(int64, tag = "3")]
        pub z: i64,
    }

    /// `message Abilities`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Abilities {
        /// `float walk_speed = 1`.
        #[prost(float, tag = "1")]
        pub walk_speed: f32,
        /// `float fly_speed = 2`.
        #[prost(float, tag = "2")]
        pub fly_speed: f32,
        /// `bool may_fly = 3`.
        #[prost(bool, tag = "3")]
        pub may_fly: bool,
        /// `bool flying = 4`.
        #[prost(bool, tag = "4")]
        pub flying: bool,
        /// `bool invulnerable = 5`.
        #[prost(bool, tag = "5")]
        pub invulnerable: bool,
        /// `bool may_build = 6`.
        #[prost(bool, tag = "6")]
        pub may_build: bool,
        /// `bool instabuild = 7`.
        #[prost(bool, tag = "7")]
        pub instabuild: bool,
    }

    /// `message Entity`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Entity {
        /// `string id = 1`.
        #[prost(string, tag = "1")]
        pub id: String,
        /// `Vec3d pos = 2`.
        #[prost(message, optional, tag = "2")]
        pub pos: Option<Vec3d>,
        /// `Vec3d motion = 3`.
        #[prost(message, optional, tag = "3")]
        pub motion: Option<Vec3d>,
        /// `float yaw = 4`.
        #[prost(float, tag = "4")]
        pub yaw: f32,
        /// `float pitch = 5`.
        #[prost(float, tag = "5")]
        pub pitch: f32,
        /// `float fall_distance = 6`.
        #[prost(float, tag = "6")]
        pub fall_distance: f32,
        /// `uint32 fire = 7`.
        #[prost(uint32, tag = "7")]
        pub fire: u32,
        /// `uint32 air = 8`.
        #[prost(uint32, tag = "8")]
        pub air: u32,
        /// `bool on_ground = 9`.
        #[prost(bool, tag = "9")]
        pub on_ground: bool,
        /// `bool no_gravity = 10`.
        #[prost(bool, tag = "10")]
        pub no_gravity: bool,
        /// `bool invulnerable = 11`.
        #[prost(bool, tag = "11")]
        pub invulnerable: bool,
        /// `int32 portal_cooldown = 12`.
        #[prost(int32, tag = "12")]
        pub portal_cooldown: i32,
        /// `repeated fixed32 uuid = 13`.
        #[prost(fixed32, repeated, tag = "13")]
        pub uuid: Vec<u32>,
        /// `optional string custom_name = 14`.
        #[prost(string, optional, tag = "14")]
        pub custom_name: Option<String>,
    }

    /// `message Vehicle`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Vehicle {
        /// `repeated fixed32 uuid = 1`.
        #[prost(fixed32, repeated, tag = "1")]
        pub uuid: Vec<u32>,
        /// `Entity entity = 2`.
        #[prost(message, optional, tag = "2")]
        pub entity: Option<Entity>,
    }

    /// `message RecipeBook`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RecipeBook {
        /// `repeated string recipes = 1`.
        #[prost(string, repeated, tag = "1")]
        pub recipes: Vec<String>,
        /// `repeated string to_be_displayed = 2`.
        #[prost(string, repeated, tag = "2")]
        pub to_be_displayed: Vec<String>,
        /// `bool is_filtering_craftable = 3`.
        #[prost(bool, tag = "3")]
        pub is_filtering_craftable: bool,
        /// `bool is_gui_open = 4`.
        #[prost(bool, tag = "4")]
        pub is_gui_open: bool,
    }

    /// `message Player`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Player {
        /// `int32 game_type = 1`.
        #[prost(int32, tag = "1")]
        pub game_type: i32,
        /// `int32 previous_game_type = 2`.
        #[prost(int32, tag = "2")]
        pub previous_game_type: i32,
        /// `int64 score = 3`.
        #[prost(int64, tag = "3")]
        pub score: i64,
        /// `string dimension = 4`.
        #[prost(string, tag = "4")]
        pub dimension: String,
        /// `uint32 selected_item_slot = 5`.
        #[prost(uint32, tag = "5")]
        pub selected_item_slot: u32,
        /// `Item selected_item = 6`.
        #[prost(message, optional, tag = "6")]
        pub selected_item: Option<Item>,
        /// `Vec3i spawn = 7`.
        #[prost(message, optional, tag = "7")]
        pub spawn: Option<Vec3i>,
        /// `optional bool spawn_forced = 8`.
        #[prost(bool, optional, tag = "8")]
        pub spawn_forced: Option<bool>,
        /// `uint32 sleep_timer = 9`.
        #[prost(uint32, tag = "9")]
        pub sleep_timer: u32,
        /// `float food_exhaustion_level = 10`.
        #[prost(float, tag = "10")]
        pub food_exhaustion_level: f32,
        /// `float food_saturation_level = 11`.
        #[prost(float, tag = "11")]
        pub food_saturation_level: f32,
        /// `uint32 food_tick_timer = 12`.
        #[prost(uint32, tag = "12")]
        pub food_tick_timer: u32,
        /// `uint32 xp_level = 13`.
        #[prost(uint32, tag = "13")]
        pub xp_level: u32,
        /// `float xp_p = 14`.
        #[prost(float, tag = "14")]
        pub xp_p: f32,
        /// `int32 xp_total = 15`.
        #[prost(int32, tag = "15")]
        pub xp_total: i32,
        /// `int32 xp_seed = 16`.
        #[prost(int32, tag = "16")]
        pub xp_seed: i32,
        /// `repeated Item inventory = 17`.
        #[prost(message, repeated, tag = "17")]
        pub inventory: Vec<Item>,
        /// `repeated Item ender_items = 18`.
        #[prost(message, repeated, tag = "18")]
        pub ender_items: Vec<Item>,
        /// `Abilities abilities = 19`.
        #[prost(message, optional, tag = "19")]
        pub abilities: Option<Abilities>,
        /// `optional Vec3d entered_nether_position = 20`.
        #[prost(message, optional, tag = "20")]
        pub entered_nether_position: Option<Vec3d>,
        /// `optional Vehicle root_vehicle = 21`.
        #[prost(message, optional, tag = "21")]
        pub root_vehicle: Option<Vehicle>,
        /// `optional Entity shoulder_entity_left = 22`.
        #[prost(message, optional, tag = "22")]
        pub shoulder_entity_left: Option<Entity>,
        /// `bool seen_credits = 23`.
        #[prost(bool, tag = "23")]
        pub seen_credits: bool,
        /// `RecipeBook recipe_book = 24`.
        #[prost(message, optional, tag = "24")]
        pub recipe_book: Option<RecipeBook>,
    }
}

fn mode_from(i: i32) -> GameType {
    MODES.get(i as usize).copied().unwrap_or(GameType::Survival)
}

fn item_pb(i: &Item) -> pb::Item {
    pb::Item {
        count: i32::from(i.count),
        slot: u32::from(i.slot),
        id: i.id.clone(),
    }
}

fn item_from(i: pb::Item) -> Item {
    Item {
        count: i.count as i8,
        slot: i.slot as u8,
        id: i.id,
    }
}

fn vec3d_pb((x, y, z): (f64, f64, f64)) -> pb::Vec3d {
    pb::Vec3d { x, y, z }
}

fn vec3d_from(v: Option<pb::Vec3d>) -> (f64, f64, f64) {
    let v = v.unwrap_or_default();
    (v.x, v.y, v.z)
}

fn uuid_from(v: &[u32]) -> [u32; 4] {
    let mut out = [0; 4];
    for (o, w) in out.iter_mut().zip(v) {
        *o = *w;
    }
    out
}

fn entity_pb(e: &Entity) -> pb::Entity {
    pb::Entity {
        id: e.id.clone(),
        pos: Some(vec3d_pb(e.pos)),
        motion: Some(vec3d_pb(e.motion)),
        yaw: e.rotation.0,
        pitch: e.rotation.1,
        fall_distance: e.fall_distance,
        fire: u32::from(e.fire),
        air: u32::from(e.air),
        on_ground: e.on_ground,
        no_gravity: e.no_gravity,
        invulnerable: e.invulnerable,
        portal_cooldown: e.portal_cooldown,
        uuid: e.uuid.to_vec(),
        custom_name: e.custom_name.clone(),
    }
}

fn entity_from(e: pb::Entity) -> Entity {
    Entity {
        id: e.id,
        pos: vec3d_from(e.pos),
        motion: vec3d_from(e.motion),
        rotation: (e.yaw, e.pitch),
        fall_distance: e.fall_distance,
        fire: e.fire as u16,
        air: e.air as u16,
        on_ground: e.on_ground,
        no_gravity: e.no_gravity,
        invulnerable: e.invulnerable,
        portal_cooldown: e.portal_cooldown,
        uuid: uuid_from(&e.uuid),
        custom_name: e.custom_name,
    }
}

impl Dataset for SaveGame {
    type Proto = pb::SaveGame;

    fn to_proto(&self) -> pb::SaveGame {
        let players = self.players.iter().map(|p| pb::Player {
            game_type: p.game_type as i32,
            previous_game_type: p.previous_game_type as i32,
            score: p.score,
            dimension: p.dimension.clone(),
            selected_item_slot: p.selected_item_slot,
            selected_item: Some(item_pb(&p.selected_item)),
            spawn: Some(pb::Vec3i {
                x: p.spawn.0,
                y: p.spawn.1,
                z: p.spawn.2,
            }),
            spawn_forced: p.spawn_forced,
            sleep_timer: u32::from(p.sleep_timer),
            food_exhaustion_level: p.food_exhaustion_level,
            food_saturation_level: p.food_saturation_level,
            food_tick_timer: p.food_tick_timer,
            xp_level: p.xp_level,
            xp_p: p.xp_p,
            xp_total: p.xp_total,
            xp_seed: p.xp_seed,
            inventory: p.inventory.iter().map(item_pb).collect(),
            ender_items: p.ender_items.iter().map(item_pb).collect(),
            abilities: Some(pb::Abilities {
                walk_speed: p.abilities.walk_speed,
                fly_speed: p.abilities.fly_speed,
                may_fly: p.abilities.may_fly,
                flying: p.abilities.flying,
                invulnerable: p.abilities.invulnerable,
                may_build: p.abilities.may_build,
                instabuild: p.abilities.instabuild,
            }),
            entered_nether_position: p.entered_nether_position.map(vec3d_pb),
            root_vehicle: p.root_vehicle.as_ref().map(|v| pb::Vehicle {
                uuid: v.uuid.to_vec(),
                entity: Some(entity_pb(&v.entity)),
            }),
            shoulder_entity_left: p.shoulder_entity_left.as_ref().map(entity_pb),
            seen_credits: p.seen_credits,
            recipe_book: Some(pb::RecipeBook {
                recipes: p.recipe_book.recipes.clone(),
                to_be_displayed: p.recipe_book.to_be_displayed.clone(),
                is_filtering_craftable: p.recipe_book.is_filtering_craftable,
                is_gui_open: p.recipe_book.is_gui_open,
            }),
        });
        pb::SaveGame {
            players: players.collect(),
        }
    }

    fn from_proto(p: pb::SaveGame) -> Self {
        let players = p.players.into_iter().map(|p| {
            let spawn = p.spawn.unwrap_or_default();
            let ab = p.abilities.unwrap_or_default();
            let book = p.recipe_book.unwrap_or_default();
            Player {
                game_type: mode_from(p.game_type),
                previous_game_type: mode_from(p.previous_game_type),
                score: p.score,
                dimension: p.dimension,
                selected_item_slot: p.selected_item_slot,
                selected_item: item_from(p.selected_item.unwrap_or_default()),
                spawn: (spawn.x, spawn.y, spawn.z),
                spawn_forced: p.spawn_forced,
                sleep_timer: p.sleep_timer as u16,
                food_exhaustion_level: p.food_exhaustion_level,
                food_saturation_level: p.food_saturation_level,
                food_tick_timer: p.food_tick_timer,
                xp_level: p.xp_level,
                xp_p: p.xp_p,
                xp_total: p.xp_total,
                xp_seed: p.xp_seed,
                inventory: p.inventory.into_iter().map(item_from).collect(),
                ender_items: p.ender_items.into_iter().map(item_from).collect(),
                abilities: Abilities {
                    walk_speed: ab.walk_speed,
                    fly_speed: ab.fly_speed,
                    may_fly: ab.may_fly,
                    flying: ab.flying,
                    invulnerable: ab.invulnerable,
                    may_build: ab.may_build,
                    instabuild: ab.instabuild,
                },
                entered_nether_position: p.entered_nether_position.map(|v| (v.x, v.y, v.z)),
                root_vehicle: p.root_vehicle.map(|v| Vehicle {
                    uuid: uuid_from(&v.uuid),
                    entity: entity_from(v.entity.unwrap_or_default()),
                }),
                shoulder_entity_left: p.shoulder_entity_left.map(entity_from),
                seen_credits: p.seen_credits,
                recipe_book: RecipeBook {
                    recipes: book.recipes,
                    to_be_displayed: book.to_be_displayed,
                    is_filtering_craftable: book.is_filtering_craftable,
                    is_gui_open: book.is_gui_open,
                },
            }
        });
        SaveGame {
            players: players.collect(),
        }
    }
}
