//! Instance IDs a compact stream leaves out: the object order rule (`FORMAT.md`, "Object order")
//! says which object comes next, from the pointers read so far.
//!
//! IDs are given in the order pointers first meet their objects, so the objects first met while
//! writing one object have consecutive IDs; after it come those objects, lowest first, each
//! followed in the same way by what it led to. That is a depth-first walk over ranges of IDs: a
//! stack of ranges, the next object the front of the top one.

/// Where the object order rule stands.
pub(super) struct Order {
    /// The highest instance ID any pointer (or the root) has named.
    met: u32,
    /// `met` when the current object started: what it meets beyond is its own range.
    before: u32,
    /// Ranges `(next, last)` of IDs still to come, the next object's on top.
    ranges: Vec<(u32, u32)>,
    started: bool,
}

impl Order {
    pub(super) fn new() -> Self {
        Order { met: 1, before: 1, ranges: Vec::new(), started: false }
    }

    /// The instance ID of the next top-level object; `None` when no pointer read so far leads to
    /// one that is not written yet.
    pub(super) fn next_object(&mut self) -> Option<u32> {
        self.before = self.met;
        if !self.started {
            self.started = true;
            return Some(1);
        }
        let top = self.ranges.last_mut()?;
        let id = top.0;
        if top.0 == top.1 {
            self.ranges.pop();
        } else {
            top.0 += 1;
        }
        Some(id)
    }

    /// The current object is written: what it met first comes next.
    pub(super) fn object_done(&mut self) {
        if self.met > self.before {
            self.ranges.push((self.before + 1, self.met));
        }
    }

    /// A pointer to instance `id` (0: null). An object no pointer met before must have the next
    /// ID: IDs are given in the order objects are met.
    pub(super) fn pointer(&mut self, id: u32) -> Result<(), &'static str> {
        if id == self.met.wrapping_add(1) && id != 0 {
            self.met = id;
            Ok(())
        } else if id <= self.met {
            Ok(())
        } else {
            Err("a pointer to an object not met before must name the next instance ID")
        }
    }

    /// How many instance IDs pointers have named (the root included).
    #[cfg(test)]
    pub(super) fn met(&self) -> u32 {
        self.met
    }
}

#[cfg(test)]
mod tests {
    use super::Order;

    /// FORMAT.md's example: a root leading to `a` (2) and `b` (3), where `a` leads to `c` (4),
    /// holds 1, 2, 4, 3.
    #[test]
    fn follows_the_depth_first_rule() {
        let mut order = Order::new();
        assert_eq!(order.next_object(), Some(1));
        order.pointer(2).unwrap();
        order.pointer(3).unwrap();
        order.pointer(2).unwrap();
        order.object_done();
        assert_eq!(order.next_object(), Some(2));
        order.pointer(4).unwrap();
        order.object_done();
        assert_eq!(order.next_object(), Some(4));
        order.pointer(1).unwrap();
        order.object_done();
        assert_eq!(order.next_object(), Some(3));
        order.object_done();
        assert_eq!(order.next_object(), None);
        assert_eq!(order.met(), 4);
    }

    #[test]
    fn refuses_a_pointer_that_skips_an_id() {
        let mut order = Order::new();
        assert_eq!(order.next_object(), Some(1));
        assert!(order.pointer(3).is_err());
        assert!(order.pointer(0).is_ok());
        assert!(order.pointer(2).is_ok());
    }
}
