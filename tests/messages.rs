//! What a user reads when a load fails for an ordinary reason: the message says what was found,
//! what was expected, and where to go next (issue 43, point 6).

use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Reflectable, Default)]
#[rtti(id = 343_001)]
struct Scene {
    #[rtti(id = 1)]
    name: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 343_002)]
struct Entity {
    #[rtti(id = 1)]
    name: String,
}

fn message<T: reflectable::serializer::DecodeTarget>(bytes: &[u8]) -> String {
    match BinarySerializer::new().decode::<T>(bytes) {
        Ok(_) => panic!("the bytes decoded"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn a_json_document_given_to_the_binary_decoder_says_so() {
    let text = reflectable::json::to_string(&Scene { name: "hall".into() }).unwrap();
    let error = message::<Scene>(text.as_bytes());
    assert!(error.contains("not a reflectable stream") && error.contains("looks like JSON"), "{error}");
    assert!(error.contains("json::to_bytes"), "{error}");
}

#[test]
fn a_version_this_build_cannot_read_names_the_ones_it_can() {
    let mut bytes = reflectable::to_vec(&Scene::default()).unwrap();
    bytes[4..8].copy_from_slice(&9u32.to_le_bytes());
    let error = message::<Scene>(&bytes);
    assert!(error.contains("unsupported format version 9"), "{error}");
    assert!(error.contains("reads versions 1 to 5") && error.contains("newer program"), "{error}");
}

#[test]
fn a_root_of_another_type_names_both_types() {
    let bytes = reflectable::to_vec(&Scene::default()).unwrap();
    let error = message::<Rc<RefCell<Entity>>>(&bytes);
    assert!(error.contains("`Scene`") && error.contains("Rc<core::cell::RefCell<messages::Entity>>"), "{error}");
    let error = message::<Entity>(&bytes);
    assert!(error.contains("`Scene`") && error.contains("Entity"), "{error}");
}
