//! Plain fields as text through RTTI: every plain type shows and reads back exactly; wrong text
//! is refused with its column and leaves the field alone; any text, however odd, never panics.

use quickcheck::{quickcheck, TestResult};
use reflectable::plain::{PlainCodec, PlainError, Reader};
use reflectable::text::{PlainValue, TextError};
use reflectable::{PlainType, Reflectable};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

#[derive(PlainType, Clone, Copy, Default, Debug, PartialEq)]
#[plain(id = 7400)]
enum Blend {
    #[default]
    Opaque,
    Add = 5,
    Multiply,
}

#[derive(PlainType, Clone, Default, Debug, PartialEq)]
#[plain(id = 7401)]
struct Layer {
    name: String,
    blend: Blend,
    opacity: f32,
}

#[derive(PlainType, Clone, Copy, Default, Debug, PartialEq)]
#[plain(id = 7402)]
struct Cell(u16, i8);

/// A codec of the program's own: its values have no layout to show, so they show as bytes.
struct Celsius;
impl PlainCodec<f64> for Celsius {
    const TYPE_ID: u32 = 7403;
    const STATIC_SIZE: Option<u32> = Some(8);
    fn size(_: &f64) -> usize {
        8
    }
    fn write(value: &f64, out: &mut Vec<u8>) {
        out.extend_from_slice(&(value + 273.15).to_le_bytes());
    }
    fn read(reader: &mut Reader<'_>) -> Result<f64, PlainError> {
        Ok(f64::from_le_bytes(reader.take_array()?) - 273.15)
    }
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 740_001)]
struct Everything {
    #[rtti(id = 1)]
    small: u8,
    #[rtti(id = 2)]
    big: u128,
    #[rtti(id = 3)]
    negative: i64,
    #[rtti(id = 4)]
    ratio: f32,
    #[rtti(id = 5)]
    precise: f64,
    #[rtti(id = 6)]
    flag: bool,
    #[rtti(id = 7)]
    letter: char,
    #[rtti(id = 8)]
    name: String,
    #[rtti(id = 9)]
    timeout: Duration,
    #[rtti(id = 10)]
    stamp: Option<SystemTime>,
    #[rtti(id = 11)]
    path: PathBuf,
    #[rtti(id = 12)]
    addresses: Option<(Ipv4Addr, Ipv6Addr, IpAddr, SocketAddr)>,
    #[rtti(id = 13)]
    list: Vec<u16>,
    #[rtti(id = 14)]
    queue: VecDeque<String>,
    #[rtti(id = 15)]
    scores: BTreeMap<String, i32>,
    #[rtti(id = 16)]
    lookup: HashMap<u8, Vec<bool>>,
    #[rtti(id = 17)]
    set: BTreeSet<char>,
    #[rtti(id = 18)]
    maybe: Option<u32>,
    #[rtti(id = 19)]
    maybe_text: Option<String>,
    #[rtti(id = 20, array)]
    grid: [[u8; 2]; 2],
    #[rtti(id = 21)]
    pair: (f64, String),
    #[rtti(id = 22)]
    boxed: Box<i16>,
    #[rtti(id = 23)]
    layers: Vec<Layer>,
    #[rtti(id = 24)]
    blend: Blend,
    #[rtti(id = 25)]
    cells: Vec<Cell>,
    #[rtti(id = 26, with = Celsius)]
    temperature: f64,
    #[rtti(id = 27)]
    small_vec: smallvec::SmallVec<[u8; 4]>,
}

fn everything() -> Everything {
    Everything {
        small: 7,
        big: u128::MAX,
        negative: i64::MIN,
        ratio: 0.1,
        precise: -1.0e-300,
        flag: true,
        letter: 'ü',
        name: "a \"quoted\"\nline".into(),
        timeout: Duration::new(3, 500),
        stamp: Some(SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 42)),
        path: PathBuf::from("levels/crypt.lvl"),
        addresses: Some((
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv6Addr::LOCALHOST,
            IpAddr::V4(Ipv4Addr::BROADCAST),
            "[::1]:8080".parse().unwrap(),
        )),
        list: vec![1, 2, 3],
        queue: VecDeque::from(vec!["x".into(), String::new()]),
        scores: [("ann".into(), -3), ("bo".into(), 9)].into_iter().collect(),
        lookup: [(1, vec![true]), (2, vec![])].into_iter().collect(),
        set: ['a', 'z'].into_iter().collect(),
        maybe: None,
        maybe_text: Some("here".into()),
        grid: [[1, 2], [3, 4]],
        pair: (2.5, "two".into()),
        boxed: Box::new(-9),
        layers: vec![Layer { name: "base".into(), blend: Blend::Add, opacity: 0.5 }],
        blend: Blend::Multiply,
        cells: vec![Cell(1, -1), Cell(65_535, 127)],
        temperature: 21.5,
        small_vec: [9, 8].into_iter().collect(),
    }
}

