//! The JSON form: the example level and its binary twin convert into each other exactly; enums,
//! maps, 64-bit values and the other plain shapes read as people expect; documents from an older
//! program, or hand-written without types, load with defaults and a report; malformed and hostile
//! JSON gives an error with its line and column or its path, never a panic.

#[path = "../examples/common/level.rs"]
mod level;

use level::{build_level, compare_levels, Level};
use reflectable::dynamic::DynamicGraph;
use reflectable::json::{self, JsonError, JsonReader};
use reflectable::serializer::BinarySerializer;
use reflectable::{PlainType, Reflectable, Registry};
use std::collections::{BTreeMap, HashMap};

#[test]
fn the_example_level_and_its_binary_twin_convert_exactly() {
    let (level, _) = build_level(300, 7);
    let bytes = reflectable::to_vec(&level).unwrap();
    let text = json::to_string(&level).unwrap();
    assert_eq!(json::from_bytes(&bytes).unwrap(), text, "bytes and objects give one document");
    assert_eq!(json::to_bytes(&text).unwrap(), bytes, "and it gives back the same bytes");

    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let library = &document["objects"][0]["material_library"];
    assert_eq!(library["material_0"], serde_json::json!({ "$ref": 3 }), "a map of pointers, by key: {library}");

    let (back, report) = JsonReader::new().read::<Level>(&text).unwrap();
    assert!(report.is_empty(), "{report}");
    let objects = compare_levels(&level, &back).unwrap();
    assert!(objects > 300, "every object, with its sharing: {objects}");
}

#[derive(PlainType, Clone, Copy, Default, Debug, PartialEq)]
#[plain(id = 7300)]
struct Spot {
    x: i16,
    y: i16,
}

#[derive(PlainType, Clone, Copy, Default, Debug, PartialEq)]
#[plain(id = 7301)]
enum Team {
    #[default]
    Red,
    Blue,
}

#[derive(Reflectable, Default, Debug, PartialEq, Clone)]
#[rtti(id = 730_001)]
enum Shape {
    #[default]
    #[rtti(id = 1)]
    Empty,
    #[rtti(id = 2)]
    Circle {
        #[rtti(id = 1)]
        radius: f32,
    },
}

#[derive(Reflectable, Default, Debug, PartialEq)]
#[rtti(id = 730_002)]
struct Sample {
    #[rtti(id = 1)]
    big: u64,
    #[rtti(id = 2)]
    small: i64,
    #[rtti(id = 3)]
    ratio: f32,
    #[rtti(id = 4)]
    odd: Vec<f64>,
    #[rtti(id = 5)]
    blob: Vec<u8>,
    #[rtti(id = 6)]
    maybe: Option<Option<u8>>,
    #[rtti(id = 7)]
    letter: char,
    #[rtti(id = 8)]
    scores: HashMap<String, u32>,
    #[rtti(id = 9)]
    by_id: BTreeMap<u16, String>,
    #[rtti(id = 10)]
    spots: Vec<Spot>,
    #[rtti(id = 11)]
    team: Team,
    #[rtti(id = 12, embedded)]
    shape: Shape,
    #[rtti(id = 13)]
    pair: (u8, String),
    #[rtti(id = 14, embedded)]
    shapes: BTreeMap<u32, Shape>,
}

fn sample() -> Sample {
    Sample {
        big: u64::MAX,
        small: i64::MIN,
        ratio: 0.1,
        odd: vec![f64::INFINITY, -0.0, 2.5],
        blob: vec![0, 1, 2, 255],
        maybe: Some(None),
        letter: 'é',
        scores: [("ann".to_owned(), 3)].into(),
        by_id: [(7, "seven".to_owned())].into(),
        spots: vec![Spot { x: -1, y: 2 }],
        team: Team::Blue,
        shape: Shape::Circle { radius: 1.5 },
        pair: (9, "nine".into()),
        shapes: [(3, Shape::Circle { radius: 0.5 }), (4, Shape::Empty)].into(),
    }
}

