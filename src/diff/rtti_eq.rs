//! [`rtti_eq`]: deep equality of two object graphs through RTTI (Banshee's `BinaryCompare`).

use crate::field::{FieldAccess, FieldError, SharedObject};
use crate::rtti::visit;
use crate::rtti::{AsRoot, Root};
use crate::rtti::{FieldPath, PathStep, Reflectable};

use ahash::AHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::fmt;

/// Where two graphs first differ, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The fields and element indices from the roots to the difference.
    pub path: FieldPath,
    /// What differs there.
    pub what: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "at the root: {}", self.what)
        } else {
            write!(f, "at {}: {}", self.path, self.what)
        }
    }
}

impl std::error::Error for Difference {}

/// `Ok` when the graphs under `a` and `b` are equal through RTTI: the same types and variants,
/// equal plain values (by their stored form, so `NaN` equals itself and `-0.0` differs from
/// `0.0`), and the same shape of sharing: the pointers of one graph and the other pair their
/// objects one to one (two pointers to one object in `a` are two pointers to one object in
/// `b`), so cycles and `Weak`s compare too. Objects are compared wherever they are, whatever
/// their allocations; a dead `Weak` equals a null one. Kept unknown fields compare as fields.
///
/// On failure, the first difference met (objects in breadth-first order from the roots).
///
/// ```
/// use reflectable::diff::rtti_eq;
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9810)]
/// struct Node {
///     #[rtti(id = 1)]
///     value: i32,
///     #[rtti(id = 2)]
///     links: Vec<Rc<RefCell<Node>>>,
/// }
///
/// let shared = Rc::new(RefCell::new(Node { value: 1, links: vec![] }));
/// let a = Node { value: 0, links: vec![shared.clone(), shared] };
/// let b = Node { value: 0, links: vec![Rc::new(RefCell::new(Node { value: 1, links: vec![] })); 2] };
/// assert!(rtti_eq(&a, &b).is_ok());
///
/// let c = Node { value: 0, links: (0..2).map(|_| Rc::new(RefCell::new(Node { value: 1, links: vec![] }))).collect() };
/// let difference = rtti_eq(&a, &c).unwrap_err();
/// assert_eq!(difference.path.to_string(), "links[1]");
/// ```
pub fn rtti_eq<A: AsRoot + ?Sized, B: AsRoot + ?Sized>(a: &A, b: &B) -> Result<(), Difference> {
    let mut run = Compare::default();
    match (a.as_root(), b.as_root()) {
        (Root::Object(a), Root::Object(b)) => {
            run.objects(a, b)?;
        }
        (Root::Shared(a), Root::Shared(b)) => {
            run.pair(a, b, 0);
        }
        _ => return Err(run.differ("one root is shared, the other is not")),
    }
    run.drain()
}

#[derive(Default)]
struct Compare {
    a_to_b: AHashMap<usize, usize>,
    b_to_a: AHashMap<usize, usize>,
    queue: VecDeque<(SharedObject, SharedObject, u32)>,
    /// Each queued pair's path: the pair that first pointed at it, and the steps from there.
    trail: Vec<(u32, Box<[PathStep]>)>,
    /// The pair being compared, and the steps inside it.
    at: u32,
    path: Vec<PathStep>,
    scratch_a: Vec<u8>,
    scratch_b: Vec<u8>,
}

impl Compare {
    fn differ(&self, what: impl Into<String>) -> Difference {
        let mut steps = self.path.clone();
        let mut at = self.at;
        while at != 0 {
            let (parent, local) = &self.trail[at as usize - 1];
            steps.splice(0..0, local.iter().cloned());
            at = *parent;
        }
        Difference { path: FieldPath::new(steps), what: what.into() }
    }

    fn unreadable(&self, error: FieldError) -> Difference {
        self.differ(format!("cannot be read: {error}"))
    }

    /// Pairs `a` with `b`, queued to be compared.
    fn pair(&mut self, a: SharedObject, b: SharedObject, from: u32) {
        self.a_to_b.insert(a.addr(), b.addr());
        self.b_to_a.insert(b.addr(), a.addr());
        self.trail.push((from, self.path.clone().into_boxed_slice()));
        self.queue.push_back((a, b, self.trail.len() as u32));
    }

