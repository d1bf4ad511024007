//! Plain type signatures (see [`PlainType::signature`](crate::plain::PlainType::signature)): how
//! one is split into its parts, and written in words.

use super::type_ids as id;

/// Most words a signature may have; a stream claiming a longer one is corrupt. (It also bounds
/// the recursion of everything that walks a signature.)
pub(crate) const MAX_SIGNATURE_LEN: usize = 255;

/// One type of a signature, split into its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sig<'a> {
    /// A type without parts (`u32`, `String`, a derived plain struct).
    Leaf(u32),
    /// A sequence (`Vec`, `VecDeque`, `SmallVec`, the sets) of one element type.
    Seq(u32, &'a [u32]),
    /// A map: key then value.
    Map(u32, &'a [u32], &'a [u32]),
    /// `Option<T>`.
    Option(&'a [u32]),
    /// `[T; N]`.
    Array(u32, &'a [u32]),
    /// A tuple of `n` parts, one after the other.
    Tuple(u32, &'a [u32]),
}

/// Splits the first whole type off `sig`: the type, and what follows it. `None` when `sig` ends
/// inside the type (a corrupt signature).
pub(crate) fn split_type(sig: &[u32]) -> Option<(Sig<'_>, &[u32], &[u32])> {
    let (&head, rest) = sig.split_first()?;
    let (node, after) = match head {
        id::VEC | id::VEC_DEQUE | id::SMALL_VEC | id::HASH_SET | id::BTREE_SET => {
            let (_, elem, after) = split_type(rest)?;
            (Sig::Seq(head, elem), after)
        }
        id::HASH_MAP | id::BTREE_MAP => {
            let (_, key, after_key) = split_type(rest)?;
            let (_, value, after) = split_type(after_key)?;
            (Sig::Map(head, key, value), after)
        }
        id::OPTION => {
            let (_, inner, after) = split_type(rest)?;
            (Sig::Option(inner), after)
        }
        id::ARRAY => {
            let (&len, rest) = rest.split_first()?;
            let (_, elem, after) = split_type(rest)?;
            (Sig::Array(len, elem), after)
        }
        id::TUPLE => {
            let (&parts, mut after) = rest.split_first()?;
            let start = after;
            for _ in 0..parts {
                after = split_type(after)?.2;
            }
            (Sig::Tuple(parts, &start[..start.len() - after.len()]), after)
        }
        leaf => (Sig::Leaf(leaf), rest),
    };
    Some((node, &sig[..sig.len() - after.len()], after))
}

/// The whole types `sig` lists one after the other (a tuple's parts).
pub(crate) fn split_all(mut sig: &[u32]) -> Vec<&[u32]> {
    let mut parts = Vec::new();
    while let Some((_, part, after)) = split_type(sig) {
        parts.push(part);
        sig = after;
    }
    parts
}

/// `true` when `sig` is exactly one well-formed type.
pub(crate) fn is_well_formed(sig: &[u32]) -> bool {
    sig.len() <= MAX_SIGNATURE_LEN && matches!(split_type(sig), Some((_, _, rest)) if rest.is_empty())
}

/// The name of a built-in leaf type.
fn leaf_name(type_id: u32) -> Option<&'static str> {
    Some(match type_id {
        id::U8 => "u8",
        id::U16 => "u16",
        id::U32 => "u32",
        id::U64 => "u64",
        id::U128 => "u128",
        id::I8 => "i8",
        id::I16 => "i16",
        id::I32 => "i32",
        id::I64 => "i64",
        id::I128 => "i128",
        id::F32 => "f32",
        id::F64 => "f64",
        id::BOOL => "bool",
        id::CHAR => "char",
        id::USIZE => "usize",
        id::ISIZE => "isize",
        id::STRING => "String",
        id::DURATION => "Duration",
        id::SYSTEM_TIME => "SystemTime",
        id::PATH_BUF => "PathBuf",
        id::IPV4_ADDR => "Ipv4Addr",
        id::IPV6_ADDR => "Ipv6Addr",
        id::IP_ADDR => "IpAddr",
        id::SOCKET_ADDR => "SocketAddr",
        id::SERDE => "serde value",
        _ => return None,
    })
}

fn seq_name(type_id: u32) -> &'static str {
    match type_id {
        id::VEC => "Vec",
        id::VEC_DEQUE => "VecDeque",
        id::SMALL_VEC => "SmallVec",
        id::HASH_SET => "HashSet",
        id::BTREE_SET => "BTreeSet",
        id::HASH_MAP => "HashMap",
        _ => "BTreeMap",
    }
}

/// A signature in words: `u32`, `Vec<String>`, `[f32; 3]`, `(u8, bool)`, `plain type 1003` for a
/// type of the program's own.
///
/// ```
/// use reflectable::plain::PlainType;
/// let mut signature = Vec::new();
/// <Option<[f32; 3]>>::signature(&mut signature);
/// assert_eq!(reflectable::schema::describe_signature(&signature), "Option<[f32; 3]>");
/// ```
pub fn describe_signature(sig: &[u32]) -> String {
    // The length first: splitting recurses once per word.
    if sig.len() > MAX_SIGNATURE_LEN {
        return format!("malformed signature of {} words", sig.len());
    }
    match split_type(sig) {
        Some((node, _, [])) => describe(node),
        _ => format!("malformed signature {sig:?}"),
    }
}

fn describe(node: Sig<'_>) -> String {
    let part = |sig: &[u32]| split_type(sig).map_or_else(String::new, |(node, _, _)| describe(node));
    match node {
        Sig::Leaf(type_id) => leaf_name(type_id).map_or_else(|| format!("plain type {type_id}"), str::to_owned),
        Sig::Seq(seq, elem) => format!("{}<{}>", seq_name(seq), part(elem)),
        Sig::Map(map, key, value) => format!("{}<{}, {}>", seq_name(map), part(key), part(value)),
        Sig::Option(inner) => format!("Option<{}>", part(inner)),
        Sig::Array(len, elem) => format!("[{}; {len}]", part(elem)),
        Sig::Tuple(_, mut parts) => {
            let mut names = Vec::new();
            while let Some((node, _, after)) = split_type(parts) {
                names.push(describe(node));
                parts = after;
            }
            match names.len() {
                1 => format!("({},)", names[0]),
                _ => format!("({})", names.join(", ")),
            }
        }
    }
}

/// `T`'s signature, for tests.
/// The static size of a signature's type when the format fixes it (numbers, `bool`, `char`, and
/// options and arrays of them); `Some(None)` for a type that is always dynamic (`String`, the
/// sequences and maps); `None` when only the type's codec knows.
pub(crate) fn known_static_size(sig: &[u32]) -> Option<Option<u32>> {
    let (node, _, _) = split_type(sig)?;
    Some(match node {
        Sig::Leaf(id::U8 | id::I8 | id::BOOL) => Some(1),
        Sig::Leaf(id::U16 | id::I16) => Some(2),
        Sig::Leaf(id::U32 | id::I32 | id::F32 | id::CHAR) => Some(4),
        Sig::Leaf(id::U64 | id::I64 | id::F64 | id::USIZE | id::ISIZE) => Some(8),
        Sig::Leaf(id::U128 | id::I128) => Some(16),
        Sig::Leaf(id::STRING) | Sig::Seq(..) | Sig::Map(..) => None,
        Sig::Option(inner) => known_static_size(inner)?.and_then(|n| (n < 255).then_some(n + 1)),
        Sig::Array(len, elem) => {
            known_static_size(elem)?.and_then(|n| n.checked_mul(len).filter(|&total| total <= 255))
        }
        _ => return None,
    })
}

#[cfg(test)]
pub(crate) fn sig<T: super::PlainType>() -> Vec<u32> {
    let mut out = Vec::new();
    T::signature(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn signatures_name_their_types() {
        assert_eq!(describe_signature(&sig::<u32>()), "u32");
        assert_eq!(describe_signature(&sig::<Vec<f32>>()), "Vec<f32>");
        assert_eq!(describe_signature(&sig::<HashMap<String, Vec<u8>>>()), "HashMap<String, Vec<u8>>");
        assert_eq!(describe_signature(&sig::<(u8, (bool, char), [i16; 2])>()), "(u8, (bool, char), [i16; 2])");
        assert_eq!(describe_signature(&sig::<Box<Option<u64>>>()), "Option<u64>");
        assert_eq!(describe_signature(&[id::VEC]), "malformed signature [30]");
        assert_eq!(describe_signature(&[id::U8, id::U8]), "malformed signature [1, 1]");
    }

    #[test]
    fn deep_claims_are_bounded() {
        let deep = vec![id::OPTION; MAX_SIGNATURE_LEN + 1];
        assert!(!is_well_formed(&deep));
        let tuple = [id::TUPLE, u32::MAX, id::U8];
        assert!(!is_well_formed(&tuple));
    }
}
