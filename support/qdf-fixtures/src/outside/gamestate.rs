//! A game state of 1 000 updates, shaped like the `mk48` dataset of the Rust serialization
//! benchmark: per update a list of contacts with `Option<enum>` fields, small integer fields,
//! `Vec<bool>` and `Vec<u16>` inside rows, `(u8, u32, u16)` tuples, `Vec<Vec<bool>>`, and an
//! enum with data.

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng};

/// Updates sent to one client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct GameState {
    /// One per server tick.
    pub updates: Vec<Update>,
}

/// What one tick changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Update {
    /// Entities the client sees.
    pub contacts: Vec<Contact>,
    /// The player's score.
    pub score: u32,
    /// World radius, metres.
    pub world_radius: f32,
    /// (kind, entity id, amount) events of the tick.
    pub events: Vec<(u8, u32, u16)>,
    /// A fog-of-war patch: rows of visible cells.
    pub fog: Vec<Vec<bool>>,
}

/// A kind of vessel or weapon.
#[derive(
    Clone, Copy, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode,
)]
#[allow(missing_docs)]
pub enum EntityType {
    Barrel,
    Crate,
    Coin,
    Oil,
    Dhow,
    Fairmiles,
    Freighter,
    Kolkata,
    Lcs,
    Mk48,
    Olympias,
    Typeviic,
    Yasen,
    Zubr,
    Mark18,
    Set65,
    Harpoon,
    Depositor,
}

const TYPES: [EntityType; 18] = [
    EntityType::Barrel,
    EntityType::Crate,
    EntityType::Coin,
    EntityType::Oil,
    EntityType::Dhow,
    EntityType::Fairmiles,
    EntityType::Freighter,
    EntityType::Kolkata,
    EntityType::Lcs,
    EntityType::Mk48,
    EntityType::Olympias,
    EntityType::Typeviic,
    EntityType::Yasen,
    EntityType::Zubr,
    EntityType::Mark18,
    EntityType::Set65,
    EntityType::Harpoon,
    EntityType::Depositor,
];

/// What a contact is doing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub enum Action {
    /// Nothing.
    Idle,
    /// Steering.
    Move {
        /// Heading change.
        dx: i16,
        /// Speed change.
        dy: i16,
    },
    /// Firing a weapon at an entity id.
    Fire(u32),
    /// A chat line.
    Chat(String),
}

/// One visible entity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Contact {
    /// Metres, −128..127 (submarines below 0).
    pub altitude: i8,
    /// Damage taken, 0..255.
    pub damage: u8,
    /// Server entity id.
    pub entity_id: u32,
    /// Known only when identified.
    pub entity_type: Option<EntityType>,
    /// Position, metres.
    pub position: (f32, f32),
    /// Weapon reload flags.
    pub reloads: Vec<bool>,
    /// Heading, 1/65536 turns.
    pub rotation: u16,
    /// Turret headings.
    pub turrets: Vec<u16>,
    /// Speed, cm/s.
    pub velocity: i16,
    /// Team id when on a team.
    pub team: Option<u32>,
    /// Current action.
    pub action: Action,
}

const CHAT: [&str; 5] = ["gg", "help!", "follow me", "nice shot", "lol"];

fn contact(r: &mut Rng) -> Contact {
    let ty = (r.int_n(4) != 0).then(|| TYPES[r.index(TYPES.len())]);
    let weapons = r.int_n(5) as usize;
    Contact {
        altitude: (r.int(40) - 20) as i8,
        damage: r.int_n(256) as u8,
        entity_id: r.int_n(50_000) as u32,
        entity_type: ty,
        position: (
            (r.float() * 2000.0 - 1000.0) as f32,
            (r.float() * 2000.0 - 1000.0) as f32,
        ),
        reloads: (0..weapons).map(|_| r.int_n(3) != 0).collect(),
        rotation: r.int_n(65_536) as u16,
        turrets: (0..r.int_n(3)).map(|_| r.int_n(65_536) as u16).collect(),
        velocity: (r.int(2000) - 500) as i16,
        team: (r.int_n(3) == 0).then(|| r.int_n(64) as u32),
        action: match r.int_n(8) {
            0..=3 => Action::Idle,
            4 | 5 => Action::Move {
                dx: (r.int(200) - 100) as i16,
                dy: (r.int(200) - 100) as i16,
            },
            6 => Action::Fire(r.int_n(50_000) as u32),
            _ => Action::Chat(r.pick(&CHAT).to_owned()),
        },
    }
}

