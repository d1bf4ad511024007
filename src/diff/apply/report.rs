//! What [`Patch::apply`](crate::diff::Patch::apply) reports: the parts of a patch it could not apply, and why.

use std::fmt;

/// What [`Patch::apply`](crate::diff::Patch::apply) could not do.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ApplyReport {
    pub(super) problems: Vec<ApplyProblem>,
    /// Problems past [`MAX_PROBLEMS`], counted only: a hostile patch can name as many failing
    /// edits as it has bytes, and the report must stay small beside it.
    pub(super) omitted: usize,
}

/// Most problems a report lists one by one.
pub(super) const MAX_PROBLEMS: usize = 256;

/// One thing a patch could not do: which object edit (0 is the root), which field, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyProblem {
    /// The object edit.
    pub object: usize,
    /// The field, as `section type ID.field ID` (and its name when the target has it).
    pub field: Option<String>,
    /// What went wrong.
    pub kind: ApplyProblemKind,
}

/// Why part of a patch could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApplyProblemKind {
    /// The path to a found object leads nowhere in this graph.
    NotFound(String),
    /// The object is of another type than the patch was made for.
    TypeMismatch {
        /// The type ID the patch expects.
        expected: u32,
        /// The object's type.
        found: String,
    },
    /// The object's type has no such field (or section, or variant).
    Gone,
    /// The field is of another kind, or holds another plain type, than the patch's value.
    FieldMismatch(String),
    /// An element index past the array's end, or a value that does not decode.
    BadValue(String),
    /// The patch breaks its own rules (a count its bytes do not hold, an element used twice, a
    /// reference to no edit of it): nothing of it was applied. Where in the patch (its JSON
    /// form's path), and why.
    Malformed {
        /// The member's path in the patch.
        at: String,
        /// What is wrong with it.
        why: String,
    },
    /// An object the patch creates is of a type nothing here can make.
    CannotCreate(u32),
    /// The object lives in an immutable allocation (`Rc<T>`, `Arc<T>`) and cannot be changed.
    Immutable,
    /// The field refused a value or could not be reached (a `RefCell` borrowed elsewhere).
    Field(String),
    /// An object the patch creates, or finds and edits, is held by nothing once the patch is
    /// applied (only `Weak` pointers lead to it), so it is gone: a `Weak` to it is dead.
    Unheld,
}

impl fmt::Display for ApplyProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyProblemKind::NotFound(why) => write!(f, "object not found: {why}"),
            ApplyProblemKind::TypeMismatch { expected, found } => {
                write!(f, "the patch is for type ID {expected}, the object is a `{found}`")
            }
            ApplyProblemKind::Gone => f.write_str("the type has no such field"),
            ApplyProblemKind::FieldMismatch(why) => write!(f, "the field does not fit: {why}"),
            ApplyProblemKind::BadValue(why) => write!(f, "bad value: {why}"),
            ApplyProblemKind::Malformed { at, why } => write!(f, "not a valid patch at `{at}`: {why}"),
            ApplyProblemKind::CannotCreate(id) => write!(f, "no type with ID {id} can be created here"),
            ApplyProblemKind::Immutable => {
                f.write_str("the object is immutable (`Rc<T>`/`Arc<T>`) and cannot be changed")
            }
            ApplyProblemKind::Field(why) => f.write_str(why),
            ApplyProblemKind::Unheld => {
                f.write_str("the object is held by nothing once the patch is applied (only `Weak` pointers lead to it)")
            }
        }
    }
}

impl fmt::Display for ApplyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "object edit {}", self.object)?;
        if let Some(field) = &self.field {
            write!(f, ", field {field}")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl ApplyReport {
    /// `true` when every change was applied.
    pub fn is_complete(&self) -> bool {
        self.problems.is_empty()
    }
    /// What could not be applied: the first 256 problems (see [`omitted`](Self::omitted)).
    pub fn problems(&self) -> &[ApplyProblem] {
        &self.problems
    }
    /// How many problems there were beyond those [`problems`](Self::problems) lists.
    pub fn omitted(&self) -> usize {
        self.omitted
    }
    /// Records a problem, or counts it past [`MAX_PROBLEMS`].
    pub(super) fn push(&mut self, problem: impl FnOnce() -> ApplyProblem) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(problem());
        } else {
            self.omitted += 1;
        }
    }
}

impl fmt::Display for ApplyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.problems.is_empty() {
            return f.write_str("applied in full");
        }
        for (n, problem) in self.problems.iter().enumerate() {
            if n > 0 {
                f.write_str("; ")?;
            }
            problem.fmt(f)?;
        }
        if self.omitted > 0 {
            write!(f, "; and {} more", self.omitted)?;
        }
        Ok(())
    }
}
