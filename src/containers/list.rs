//! `Vec<X>` of objects or pointers as a reflectable object: a list, with one array field.

use super::{Element, LIST_ITEMS_FIELD_ID, LIST_TYPE_ID};
use crate::field::Accessor;
use crate::rtti::{generic_rtti, Reflectable, RttiType, RttiTypeBuilder};

impl<X: Element> Reflectable for Vec<X> {
    fn rtti(&self) -> &'static RttiType {
        Self::rtti_static()
    }
    fn rtti_static() -> &'static RttiType {
        match generic_rtti::<Self>(build::<X>) {
            Ok(rtti) => rtti,
            Err(error) => panic!("reflectable: a list of `{}` cannot be declared: {error}", std::any::type_name::<X>()),
        }
    }
}

fn build<X: Element>() -> Result<RttiType, crate::rtti::RttiError> {
    let name = format!("List<{}>", std::any::type_name::<X>());
    let builder = RttiTypeBuilder::<Vec<X>>::built_in(LIST_TYPE_ID, name).default_constructor();
    X::array_field(builder, LIST_ITEMS_FIELD_ID, "items", Accessor::Direct { get: |list| list, get_mut: |list| list })
        .build()
}