    fn drain(&mut self) -> Result<(), Difference> {
        while let Some((a, b, at)) = self.queue.pop_front() {
            self.at = at;
            self.path.clear();
            let result = if a.addr() == b.addr() {
                // One object in both graphs: equal to itself, but what it points at must be paired
                // the same way too (the other graph may reach one of its targets another way).
                // Read once: reading it twice could lock it twice.
                a.read(|a| Ok(self.objects(a, a)))
            } else {
                a.read(|a| b.read(|b| self.objects(a, b)))
            };
            match result {
                Ok(Ok(result)) => result?,
                Ok(Err(error)) | Err(error) => return Err(self.unreadable(error)),
            }
        }
        Ok(())
    }

    fn objects(&mut self, a: &dyn Reflectable, b: &dyn Reflectable) -> Result<(), Difference> {
        let sections = visit::section_pairs(a, b).map_err(|mismatch| self.differ(mismatch.to_string()))?;
        for (a, b) in sections {
            let slots = a.slot_pairs(b, true).map_err(|mismatch| self.differ(mismatch.to_string()))?;
            for (a, b) in slots {
                self.path.push(PathStep::Field(a.field.name().to_owned().into()));
                self.field(a.field, a.owner, b.owner)?;
                self.path.pop();
            }
        }
        Ok(())
    }

    fn field(
        &mut self,
        field: &crate::field::RttiField,
        a: &dyn Reflectable,
        b: &dyn Reflectable,
    ) -> Result<(), Difference> {
        let (len_a, len_b) = match (field.len(a), field.len(b)) {
            (Ok(len_a), Ok(len_b)) => (len_a, len_b),
            (Err(error), _) | (_, Err(error)) => return Err(self.unreadable(error)),
        };
        if len_a != len_b {
            return Err(self.differ(format!("{len_a} elements and {len_b}")));
        }
        match field.access() {
            FieldAccess::Plain(plain) => {
                // In place where the type can tell; else the bytes each writes.
                let same = match plain.same(a, b).map_err(|error| self.unreadable(error))? {
                    Some(same) => same,
                    None => {
                        self.scratch_a.clear();
                        self.scratch_b.clear();
                        let written =
                            plain.write(a, &mut self.scratch_a).and_then(|_| plain.write(b, &mut self.scratch_b));
                        written.map_err(|error| self.unreadable(error))?;
                        self.scratch_a == self.scratch_b
                    }
                };
                if !same {
                    return Err(self.differ("different values"));
                }
            }
            FieldAccess::Embedded(_) => {
                for index in 0..len_a {
                    if field.is_array() {
                        self.path.push(PathStep::Index(index));
                    }
                    let compared = field.with_embedded(a, index, |a| {
                        field.with_embedded(b, index, |b| match (a, b) {
                            (None, None) => Ok(()),
                            (Some(a), Some(b)) => self.objects(a, b),
                            _ => Err(self.differ("an empty value and a value")),
                        })
                    });
                    match compared {
                        Ok(Ok(result)) => result?,
                        Ok(Err(error)) | Err(error) => return Err(self.unreadable(error)),
                    }
                    if field.is_array() {
                        self.path.pop();
                    }
                }
            }
            FieldAccess::Pointer(pointers) => {
                let mut addrs: SmallVec<[(Option<usize>, Option<usize>); 4]> = SmallVec::new();
                pointers.for_each(a, &mut |addr, _, _| addrs.push((addr, None))).map_err(|e| self.unreadable(e))?;
                let mut index = 0;
                pointers
                    .for_each(b, &mut |addr, _, _| {
                        if let Some(slot) = addrs.get_mut(index) {
                            slot.1 = addr;
                        }
                        index += 1;
                    })
                    .map_err(|e| self.unreadable(e))?;
                for (index, (x, y)) in addrs.into_iter().enumerate() {
                    if field.is_array() {
                        self.path.push(PathStep::Index(index));
                    }
                    match (x, y) {
                        (None, None) => {}
                        (Some(x), Some(y)) => match (self.a_to_b.get(&x), self.b_to_a.get(&y)) {
                            (Some(&paired), _) if paired == y => {}
                            (None, None) => {
                                let handles = field.shared(a, index).and_then(|x| Ok((x, field.shared(b, index)?)));
                                match handles {
                                    Ok((Some(x), Some(y))) => self.pair(x, y, self.at),
                                    Ok(_) => return Err(self.differ("a pointer died while compared")),
                                    Err(error) => return Err(self.unreadable(error)),
                                }
                            }
                            _ => return Err(self.differ("pointers to objects shared differently")),
                        },
                        _ => return Err(self.differ("a null pointer and a pointer")),
                    }
                    if field.is_array() {
                        self.path.pop();
                    }
                }
            }
        }
        Ok(())
    }
}
