//! `reflectable`: looks inside files written by reflectable, with no access to the program's
//! types. Everything it shows comes from the stream itself: its objects, and the schema table
//! that names their types, fields and plain types.
//!
//! Install with `cargo install --path cli`; `reflectable --help` lists the commands.

mod convert;
mod deps;
mod diff;
mod dump;
mod graph;
mod json;
mod load;
mod merge;
mod schema;
mod stats;

use clap::{Parser, Subcommand};
use reflectable::serializer::Encoding;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Look inside reflectable files without the program that wrote them.
#[derive(Parser)]
#[command(name = "reflectable", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The object graph as an indented tree: instances, types, fields, values.
    Dump {
        /// The file.
        file: PathBuf,
    },
    /// The types the file describes: names, IDs, fields and their types. With `--diff OLD NEW`:
    /// what reading OLD's files with NEW's types keeps, converts and loses (exit 1 on a loss).
    Schema {
        /// The file.
        #[arg(required_unless_present = "diff")]
        file: Option<PathBuf>,
        /// Compares the types of two files instead.
        #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with = "file")]
        diff: Option<Vec<PathBuf>>,
    },
    /// The file as JSON: types, then objects with `$id`/`$ref` for sharing (see the `json`
    /// module of the library).
    Json {
        /// The file.
        file: PathBuf,
    },
    /// A JSON document back into a binary file (the twin `json` wrote gives the same bytes).
    FromJson {
        /// The JSON document.
        file: PathBuf,
        /// The binary file to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// The objects and fields that differ between two files (exit 1 when they differ). Also
    /// git's external diff: given git's seven arguments (`path old-file old-hex old-mode new-file
    /// new-hex new-mode`, and two more for a renamed file), it compares the two files and exits
    /// 0, as git expects.
    Diff {
        /// `OLD NEW`, or git's seven arguments.
        #[arg(num_args = 2..=9, value_names = ["OLD", "NEW"], required = true)]
        files: Vec<PathBuf>,
    },
    /// Three-way merge: what OURS and THEIRS changed from BASE, into OUT (which may be OURS).
    /// Conflicts keep ours' change and are listed, with exit status 1; OUT is a valid file either
    /// way. A git merge driver: `reflectable merge %O %A %B -o %A`.
    Merge {
        /// The common ancestor.
        base: PathBuf,
        /// Our version.
        ours: PathBuf,
        /// Their version.
        theirs: PathBuf,
        /// The merged file to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// The file in another encoding: compact (`FORMAT.md`, "Compact streams") or normal. The same
    /// graph and schema table; a normal file made compact converts back to the same bytes.
    Convert {
        /// The file.
        file: PathBuf,
        /// The encoding to write.
        #[arg(long, value_enum)]
        encoding: EncodingArg,
        /// The file to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Checks the file: exits with 2 and says where, if it is not a valid stream.
    Check {
        /// The file.
        file: PathBuf,
    },
    /// The assets the file refers to, one per line: type, a tab, key. What a build step or an
    /// asset manager loads before the file.
    Deps {
        /// The file.
        file: PathBuf,
    },
    /// Where the bytes go: per type and per field, headers against data.
    Stats {
        /// The file.
        file: PathBuf,
    },
    /// The object graph in Graphviz DOT (`reflectable graph level.bin | dot -Tpng -o level.png`):
    /// `Weak` edges dashed.
    Graph {
        /// The file.
        file: PathBuf,
    },
}

/// The encodings `convert` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum EncodingArg {
    /// Type and field headers on every section and field (format version 3, or 5 for a
    /// version 5 input).
    Normal,
    /// Objects without headers, varints, bools as bits (format version 4).
    Compact,
}

impl From<EncodingArg> for Encoding {
    fn from(encoding: EncodingArg) -> Self {
        match encoding {
            EncodingArg::Normal => Encoding::Normal,
            EncodingArg::Compact => Encoding::Compact,
        }
    }
}

/// Runs `print` on buffered standard output (a dump of a large file is millions of lines). A
/// closed pipe (`reflectable dump big.bin | head`) is not an error.
fn write_out<T: Default>(print: impl FnOnce(&mut dyn Write) -> Result<T, load::Failure>) -> Result<T, load::Failure> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let result = print(&mut out).and_then(|value| {
        out.flush()?;
        Ok(value)
    });
    match result {
        Err(error)
            if error.downcast_ref::<io::Error>().is_some_and(|error| error.kind() == io::ErrorKind::BrokenPipe) =>
        {
            Ok(T::default())
        }
        result => result,
    }
}

