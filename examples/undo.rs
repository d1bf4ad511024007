//! Undo and redo in an editor, on patches: each edit of a level is recorded as a forward and a
//! reverse patch (`diff` of the level before and after it); undoing applies the reverse patches in
//! turn back to the exact original level, redoing the forward ones to the exact final one. Edits
//! rename objects, reparent one, delete a component, add an object and switch a camera's
//! projection (an enum's variant). Asserts every step (CI runs it).
//!
//! Run with `cargo run --example undo [objects]` (default 500).

#[path = "common/level.rs"]
mod level;

use level::{break_cycles, build_level, scene_objects as objects, Camera, Component, Level, Projection, SceneObject};
use reflectable::clone::deep_clone;
use reflectable::diff::{diff, rtti_eq, Patch};
use std::cell::RefCell;
use std::rc::Rc;

/// An edit of the level, by name.
type Edit = (&'static str, fn(&mut Level));

/// One step of the undo stack.
struct Step {
    name: &'static str,
    forward: Patch,
    reverse: Patch,
}

fn rename(level: &mut Level) {
    for object in objects(level).iter().step_by(37) {
        object.borrow_mut().name.push_str(" (renamed)");
    }
}

fn reparent(level: &mut Level) {
    let all = objects(level);
    let (moved, new_parent) = (all[all.len() - 1].clone(), all[1].clone());
    let old_parent = moved.borrow().parent.upgrade().expect("not the root");
    old_parent.borrow_mut().children.retain(|child| !Rc::ptr_eq(child, &moved));
    new_parent.borrow_mut().children.insert(0, moved.clone());
    moved.borrow_mut().parent = Rc::downgrade(&new_parent);
}

fn delete_component(level: &mut Level) {
    let object = objects(level)[5].clone();
    object.borrow_mut().components.remove(0);
}

fn add_object(level: &mut Level) {
    let parent = objects(level)[2].clone();
    let object = Rc::new(RefCell::new(SceneObject {
        name: "lantern".into(),
        parent: Rc::downgrade(&parent),
        ..SceneObject::default()
    }));
    let camera: Rc<RefCell<dyn Component>> = Rc::new(RefCell::new(Camera {
        projection: Projection::Perspective { fov_degrees: 75.0 },
        target: Some(parent.clone()),
    }));
    object.borrow_mut().components.push(camera);
    parent.borrow_mut().children.push(object);
}

fn switch_projection(level: &mut Level) {
    for object in objects(level) {
        for component in &object.borrow().components {
            if let Some(camera) = component.borrow_mut().downcast_mut::<Camera>() {
                camera.projection = match camera.projection {
                    Projection::Perspective { .. } => Projection::Orthographic { height: 12.0 },
                    Projection::Orthographic { .. } => Projection::Perspective { fov_degrees: 50.0 },
                };
                return;
            }
        }
    }
}

fn main() {
    let objects_count: usize = std::env::args().nth(1).map_or(500, |arg| arg.parse().expect("object count"));
    let (mut level, _) = build_level(objects_count, 11);
    let original = deep_clone(&level).expect("clone");

    let edits: [Edit; 5] = [
        ("rename", rename),
        ("reparent", reparent),
        ("delete a component", delete_component),
        ("add an object", add_object),
        ("switch a projection", switch_projection),
    ];
    let mut steps = Vec::new();
    let mut states = vec![deep_clone(&level).expect("clone")];
    for (name, edit) in edits {
        let before = deep_clone(&level).expect("clone");
        edit(&mut level);
        let forward = diff(&before, &level).expect("diff");
        let reverse = diff(&level, &before).expect("diff");
        println!(
            "{name}: {} objects changed, {} created; {} bytes forward, {} back",
            forward.objects_changed(),
            forward.objects_created(),
            forward.to_bytes().expect("save").len(),
            reverse.to_bytes().expect("save").len()
        );
        steps.push(Step { name, forward, reverse });
        states.push(deep_clone(&level).expect("clone"));
        break_cycles(&before);
    }

    // Undo everything, checking each state on the way.
    for (index, step) in steps.iter().enumerate().rev() {
        let report = step.reverse.apply(&mut level);
        assert!(report.is_complete(), "undo {}: {report}", step.name);
        rtti_eq(&level, &states[index]).unwrap_or_else(|d| panic!("undo {}: {d}", step.name));
    }
    rtti_eq(&level, &original).expect("undone to the original");

    // Redo everything.
    for (index, step) in steps.iter().enumerate() {
        let report = step.forward.apply(&mut level);
        assert!(report.is_complete(), "redo {}: {report}", step.name);
        rtti_eq(&level, &states[index + 1]).unwrap_or_else(|d| panic!("redo {}: {d}", step.name));
    }
    println!("ok: {} edits undone to the original level and redone to the final one", steps.len());
    for level in states.iter().chain([&level, &original]) {
        break_cycles(level);
    }
}
