//! The object model of the overlapping-diff tests (`overlapping_hostile.rs`,
//! `overlapping_property.rs`): nodes with strong children, a `Weak` link, a trait-object part that
//! may point back into the graph, a map, an enum that may point at a node, and a second list.

use reflectable::{reflect_trait, Reflectable};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

pub trait Part: Reflectable {}
reflect_trait!(Part);

#[derive(Reflectable, Default)]
#[rtti(id = 942_001, implements(Part))]
pub struct Prop {
    #[rtti(id = 1)]
    pub label: String,
    #[rtti(id = 2)]
    pub to: Option<Rc<RefCell<Node>>>,
}
impl Part for Prop {}

#[derive(Reflectable, Default)]
#[rtti(id = 942_002)]
pub enum Mode {
    #[default]
    #[rtti(id = 1)]
    Idle,
    #[rtti(id = 2)]
    Tag {
        #[rtti(id = 1)]
        tag: String,
    },
    #[rtti(id = 3)]
    Follow(#[rtti(id = 1)] Option<Rc<RefCell<Node>>>),
}

#[derive(Reflectable, Default)]
#[rtti(id = 942_003)]
pub struct Node {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub children: Vec<Rc<RefCell<Node>>>,
    #[rtti(id = 3)]
    pub link: Weak<RefCell<Node>>,
    #[rtti(id = 4)]
    pub part: Option<Rc<RefCell<dyn Part>>>,
    #[rtti(id = 5)]
    pub map: HashMap<String, Rc<RefCell<Node>>>,
    #[rtti(id = 6, embedded)]
    pub mode: Mode,
    #[rtti(id = 7)]
    pub other: Vec<Rc<RefCell<Node>>>,
}

/// A node in the allocation both graphs share or not.
pub type N = Rc<RefCell<Node>>;
