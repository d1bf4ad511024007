//! The types and value of FORMAT.md's worked example, shared by the byte-exact format tests and
//! the dynamic graph tests.

use reflectable::Reflectable;
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1000)]
pub struct Door {
    #[rtti(id = 1)]
    pub open: bool,
    #[rtti(id = 2)]
    pub name: String,
    #[rtti(id = 3)]
    pub hinges: Vec<u16>,
    #[rtti(id = 4, embedded)]
    pub frame: Frame,
    #[rtti(id = 5)]
    pub lock: Option<Rc<Lock>>,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1001)]
pub struct Frame {
    #[rtti(id = 1)]
    pub width: u16,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 1002)]
pub struct Lock {
    #[rtti(id = 1)]
    pub code: u32,
}

/// The door FORMAT.md encodes.
pub fn door() -> Door {
    Door {
        open: true,
        name: "oak".into(),
        hinges: vec![2, 3],
        frame: Frame { width: 80 },
        lock: Some(Rc::new(Lock { code: 0x1234 })),
    }
}
