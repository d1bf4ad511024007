//! `reflectable`: looks inside files written by reflectable, with no access to the program's
//! types. Everything it shows comes from the stream itself: its objects, and the schema table
//! that names their types, fields and plain types.
//!
//! Install with `cargo install --path cli`; `reflectable --help` lists the commands.

mod dump;
mod graph;
mod load;
mod schema;
mod stats;

use clap::{Parser, Subcommand};
use std::io::{self, Write};
use std::path::PathBuf;
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
    /// The types the file describes: names, IDs, fields and their types.
    Schema {
        /// The file.
        file: PathBuf,
    },
    /// Checks the file: exits with 1 and says where, if it is not a valid stream.
    Check {
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

/// Runs `print` on buffered standard output (a dump of a large file is millions of lines). A
/// closed pipe (`reflectable dump big.bin | head`) is not an error.
fn write_out(print: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), load::Failure> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match print(&mut out).and_then(|()| out.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => Ok(result?),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Dump { file } => load::graph(file).and_then(|loaded| write_out(|out| dump::print(&loaded, out))),
        Command::Schema { file } => load::bytes(file).and_then(|bytes| schema::print(&bytes)),
        Command::Check { file } => load::graph(file).map(|loaded| load::summary(&loaded)),
        Command::Stats { file } => load::graph(file).map(|loaded| stats::print(&loaded)),
        Command::Graph { file } => load::graph(file).and_then(|loaded| write_out(|out| graph::print(&loaded, out))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
