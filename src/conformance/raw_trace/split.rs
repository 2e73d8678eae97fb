//! A large file cut at line ends into parts that are read on every core.

use super::*;

/// One part of a single trace file: the lines from one line start to another, after the
/// header, read as the whole file's reader reads them (the same events and the same refusals), so
/// that the parts of a file can be read on several threads at once. Its line numbers count from
/// the part's start, so a caller that meets an error reads the file again as a whole to name the
/// line; and the `seq` order is checked within the part only: between two parts it is the
/// caller's to check.
pub struct Part {
    pub(super) shard: Shard,
}

impl Part {
    /// The part of `path` at `range` (from [`split`]).
    pub fn open(path: &Path, display: String, range: Range<u64>) -> Result<Part> {
        let mut file = crate::files::open_regular(path)
            .with_context(|| format!("cannot read trace {display}"))?;
        file.seek(SeekFrom::Start(range.start))
            .with_context(|| format!("reading trace {display}"))?;
        let mut shard = Shard::open(path, display)?;
        shard.reader = BufReader::with_capacity(256 * 1024, file.take(range.end - range.start));
        // Past the header: no byte-order mark, and no header expected.
        shard.line = 1;
        Ok(Part { shard })
    }

    /// The next access event of the part, blank lines skipped.
    pub fn next_event(&mut self) -> Result<Option<AccessLine>> {
        self.shard.next_event(0)
    }

    /// Lines read so far, blank ones included.
    pub fn lines(&self) -> u64 {
        self.shard.line - 1
    }

    /// Gives back the buffers of an event the caller is done with, for the next line.
    pub fn recycle(&mut self, event: AccessLine) {
        self.shard.recycle(event);
    }
}

/// Where a single trace file splits into about `parts` parts of equal size (see [`Part`]): the
/// byte ranges after its header line, each starting at a line start. The header itself is read
/// apart ([`read_header`]). Fewer ranges when the lines are long or the file short; none when the
/// file is only a header.
pub fn split(path: &Path, parts: usize) -> Result<Vec<Range<u64>>> {
    let mut file = crate::files::open_regular(path)
        .with_context(|| format!("cannot read trace {}", path.display()))?;
    let size = file
        .metadata()
        .with_context(|| format!("reading trace {}", path.display()))?
        .len();
    let mut header = Vec::new();
    BufReader::new(&mut file)
        .take(size)
        .read_until(b'\n', &mut header)
        .with_context(|| format!("reading trace {}", path.display()))?;
    let start = header.len() as u64;
    let mut cuts = vec![start];
    let parts = parts.max(1) as u64;
    let mut buf = vec![0u8; 64 * 1024];
    for k in 1..parts {
        let wanted = start + (size - start) * k / parts;
        let last = *cuts.last().unwrap_or(&start);
        if wanted <= last {
            continue;
        }
        // The first line start at or after `wanted`: just past the first newline from
        // `wanted - 1` on.
        file.seek(SeekFrom::Start(wanted - 1))
            .with_context(|| format!("reading trace {}", path.display()))?;
        let mut at = wanted - 1;
        let cut = loop {
            let n = file
                .read(&mut buf)
                .with_context(|| format!("reading trace {}", path.display()))?;
            if n == 0 {
                break size;
            }
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                break at + i as u64 + 1;
            }
            at += n as u64;
        };
        if cut > last && cut < size {
            cuts.push(cut);
        }
    }
    cuts.push(size);
    Ok(cuts
        .windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| w[0]..w[1])
        .collect())
}

/// `traceSourceHash` and the sha256 of each file, in merge order.
pub(super) type Digests = (String, Vec<String>);
