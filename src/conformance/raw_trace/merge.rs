//! The shards of one capture merged into one stream in `seq` order: each read ahead in batches on
//! a thread of its own, then a k-way merge.

use super::*;

/// What a shard's reading thread sends: events in order, then its end (or its first error).
pub(super) enum Batch {
    Events(Vec<AccessLine>),
    Failed(anyhow::Error),
    End { lines: u64 },
}

/// How many events a reading thread sends at once, and how many batches may wait: memory stays
/// bounded per shard, whatever the file's size.
pub(super) const BATCH: usize = 256;
pub(super) const BATCHES_AHEAD: usize = 8;

/// One shard, read and parsed on its own thread while the caller consumes its events: parsing the
/// lines and building from them run on two cores. The events, errors and line count are exactly
/// what reading the shard in place would give, in the same order.
pub(super) struct Source {
    pub(super) path: PathBuf,
    pub(super) display: String,
    pub(super) receiver: std::sync::mpsc::Receiver<Batch>,
    pub(super) ready: std::collections::VecDeque<AccessLine>,
    /// The shard's line count, once its end arrived.
    pub(super) lines: Option<u64>,
    /// The first error, kept so a second call gives it again.
    pub(super) failed: bool,
}

impl Source {
    pub(super) fn start(mut shard: Shard, file: usize) -> Result<Source> {
        let (sender, receiver) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
        let (path, display) = (shard.path.clone(), shard.display.clone());
        std::thread::Builder::new()
            .name("trace-read".into())
            .spawn(move || {
                let mut batch = Vec::with_capacity(BATCH);
                loop {
                    match shard.next_event(file) {
                        Ok(Some(event)) => {
                            batch.push(event);
                            if batch.len() == BATCH {
                                let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                                // The reader is gone (it stopped early): so is the need to read.
                                if sender.send(Batch::Events(full)).is_err() {
                                    return;
                                }
                            }
                        }
                        Ok(None) => {
                            let _ = sender.send(Batch::Events(batch));
                            let _ = sender.send(Batch::End { lines: shard.line });
                            return;
                        }
                        Err(e) => {
                            let _ = sender.send(Batch::Events(batch));
                            let _ = sender.send(Batch::Failed(e));
                            return;
                        }
                    }
                }
            })
            .context("starting a trace reading thread")?;
        Ok(Source {
            path,
            display,
            receiver,
            ready: std::collections::VecDeque::new(),
            lines: None,
            failed: false,
        })
    }

    pub(super) fn next_event(&mut self) -> Result<Option<AccessLine>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            if self.lines.is_some() {
                return Ok(None);
            }
            if self.failed {
                return Err(bad(format!(
                    "{}: reading stopped at an error",
                    self.display
                )));
            }
            match self.receiver.recv() {
                Ok(Batch::Events(events)) => self.ready.extend(events),
                Ok(Batch::End { lines }) => self.lines = Some(lines),
                Ok(Batch::Failed(e)) => {
                    self.failed = true;
                    return Err(e);
                }
                Err(_) => {
                    self.failed = true;
                    return Err(anyhow::anyhow!(
                        "the thread reading {} stopped unexpectedly",
                        self.display
                    ));
                }
            }
        }
    }

    /// The shard's line count (every event must have been taken).
    pub(super) fn lines(&mut self) -> u64 {
        while self.lines.is_none() && !self.failed {
            if self.next_event().is_err() {
                break;
            }
        }
        self.lines.unwrap_or(0)
    }
}

/// The shards of one capture, merged into one stream in `seq` order.
pub struct MergedShards {
    /// Each shard, read and parsed ahead on a thread of its own (see [`Source`]).
    pub(super) sources: Vec<Source>,
    pub(super) heads: Vec<Option<AccessLine>>,
    pub(super) baseline_id: Option<String>,
    pub(super) hashing: Option<JoinHandle<std::io::Result<Digests>>>,
    pub(super) events: u64,
}