/// `n` updates of 0–40 contacts each.
pub fn game_state(n: usize) -> GameState {
    let mut r = Rng::pcg(0x6d6b_3438, 0x0004);
    let updates = (0..n)
        .map(|i| {
            let contacts = (0..r.int_n(41)).map(|_| contact(&mut r)).collect();
            let events = (0..r.int_n(4))
                .map(|_| {
                    (
                        r.int_n(8) as u8,
                        r.int_n(50_000) as u32,
                        r.int_n(1000) as u16,
                    )
                })
                .collect();
            let side = r.int_n(5) as usize;
            let fog = (0..side)
                .map(|_| (0..side).map(|_| r.int_n(2) == 0).collect())
                .collect();
            Update {
                contacts,
                score: 10 * i as u32 + r.int_n(10) as u32,
                world_radius: 1000.0 + (i / 100) as f32 * 10.0,
                events,
                fog,
            }
        })
        .collect();
    GameState { updates }
}

/// The protobuf twin of [`GameState`] (`Option<enum>` as `optional int32`, tuples as small
/// messages, the action as a `oneof`).
pub mod pb {
    /// `message GameState`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct GameState {
        /// `repeated Update updates = 1`.
        #[prost(message, repeated, tag = "1")]
        pub updates: Vec<Update>,
    }

    /// `message Event { uint32 kind = 1; uint32 entity_id = 2; uint32 amount = 3; }`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Event {
        /// kind.
        #[prost(uint32, tag = "1")]
        pub kind: u32,
        /// entity id.
        #[prost(uint32, tag = "2")]
        pub entity_id: u32,
        /// amount.
        #[prost(uint32, tag = "3")]
        pub amount: u32,
    }

    /// `message FogRow { repeated bool cells = 1; }`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct FogRow {
        /// cells.
        #[prost(bool, repeated, tag = "1")]
        pub cells: Vec<bool>,
    }

    /// `message Update`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Update {
        /// `repeated Contact contacts = 1`.
        #[prost(message, repeated, tag = "1")]
        pub contacts: Vec<Contact>,
        /// `uint32 score = 2`.
        #[prost(uint32, tag = "2")]
        pub score: u32,
        /// `float world_radius = 3`.
        #[prost(float, tag = "3")]
        pub world_radius: f32,
        /// `repeated Event events = 4`.
        #[prost(message, repeated, tag = "4")]
        pub events: Vec<Event>,
        /// `repeated FogRow fog = 5`.
        #[prost(message, repeated, tag = "5")]
        pub fog: Vec<FogRow>,
    }

    /// `message Move { sint32 dx = 1; sint32 dy = 2; }`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Move {
        /// dx.
        #[prost(sint32, tag = "1")]
        pub dx: i32,
        /// dy.
        #[prost(sint32, tag = "2")]
        pub dy: i32,
    }

    /// `oneof action`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Action {
        /// `bool idle = 12`.
        #[prost(bool, tag = "12")]
        Idle(bool),
        /// `Move move = 13`.
        #[prost(message, tag = "13")]
        Move(Move),
        /// `uint32 fire = 14`.
        #[prost(uint32, tag = "14")]
        Fire(u32),
        /// `string chat = 15`.
        #[prost(string, tag = "15")]
        Chat(String),
    }

    /// `message Contact`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Contact {
        /// `sint32 altitude = 1`.
        #[prost(sint32, tag = "1")]
        pub altitude: i32,
        /// `uint32 damage = 2`.
        #[prost(uint32, tag = "2")]
        pub damage: u32,
        /// `uint32 entity_id = 3`.
        #[prost(uint32, tag = "3")]
        pub entity_id: u32,
        /// `optional int32 entity_type = 4`.
        #[prost(int32, optional, tag = "4")]
        pub entity_type: Option<i32>,
        /// `float x = 5`.
        #[prost(float, tag = "5")]
        pub x: f32,
        /// `float y = 6`.
        #[prost(float, tag = "6")]
        pub y: f32,
        /// `repeated bool reloads = 7`.
        #[prost(bool, repeated, tag = "7")]
        pub reloads: Vec<bool>,
        /// `uint32 rotation = 8`.
        #[prost(uint32, tag = "8")]
        pub rotation: u32,
        /// `repeated uint32 turrets = 9`.
        #[prost(uint32, repeated, tag = "9")]
        pub turrets: Vec<u32>,
        /// `sint32 velocity = 10`.
        #[prost(sint32, tag = "10")]
        pub velocity: i32,
        /// `optional uint32 team = 11`.
        #[prost(uint32, optional, tag = "11")]
        pub team: Option<u32>,
        /// `oneof action { … }`.
        #[prost(oneof = "Action", tags = "12, 13, 14, 15")]
        pub action: Option<Action>,
    }
}