#[test]
fn every_plain_field_shows_and_reads_back_exactly() {
    let original = everything();
    let rtti = Everything::rtti_static();
    let mut copy = Everything::default();
    for field in rtti.fields() {
        let text = field.to_text(&original).unwrap_or_else(|e| panic!("{}: {e}", field.name()));
        field.set_from_text(&mut copy, &text).unwrap_or_else(|e| panic!("{} = {text}: {e}", field.name()));
        assert_eq!(field.to_text(&copy).unwrap(), text, "{}", field.name());
    }
    assert_eq!(copy, original);
}

#[test]
fn values_read_as_people_write_them() {
    let original = everything();
    let show = |name: &str| Everything::rtti_static().field_by_name(name).unwrap().to_text(&original).unwrap();
    assert_eq!(show("ratio"), "0.1", "an f32 as the f32 it is, not its f64 widening");
    assert_eq!(show("name"), r#""a \"quoted\"\nline""#);
    assert_eq!(show("timeout"), "{secs: 3, nanos: 500}");
    assert_eq!(show("addresses"), r#"Some(["10.0.0.1", "::1", "255.255.255.255", "[::1]:8080"])"#);
    assert_eq!(show("scores"), r#"{"ann": -3, "bo": 9}"#);
    assert_eq!(show("maybe"), "None");
    assert_eq!(show("grid"), "[[1, 2], [3, 4]]");
    assert_eq!(show("layers"), r#"[{name: "base", blend: Add, opacity: 0.5}]"#);
    assert_eq!(show("cells"), "[[1, -1], [65535, 127]]");
    assert_eq!(show("temperature"), format!("0x{}", hex(&(21.5f64 + 273.15).to_le_bytes())));

    // Looser forms an editor's text box accepts.
    let mut value = Everything::default();
    let set = |value: &mut Everything, name: &str, text: &str| {
        Everything::rtti_static().field_by_name(name).unwrap().set_from_text(value, text).unwrap()
    };
    set(&mut value, "name", "bare words");
    set(&mut value, "maybe", "12");
    set(&mut value, "precise", "3");
    set(&mut value, "ratio", "-2");
    set(&mut value, "addresses", "(1.2.3.4, ::2, ::3, 1.2.3.4:80,)");
    set(&mut value, "list", "[ 1,2 , 3, ]");
    set(&mut value, "big", "1_000_000");
    assert_eq!((value.name.as_str(), value.maybe, value.precise, value.ratio), ("bare words", Some(12), 3.0, -2.0));
    assert_eq!(value.addresses.unwrap().3, "1.2.3.4:80".parse::<SocketAddr>().unwrap());
    assert_eq!((value.list.as_slice(), value.big), (&[1, 2, 3][..], 1_000_000));
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[test]
fn wrong_text_is_refused_where_it_goes_wrong_and_changes_nothing() {
    let mut value = everything();
    let rtti = Everything::rtti_static();
    let cases = [
        ("small", "256", "expected u8, found 256"),
        ("small", "-1", "column 1: `-1` is not an unsigned integer"),
        ("ratio", "1.5.2", "column 1: `1.5.2` is not a number"),
        ("flag", "yes", "column 1: `yes` is not `true` or `false`"),
        ("list", "[1, 2", "column 6: expected `,`"),
        ("list", "[1, x]", "column 5: `x` is not an unsigned integer"),
        (
            "layers",
            r#"[{name: "a", blend: Lighten, opacity: 1}]"#,
            "column 21: `Lighten` is not one of Opaque, Add, Multiply",
        ),
        ("layers", r#"[{name: "a", blend: Add}]"#, "column 25: part `opacity` is missing"),
        ("grid", "[[1, 2]]", "the field holds exactly 2 elements, not 1"),
        ("timeout", "{secs: 1, nanos: 1000000000}", "expected Duration, found {secs: 1, nanos: 1000000000}"),
        ("addresses", "(1.2.3, ::2, ::3, 1.2.3.4:80)", r#"expected Ipv4Addr, found "1.2.3""#),
        ("letter", "'ab'", "column 5: a char is one character in single quotes"),
        ("name", r#""open"#, "column 1: no closing `\"`"),
        ("temperature", "0x0102", "expected 8 bytes, found 2 bytes"),
        ("maybe", "Some(1", "column 7: expected `)`"),
    ];
    for (name, text, message) in cases {
        let field = rtti.field_by_name(name).unwrap();
        let before = field.to_text(&value).unwrap();
        let error = field.set_from_text(&mut value, text).expect_err(text);
        assert_eq!(error.to_string(), message, "{name} = {text}");
        assert_eq!(field.to_text(&value).unwrap(), before, "{name} is unchanged");
    }
}

#[test]
fn object_fields_are_not_plain() {
    #[derive(Reflectable, Default)]
    #[rtti(id = 740_002)]
    struct Holder {
        #[rtti(id = 1, embedded)]
        inner: Everything,
    }
    let field = Holder::rtti_static().field_by_name("inner").unwrap();
    let error = field.to_text(&Holder::default()).unwrap_err();
    assert!(matches!(error, TextError::NotPlain { .. }), "{error}");
}

#[derive(Reflectable, Default, Debug, PartialEq, Clone)]
#[rtti(id = 740_003)]
struct Sample {
    #[rtti(id = 1)]
    numbers: Vec<i32>,
    #[rtti(id = 2)]
    words: BTreeMap<String, Option<f64>>,
    #[rtti(id = 3)]
    label: String,
    #[rtti(id = 4)]
    letters: Vec<char>,
}

quickcheck! {
    /// Any value shows as text that reads back as the same value.
    fn text_round_trips(numbers: Vec<i32>, words: Vec<(String, Option<f64>)>, label: String, letters: Vec<char>) -> TestResult {
        if words.iter().any(|(_, value)| value.is_some_and(f64::is_nan)) {
            return TestResult::discard(); // NaN is never equal to itself
        }
        let original = Sample { numbers, words: words.into_iter().collect(), label, letters };
        let mut copy = Sample::default();
        for field in Sample::rtti_static().fields() {
            let text = field.to_text(&original).unwrap();
            // A string given bare is the whole text: only quoted ones round-trip as written.
            if let Err(error) = field.set_from_text(&mut copy, &text) {
                return TestResult::error(format!("{} = {text}: {error}", field.name()));
            }
        }
        TestResult::from_bool(copy == original)
    }

    /// Any text, however odd, is read or refused: never a panic.
    fn any_text_is_refused_or_read(text: String) -> bool {
        let mut value = everything();
        for field in Everything::rtti_static().fields() {
            let _ = field.set_from_text(&mut value, &text);
        }
        true
    }
}

#[test]
fn plain_values_compare_and_take_apart() {
    let original = everything();
    let layers = Everything::rtti_static().field_by_name("layers").unwrap().plain_value(&original).unwrap();
    let PlainValue::Seq(layers) = layers else { panic!("an array field is a list") };
    assert_eq!(layers[0].part("blend"), Some(&PlainValue::Variant("Add".into())));
    assert_eq!(layers[0].part("opacity"), Some(&PlainValue::F32(0.5)));
}

mod paths {
    use super::{Layer, TextError};
    use reflectable::text::{get_text, set_text};
    use reflectable::Reflectable;
    use std::cell::RefCell;
    use std::collections::{BTreeMap, HashMap};
    use std::rc::Rc;

    #[derive(Reflectable, Default, Clone)]
    #[rtti(id = 740_010)]
    struct Named {
        #[rtti(id = 1)]
        name: String,
    }

    #[derive(Reflectable, Default, Clone)]
    #[rtti(id = 740_011)]
    struct Prop {
        #[rtti(base)]
        named: Named,
        #[rtti(id = 1)]
        layer: Option<Layer>,
        #[rtti(id = 2)]
        weights: BTreeMap<String, f32>,
        #[rtti(id = 3)]
        slots: HashMap<u8, (u16, bool)>,
        #[rtti(id = 4)]
        grid: Vec<[i8; 2]>,
    }

    #[derive(Reflectable, Default)]
    #[rtti(id = 740_012)]
    struct Scene {
        #[rtti(id = 1, embedded)]
        props: Vec<Prop>,
        #[rtti(id = 2)]
        linked: Vec<Rc<RefCell<Prop>>>,
        #[rtti(id = 3)]
        frozen: Option<Rc<Prop>>,
        #[rtti(id = 4, embedded)]
        spare: Option<Prop>,
        #[rtti(id = 5)]
        by_name: HashMap<String, Rc<RefCell<Prop>>>,
        #[rtti(id = 6, embedded)]
        by_slot: BTreeMap<u8, Prop>,
    }

    fn scene() -> Scene {
        let prop = || Prop {
            layer: Some(Layer::default()),
            weights: [("stone".to_owned(), 0.5)].into_iter().collect(),
            slots: [(7, (70, false))].into_iter().collect(),
            grid: vec![[1, 2], [3, 4]],
            ..Default::default()
        };
        Scene {
            props: vec![prop(), prop()],
            linked: vec![Rc::new(RefCell::new(prop()))],
            frozen: Some(Rc::new(prop())),
            spare: None,
            by_name: [("lamp".to_owned(), Rc::new(RefCell::new(prop())))].into(),
            by_slot: [(3, prop())].into(),
        }
    }

    #[test]
    fn paths_reach_through_objects_pointers_and_plain_values() {
        let mut scene = scene();
        let writes = [
            ("props[1].name", "\"second\""),
            ("props[0].layer.opacity", "0.25"),
            ("props[0].layer.blend", "Multiply"),
            ("props[0].weights[\"stone\"]", "2"),
            ("props[0].slots[7][1]", "true"),
            ("props[1].grid[1][0]", "-8"),
            ("linked[0].layer", "{name: \"top\", blend: Add, opacity: 1}"),
            ("linked[0].name", "shared"),
            ("by_name[\"lamp\"].name", "\"lit\""),
            ("by_slot[3].weights[\"stone\"]", "9"),
        ];
        for (path, text) in writes {
            set_text(&mut scene, path, text).unwrap_or_else(|e| panic!("{path} = {text}: {e}"));
        }
        let read = |path: &str| get_text(&scene, path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(read("props[1].name"), "\"second\"", "a base section's field");
        assert_eq!(read("props[0].layer"), r#"Some({name: "", blend: Multiply, opacity: 0.25})"#);
        assert_eq!(read("props[0].weights[\"stone\"]"), "2.0");
        assert_eq!(read("props[0].slots[7]"), "[70, true]");
        assert_eq!(read("props[1].grid"), "[[1, 2], [-8, 4]]");
        assert_eq!(read("linked[0].layer.name"), "\"top\"");
        assert_eq!(read("frozen.grid[0][1]"), "2", "reading through an immutable pointer");
        assert_eq!(scene.linked[0].borrow().named.name, "shared");
        assert_eq!(read("by_name[\"lamp\"].name"), "\"lit\"", "a map of pointers, by key");
        assert_eq!(scene.by_name["lamp"].borrow().named.name, "lit");
        assert_eq!(read("by_slot[3].weights[\"stone\"]"), "9.0", "a map of objects, by key");
        assert_eq!(scene.by_slot[&3].weights["stone"], 9.0);
    }

    #[test]
    fn paths_that_lead_nowhere_say_why() {
        let mut scene = scene();
        let cases: [(&str, &str); 11] = [
            ("props[0].colour", "no value at `colour`: `Prop` has no such field"),
            ("props.name", "no value at `props`: an array field needs an element index"),
            ("props[5].name", "index 5 out of range for a field of 2 elements"),
            ("spare.name", "no value at `spare`: the slot is empty"),
            ("props[0].weights[\"moss\"]", "no value at `[\"moss\"]`: no such key"),
            ("props[0].layer.depth", "no value at `depth`: no such part"),
            ("props[0]", "field `props` holds objects, not a plain value"),
            ("props[0].grid[9]", "no value at `[9]`: no such element"),
            ("props..name", "column 7: expected a field name"),
            ("by_name[\"nope\"].name", "no value at `by_name`: no such key"),
            ("by_name.name", "no value at `by_name`: a map field needs a key: `field[key]`"),
        ];
        for (path, message) in cases {
            let error = set_text(&mut scene, path, "1").expect_err(path);
            assert_eq!(error.to_string(), message, "{path}");
        }
        // An immutable pointee cannot be changed in place.
        let error = set_text(&mut scene, "frozen.name", "x").unwrap_err();
        assert!(matches!(error, TextError::Field(_)), "{error}");
    }
}
