//! The capture: turns inspector events into trace events. The one place that knows which CDP event
//! becomes which trace event; positions go through the mapper, values through `values`.

use serde_json::{Value, json};

use crate::inspector::boot::CONSOLE_BINDING;
use crate::inspector::driver::{Observer, Seen};
use crate::trace::event::{Clock, Event, EventSender, Frame, Kind, Position};
use crate::trace::mapper::{self, Mapper};
use crate::trace::values::{self, VALUE_LIMIT};

/// The urls of a CDP `stackTrace`'s frames.
fn frame_urls(stack_trace: Option<&Value>) -> impl Iterator<Item = &str> {
    stack_trace
        .and_then(|stack| stack.get("callFrames"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|frame| frame.get("url").and_then(Value::as_str))
}

/// The console methods the bootloader records itself (`boot.js`, `prepareConsole`), named as the
/// program called them.
const BATCHED_METHODS: [&str; 17] = [
    "log",
    "info",
    "debug",
    "warn",
    "error",
    "dir",
    "dirxml",
    "table",
    "trace",
    "assert",
    "count",
    "timeEnd",
    "timeLog",
    "group",
    "groupCollapsed",
    "groupEnd",
    "clear",
];

/// The most frames an event's `callStack` keeps: as many as V8 captures for an error
/// (`driver::DEEP_FRAMES`), so that the user's own frame below a deep library is kept (a console
/// event keeps its call site only).
const MAX_FRAMES: usize = crate::inspector::driver::DEEP_FRAMES as usize;

/// Captures one inspector connection's events into the event stream.
pub struct Capture {
    mapper: Mapper,
    events: EventSender,
    clock: Clock,
    /// Set for a forked child process: every event of this connection is tagged with it.
    process_label: Option<String>,
    /// Messages of workers' uncaught errors not yet seen re-thrown on the main thread.
    worker_errors: Vec<String>,
    /// Whether `script` events are recorded (`--scripts`).
    script_events: bool,
    /// Whether the user's own scripts (the workspace's, outside `node_modules`) are, when
    /// `script_events` is off: in a test runner's worker, they tell which test file it ran.
    own_script_events: bool,
    /// Whether an event asked for the program's scripts (`Seen::NeedsScripts`): once.
    asked_for_scripts: bool,
    /// When the event that asked for the program's scripts arrived: its time when it is given
    /// again.
    asked_at: Option<f64>,
    /// When the event being given arrived, where it was kept while the scripts were asked for
    /// (`Observer::arrived_at`): its alone.
    given_at: Option<f64>,
}

impl Capture {
    pub fn new(
        mapper: Mapper,
        events: EventSender,
        clock: Clock,
        process_label: Option<String>,
    ) -> Self {
        Capture {
            mapper,
            events,
            clock,
            process_label,
            worker_errors: Vec::new(),
            script_events: true,
            own_script_events: false,
            asked_for_scripts: false,
            asked_at: None,
            given_at: None,
        }
    }

    /// When the event being taken arrived: now, or when it first did if it waited for the
    /// program's scripts.
    fn arrived(&mut self) -> f64 {
        self.asked_at
            .take()
            .or_else(|| self.given_at.take())
            .unwrap_or_else(|| self.clock.ms())
    }

    /// Whether a main-thread event placed at `urls` must wait for the program's scripts: one of
    /// them is code the runtime transformed with no source map known (see `Seen::NeedsScripts`).
    /// Asked once: the driver enables the scripts' reports for the rest of the run.
    fn needs_scripts<'a>(
        &mut self,
        worker: Option<&str>,
        mut urls: impl Iterator<Item = &'a str>,
    ) -> bool {
        if worker.is_some() || self.asked_for_scripts {
            return false;
        }
        self.asked_for_scripts = urls.any(|url| self.mapper.needs_runtime_map(url));
        if self.asked_for_scripts {
            self.asked_at = Some(self.clock.ms());
        }
        self.asked_for_scripts
    }

    /// Records `script` events or not (they are recorded by default).
    pub fn with_script_events(mut self, on: bool) -> Self {
        self.script_events = on;
        self
    }

    /// Records the `script` events of the user's own files even when the others are not.
    pub fn with_own_script_events(mut self, on: bool) -> Self {
        self.own_script_events = on;
        self
    }

    fn emit(&self, mut event: Event, worker: Option<&str>) {
        event.worker = match (&self.process_label, worker) {
            (Some(process), Some(worker)) => Some(format!("{process} {worker}")),
            (Some(process), None) => Some(process.clone()),
            (None, worker) => worker.map(str::to_owned),
        };
        // A closed stream means the run is being torn down; nothing left to record.
        let _ = self.events.send(Box::new(event));
    }

    fn context_created(&mut self, worker: Option<&str>, params: &Value) {
        let context = params.get("context").unwrap_or(&Value::Null);
        let name = context.get("name").and_then(Value::as_str).unwrap_or("");
        let arrived = self.arrived();
        let mut event = Event::new(
            Kind::Context,
            arrived,
            format!("execution context created: {name}"),
        );
        let origin = context.get("origin").and_then(Value::as_str).unwrap_or("");
        if !origin.is_empty() {
            event.set_value(origin.to_owned(), VALUE_LIMIT);
        }
        self.emit(event, worker);
    }

    fn worker_attached(&mut self, worker: Option<&str>, params: &Value) {
        let url = params
            .pointer("/workerInfo/url")
            .and_then(Value::as_str)
            .unwrap_or("");
        let arrived = self.arrived();
        let mut event = Event::new(Kind::Context, arrived, "worker started");
        if let Some(path) = mapper::user_path(url) {
            event.file = Some(path.display().to_string());
        }
        event.set_value(url.to_owned(), VALUE_LIMIT);
        self.emit(event, worker);
    }

    fn script_parsed(&mut self, worker: Option<&str>, params: &Value) {
        let url = params.get("url").and_then(Value::as_str).unwrap_or("");
        let Some(path) = mapper::user_path(url) else {
            return;
        };
        let source_map_url = params
            .get("sourceMapURL")
            .and_then(Value::as_str)
            .unwrap_or("");
        self.mapper.register_script(url, source_map_url);
        if let Some(length) = params.get("length").and_then(Value::as_u64) {
            self.mapper.register_script_length(url, length);
        }
        // Workers always report their scripts (their Debugger domain catches uncaught errors);
        // script events are recorded only when asked for.
        let own = || self.own_script_events && self.mapper.is_own_code(&path.to_string_lossy());
        if !self.script_events && !own() {
            return;
        }
        let mut event = Event::new(Kind::Script, self.clock.ms(), "script parsed");
        event.file = Some(path.display().to_string());
        if !source_map_url.is_empty() && !source_map_url.starts_with("data:") {
            event.note = Some(format!("source map: {source_map_url}"));
        }
        self.emit(event, worker);
    }

    fn console_called(&mut self, worker: Option<&str>, params: &Value) -> Seen {
        let stack = params.get("stackTrace");
        if self.needs_scripts(worker, frame_urls(stack)) {
            return Seen::NeedsScripts;
        }
        // Node reports console.table, trace, assert, count, timeEnd and group twice; the echo's
        // top frame is inside Node's console implementation.
        let top_url = stack
            .and_then(|s| s.pointer("/callFrames/0/url"))
            .and_then(Value::as_str);
        if top_url.is_some_and(|url| url.starts_with("node:internal/console")) {
            return Seen::Done;
        }
        let level = console_method(params.get("type").and_then(Value::as_str).unwrap_or("log"));
        let args = params
            .get("args")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let arrived = self.arrived();
        let mut event = Event::new(Kind::Console, arrived, format!("console.{level}"));
        event.level = Some(level.to_owned());
        event.set_value(values::render_args(args), VALUE_LIMIT);
        let mut mapped = self.mapper.cdp_stack(stack);
        // The call site only, whatever V8 captured (see `driver::DEEP_FRAMES`): a console event
        // looks the same under a flood and in a quiet program.
        mapped.frames.truncate(1);
        self.place(&mut event, mapped.frames, mapped.note);
        self.emit(event, worker);
        Seen::Done
    }

    /// Console calls the bootloader recorded and sent in one batch (`boot::CONSOLE_BINDING`; see
    /// `Driver::capture_console_in_batches`): the same events as `console_called`, with the text
    /// as Node printed it. Each call's `ts` is when it was made: the batch's sending (or, from a
    /// bootloader that does not say it, its arrival) less the call's age in the batch, both
    /// measured on the program's clock.
    fn console_batch(&mut self, worker: Option<&str>, params: &Value) -> Seen {
        #[derive(serde::Deserialize)]
        struct Batch {
            calls: Vec<Call>,
            /// Calls the bootloader could not record (it failed taking them).
            #[serde(default)]
            unrecorded: u64,
            /// When the batch left, on `CLOCK_MONOTONIC` (ms).
            #[serde(default)]
            sent: Option<f64>,
        }
        /// `[method, age, url, line, column, functionName, text, length, note, stack, test]`: `age`,
        /// how long before the batch was sent the call was made (ms); the position 1-based (V8's
        /// CallSite); `url` and `functionName` 0 when they are the previous call's; `length`, the
        /// whole text's characters when `text` was cut short; `note`, what the bootloader could
        /// not see of the call; `stack`, the stack's text instead of a position when the program
        /// froze `Error`; `test`, the `node:test` test whose own code made the call.
        #[derive(serde::Deserialize)]
        struct Call(
            String,
            f64,
            Repeated,
            Option<u32>,
            Option<u32>,
            Repeated,
            String,
            #[serde(default)] Option<usize>,
            #[serde(default)] Option<String>,
            #[serde(default)] Option<String>,
            #[serde(default)] Option<String>,
        );
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Repeated {
            Previous(u8),
            Text(Option<String>),
        }
        fn resolve(value: Repeated, previous: &mut Option<String>) -> Option<String> {
            match value {
                Repeated::Previous(0) => previous.clone(),
                Repeated::Previous(_) => None,
                Repeated::Text(text) => {
                    previous.clone_from(&text);
                    text
                }
            }
        }
        let payload = params.get("payload").and_then(Value::as_str).unwrap_or("");
        let arrived = self.arrived();
        let Ok(batch) = serde_json::from_str::<Batch>(payload) else {
            let mut event = Event::new(Kind::Console, arrived, "console");
            event.note = Some(
                "a batch of console calls from the bootloader could not be read; its calls are \
                 not recorded (their text is in the program's output)"
                    .to_owned(),
            );
            self.emit(event, worker);
            return Seen::Done;
        };
        // A call's url is written once for the calls after it that share it (`Repeated`).
        let urls = batch.calls.iter().filter_map(|call| match &call.2 {
            Repeated::Text(url) => url.as_deref(),
            Repeated::Previous(_) => None,
        });
        if self.needs_scripts(worker, urls) {
            return Seen::NeedsScripts;
        }
        if batch.unrecorded > 0 {
            let mut event = Event::new(Kind::Console, arrived, "console");
            event.note = Some(format!(
                "{} console call(s) could not be recorded by the bootloader (their text is in the \
                 program's output)",
                batch.unrecorded
            ));
            self.emit(event, worker);
        }
        // The calls' times on the program's own clock where the batch says when it left: a batch
        // read late (tracer busy, the machine loaded) would otherwise put its calls after those of
        // a batch read promptly, out of the order they were made in. A time that cannot be the
        // batch's (a clock of another time namespace) leaves its arrival.
        let left = batch
            .sent
            .map(|sent| self.clock.ms_of_monotonic(sent))
            .filter(|left| (0.0..=arrived + 1.0).contains(left))
            .map_or(arrived, |left| left.min(arrived));
        let (mut previous_url, mut previous_name) = (None, None);
        for Call(
            method,
            age,
            url,
            line,
            column,
            function_name,
            text,
            length,
            unseen,
            stack,
            test,
        ) in batch.calls
        {
            let url = resolve(url, &mut previous_url);
            let function_name = resolve(function_name, &mut previous_name);
            if !BATCHED_METHODS.contains(&method.as_str()) {
                continue;
            }
            let age = age.clamp(0.0, left);
            let ts = ((left - age) * 1000.0).round() / 1000.0;
            let mut event = Event::new(Kind::Console, ts, format!("console.{method}"));
            event.set_value_of_length(text, VALUE_LIMIT, length.unwrap_or(0));
            event.level = Some(method);
            event.test_name = test;
            let frame = match (url, line, column, stack) {
                (Some(url), Some(line), Some(column), _) => self.mapper.call_site(
                    function_name.as_deref().unwrap_or(""),
                    &url,
                    line,
                    column,
                ),
                (_, _, _, Some(stack)) => mapper::stack_text_frames(&stack)
                    .first()
                    .map(|frame| self.mapper.stack_text(frame)),
                _ => None,
            };
            match frame {
                Some((frame, note)) => self.place(&mut event, vec![frame], note),
                None => self.place(&mut event, Vec::new(), None),
            }
            if let Some(unseen) = unseen {
                event.note = Some(match event.note.take() {
                    Some(note) => format!("{note}; {unseen}"),
                    None => unseen,
                });
            }
            self.emit(event, worker);
        }
        Seen::Done
    }

    fn exception_thrown(&mut self, worker: Option<&str>, params: &Value) -> Seen {
        let details = params.get("exceptionDetails").unwrap_or(&Value::Null);
        let own_url = details.get("url").and_then(Value::as_str);
        if self.needs_scripts(worker, frame_urls(details.get("stackTrace")).chain(own_url)) {
            return Seen::NeedsScripts;
        }
        let text = details
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("Uncaught");
        let mut event =
            self.exception_event(text, details.get("exception"), details.get("stackTrace"));
        if !event.call_stack.is_empty() {
            event.thrown_at = self.thrown_at(details, &event);
        }
        if event.call_stack.is_empty() {
            // A worker's error that the main thread re-throws: already recorded in the worker,
            // with its position. The same error is not counted twice.
            if worker.is_none()
                && let Some(at) = self
                    .worker_errors
                    .iter()
                    .position(|m| Some(m) == event.error_message.as_ref())
            {
                self.worker_errors.remove(at);
                return Seen::Done;
            }
            // Last resort: the exception's own position (url may be a plain path; 0-based). Its
            // column is one less than the frame's (an ES module's SyntaxError: one less than the
            // column Node's own message points at), so it is moved onto the same 0-based column.
            let url = details.get("url").and_then(Value::as_str).unwrap_or("");
            let line0 = details.get("lineNumber").and_then(Value::as_u64);
            let column0 = details
                .get("columnNumber")
                .and_then(Value::as_u64)
                .map_or(0, |c| c + 1);
            if let Some(line0) = line0
                && let Some((frame, _)) =
                    self.mapper
                        .position("", url, mapper::to_u32(line0), mapper::to_u32(column0))
            {
                let note = event.note.take();
                self.place(&mut event, vec![frame], note);
            }
        }
        self.emit(event, worker);
        Seen::Done
    }

    /// Where the exception of `details` was thrown, when that is a position in a file the user can
    /// open on another line than `event`'s site: V8 reports an uncaught exception at its `throw`
    /// (0-based, its column one less than a frame's, as above), while the stack was captured where
    /// the error was made.
    fn thrown_at(&mut self, details: &Value, event: &Event) -> Option<Position> {
        let url = details.get("url").and_then(Value::as_str)?;
        let line0 = details.get("lineNumber").and_then(Value::as_u64)?;
        let column0 = details
            .get("columnNumber")
            .and_then(Value::as_u64)
            .map_or(0, |c| c + 1);
        let (frame, _) =
            self.mapper
                .position("", url, mapper::to_u32(line0), mapper::to_u32(column0))?;
        let thrown = Some(frame.position()).filter(|_| !frame.unmapped)?;
        let site = event.position();
        let same_line =
            site.is_some_and(|site| site.file == thrown.file && site.line == thrown.line);
        (!same_line).then_some(thrown)
    }

    /// A worker paused on an uncaught exception (see the driver): the worker's error, with its
    /// stack, tagged with the worker. The driver resumes the worker at once.
    fn worker_paused(&mut self, worker: Option<&str>, params: &Value) {
        let frames: Vec<Value> = params
            .get("callFrames")
            .and_then(Value::as_array)
            .map(|frames| {
                frames
                    .iter()
                    .map(|f| {
                        json!({
                            "functionName": f.get("functionName"),
                            "url": f.get("url"),
                            "lineNumber": f.pointer("/location/lineNumber"),
                            "columnNumber": f.pointer("/location/columnNumber"),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let stack = json!({"callFrames": frames});
        let event = self.exception_event("Uncaught", params.get("data"), Some(&stack));
        if let Some(message) = &event.error_message {
            if self.worker_errors.len() == 16 {
                self.worker_errors.remove(0);
            }
            self.worker_errors.push(message.clone());
        }
        self.emit(event, worker);
    }

    /// An exception event from the thrown value and its structured stack.
    ///
    /// V8 captures the error's frames when it is constructed, as deep as the driver asks at that
    /// moment (`driver::DEEP_FRAMES`, or the call site only under a console flood). When it
    /// captured more than one user frame, those frames are the call stack, whatever the error's
    /// stack text says (a program's own `Error.prepareStackTrace` can make it anything). Otherwise
    /// the deeper frames come from the stack text, which Node has already source-mapped, and the
    /// structured site replaces the text's first frame when they agree, so the generated position
    /// is kept.
    fn exception_event(
        &mut self,
        text: &str,
        exception: Option<&Value>,
        stack_trace: Option<&Value>,
    ) -> Event {
        // An error's description is its stack text; anything else thrown (a plain object, a
        // string) is described as Node prints it, from its value or preview.
        // Error-like objects (js-yaml's `YAMLException`: an `Error.prototype` chain and a
        // captured `stack`, but not made by `Error`) count as errors.
        let is_error = exception
            .and_then(|e| e.get("subtype"))
            .and_then(Value::as_str)
            == Some("error")
            || preview_property(exception, "stack").is_some();
        let description = exception
            .filter(|_| is_error)
            .and_then(|e| {
                e.get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .or_else(|| exception.map(values::render))
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| text.to_owned());
        let arrived = self.arrived();
        let mut event = Event::new(Kind::Exception, arrived, text);
        // A CommonJS SyntaxError's stack starts with Node's decoration: the position, the source
        // line and a caret; the error's own line (`SyntaxError: …`) follows.
        let arrow = mapper::arrow_frame(&description);
        let stack_text = arrow
            .as_ref()
            .map_or(description.as_str(), |(_, rest)| rest);
        let message = preview_message(exception)
            .filter(|m| m.len() > first_line(stack_text).len())
            .unwrap_or_else(|| first_line(stack_text));
        event.error_message = Some(values::cap(message, VALUE_LIMIT).0);
        event.set_value(description.clone(), VALUE_LIMIT);

        let mapped = self.mapper.cdp_stack(stack_trace);
        let mut note = mapped.note;
        if mapped.frames.len() > 1 {
            let mut frames = mapped.frames;
            // A CommonJS SyntaxError's site is in the file being compiled, not on the stack.
            if let Some((site, _)) = arrow
                && !frames
                    .iter()
                    .any(|f| f.file == site.file && f.line == site.line)
            {
                frames.insert(0, site);
            }
            self.place(&mut event, frames, note);
            return event;
        }
        let mut frames = mapper::stack_text_frames(stack_text);
        if let Some((site, _)) = arrow.clone()
            && !frames
                .iter()
                .any(|f| f.file == site.file && f.line == site.line)
        {
            frames.insert(0, site);
        }
        if frames.is_empty()
            && let Some(preview) = preview_property(exception, "stack")
        {
            frames = mapper::stack_text_frames(&preview);
        }
        // Node is not given `--enable-source-maps` (a map named by a script could be a FIFO it
        // would block on): the stack text's positions are the generated ones, mapped here as any
        // runtime position, through the maps tracer reads itself.
        for frame in &mut frames {
            let (mapped, mapping_note) = self.mapper.stack_text(frame);
            *frame = mapped;
            if note.is_none() {
                note = mapping_note;
            }
        }
        if note.is_none() && frames.first().is_some_and(|f| f.unmapped) {
            note = Some(
                "the error's stack names a position that does not fit the file on disk, and no source map for it was known (a loader such as tsx transformed the code?): the position is unmapped"
                    .into(),
            );
        }
        match (mapped.frames.into_iter().next(), frames.first()) {
            (Some(site), Some(first)) if site.file == first.file && site.line == first.line => {
                frames[0] = site;
            }
            (Some(site), None) => frames.push(site),
            (Some(site), Some(_)) if frames.iter().all(|f| f.file != site.file) => {
                frames.insert(0, site);
            }
            _ => {}
        }
        self.place(&mut event, frames, note);
        event
    }

    fn place(&self, event: &mut Event, mut frames: Vec<Frame>, note: Option<String>) {
        frames.truncate(MAX_FRAMES);
        if let Some(first) = frames.first() {
            event.at(first);
        }
        event.call_stack = frames;
        event.note = note;
    }
}

/// The console method as the program called it, from the CDP `type` (`warning` is `console.warn`).
fn console_method(cdp_type: &str) -> &str {
    match cdp_type {
        "warning" => "warn",
        "startGroup" => "group",
        "startGroupCollapsed" => "groupCollapsed",
        "endGroup" => "groupEnd",
        other => other,
    }
}

/// A string property of an error that arrived only as a preview (a worker's uncaught error).
fn preview_property(exception: Option<&Value>, name: &str) -> Option<String> {
    let properties = exception?.pointer("/preview/properties")?.as_array()?;
    properties.iter().find_map(|p| {
        (p.get("name").and_then(Value::as_str) == Some(name))
            .then(|| p.get("value").and_then(Value::as_str).map(str::to_owned))
            .flatten()
    })
}

/// `Error: worker boom` from a preview's `name` and `message`, when the description is only `Error`.
fn preview_message(exception: Option<&Value>) -> Option<String> {
    let message = preview_property(exception, "message")?;
    let name = preview_property(exception, "name")
        .or_else(|| {
            exception?
                .get("className")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "Error".to_owned());
    Some(format!("{name}: {message}"))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_owned()
}

impl Observer for Capture {
    fn on_event(&mut self, worker: Option<&str>, method: &str, params: &Value) -> Seen {
        let seen = match method {
            "Runtime.executionContextCreated" => {
                self.context_created(worker, params);
                Seen::Done
            }
            "NodeWorker.attachedToWorker" => {
                self.worker_attached(worker, params);
                Seen::Done
            }
            "Debugger.scriptParsed" => {
                self.script_parsed(worker, params);
                Seen::Done
            }
            "Runtime.consoleAPICalled" => self.console_called(worker, params),
            "Runtime.bindingCalled"
                if params.get("name").and_then(Value::as_str) == Some(CONSOLE_BINDING) =>
            {
                self.console_batch(worker, params)
            }
            "Runtime.exceptionThrown" => self.exception_thrown(worker, params),
            "Debugger.paused" => {
                self.worker_paused(worker, params);
                Seen::Done
            }
            _ => Seen::Done,
        };
        self.given_at = None;
        seen
    }

    fn arrived_at(&mut self, at: std::time::Instant) {
        self.given_at = Some(self.clock.ms_at(at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn batch(payload: &str) -> Vec<Event> {
        let (tx, rx) = std::sync::mpsc::sync_channel(64);
        let mut capture = Capture::new(
            Mapper::new(PathBuf::from("/nonexistent-workspace")),
            tx,
            Clock::start(),
            None,
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        capture.on_event(
            None,
            "Runtime.bindingCalled",
            &json!({"name": CONSOLE_BINDING, "payload": payload, "executionContextId": 1}),
        );
        drop(capture);
        rx.iter().map(|e| *e).collect()
    }

    #[test]
    fn a_batch_of_console_calls_becomes_one_event_per_call_in_order() {
        let events = batch(
            r#"{"count":3,"calls":[
                ["log",5.5,"/work/app.js",3,9,"main","first"],
                ["warn",2,0,4,9,0,"second"],
                ["table",0,"/work/other.js",1,1,null,"third",9000,"a note"]]}"#,
        );
        let calls: Vec<(&str, &str, Option<u32>, &str, &str)> = events
            .iter()
            .map(|e| {
                (
                    e.level.as_deref().unwrap(),
                    e.value.as_deref().unwrap(),
                    e.line,
                    e.file.as_deref().unwrap_or(""),
                    e.call_stack
                        .first()
                        .map_or("", |f| f.function_name.as_str()),
                )
            })
            .collect();
        assert_eq!(
            calls,
            [
                ("log", "first", Some(3), "/work/app.js", "main"),
                // 0: the previous call's file and function.
                ("warn", "second", Some(4), "/work/app.js", "main"),
                // Cut short by the bootloader: the count is of the whole text's 9000.
                (
                    "table",
                    "third… [8995 more chars]",
                    Some(1),
                    "/work/other.js",
                    ""
                ),
            ]
        );
        // Each call's time is the batch's arrival less its age.
        assert!(events[0].ts < events[1].ts && events[1].ts < events[2].ts);
        assert!((events[2].ts - events[0].ts - 5.5).abs() < 0.01);
        assert!(events[2].truncated);
        assert_eq!(events[2].note.as_deref(), Some("a note"));
    }

    /// A batch tracer reads late (busy, or the machine loaded) keeps its calls at the times the
    /// program made them, before those of a batch that left after it: by the batch's arrival they
    /// ran backwards (a test's console call placed before the report line printed ahead of it, and
    /// out of its test's window). A sending time off the run's clock is not believed.
    #[test]
    fn a_batch_read_late_keeps_the_times_its_calls_were_made() {
        let (tx, rx) = std::sync::mpsc::sync_channel(64);
        let clock = Clock::start();
        let start = crate::timings::monotonic_ns() as f64 / 1e6;
        let mut capture = Capture::new(
            Mapper::new(PathBuf::from("/nonexistent-workspace")),
            tx,
            clock,
            None,
        );
        std::thread::sleep(std::time::Duration::from_millis(40));
        let mut read = |text: &str, age: f64, sent: f64| {
            let payload = format!(
                r#"{{"count":1,"calls":[["log",{age},"/work/app.js",3,9,"main","{text}"]],"sent":{sent}}}"#
            );
            capture.arrived_at(std::time::Instant::now());
            capture.on_event(
                None,
                "Runtime.bindingCalled",
                &json!({"name": CONSOLE_BINDING, "payload": payload, "executionContextId": 1}),
            );
        };
        // Made at 10 ms, sent at once, read at 40 ms or later.
        read("first", 0.0, start + 10.0);
        // Made at 15 ms, sent at 25 ms, read right after the first.
        read("second", 10.0, start + 25.0);
        // A sending time that cannot be this run's: the arrival less the age.
        read("third", 0.0, 1.0);
        drop(capture);
        let events: Vec<Event> = rx.iter().map(|e| *e).collect();
        let at = |i: usize| (events[i].value.as_deref().unwrap(), events[i].ts);
        assert!((at(0).1 - 10.0).abs() < 1.0, "{:?}", at(0));
        assert!((at(1).1 - 15.0).abs() < 1.0, "{:?}", at(1));
        assert!(at(2).1 >= 40.0, "{:?}", at(2));
        assert_eq!([at(0).0, at(1).0, at(2).0], ["first", "second", "third"]);
    }

    #[test]
    fn a_call_in_transformed_code_waits_for_the_scripts_once_and_keeps_its_own_time() {
        let (tx, rx) = std::sync::mpsc::sync_channel(64);
        let clock = Clock::start();
        let mut capture = Capture::new(
            Mapper::new(PathBuf::from("/nonexistent-workspace")),
            tx,
            clock,
            None,
        );
        let params = |url: &str| {
            let payload = format!(r#"{{"count":1,"calls":[["log",0,"{url}",3,9,"main","x"]]}}"#);
            json!({"name": CONSOLE_BINDING, "payload": payload, "executionContextId": 1})
        };
        let call = "Runtime.bindingCalled";
        // JavaScript Node runs as it is, and a worker's (its scripts are always reported): taken.
        assert_eq!(
            capture.on_event(None, call, &params("/w/app.js")),
            Seen::Done
        );
        assert_eq!(
            capture.on_event(Some("worker 1"), call, &params("/w/app.ts")),
            Seen::Done
        );
        let asked_at = clock.ms();
        assert_eq!(
            capture.on_event(None, call, &params("file:///w/app.ts")),
            Seen::NeedsScripts
        );
        // The driver asks for the scripts meanwhile, keeping what else arrives; given again, the
        // call is taken, then what was kept, each at its own time.
        let kept = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(60));
        assert_eq!(
            capture.on_event(None, call, &params("file:///w/app.ts")),
            Seen::Done
        );
        capture.arrived_at(kept);
        assert_eq!(
            capture.on_event(None, call, &params("file:///w/other.ts")),
            Seen::Done
        );
        assert_eq!(capture.on_event(None, call, &params("/w/b.js")), Seen::Done);
        drop(capture);
        let times: Vec<f64> = rx.iter().map(|e| e.ts).collect();
        assert_eq!(times.len(), 5);
        for kept in &times[2..4] {
            assert!(
                *kept >= asked_at && *kept < asked_at + 50.0,
                "{times:?} {asked_at}"
            );
        }
        assert!(times[4] >= asked_at + 60.0, "{times:?}");
    }

    #[test]
    fn a_batch_that_cannot_be_read_is_an_event_that_says_so() {
        let events = batch(r#"{"count":1,"calls":[["log"]]}"#);
        assert_eq!(events.len(), 1);
        assert!(
            events[0]
                .note
                .as_deref()
                .is_some_and(|n| n.contains("could not be read"))
        );
        // Calls the bootloader failed to record are counted.
        let events = batch(r#"{"count":0,"calls":[],"unrecorded":2}"#);
        assert!(
            events[0]
                .note
                .as_deref()
                .is_some_and(|n| n.starts_with("2 console call(s) could not be recorded"))
        );
        // A method the bootloader does not record is not taken from a batch either.
        assert!(batch(r#"{"count":1,"calls":[["profile",0,null,null,null,null,"x"]]}"#).is_empty());
    }
}
