//! Two types submitted with the same ID and two fields with the same ID: the global registry must
//! refuse to start, naming both sides of each clash. (Its own test binary: the clash poisons the
//! global registry of the process.)

use reflectable::{Reflectable, Registry};

#[derive(Reflectable, Default)]
#[rtti(id = 500_001, name = "Sword")]
struct Sword {
    #[rtti(id = 1)]
    _damage: u32,
}

#[derive(Reflectable, Default)]
#[rtti(id = 500_001, name = "Shield")]
struct Shield {
    #[rtti(id = 1)]
    _armor: u32,
}

#[test]
fn global_registry_refuses_duplicate_type_ids() {
    let panic = std::panic::catch_unwind(|| Registry::global().len()).expect_err("the registry must refuse to start");
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(message.contains("the global type registry cannot start"), "{message}");
    assert!(message.contains("type ID 500001 is used by both"), "{message}");
    assert!(message.contains("Sword") && message.contains("Shield"), "{message}");
    // The descriptors themselves are fine on their own.
    assert_eq!(Sword::rtti_static().name(), "Sword");
    assert_eq!(Shield::rtti_static().name(), "Shield");
}