#[test]
fn plain_values_read_as_people_expect() {
    let text = json::to_string(&sample()).unwrap();
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let root = &document["objects"][0];
    assert_eq!(root["$type"], "Sample");
    assert_eq!(root["big"], "18446744073709551615", "64-bit integers are strings");
    assert_eq!(root["small"], "-9223372036854775808");
    assert_eq!(root["ratio"], 0.1, "an f32 by its shortest text");
    assert_eq!(root["odd"], serde_json::json!(["Infinity", -0.0, 2.5]));
    assert_eq!(root["blob"], "AAEC/w==", "bytes are base64");
    assert_eq!(root["maybe"], serde_json::json!([null]), "Some(None) is not None");
    assert_eq!(root["letter"], "é");
    assert_eq!(root["scores"], serde_json::json!({ "ann": 3 }));
    assert_eq!(root["by_id"], serde_json::json!([[7, "seven"]]), "maps of other keys are pairs");
    assert_eq!(root["spots"], serde_json::json!([{ "x": -1, "y": 2 }]));
    assert_eq!(root["team"], "Blue");
    assert_eq!(root["shape"], serde_json::json!({ "$type": "Shape", "$variant": "Circle", "radius": 1.5 }));
    assert_eq!(root["pair"], serde_json::json!([9, "nine"]));
    let circle = serde_json::json!({ "$type": "Shape", "$variant": "Circle", "radius": 0.5 });
    let empty = serde_json::json!({ "$type": "Shape", "$variant": "Empty" });
    assert_eq!(root["shapes"], serde_json::json!([[3, circle], [4, empty]]), "a map of objects, by its entries");

    let (back, report) = JsonReader::new().read::<Sample>(&text).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!(back.odd[1].to_bits(), (-0.0f64).to_bits());
    assert_eq!(back, sample());
    assert_eq!(json::to_bytes(&text).unwrap(), reflectable::to_vec(&sample()).unwrap());
}

#[test]
fn a_value_only_its_bytes_can_hold_keeps_its_stored_form() {
    let odd = Sample { ratio: f32::from_bits(0x7fc0_0001), ..Sample::default() }; // a NaN with a payload
    let bytes = reflectable::to_vec(&odd).unwrap();
    let text = json::from_bytes(&bytes).unwrap();
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        document["objects"][0]["ratio"],
        serde_json::json!({ "$wire": "plain:4", "$count": 1, "$bytes": "AQDAfw==" })
    );
    assert_eq!(json::to_bytes(&text).unwrap(), bytes, "the payload survives");
}

/// The same type as an older program has it: fewer fields.
mod older {
    use reflectable::Reflectable;

    #[derive(Reflectable, Default)]
    #[rtti(id = 730_002, name = "Sample", no_register)]
    pub struct Sample {
        #[rtti(id = 1)]
        pub big: u64,
        #[rtti(id = 3)]
        pub ratio: f32,
        /// Gone from the newer program.
        #[rtti(id = 40)]
        pub retired: String,
    }
}

#[test]
fn a_document_from_an_older_program_loads_with_defaults_and_a_report() {
    let mut registry = Registry::new();
    registry.register_type::<older::Sample>().unwrap();
    let old = older::Sample { big: 5, ratio: 2.0, retired: "gone".into() };
    let text = reflectable::dynamic::DynamicGraph::from_bytes(
        &BinarySerializer::with_registry(&registry).encode(&old).unwrap(),
    )
    .unwrap()
    .to_json()
    .unwrap();
    let (now, report) = JsonReader::new().read::<Sample>(&text).unwrap();
    assert_eq!((now.big, now.ratio, now.letter, now.scores.len()), (5, 2.0, '\0', 0), "new fields at defaults");
    assert!(report.to_string().contains("retired"), "what was dropped is reported: {report}");

    let strict = JsonReader::with(Registry::global(), BinarySerializer::new().strict(true));
    let error = strict.read::<Sample>(&text).unwrap_err();
    assert!(error.to_string().contains("retired"), "{error}");
}

#[test]
fn a_hand_written_document_names_the_programs_types() {
    let text = r#"{ "objects": [ { "$id": 1, "$type": "Sample", "big": 12, "scores": { "bo": 4 },
                     "shape": { "$type": "Shape", "$variant": "Circle", "radius": 2 } } ] }"#;
    let (sample, report) = JsonReader::new().read::<Sample>(text).unwrap();
    assert!(report.is_empty(), "{report}");
    assert_eq!((sample.big, sample.scores["bo"], sample.shape), (12, 4, Shape::Circle { radius: 2.0 }));
}

