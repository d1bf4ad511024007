//! Random overlapping graphs (issue 42): an old graph and a new one built from random parts,
//! the new one reusing some of the old one's allocations (and editing them, as both graphs hold
//! them), with `Weak` parents, maps, objects held by value and immutable objects. After
//! `apply(old, diff(old, new))` the report is complete, `rtti_eq(old, new)` holds, and no object
//! held from outside changed identity. With no type of the process declaring an identity (objects pair by
//! allocation, then by content): the diff learns that the graphs share allocations as it goes
//! (see `overlapping_random.rs` for the same with identities).

mod without_identity {
    use reflectable::diff::{diff, rtti_eq};
    use reflectable::rtti::Registry;
    use reflectable::Reflectable;
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::rc::{Rc, Weak};

    #[derive(Reflectable, Default)]
    #[rtti(id = 984_001)]
    pub struct PlainE {
        #[rtti(id = 1)]
        id: u32,
        #[rtti(id = 2)]
        name: String,
        #[rtti(id = 3)]
        kids: Vec<Rc<RefCell<PlainE>>>,
        #[rtti(id = 4)]
        parent: Weak<RefCell<PlainE>>,
        #[rtti(id = 5)]
        wide: Option<Rc<RefCell<PlainW>>>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 984_002)]
    pub struct PlainW {
        #[rtti(id = 1)]
        uuid: u128,
        #[rtti(id = 2)]
        v: i32,
    }

    #[derive(Reflectable, Default, Clone)]
    #[rtti(id = 984_003)]
    pub struct PlainP {
        #[rtti(id = 1)]
        key: [u8; 16],
        #[rtti(id = 2)]
        hp: u32,
        #[rtti(id = 3)]
        link: Option<Rc<RefCell<PlainE>>>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 984_004)]
    pub struct PlainRoot {
        #[rtti(id = 1)]
        items: Vec<Rc<RefCell<PlainE>>>,
        #[rtti(id = 2, embedded)]
        parts: Vec<PlainP>,
        #[rtti(id = 3)]
        map: BTreeMap<u32, Rc<RefCell<PlainE>>>,
        #[rtti(id = 4)]
        single: Option<Rc<RefCell<PlainE>>>,
        #[rtti(id = 5)]
        weak: Weak<RefCell<PlainE>>,
        #[rtti(id = 6)]
        frozen: Vec<Rc<PlainFz>>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 984_005)]
    pub struct PlainFz {
        #[rtti(id = 1)]
        id: u64,
        #[rtti(id = 2)]
        s: String,
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            if n == 0 {
                0
            } else {
                self.next() % n
            }
        }
    }

    fn e(id: u32, name: &str) -> Rc<RefCell<PlainE>> {
        Rc::new(RefCell::new(PlainE { id, name: name.into(), ..PlainE::default() }))
    }

    /// Builds a random root; `pool` is objects that may be reused (shared from another graph).
    fn build(r: &mut Rng, pool: &[Rc<RefCell<PlainE>>], fz: &[Rc<PlainFz>]) -> (PlainRoot, Vec<Rc<RefCell<PlainE>>>) {
        let mut all: Vec<Rc<RefCell<PlainE>>> = Vec::new();
        let n = r.below(6) as usize;
        let get = |r: &mut Rng, all: &mut Vec<Rc<RefCell<PlainE>>>| -> Rc<RefCell<PlainE>> {
            match r.below(4) {
                0 if !pool.is_empty() => pool[r.below(pool.len() as u64) as usize].clone(),
                1 if !all.is_empty() => all[r.below(all.len() as u64) as usize].clone(),
                _ => {
                    let x = e(r.below(5) as u32, ["a", "b", "c"][r.below(3) as usize]);
                    if r.below(3) == 0 {
                        x.borrow_mut().wide = Some(Rc::new(RefCell::new(PlainW {
                            uuid: u128::from(r.below(3) as u8) << 100,
                            v: r.below(3) as i32,
                        })));
                    }
                    all.push(x.clone());
                    x
                }
            }
        };
        let mut root = PlainRoot::default();
        for _ in 0..n {
            let x = get(r, &mut all);
            root.items.push(x);
        }
        for _ in 0..r.below(3) {
            let x = get(r, &mut all);
            let y = get(r, &mut all);
            if !Rc::ptr_eq(&x, &y) && x.try_borrow_mut().is_ok() {
                // avoid strong cycles: only attach fresh-looking leaves
                if y.borrow().kids.is_empty() && !Rc::ptr_eq(&x, &y) {
                    let ok = !y.borrow().kids.iter().any(|k| Rc::ptr_eq(k, &x));
                    if ok && !reaches(&y, &x) {
                        x.borrow_mut().kids.push(y.clone());
                        y.borrow_mut().parent = Rc::downgrade(&x);
                    }
                }
            }
        }
        for _ in 0..r.below(3) {
            let link = if r.below(2) == 0 { Some(get(r, &mut all)) } else { None };
            let mut key = [0u8; 16];
            key[15] = r.below(3) as u8;
            root.parts.push(PlainP { key, hp: r.below(3) as u32, link });
        }
        for _ in 0..r.below(3) {
            let k = r.below(4) as u32;
            let x = get(r, &mut all);
            root.map.insert(k, x);
        }
        if r.below(2) == 0 {
            root.single = Some(get(r, &mut all));
        }
        if let Some(w) = root.items.first() {
            if r.below(2) == 0 && pool.is_empty() {
                root.weak = Rc::downgrade(w);
            }
        }
        for _ in 0..r.below(3) {
            if !fz.is_empty() && r.below(2) == 0 {
                root.frozen.push(fz[r.below(fz.len() as u64) as usize].clone());
            } else {
                root.frozen.push(Rc::new(PlainFz { id: r.below(3), s: ["p", "q"][r.below(2) as usize].into() }));
            }
        }
        (root, all)
    }

    fn reaches(from: &Rc<RefCell<PlainE>>, to: &Rc<RefCell<PlainE>>) -> bool {
        if Rc::ptr_eq(from, to) {
            return true;
        }
        from.borrow().kids.iter().any(|k| reaches(k, to))
    }

    fn strong(root: &PlainRoot) -> Vec<usize> {
        fn walk(x: &Rc<RefCell<PlainE>>, out: &mut Vec<usize>) {
            let a = Rc::as_ptr(x) as usize;
            if out.contains(&a) {
                return;
            }
            out.push(a);
            for k in &x.borrow().kids {
                walk(k, out);
            }
        }
        let mut out = Vec::new();
        for x in root
            .items
            .iter()
            .chain(root.map.values())
            .chain(root.single.iter())
            .chain(root.parts.iter().filter_map(|p| p.link.as_ref()))
        {
            walk(x, &mut out);
        }
        out
    }

    /// Clears Weak pointers of `a`'s objects whose targets are not strongly held in both graphs.
    fn clean(a: &PlainRoot, b: &PlainRoot) {
        let (sa, sb) = (strong(a), strong(b));
        let ok = |w: &Weak<RefCell<PlainE>>| {
            w.upgrade().is_some_and(|t| {
                let p = Rc::as_ptr(&t) as usize;
                sa.contains(&p) && sb.contains(&p)
            })
        };
        fn each(x: &Rc<RefCell<PlainE>>, f: &mut dyn FnMut(&Rc<RefCell<PlainE>>), seen: &mut Vec<usize>) {
            let p = Rc::as_ptr(x) as usize;
            if seen.contains(&p) {
                return;
            }
            seen.push(p);
            f(x);
            let kids = x.borrow().kids.clone();
            for k in &kids {
                each(k, f, seen);
            }
        }
        let mut seen = Vec::new();
        for x in a
            .items
            .iter()
            .chain(a.map.values())
            .chain(a.single.iter())
            .chain(a.parts.iter().filter_map(|p| p.link.as_ref()))
        {
            each(
                x,
                &mut |x| {
                    let keep = ok(&x.borrow().parent);
                    if !keep {
                        x.borrow_mut().parent = Weak::new();
                    }
                },
                &mut seen,
            );
        }
        let _ = ok(&a.weak);
    }

    fn snapshot(all: &[Rc<RefCell<PlainE>>]) -> Vec<(u32, String)> {
        all.iter()
            .map(|x| {
                let b = x.borrow();
                (b.id, b.name.clone())
            })
            .collect()
    }

    fn run(seed: u64, overlap: bool, described: bool) -> Result<(), String> {
        let mut r = Rng(seed | 1);
        let (mut old, old_all) = build(&mut r, &[], &[]);
        let fz: Vec<Rc<PlainFz>> = old.frozen.clone();
        let (new, _new_all) = if overlap { build(&mut r, &old_all, &fz) } else { build(&mut r, &[], &[]) };
        clean(&old, &new);
        clean(&new, &old);
        let before = snapshot(&old_all);
        let patch = diff(&old, &new).map_err(|e| format!("diff error: {e}"))?;
        let report =
            if described { patch.apply_described(&mut old, Registry::global()).0 } else { patch.apply(&mut old) };
        if !report.is_complete() {
            return Err(format!("incomplete: {report}"));
        }
        rtti_eq(&old, &new).map_err(|e| format!("not equal: {e}"))?;
        // outside-held (old_all) objects: identity may not change
        let after = snapshot(&old_all);
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            if b.0 != a.0 {
                return Err(format!("held object {i} changed identity {} -> {}", b.0, a.0));
            }
        }
        Ok(())
    }

    #[test]
    fn random_overlapping_graphs() {
        let mut failures = Vec::new();
        for seed in 1..1500u64 {
            for (overlap, described) in [(false, false), (true, false), (true, true)] {
                match std::panic::catch_unwind(|| run(seed * 7919, overlap, described)) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => failures.push(format!("seed {seed} overlap {overlap} described {described}: {e}")),
                    Err(_) => failures.push(format!("seed {seed} overlap {overlap} described {described}: panic")),
                }
            }
        }
        assert!(failures.is_empty(), "{} failures, first: {:?}", failures.len(), &failures[..failures.len().min(5)]);
    }

    /// A shared allocation the first try paired with another old object without meeting it as
    /// shared: the diff must still learn that the graphs overlap, or applying the patch rewrites
    /// the new graph's own object (here: gives `x` a child).
    #[test]
    fn a_shared_object_paired_elsewhere_makes_the_diff_learn_the_overlap() {
        let x = e(1, "a");
        let a = e(1, "a");
        a.borrow_mut().kids.push(x.clone());
        let y = e(1, "a");
        y.borrow_mut().kids.push(e(0, "b"));
        let mut old = PlainRoot { items: vec![a], ..PlainRoot::default() };
        let new = PlainRoot { items: vec![x.clone(), y], ..PlainRoot::default() };
        let report = diff(&old, &new).unwrap().apply(&mut old);
        assert!(report.is_complete(), "{report}");
        rtti_eq(&old, &new).unwrap();
        assert!(x.borrow().kids.is_empty(), "the new graph's object was rewritten");
    }
}
