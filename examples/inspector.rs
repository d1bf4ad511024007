//! An editor's property inspector over RTTI alone: prints every field of any object (plain values
//! as text, objects by type, pointers followed one level), then applies `path = value` edits.
//!
//! Run with `cargo run --example inspector -- 'root.children[0].transform.position = [1, 2, 3]'`
//! (with no argument it makes a default edit and checks it).

#[path = "common/level.rs"]
mod level;

use reflectable::field::FieldAccess;
use reflectable::text::{get_text, set_text};
use reflectable::{Reflectable, RttiType};

// ---- The inspector: what a user of the crate writes (29 lines).

/// Prints the fields of `object` (and of the objects it holds, two levels down), indented.
fn inspect(object: &dyn Reflectable, depth: usize) {
    let indent = "  ".repeat(depth);
    for (rtti, section) in RttiType::sections(object) {
        for field in rtti.fields_of(section) {
            let name = field.name();
            match field.access() {
                FieldAccess::Plain(_) => match field.to_text(section) {
                    Ok(text) => println!("{indent}{name} = {text}"),
                    Err(error) => println!("{indent}{name}: <{error}>"),
                },
                _ if depth >= 3 => println!("{indent}{name}: ..."),
                _ => (0..field.len(section).unwrap_or(0)).for_each(|index| {
                    let label = if field.is_array() { format!("{name}[{index}]") } else { name.to_owned() };
                    let show = |value: Option<&dyn Reflectable>| match value {
                        Some(value) => {
                            println!("{indent}{label}: {}", value.rtti().name());
                            inspect(value, depth + 1)
                        }
                        None => println!("{indent}{label}: empty"),
                    };
                    let _ =
                        field.with_embedded(section, index, show).or_else(|_| field.with_pointee(section, index, show));
                }),
            }
        }
    }
}

/// Applies one `path = value` edit.
fn edit(root: &mut dyn Reflectable, line: &str) -> Result<(), Box<dyn std::error::Error>> {
    let (path, value) = line.split_once('=').ok_or("an edit is `path = value`")?;
    Ok(set_text(root, path.trim(), value.trim())?)
}

// ---- The example around it.

fn main() {
    let (mut level, _) = level::build_level(30, 3);
    let line = std::env::args().nth(1).unwrap_or_else(|| "root.children[0].transform.position = [1, 2, 3]".into());
    if let Err(error) = edit(&mut level, &line) {
        eprintln!("cannot apply `{line}`: {error}");
        level::break_cycles(&level);
        std::process::exit(2);
    }
    let child = level.root.as_ref().unwrap().borrow().children[0].clone();
    println!("{}", child.borrow().rtti().name());
    inspect(&*child.borrow(), 1);
    let path = line.split_once('=').unwrap().0.trim();
    println!("{path} is now {}", get_text(&level, path).unwrap());
    if std::env::args().len() == 1 {
        assert_eq!(child.borrow().transform.position, [1.0, 2.0, 3.0]);
        println!("ok: the edit reached the object through its parent's pointer");
    }
    level::break_cycles(&level);
}