#[test]
fn malformed_json_is_placed_by_line_and_column() {
    let text = "{\n  \"objects\": [\n    { \"$id\": 1 \"$type\": \"Sample\" }\n  ]\n}";
    match DynamicGraph::from_json(text) {
        Err(JsonError::Syntax { line, column, message }) => {
            assert_eq!((line, column), (3, 16), "{message}");
            assert!(message.contains("expected"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_document_that_is_not_a_graph_is_placed_by_its_path() {
    let cases = [
        (r#"{ "objects": [ { "$id": 1, "$type": "Nope" } ] }"#, "objects[0]", "no type is named `Nope`"),
        (
            r#"{ "objects": [ { "$id": 1, "$type": "Sample", "big": true } ] }"#,
            "objects[0].big",
            "expected an unsigned integer",
        ),
        (r#"{ "objects": [ { "$id": 1, "$type": "Sample", "nope": 1 } ] }"#, "objects[0].nope", "no field `nope`"),
        (
            r#"{ "objects": [ { "$id": 1, "$type": "Sample", "shape": { "$type": "Shape", "$variant": "Square" } } ] }"#,
            "objects[0].shape",
            "no variant",
        ),
        (r#"{ "objects": [] }"#, "objects", "at least its root"),
    ];
    for (text, path, message) in cases {
        match JsonReader::new().read::<reflectable::dynamic::DynamicGraph>(text).map(|(graph, _)| graph) {
            Err(JsonError::Invalid { path: at, message: why }) => {
                assert_eq!(at, path, "{why}");
                assert!(why.contains(message), "{why}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    let dangling = r#"{ "types": [], "objects": [ { "$id": 1, "$type": 5, "7": { "$wire": "pointer", "$value": { "$ref": 9 } } } ] }"#;
    let error = DynamicGraph::from_json(dangling).unwrap_err();
    assert!(error.to_string().contains("no object has `$id` 9"), "{error}");
}

#[test]
fn cut_and_damaged_documents_never_panic() {
    let (level, _) = build_level(20, 3);
    let text = json::to_string(&level).unwrap();
    let reader = JsonReader::new();
    let try_all = |candidate: &str| {
        if let Ok(graph) = reader.read::<reflectable::dynamic::DynamicGraph>(candidate).map(|(graph, _)| graph) {
            let _ = graph.to_bytes();
        }
        let _ = reader.read::<Level>(candidate);
    };
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for step in (0..chars.len()).step_by(chars.len() / 300 + 1) {
        let (at, _) = chars[step];
        try_all(&text[..at]);
        for replacement in ["0", "\"x\"", "null", "[", "}", "-1", "1e309", "\"\\u0000\""] {
            let end = chars.get(step + 1).map_or(text.len(), |(next, _)| *next);
            try_all(&format!("{}{replacement}{}", &text[..at], &text[end..]));
        }
    }
    // Objects nested past any sensible depth are refused, not a stack overflow.
    let deep = format!(
        r#"{{ "objects": [ {{ "$id": 1, "$type": "Sample", "shape": {} }} ] }}"#,
        "{\"$type\": \"Shape\", \"x\": ".repeat(2000) + "{}" + &"}".repeat(2000)
    );
    assert!(DynamicGraph::from_json(&deep).is_err());
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 730_003)]
struct Floats {
    #[rtti(id = 1)]
    wide: f64,
    #[rtti(id = 2)]
    narrow: f32,
    #[rtti(id = 3)]
    both: (f64, f32),
    #[rtti(id = 4)]
    many: Vec<f64>,
}

quickcheck::quickcheck! {
    /// Every float, whatever its bits (NaN payloads, subnormals, extremes), single, in a tuple or
    /// in a list, converts to JSON and back to the same bytes.
    fn every_float_converts_exactly(wide: u64, narrow: u32, many: Vec<u64>) -> bool {
        let floats = Floats {
            wide: f64::from_bits(wide),
            narrow: f32::from_bits(narrow),
            both: (f64::from_bits(wide.rotate_left(7)), f32::from_bits(narrow.rotate_left(3))),
            many: many.into_iter().map(f64::from_bits).collect(),
        };
        let bytes = reflectable::to_vec(&floats).unwrap();
        json::to_bytes(&json::from_bytes(&bytes).unwrap()).unwrap() == bytes
    }
}

#[test]
fn extreme_floats_convert_exactly() {
    for wide in [
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -1.2e288,
        0.1 + 0.2,
        f64::from_bits(0xFBFE_FFFF_FFFF_FFFE),
        f64::from_bits(0xFBFF_0000_0000_0000),
    ] {
        let floats = Floats { wide, narrow: wide as f32, both: (wide, 1e-45), many: vec![wide, -wide] };
        let bytes = reflectable::to_vec(&floats).unwrap();
        assert_eq!(json::to_bytes(&json::from_bytes(&bytes).unwrap()).unwrap(), bytes, "{wide:e}");
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 730_101)]
struct Deep {
    #[rtti(id = 1, embedded)]
    kids: Vec<Deep>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 730_102)]
struct Marks {
    #[rtti(id = 1)]
    marks: Vec<[u8; 0]>,
    #[rtti(id = 2)]
    small: u8,
}

/// Objects nested by value as deep as the decoder takes them (128) come back from JSON; one level
/// more is refused by the reader, with its path, not by the encoder after it.
#[test]
fn json_nests_objects_as_deep_as_the_decoder() {
    fn deep(levels: usize) -> Deep {
        (1..levels).fold(Deep::default(), |inner, _| Deep { kids: vec![inner] })
    }
    let bytes = reflectable::to_vec(&deep(128)).unwrap();
    let text = json::from_bytes(&bytes).unwrap();
    assert_eq!(json::to_bytes(&text).unwrap(), bytes);
    let deeper = text.replacen("\"kids\": []", "\"kids\": [{\"$type\": \"Deep\", \"kids\": []}]", 1);
    match json::to_bytes(&deeper) {
        Err(JsonError::Invalid { path, message }) => {
            assert!(message.contains("nested more than 128"), "{message}");
            assert!(path.starts_with("objects[0].kids[0]"), "{path}");
        }
        other => panic!("{other:?}"),
    }
}

/// A member the reader would have to ignore, or could take two ways, is refused: an ID key in a
/// spelling the writer never gives, a compact stream's plain block on a normal one, a checksum
/// or a schema table a version's stream cannot hold.
#[test]
fn json_refuses_what_it_would_ignore_or_read_two_ways() {
    let text = json::to_string(&Marks { marks: Vec::new(), small: 4 }).unwrap();
    for key in ["2#zz", "2#", "2#1", "2#02", "02", "+2"] {
        let spelled = text.replacen("\"small\": 4", &format!("\"{key}\": 4"), 1);
        let error = json::to_bytes(&spelled).expect_err(key);
        assert!(
            error.to_string().contains("not a field's ID") || error.to_string().contains("no field"),
            "{key}: {error}"
        );
    }
    let with_block = text.replacen("\"checksum\": false,", "\"checksum\": false, \"plain_block\": \"AAAAAA==\",", 1);
    assert!(json::to_bytes(&with_block).unwrap_err().to_string().contains("plain_block"));
    let old = |version: u32, extra: &str| {
        format!(r#"{{"version": {version}, {extra} "objects": [{{"$id": 1, "$type": 730102}}]}}"#)
    };
    assert!(json::to_bytes(&old(1, r#""checksum": true,"#)).unwrap_err().to_string().contains("checksum"));
    assert!(json::to_bytes(&old(2, r#""types": [],"#)).unwrap_err().to_string().contains("types"));
}

/// A refusal inside a value is placed at its line and byte column, as serde places syntax errors
/// (at the value's last byte), whatever characters come before it on the line.
#[test]
fn json_refusals_are_placed_in_bytes_after_wide_characters() {
    let text = r#"{"objects": [{"$id": 1, "$type": 730102, "marks": [], "small": "ééé", "x": 1}]}"#;
    let error = JsonReader::new()
        .read::<reflectable::dynamic::DynamicGraph>(text)
        .map(|(graph, _)| graph)
        .unwrap_err()
        .to_string();
    let column = text.find("\"ééé\"").unwrap() + "\"ééé\"".len();
    assert!(error.contains(&format!("line 1, column {column})")), "{error} (expected byte column {column})");
}

/// Elements of no size cost a stream nothing and JSON a value each: past the text module's cap
/// a field keeps its stored form, small and quick, and still converts back exactly.
#[test]
fn json_of_many_elements_of_no_size_stays_small() {
    let bytes = reflectable::to_vec(&Marks { marks: vec![[]; 1 << 22], small: 1 }).unwrap();
    let started = std::time::Instant::now();
    let text = json::from_bytes(&bytes).unwrap();
    assert!(text.len() < 4096 && text.contains("\"$count\": 4194304"), "{} bytes", text.len());
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(json::to_bytes(&text).unwrap(), bytes);
}
