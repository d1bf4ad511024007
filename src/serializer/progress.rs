//! Progress of long saves and loads, for an editor's progress bar.

/// How far a save or a load has come, handed to the function given to
/// [`BinarySerializer::progress`](super::BinarySerializer::progress).
///
/// A save cannot know its totals up front (it streams, and meets objects as it goes), so only a
/// load has them. The last report of a save or a load that succeeds has every object done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Top-level objects (the root and every object behind a pointer) written or decoded so far.
    pub objects: u64,
    /// For a save, the bytes produced so far; for a load, the bytes of the objects decoded so
    /// far (each object's own bytes, with what it holds by value).
    pub bytes: u64,
    /// For a load, the stream's number of top-level objects; `None` for a save.
    pub total_objects: Option<u64>,
    /// For a load, the size of the input; `None` for a save.
    pub total_bytes: Option<u64>,
}

impl Progress {
    /// The fraction of the objects done, from 0 to 1, when the total is known (a load).
    pub fn fraction(&self) -> Option<f64> {
        self.total_objects.map(|total| if total == 0 { 1.0 } else { self.objects as f64 / total as f64 })
    }
}

/// Receives [`Progress`] reports (see [`BinarySerializer::progress`](super::BinarySerializer::progress)).
pub(crate) type ProgressFn<'f> = &'f dyn Fn(Progress);

/// Objects between two reports: often enough for a smooth bar on a level of thousands of objects,
/// rare enough that reporting costs nothing measurable.
pub(crate) const REPORT_EVERY: u64 = 1024;

/// Counts objects and bytes and reports every [`REPORT_EVERY`] objects.
#[derive(Default)]
pub(crate) struct Tracker<'f> {
    report: Option<ProgressFn<'f>>,
    objects: u64,
    bytes: u64,
    totals: (Option<u64>, Option<u64>),
}

impl<'f> Tracker<'f> {
    pub(crate) fn new(report: Option<ProgressFn<'f>>, totals: (Option<u64>, Option<u64>)) -> Self {
        Tracker { report, objects: 0, bytes: 0, totals }
    }

    /// The same counts, reported to `report`.
    pub(crate) fn with_report(self, report: Option<ProgressFn<'f>>) -> Self {
        Tracker { report, ..self }
    }

    /// One more object done; `bytes` is the running byte count (a save) or this object's bytes
    /// added to it (a load, `add`).
    #[inline]
    pub(crate) fn object_done(&mut self, bytes: u64, add: bool) {
        if self.report.is_none() {
            return;
        }
        self.objects += 1;
        self.bytes = if add { self.bytes + bytes } else { bytes };
        if self.objects % REPORT_EVERY == 0 {
            self.send();
        }
    }

    /// The last report: everything done, `bytes` in all (`None`: the count so far).
    pub(crate) fn finished(&mut self, bytes: Option<u64>) {
        if let Some(bytes) = bytes {
            self.bytes = bytes;
        }
        if self.report.is_some() {
            self.send();
        }
    }

    #[cold]
    fn send(&self) {
        if let Some(report) = self.report {
            let (total_objects, total_bytes) = self.totals;
            report(Progress { objects: self.objects, bytes: self.bytes, total_objects, total_bytes });
        }
    }
}
