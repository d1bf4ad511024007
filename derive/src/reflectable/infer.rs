//! What a field is when no attribute says: its kind and whether it is an array field, read from how
//! its type is written. (A proc macro sees tokens, not types: a type alias hides all of this, which
//! is what the kind attributes are for.)

use super::model::{Field, Kind};
use syn::{GenericArgument, PathArguments, Type};

/// How a checked field is generated.
pub struct Layout {
    /// The field's kind.
    pub kind: Kind,
    /// `true` for an array field (`Vec`, `SmallVec`, `[T; N]`), `false` for a single value.
    pub array: bool,
    /// `true` for a map whose values are objects or pointers (a map object, see
    /// `reflectable::containers`).
    pub map: bool,
}

/// The layout of `field`. Vec and SmallVec are array fields always; `[T; N]` unless it is plain (a
/// fixed array of plain values is one plain value unless `#[rtti(array)]` asks for an array field);
/// `plain` makes any container one plain value.
pub fn layout(field: &Field) -> Layout {
    let ty = field.ty();
    if let Some(value) = map_value(ty) {
        let kind = field.explicit_kind().unwrap_or_else(|| infer_kind(value));
        if kind != Kind::Plain {
            return Layout { kind, array: false, map: true };
        }
    }
    let elem = array_elem(ty);
    let kind = field.explicit_kind().unwrap_or_else(|| infer_kind(elem.unwrap_or(ty)));
    let array = match (elem, kind) {
        (None, _) => false,
        (Some(_), Kind::Plain) if field.explicit_kind() == Some(Kind::Plain) => false,
        (Some(_), Kind::Plain) => !matches!(ty, Type::Array(_)) || field.attrs.array.is_some(),
        (Some(_), _) => true,
    };
    Layout { kind, array, map: false }
}

/// The value type of a map (`HashMap<K, V>`, `BTreeMap<K, V>`, `AHashMap<K, V>`).
fn map_value(ty: &Type) -> Option<&Type> {
    match path_parts(ty)? {
        (name, args) if MAPS.contains(&name.as_str()) && args.len() >= 2 => Some(args[1]),
        _ => None,
    }
}

const MAPS: &[&str] = &["HashMap", "BTreeMap", "AHashMap"];

/// A `Vec` whose elements hold objects or pointers: a list of objects, embedded.
fn is_object_list(ty: &Type) -> bool {
    match path_parts(ty) {
        Some((name, args)) if name == "Vec" && args.len() == 1 => infer_kind(args[0]) != Kind::Plain,
        _ => false,
    }
}

/// `ty` without the invisible groups (a `macro_rules!` `$t:ty`) and parentheses around it: how
/// it is written is what the inference reads.
pub fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => ungroup(&group.elem),
        Type::Paren(paren) => ungroup(&paren.elem),
        _ => ty,
    }
}

/// The last path segment's identifier and its generic type arguments.
fn path_parts(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(path) = ungroup(ty) else { return None };
    let segment = path.path.segments.last()?;
    let args = match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ungroup(ty)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((segment.ident.to_string(), args))
}

/// The element type of an array container (`Vec<E>`, `[E; N]`, `SmallVec<[E; N]>`).
pub fn array_elem(ty: &Type) -> Option<&Type> {
    if let Type::Array(array) = ungroup(ty) {
        return Some(ungroup(&array.elem));
    }
    match path_parts(ty)? {
        (name, args) if name == "Vec" && args.len() == 1 => Some(args[0]),
        (name, args) if name == "SmallVec" && args.len() == 1 => match args[0] {
            Type::Array(array) => Some(ungroup(&array.elem)),
            _ => None,
        },
        _ => None,
    }
}

/// `Option<X>` unwrapped once.
fn strip_option(ty: &Type) -> &Type {
    match path_parts(ty) {
        Some((name, args)) if name == "Option" && args.len() == 1 => args[0],
        _ => ungroup(ty),
    }
}

fn is_pointer(ty: &Type) -> bool {
    matches!(path_parts(strip_option(ty)), Some((name, _)) if name == "Rc" || name == "Arc" || name == "Weak")
}

fn is_boxed_trait_object(ty: &Type) -> bool {
    match path_parts(strip_option(ty)) {
        Some((name, args)) if name == "Box" && args.len() == 1 => matches!(args[0], Type::TraitObject(_)),
        _ => false,
    }
}

/// The kind an element type has when no attribute says otherwise: `Rc`/`Arc`/`Weak` are pointers,
/// `Box<dyn Trait>` and lists of objects or pointers (`Vec<Rc<T>>` inside an array or an
/// `Option`) are embedded, anything else is plain.
fn infer_kind(elem: &Type) -> Kind {
    if is_pointer(elem) {
        Kind::Pointer
    } else if is_boxed_trait_object(elem) || is_object_list(strip_option(elem)) {
        Kind::Embedded
    } else {
        Kind::Plain
    }
}
