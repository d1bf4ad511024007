//! Generic instantiations a registered type holds are registered with it, with no
//! `register_type!`: by-name creation, decoding behind `dyn` fields, JSON without its `types` and
//! `changes_since` all know them. One that no registered type holds is an encode error, never a
//! load-time drop.
//!
//! The decode that matters runs in a second process (this test binary started again): a
//! registration the encoding process made at run time cannot help it.

use reflectable::json::{self, JsonReader};
use reflectable::schema::ChangeKind;
use reflectable::serializer::EncodeError;
use reflectable::{from_slice, to_vec, Reflectable, Registry};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 9_870_001)]
pub struct Texture {
    #[rtti(id = 1)]
    pub path: String,
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 9_870_002)]
pub struct Sound {
    #[rtti(id = 1)]
    pub volume: f32,
}

/// An asset handle, generic over the asset's type.
#[derive(Reflectable, Debug, PartialEq)]
#[rtti(id = 9_870_010)]
pub struct Handle<T> {
    #[rtti(id = 1)]
    pub key: u64,
    #[rtti(id = 2)]
    pub lod_bias: f32,
    #[rtti(skip)]
    pub kind: PhantomData<fn() -> T>,
}

impl<T> Default for Handle<T> {
    fn default() -> Self {
        Handle { key: 0, lod_bias: 0.0, kind: PhantomData }
    }
}

impl<T> Handle<T> {
    fn new(key: u64) -> Self {
        Handle { key, lod_bias: 0.5, kind: PhantomData }
    }
}

/// Holds a `Handle<Texture>` by its exact type: that is what registers the instantiation.
#[derive(Reflectable, Default)]
#[rtti(id = 9_870_020)]
pub struct Material {
    #[rtti(id = 1, embedded)]
    pub albedo: Handle<Texture>,
}

/// Holds anything, through trait-object fields that declare no type.
#[derive(Reflectable, Default)]
#[rtti(id = 9_870_021)]
pub struct Holder {
    #[rtti(id = 1)]
    pub any: Option<Rc<RefCell<dyn Reflectable>>>,
    #[rtti(id = 2)]
    pub boxed: Option<Box<dyn Reflectable>>,
}

/// Set in the second process: the file it decodes.
const CHILD_INPUT: &str = "GENERIC_REGISTRATION_CHILD_INPUT";

fn holder() -> Holder {
    Holder {
        any: Some(Rc::new(RefCell::new(Handle::<Texture>::new(7)))),
        boxed: Some(Box::new(Handle::<Texture>::new(8))),
    }
}

#[test]
fn an_instantiation_in_dyn_fields_loads_in_a_process_that_never_made_one() {
    let dir = std::env::temp_dir().join(format!("reflectable-generic-registration-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("holder.bin");
    std::fs::write(&path, to_vec(&holder()).unwrap()).unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "second_process_decodes_the_holder", "--nocapture", "--test-threads=1"])
        .env(CHILD_INPUT, &path)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    // The child really ran its checks (a filter matching nothing would also succeed).
    assert!(stdout.contains("decoded both handles with an empty report"), "{stdout}");
}

/// The second process's half of the test above; does nothing when run on its own.
#[test]
fn second_process_decodes_the_holder() {
    let Some(path) = std::env::var_os(CHILD_INPUT) else { return };
    let bytes = std::fs::read(path).unwrap();
    let (back, report) = reflectable::serializer::BinarySerializer::new().decode_with_report::<Holder>(&bytes).unwrap();
    assert!(report.is_empty(), "{report}");
    let any = back.any.expect("the pointer to a `Handle<Texture>` survives");
    assert_eq!(any.borrow().downcast_ref::<Handle<Texture>>(), Some(&Handle::new(7)));
    let boxed = back.boxed.expect("the boxed `Handle<Texture>` survives");
    assert_eq!(boxed.downcast_ref::<Handle<Texture>>(), Some(&Handle::new(8)));
    println!("decoded both handles with an empty report");
}

