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
        ("small", "256", "column 1: `256` is out of range for u8 (0 to 255)"),
        ("small", "-1", "column 1: `-1` is out of range for u8 (0 to 255)"),
        ("small", "1.5", "column 1: `1.5` is not an unsigned integer"),
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
        ("grid", "[[1, 2]]", "column 1: the field holds exactly 2 elements, not 1"),
        (
            "timeout",
            "{secs: 1, nanos: 1000000000}",
            "column 18: `1000000000` is out of range for nanos (0 to 999999999)",
        ),
        ("addresses", "(1.2.3, ::2, ::3, 1.2.3.4:80)", "column 2: `1.2.3` is not an IPv4 address"),
        ("letter", "'ab'", "column 5: a char is one character in single quotes"),
        ("name", r#""open"#, "column 1: no closing `\"`"),
        ("temperature", "0x0102", "column 1: expected 8 bytes, found 2 bytes"),
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

/// Fields whose types bound their values: numbers of every width, fixed arrays, and the types
/// the mutation test below starts from.
#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 740_004)]
struct Bounded {
    #[rtti(id = 1)]
    small: u8,
    #[rtti(id = 2)]
    count: u32,
    #[rtti(id = 3)]
    huge: u128,
    #[rtti(id = 4)]
    signed: i8,
    #[rtti(id = 5)]
    wide: i128,
    #[rtti(id = 6)]
    ratio: f32,
    #[rtti(id = 7)]
    precise: f64,
    #[rtti(id = 8)]
    vector: [f32; 3],
    #[rtti(id = 9)]
    triple: (u8, String, f32),
    #[rtti(id = 10)]
    maybe: Option<u16>,
    #[rtti(id = 11)]
    numbers: Vec<i32>,
    #[rtti(id = 12)]
    scores: BTreeMap<String, u16>,
    #[rtti(id = 13)]
    lookup: HashMap<u8, Vec<bool>>,
    #[rtti(id = 14)]
    layer: Layer,
    #[rtti(id = 15)]
    tags: BTreeSet<char>,
    #[rtti(id = 16)]
    timeout: Duration,
    #[rtti(id = 17, array)]
    corners: [[i16; 2]; 2],
    #[rtti(id = 18)]
    cells: Vec<Cell>,
}

fn bounded() -> Bounded {
    Bounded {
        small: 200,
        count: 70_000,
        huge: u128::MAX - 1,
        signed: -128,
        wide: i128::MIN,
        ratio: 0.1,
        precise: 1e300,
        vector: [1.0, -2.5, 3.4e38],
        triple: (9, "nine".into(), -0.5),
        maybe: Some(65_535),
        numbers: vec![i32::MIN, 0, i32::MAX],
        scores: [("ann".into(), 3), ("bo".into(), 65_000)].into_iter().collect(),
        lookup: [(1, vec![true, false]), (255, vec![])].into_iter().collect(),
        layer: Layer { name: "top".into(), blend: Blend::Multiply, opacity: 0.75 },
        tags: ['a', 'ü', 'z'].into_iter().collect(),
        timeout: Duration::new(5, 999_999_999),
        corners: [[-1, 2], [i16::MAX, i16::MIN]],
        cells: vec![Cell(1, -1), Cell(65_535, 127)],
    }
}

/// The column a refusal names, when its message starts with one.
fn column_of(message: &str) -> Option<usize> {
    message.strip_prefix("column ")?.split_once(':')?.0.parse().ok()
}

fn refusal(name: &str, text: &str) -> String {
    let mut value = bounded();
    let field = Bounded::rtti_static().field_by_name(name).unwrap();
    let before = field.to_text(&value).unwrap();
    let error = field.set_from_text(&mut value, text).expect_err(text).to_string();
    assert_eq!(field.to_text(&value).unwrap(), before, "{name} is unchanged after {error}");
    error
}

#[test]
fn integers_out_of_range_are_refused_at_their_column() {
    let cases = [
        ("small", "256", 1),
        ("small", "  300", 3),
        ("count", "-1", 1),
        ("count", "4294967296", 1),
        ("huge", "340282366920938463463374607431768211456", 1),
        ("signed", "-129", 1),
        ("signed", "128", 1),
        ("wide", "-170141183460469231731687303715884105729", 1),
        ("triple", "(256, \"x\", 1.0)", 2),
        ("maybe", "Some(65536)", 6),
        ("numbers", "[1, 2147483648]", 5),
        ("scores", "{\"a\": 65536}", 7),
        ("lookup", "{256: []}", 2),
        ("corners", "[[1, 2], [3, 32768]]", 14),
        ("cells", "[[1, 128]]", 6),
        ("timeout", "{secs: 1, nanos: 1000000000}", 18),
    ];
    for (name, text, column) in cases {
        let error = refusal(name, text);
        assert_eq!(column_of(&error), Some(column), "{name} = {text}: {error}");
        assert!(error.contains("out of range"), "{name} = {text}: {error}");
    }
    assert_eq!(refusal("small", "256"), "column 1: `256` is out of range for u8 (0 to 255)");
}

#[test]
fn finite_decimals_too_large_for_a_float_are_refused_not_stored_as_infinity() {
    assert_eq!(refusal("ratio", "1e39"), "column 1: `1e39` is out of range for f32 (at most ±3.4028235e38)");
    assert_eq!(
        refusal("precise", " 1e309"),
        "column 2: `1e309` is out of range for f64 (at most ±1.7976931348623157e308)"
    );
    for (name, text, column) in [
        ("ratio", "-1e39", 1),
        ("ratio", "340282370000000000000000000000000000000", 1),
        ("precise", "1e309", 1),
        ("precise", "-1.8e308", 1),
        ("vector", "[1, 1e39, 2]", 5),
        ("triple", "(1, \"x\", 4e38)", 10),
    ] {
        let error = refusal(name, text);
        assert_eq!(column_of(&error), Some(column), "{name} = {text}: {error}");
    }
    // Rounding to the nearest float is no loss; infinity and NaN spelt out are values.
    let mut value = Bounded::default();
    let field = |name| Bounded::rtti_static().field_by_name(name).unwrap();
    let accepted = [
        ("ratio", "0.1", "0.1"),
        ("ratio", "3.4028235e38", "340282350000000000000000000000000000000.0"),
        ("ratio", "inf", "inf"),
        ("ratio", "-Infinity", "-inf"),
        ("ratio", "NaN", "NaN"),
        ("precise", "-inf", "-inf"),
        ("vector", "[0.1, infinity, -0.0]", "[0.1, inf, -0.0]"),
    ];
    for (name, text, shown) in accepted {
        field(name).set_from_text(&mut value, text).unwrap_or_else(|e| panic!("{name} = {text}: {e}"));
        assert_eq!(field(name).to_text(&value).unwrap(), shown, "{name} = {text}");
    }
    assert_eq!(value.vector[0], 0.1f32);
    field("precise").set_from_text(&mut value, "1.7976931348623157e308").unwrap();
    assert_eq!(value.precise, f64::MAX);
}

#[test]
fn a_long_value_is_refused_with_a_short_excerpt() {
    let long_list = format!("[{}]", vec!["1.5"; 20_000].join(", "));
    let long_number = format!("1{}", "0".repeat(20_000));
    let long_word = "x".repeat(20_000);
    let cases = [
        ("vector", long_list.clone()),
        ("vector", format!("[1, 2, {long_number}]")),
        ("small", long_number.clone()),
        ("ratio", format!("1e{long_number}")),
        ("huge", long_number.clone()),
        ("layer", format!("{{name: \"a\", blend: {long_word}, opacity: 1}}")),
        ("layer", format!("{{{long_word}: 1}}")),
        ("triple", format!("(1, \"x\", {long_word})")),
        ("corners", long_list.replace("1.5", "[1, 2]")),
        ("numbers", format!("[{long_word}]")),
        ("timeout", format!("{{secs: 1, nanos: {long_number}}}")),
    ];
    for (name, text) in cases {
        let error = refusal(name, &text);
        assert!(error.chars().count() < 200, "{name}: {} characters: {}", error.len(), &error[..200.min(error.len())]);
        assert!(column_of(&error).is_some(), "{name}: {error}");
    }
    let error = refusal("vector", &long_list);
    assert_eq!(error, "column 17: [f32; 3] holds 3 elements, not more");
    assert_eq!(refusal("vector", "[1, 2]"), "column 6: [f32; 3] holds 3 elements, not 2");
    let error = refusal("huge", &long_number);
    assert_eq!(
        error,
        format!("column 1: `{}…` is out of range for u128 (0 to {})", "1".to_owned() + &"0".repeat(38), u128::MAX)
    );
}

#[test]
fn duplicated_keys_and_parts_are_refused_not_dropped() {
    for (name, text, column) in [
        ("scores", r#"{"a": 1, "b": 2, "a": 3}"#, 18),
        ("lookup", "{1: [], 1: [true]}", 9),
        ("tags", "['a', 'b', 'a']", 12),
        ("layer", "{name: \"a\", blend: Add, name: \"b\", opacity: 1}", 25),
    ] {
        let error = refusal(name, text);
        assert_eq!(column_of(&error), Some(column), "{name} = {text}: {error}");
    }
}

#[test]
fn every_refusal_of_a_value_has_a_column() {
    // Refusals that come from the field (its fixed length), a codec's bytes, an address.
    let mut value = everything();
    for (name, text) in [
        ("grid", "[[1, 2]]"),
        ("temperature", "0x0102"),
        ("temperature", "warm"),
        ("addresses", "(1.2.3, ::2, ::3, 1.2.3.4:80)"),
        ("addresses", "(1.2.3.4, ::2, ::3, 1.2.3.4:99999)"),
    ] {
        let field = Everything::rtti_static().field_by_name(name).unwrap();
        let error = field.set_from_text(&mut value, text).expect_err(text).to_string();
        assert!(column_of(&error).is_some(), "{name} = {text}: {error}");
    }
}

/// A small, fixed-seed generator (xorshift64*): the same mutations on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const HUGE: &[&str] = &[
    "256",
    "-1",
    "65536",
    "4294967296",
    "1e39",
    "-1e39",
    "1e309",
    "1e-50",
    "340282366920938463463374607431768211456",
    "-170141183460469231731687303715884105729",
    "99999999999999999999999999999999999999999999999999999999999",
    "0.1",
    "inf",
    "NaN",
    "-0",
    "1_000",
];

/// `text` changed one way: a flipped byte, a cut, digits put in, an element repeated, a number
/// replaced by one of its type's edges or beyond.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let bytes = text.as_bytes();
    let at = rng.below(bytes.len() + 1);
    let mut out = bytes.to_vec();
    match rng.below(7) {
        0 if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            out[at] = match rng.below(3) {
                0 => out[at] ^ (1 << rng.below(8)),
                1 => *rng.pick(b"[](){},:\"'-.e_0123456789 x"),
                _ => rng.next() as u8,
            };
        }
        1 => out.truncate(at),
        2 => {
            let digits: String = (0..1 + rng.below(40)).map(|_| char::from(b'0' + rng.below(10) as u8)).collect();
            out.splice(at..at, digits.into_bytes());
        }
        3 => {
            // An element repeated: the text from a separator to the next one, again.
            let stops: Vec<usize> = text.match_indices([',', '[', '{', '(']).map(|(i, _)| i).collect();
            if let Some(&start) = stops.get(rng.below(stops.len())) {
                let end = text[start + 1..].find([',', ']', '}', ')']).map_or(text.len(), |n| start + 1 + n);
                let element = format!("{},", &text[start + 1..end]);
                let copies = if rng.below(50) == 0 { 20_000 } else { 1 + rng.below(3) };
                out.splice(start + 1..start + 1, element.repeat(copies).into_bytes());
            }
        }
        4 => {
            // A number replaced by an edge or a huge one.
            let numbers: Vec<(usize, usize)> = text
                .char_indices()
                .filter(|&(i, c)| c.is_ascii_digit() && !text[..i].ends_with(|c: char| c.is_ascii_digit()))
                .map(|(i, _)| (i, text[i..].find(|c: char| !c.is_ascii_digit()).map_or(text.len(), |n| i + n)))
                .collect();
            if let Some(&(start, end)) = numbers.get(rng.below(numbers.len())) {
                let huge = match rng.below(40) {
                    0 => format!("1{}", "0".repeat(5_000)),
                    _ => rng.pick(HUGE).to_string(),
                };
                out.splice(start..end, huge.into_bytes());
            }
        }
        5 => {
            let junk =
                rng.pick(&["\"", "'", "[", "]", "{", "}", "(", ")", ",", ":", "Some(", "None", "\\u{", "ü", " "]);
            out.splice(at..at, junk.bytes());
        }
        _ => {
            let len = rng.below(bytes.len().saturating_sub(at) + 1);
            out.drain(at..at + len);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn mutated_texts_are_read_exactly_or_refused_at_a_column_briefly() {
    let rtti = Bounded::rtti_static();
    let original = bounded();
    let mut seeds: Vec<(&str, String)> =
        rtti.fields().iter().map(|field| (field.name(), field.to_text(&original).unwrap())).collect();
    seeds.extend(
        [
            ("numbers", "[1, -2, 3_000]"),
            ("scores", r#"{"x": 1, "y": 2}"#),
            ("maybe", "None"),
            ("maybe", "7"),
            ("vector", "[0.1, 2, -3e3]"),
            ("triple", "[1, \"a\", 2.5,]"),
            ("lookup", "{3: [true], 4: [false, false]}"),
            ("tags", "['\\u{41}', '\\n']"),
            ("layer", "{opacity: 1, blend: Opaque, name: \"\\\"q\\\"\"}"),
        ]
        .map(|(name, text)| (name, text.to_owned())),
    );
    let (mut tried, mut refused, mut accepted) = (0usize, 0usize, 0usize);
    let mut rng = Rng(0x5EED_0038_7E57_0003);
    for round in 0..400 {
        for (name, seed) in &seeds {
            let mut text = mutate(&mut rng, seed);
            if round % 3 == 0 {
                text = mutate(&mut rng, &text);
            }
            // On its own field, and on another one now and then.
            let other = rtti.fields()[rng.below(rtti.fields().len())].name();
            let targets: &[&str] = if rng.below(4) == 0 { &[name, other] } else { &[name] };
            for target in targets {
                let field = rtti.field_by_name(target).unwrap();
                let mut value = bounded();
                let before = field.to_text(&value).unwrap();
                tried += 1;
                match field.set_from_text(&mut value, &text) {
                    Err(error) => {
                        refused += 1;
                        let message = error.to_string();
                        let column = column_of(&message)
                            .unwrap_or_else(|| panic!("{target} = {:.200}: no column in {message:.300}", text));
                        assert!(
                            (1..=text.chars().count() + 1).contains(&column),
                            "{target} = {text:.200}: column {column} in {message}"
                        );
                        assert!(
                            message.chars().count() < 200 + target.len(),
                            "{target} = {text:.200}: {} characters: {message:.300}",
                            message.chars().count()
                        );
                        assert_eq!(field.to_text(&value).unwrap(), before, "{target} = {text:.200}: changed");
                    }
                    Ok(()) => {
                        accepted += 1;
                        let shown = field.to_text(&value).unwrap();
                        let mut again = Bounded::default();
                        field
                            .set_from_text(&mut again, &shown)
                            .unwrap_or_else(|e| panic!("{target} = {text:.200} shows as {shown:.200}, refused: {e}"));
                        assert_eq!(field.to_text(&again).unwrap(), shown, "{target} = {text:.200}");
                    }
                }
            }
        }
    }
    println!("{tried} mutated texts tried: {refused} refused, {accepted} accepted");
    assert!(
        tried >= 5_000 && refused > 1_000 && accepted > 500,
        "{tried} tried, {refused} refused, {accepted} accepted"
    );
}
