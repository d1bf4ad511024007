//! `reflectable` as git's merge driver, external diff and textconv, in a real (temporary)
//! repository: two branches edit one scene file; git merges them through `reflectable merge`.

use reflectable::serializer::BinarySerializer;
use reflectable::Reflectable;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::rc::Rc;

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_401)]
struct SceneObject {
    #[rtti(id = 1, identity)]
    id: u64,
    #[rtti(id = 2)]
    name: String,
    #[rtti(id = 3)]
    position: [f32; 3],
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 964_402)]
struct Scene {
    #[rtti(id = 1)]
    name: String,
    #[rtti(id = 2)]
    objects: Vec<Rc<RefCell<SceneObject>>>,
}

fn scene(objects: &[(u64, &str, f32)]) -> Scene {
    let object = |&(id, name, x): &(u64, &str, f32)| {
        Rc::new(RefCell::new(SceneObject { id, name: name.into(), position: [x, 0.0, 0.0] }))
    };
    Scene { name: "level".into(), objects: objects.iter().map(object).collect() }
}

/// Version 5, so that the file records the identity for a tool without the program.
fn save(scene: &Scene, path: &Path) {
    std::fs::write(path, BinarySerializer::new().format_version(5).encode(scene).unwrap()).unwrap();
}

fn load(path: &Path) -> Scene {
    reflectable::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A temporary repository with the driver configured, removed on drop.
struct Repo(PathBuf);

impl Repo {
    fn new(name: &str) -> Repo {
        let dir = std::env::temp_dir().join(format!("reflectable-git-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let repo = Repo(dir);
        let tool = env!("CARGO_BIN_EXE_reflectable");
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "user.name", "Test"]);
        repo.git(&["config", "merge.reflectable.name", "reflectable three-way merge"]);
        repo.git(&["config", "merge.reflectable.driver", &format!("{tool} merge %O %A %B -o %A")]);
        repo.git(&["config", "diff.reflectable.command", &format!("{tool} diff")]);
        std::fs::write(repo.0.join(".gitattributes"), "*.scene merge=reflectable diff=reflectable\n").unwrap();
        repo
    }

    fn git(&self, args: &[&str]) -> Output {
        let output = Command::new("git").args(args).current_dir(&self.0).output().expect("git runs");
        assert!(
            output.status.success() || args[0] == "merge",
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    fn file(&self) -> PathBuf {
        self.0.join("level.scene")
    }

    fn commit(&self, scene: &Scene, message: &str) {
        save(scene, &self.file());
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// Base on `main`, `ours` on `main` after it, `theirs` on a branch from the base; then git
    /// merges the branch into `main`.
    fn merge(&self, base: &Scene, ours: &Scene, theirs: &Scene) -> Output {
        self.commit(base, "base");
        self.git(&["checkout", "-q", "-b", "theirs"]);
        self.commit(theirs, "theirs");
        self.git(&["checkout", "-q", "main"]);
        self.commit(ours, "ours");
        self.git(&["merge", "--no-edit", "theirs"])
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn branches_that_edit_different_objects_merge_cleanly() {
    let repo = Repo::new("clean");
    let base = scene(&[(1, "rock", 0.0), (2, "tree", 1.0), (3, "lamp", 2.0)]);
    let ours = scene(&[(1, "boulder", 0.0), (2, "tree", 1.0), (3, "lamp", 2.0)]);
    let theirs = scene(&[(1, "rock", 0.0), (2, "tree", 5.0), (3, "lamp", 2.0), (4, "bench", 3.0)]);
    let output = repo.merge(&base, &ours, &theirs);
    assert!(output.status.success(), "{}{}", text(&output.stdout), text(&output.stderr));
    let merged = load(&repo.file());
    let objects: Vec<(u64, String, f32)> = merged
        .objects
        .iter()
        .map(|object| {
            let object = object.borrow();
            (object.id, object.name.clone(), object.position[0])
        })
        .collect();
    assert_eq!(
        objects,
        [(1, "boulder".into(), 0.0), (2, "tree".into(), 5.0), (3, "lamp".into(), 2.0), (4, "bench".into(), 3.0)]
    );
    // The merge is committed, and git's diff of the file runs through the external diff.
    let diff = repo.git(&["diff", "HEAD~1", "HEAD", "--", "level.scene"]);
    let shown = text(&diff.stdout);
    assert!(shown.contains("reflectable diff level.scene"), "{shown}");
    assert!(shown.contains("SceneObject#2.position"), "{shown}");
    assert!(shown.contains("SceneObject#4"), "{shown}");
}

#[test]
fn conflicting_edits_make_git_report_a_conflict_and_leave_a_valid_file() {
    let repo = Repo::new("conflict");
    let base = scene(&[(1, "rock", 0.0), (2, "tree", 1.0)]);
    let ours = scene(&[(1, "boulder", 0.0), (2, "tree", 1.0)]);
    let theirs = scene(&[(1, "stone", 0.0), (2, "oak", 1.0)]);
    let output = repo.merge(&base, &ours, &theirs);
    assert!(!output.status.success(), "git reports the conflict");
    let said = text(&output.stdout) + &text(&output.stderr);
    assert!(said.contains("CONFLICT SceneObject#1.name: base \"rock\", ours \"boulder\", theirs \"stone\""), "{said}");
    let merged = load(&repo.file());
    let names: Vec<String> = merged.objects.iter().map(|object| object.borrow().name.clone()).collect();
    assert_eq!(names, ["boulder", "oak"], "ours kept in the conflict, theirs' other edit taken");
    let status = text(&repo.git(&["status", "--porcelain"]).stdout);
    assert!(status.contains("UU level.scene"), "{status}");
}

#[test]
fn dump_works_as_textconv() {
    let repo = Repo::new("textconv");
    let tool = env!("CARGO_BIN_EXE_reflectable");
    repo.git(&["config", "--unset", "diff.reflectable.command"]);
    repo.git(&["config", "diff.reflectable.textconv", &format!("{tool} dump")]);
    repo.commit(&scene(&[(1, "rock", 0.0)]), "base");
    save(&scene(&[(1, "boulder", 0.0)]), &repo.file());
    let diff = text(&repo.git(&["diff", "--", "level.scene"]).stdout);
    assert!(diff.contains("-  name (2) = \"rock\"") && diff.contains("+  name (2) = \"boulder\""), "{diff}");
}

#[test]
fn the_external_diff_form_takes_added_and_removed_files_and_exits_zero() {
    let repo = Repo::new("seven");
    save(&scene(&[(1, "rock", 0.0)]), &repo.file());
    let file = repo.file();
    let file = file.to_str().unwrap();
    let tool = env!("CARGO_BIN_EXE_reflectable");
    for (old, new, says) in [("/dev/null", file, "(a new file)"), (file, "/dev/null", "(the file is removed)")] {
        let output =
            Command::new(tool).args(["diff", "level.scene", old, "0", "100644", new, "0", "100644"]).output().unwrap();
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert!(text(&output.stdout).contains(says), "{}", text(&output.stdout));
    }
    // A renamed file: git adds the new name and its rename header.
    let renamed =
        ["diff", "level.scene", file, "0", "100644", file, "0", "100644", "moved.scene", "similarity index 100%"];
    let output = Command::new(tool).args(renamed).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("no differences"), "{}", text(&output.stdout));
    let output = Command::new(tool).args(["diff", "a", "b", "c"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "three arguments are neither form");
}

#[test]
fn a_corrupt_side_is_an_error_and_the_output_is_left_as_it_was() {
    let repo = Repo::new("corrupt");
    let (base, ours, theirs, out) =
        (repo.0.join("base.scene"), repo.0.join("ours.scene"), repo.0.join("theirs.scene"), repo.0.join("out.scene"));
    save(&scene(&[(1, "rock", 0.0)]), &base);
    save(&scene(&[(1, "boulder", 0.0)]), &ours);
    let mut bytes = BinarySerializer::new().format_version(5).encode(&scene(&[(1, "stone", 0.0)])).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    std::fs::write(&theirs, bytes).unwrap();
    std::fs::write(&out, b"previous").unwrap();
    let tool = env!("CARGO_BIN_EXE_reflectable");
    let output = Command::new(tool).arg("merge").args([&base, &ours, &theirs]).arg("-o").arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    assert!(text(&output.stderr).contains("error:"), "{}", text(&output.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    // Roots of two types cannot be merged: an error, not a conflict.
    std::fs::write(&theirs, BinarySerializer::new().format_version(5).encode(&SceneObject::default()).unwrap())
        .unwrap();
    let output = Command::new(tool).arg("merge").args([&base, &ours, &theirs]).arg("-o").arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    assert!(text(&output.stderr).contains("cannot be merged"), "{}", text(&output.stderr));
}