impl MergedShards {
    /// Opens every file, checks the headers and that all share one `baselineId`, and orders the
    /// shards by their first `seq` (files with no event last, by path): that is the merge order in
    /// which `traceSourceHash` is computed.
    pub fn open(paths: &[PathBuf], case_dir: &Path) -> Result<MergedShards> {
        let mut shards = Vec::with_capacity(paths.len());
        let mut headers = Vec::with_capacity(paths.len());
        for path in paths {
            let mut shard = Shard::open(path, display_path(path, case_dir))?;
            headers.push(shard.read_header()?);
            shards.push(shard);
        }
        let baseline_id = headers.first().and_then(|h| h.baseline_id.clone());
        if headers.iter().any(|h| h.baseline_id != baseline_id) {
            let list: Vec<String> = shards
                .iter()
                .zip(&headers)
                .map(|(s, h)| {
                    format!(
                        "  {} (baselineId {})",
                        s.display,
                        h.baseline_id.as_deref().unwrap_or("none")
                    )
                })
                .collect();
            return Err(bad(format!(
                "these files are not shards of one capture (their baselineIds differ):\n{}\n\
                 give the files of one capture with --trace",
                list.join("\n")
            )));
        }
        let mut firsts = Vec::with_capacity(shards.len());
        for (i, shard) in shards.iter_mut().enumerate() {
            firsts.push(shard.next_event(i)?);
        }
        let mut order: Vec<usize> = (0..shards.len()).collect();
        order.sort_by(|&a, &b| {
            let key = |i: usize| {
                (
                    firsts[i].as_ref().map_or(u64::MAX, |e| e.seq),
                    shards[i].display.clone(),
                )
            };
            key(a).cmp(&key(b))
        });
        let mut slots: Vec<Option<(Shard, Option<AccessLine>)>> =
            shards.into_iter().zip(firsts).map(Some).collect();
        let mut shards = Vec::with_capacity(slots.len());
        let mut heads = Vec::with_capacity(slots.len());
        for (new_index, old) in order.into_iter().enumerate() {
            let (shard, mut head) = slots[old]
                .take()
                .unwrap_or_else(|| unreachable!("each index once"));
            if let Some(event) = head.as_mut() {
                event.file = new_index;
            }
            shards.push(shard);
            heads.push(head);
        }
        let files: Vec<PathBuf> = shards.iter().map(|s| s.path.clone()).collect();
        let sources = shards
            .into_iter()
            .enumerate()
            .map(|(i, shard)| Source::start(shard, i))
            .collect::<Result<Vec<_>>>()?;
        let hashing = std::thread::Builder::new()
            .name("trace-hash".into())
            .spawn(move || -> std::io::Result<Digests> { hash::trace_source_and_files(&files) })
            .context("starting the hashing thread")?;
        Ok(MergedShards {
            sources,
            heads,
            baseline_id,
            hashing: Some(hashing),
            events: 0,
        })
    }

    pub fn baseline_id(&self) -> Option<&str> {
        self.baseline_id.as_deref()
    }

    /// The shards' display paths, in merge order (`AccessLine::file` indexes this).
    pub fn file_names(&self) -> Vec<String> {
        self.sources.iter().map(|s| s.display.clone()).collect()
    }

    /// The next event in global `seq` order; refuses a `seq` that two shards share.
    pub fn next_event(&mut self) -> Result<Option<AccessLine>> {
        let mut best: Option<usize> = None;
        for (i, head) in self.heads.iter().enumerate() {
            let Some(event) = head else { continue };
            match best {
                None => best = Some(i),
                Some(b) => {
                    let current = self.heads[b].as_ref().map_or(u64::MAX, |e| e.seq);
                    if event.seq == current {
                        let other = self.heads[b].as_ref().map_or(0, |e| e.line);
                        return Err(bad(format!(
                            "seq {} appears in {}:{other} and in {}:{}; shards of one capture never share a seq, \
                             so these files have no single global order: give the files of one capture with --trace",
                            event.seq, self.sources[b].display, self.sources[i].display, event.line
                        )));
                    }
                    if event.seq < current {
                        best = Some(i);
                    }
                }
            }
        }
        let Some(i) = best else { return Ok(None) };
        let next = self.sources[i].next_event()?;
        let event = std::mem::replace(&mut self.heads[i], next);
        self.events += 1;
        Ok(event)
    }

    /// Ends the read: every line must have been consumed. Returns the files with their digests
    /// and line counts, and `traceSourceHash`.
    pub fn finish(mut self) -> Result<Summary> {
        let handle = self
            .hashing
            .take()
            .context("the capture was already finished")?;
        let (whole, each) = handle
            .join()
            .map_err(|_| anyhow::anyhow!("the hashing thread panicked"))?
            .context("hashing the trace files")?;
        let files = self
            .sources
            .iter_mut()
            .zip(each)
            .map(|(s, sha256)| TraceFile {
                path: s.path.clone(),
                display: s.display.clone(),
                sha256,
                lines: s.lines(),
            })
            .collect();
        Ok(Summary {
            baseline_id: self.baseline_id,
            files,
            trace_source_hash: whole,
            events: self.events,
        })
    }
}

/// Reads a whole capture, calling `each` for every event in global `seq` order.
pub fn read_capture(
    paths: &[PathBuf],
    case_dir: &Path,
    mut each: impl FnMut(&AccessLine, &[String]) -> Result<()>,
) -> Result<Summary> {
    let mut capture = MergedShards::open(paths, case_dir)?;
    let names = capture.file_names();
    while let Some(event) = capture.next_event()? {
        each(&event, &names)?;
    }
    capture.finish()
}