/// Runs `command` on the graph of `file`, then leaves the graph to the end of the process: freeing
/// a large graph object by object takes longer than the command itself.
fn with_graph(
    file: &Path,
    command: impl FnOnce(&load::Loaded) -> Result<(), load::Failure>,
) -> Result<(), load::Failure> {
    let loaded = load::graph(file)?;
    let result = command(&loaded);
    std::mem::forget(loaded);
    result
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Set by the comparing commands: their answer is the exit code, as `diff`'s is.
    let mut differs = false;
    let result = match &cli.command {
        Command::Dump { file } => with_graph(file, |loaded| write_out(|out| Ok(dump::print(loaded, out)?))),
        Command::Schema { file: Some(file), .. } => {
            load::bytes(file).and_then(|bytes| write_out(|out| schema::print(&bytes, out)))
        }
        Command::Schema { diff, .. } => {
            let files = diff.as_deref().unwrap_or_default();
            match files {
                [old, new] => load::bytes(old)
                    .and_then(|old| Ok((old, load::bytes(new)?)))
                    .and_then(|(old, new)| write_out(|out| schema::print_diff(&old, &new, out)))
                    .map(|loses| differs = loses),
                _ => Err("`schema` needs a file, or `--diff OLD NEW`".into()),
            }
        }
        Command::Json { file } => with_graph(file, |loaded| write_out(|out| Ok(json::print(loaded, out)?))),
        Command::FromJson { file, output } => write_out(|out| json::convert(file, output, out)),
        Command::Diff { files } => match files.as_slice() {
            [old, new] => with_graph(old, |old| {
                with_graph(new, |new| write_out(|out| diff::print(old, new, out)).map(|found| differs = found))
            }),
            // Git's external diff: a file added or removed is one side `/dev/null`; a renamed
            // one comes with its new name and git's rename header.
            [path, old, _, _, new, _, _] | [path, old, _, _, new, _, _, _, _] => write_out(|out| {
                writeln!(out, "reflectable diff {}", path.display())?;
                match (old.as_path() == Path::new("/dev/null"), new.as_path() == Path::new("/dev/null")) {
                    (true, _) => writeln!(out, "(a new file)")?,
                    (_, true) => writeln!(out, "(the file is removed)")?,
                    _ => with_graph(old, |old| with_graph(new, |new| diff::print(old, new, out).map(drop)))?,
                }
                Ok(())
            }),
            _ => Err("`diff` takes two files, or git's seven external diff arguments".into()),
        },
        Command::Merge { base, ours, theirs, output } => with_graph(base, |base| {
            with_graph(ours, |ours| {
                with_graph(theirs, |theirs| {
                    write_out(|out| merge::merge(base, ours, theirs, output, out)).map(|conflicts| differs = conflicts)
                })
            })
        }),
        Command::Convert { file, encoding, output } => {
            with_graph(file, |loaded| write_out(|out| convert::convert(loaded, (*encoding).into(), output, out)))
        }
        Command::Check { file } => with_graph(file, |loaded| write_out(|out| Ok(load::summary(loaded, out)?))),
        Command::Deps { file } => with_graph(file, |loaded| write_out(|out| Ok(deps::print(loaded, out)?))),
        Command::Stats { file } => with_graph(file, |loaded| write_out(|out| Ok(stats::print(loaded, out)?))),
        Command::Graph { file } => with_graph(file, |loaded| write_out(|out| Ok(graph::print(loaded, out)?))),
    };
    match result {
        // `diff`'s convention: 0 same (or fine), 1 different (or lossy, or in conflict), 2 trouble.
        Ok(()) if differs => ExitCode::from(1),
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}