fn contact_pb(c: &Contact) -> pb::Contact {
    pb::Contact {
        altitude: i32::from(c.altitude),
        damage: u32::from(c.damage),
        entity_id: c.entity_id,
        entity_type: c.entity_type.map(|t| t as i32),
        x: c.position.0,
        y: c.position.1,
        reloads: c.reloads.clone(),
        rotation: u32::from(c.rotation),
        turrets: c.turrets.iter().map(|&t| u32::from(t)).collect(),
        velocity: i32::from(c.velocity),
        team: c.team,
        action: Some(match &c.action {
            Action::Idle => pb::Action::Idle(true),
            Action::Move { dx, dy } => pb::Action::Move(pb::Move {
                dx: i32::from(*dx),
                dy: i32::from(*dy),
            }),
            Action::Fire(id) => pb::Action::Fire(*id),
            Action::Chat(s) => pb::Action::Chat(s.clone()),
        }),
    }
}

fn contact_from(c: pb::Contact) -> Contact {
    Contact {
        altitude: c.altitude as i8,
        damage: c.damage as u8,
        entity_id: c.entity_id,
        entity_type: c
            .entity_type
            .map(|t| TYPES.get(t as usize).copied().unwrap_or(EntityType::Barrel)),
        position: (c.x, c.y),
        reloads: c.reloads,
        rotation: c.rotation as u16,
        turrets: c.turrets.into_iter().map(|t| t as u16).collect(),
        velocity: c.velocity as i16,
        team: c.team,
        action: match c.action {
            None | Some(pb::Action::Idle(_)) => Action::Idle,
            Some(pb::Action::Move(m)) => Action::Move {
                dx: m.dx as i16,
                dy: m.dy as i16,
            },
            Some(pb::Action::Fire(id)) => Action::Fire(id),
            Some(pb::Action::Chat(s)) => Action::Chat(s),
        },
    }
}

impl Dataset for GameState {
    type Proto = pb::GameState;

    fn to_proto(&self) -> pb::GameState {
        let updates = self.updates.iter().map(|u| pb::Update {
            contacts: u.contacts.iter().map(contact_pb).collect(),
            score: u.score,
            world_radius: u.world_radius,
            events: u
                .events
                .iter()
                .map(|&(kind, entity_id, amount)| pb::Event {
                    kind: u32::from(kind),
                    entity_id,
                    amount: u32::from(amount),
                })
                .collect(),
            fog: u
                .fog
                .iter()
                .map(|row| pb::FogRow { cells: row.clone() })
                .collect(),
        });
        pb::GameState {
            updates: updates.collect(),
        }
    }

    fn from_proto(p: pb::GameState) -> Self {
        let updates = p.updates.into_iter().map(|u| Update {
            contacts: u.contacts.into_iter().map(contact_from).collect(),
            score: u.score,
            world_radius: u.world_radius,
            events: u
                .events
                .into_iter()
                .map(|e| (e.kind as u8, e.entity_id, e.amount as u16))
                .collect(),
            fog: u.fog.into_iter().map(|row| row.cells).collect(),
        });
        GameState {
            updates: updates.collect(),
        }
    }
}