#[test]
fn a_held_instantiation_is_created_by_name_and_by_id() {
    let registry = Registry::global();
    let rtti = registry.by_name("Handle<Texture>").expect("registered through `Material`");
    assert_eq!(registry.get(rtti.id()).map(|rtti| rtti.name()), Some("Handle<Texture>"));
    assert!(registry.create_by_name("Handle<Texture>").unwrap().is::<Handle<Texture>>());
    let shared: Rc<RefCell<dyn Reflectable>> = registry.create_shared_by_name("Handle<Texture>").unwrap();
    assert!(shared.borrow().is::<Handle<Texture>>());
    // Nothing holds a `Handle<Sound>`: it is not registered.
    assert!(registry.by_name("Handle<Sound>").is_none());
}

#[test]
fn an_instantiation_no_registered_type_holds_is_an_encode_error() {
    for holder in [
        Holder { any: Some(Rc::new(RefCell::new(Handle::<Sound>::new(1)))), boxed: None },
        Holder { any: None, boxed: Some(Box::new(Handle::<Sound>::new(1))) },
    ] {
        let error = to_vec(&holder).unwrap_err();
        assert!(matches!(error, EncodeError::UnregisteredType { type_name: "Handle<Sound>", .. }), "{error:?}");
        let message = error.to_string();
        let rust_path = "generic_registration::Handle<generic_registration::Sound>";
        assert!(message.contains(&format!("register_type!({rust_path})")), "{message}");
    }
    // As the root, the reader names the type: that still works.
    let back: Handle<Sound> = from_slice(&to_vec(&Handle::<Sound>::new(3)).unwrap()).unwrap();
    assert_eq!(back, Handle::new(3));
}

#[test]
fn json_without_its_types_reads_a_held_instantiation() {
    let text = json::to_string(&holder()).unwrap();
    let mut document: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(document.as_object_mut().unwrap().remove("types").is_some());
    let bare = serde_json::to_string(&document).unwrap();
    assert!(bare.contains("Handle<Texture>"), "{bare}");
    let (back, report) = JsonReader::new().read::<Holder>(&bare).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(back.any.unwrap().borrow().downcast_ref::<Handle<Texture>>(), Some(&Handle::new(7)));
}

/// The next version of the program: `Handle` lost `lod_bias`. Same IDs and names, kept out of
/// the global registry.
mod v2 {
    use super::Texture;
    use reflectable::Reflectable;
    use std::marker::PhantomData;

    #[derive(Reflectable, Debug)]
    #[rtti(id = 9_870_010, name = "Handle", no_register)]
    pub struct Handle<T> {
        #[rtti(id = 1)]
        pub key: u64,
        #[rtti(skip)]
        pub kind: PhantomData<fn() -> T>,
    }

    impl<T> Default for Handle<T> {
        fn default() -> Self {
            Handle { key: 0, kind: PhantomData }
        }
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 9_870_020, name = "Material", no_register)]
    pub struct Material {
        #[rtti(id = 1, embedded)]
        pub albedo: Handle<Texture>,
    }
}

#[test]
fn changes_since_sees_a_field_removed_from_a_held_instantiation() {
    let mut old = Registry::new();
    old.register_type::<Material>().unwrap();
    let mut new = Registry::new();
    new.register_type::<v2::Material>().unwrap();
    let changes = new.changes_since(&old.schema());
    let handle = old.by_name("Handle<Texture>").unwrap().id();
    assert_eq!(new.by_name("Handle<Texture>").map(|rtti| rtti.id()), Some(handle));
    let removed: Vec<_> = changes
        .iter()
        .filter(|change| change.type_id == handle)
        .filter(|change| matches!(change.kind, ChangeKind::FieldRemoved { field: (2, _), .. }))
        .collect();
    assert_eq!(removed.len(), 1, "{changes:#?}");
    assert!(removed[0].loses_data());
    // The global registry's schema, which a CI check keeps per release, lists it too.
    assert!(Registry::global().schema().types.iter().any(|entry| entry.name == "Handle<Texture>"));
}
