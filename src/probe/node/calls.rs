//! The Node probe's inspector calls: one request and its answer, and an object of the
//! inspector's command line (a fixed text).

use super::*;

/// Evaluates one of the tool's constant `expression`s in the main context with the inspector's
/// command-line API (`require`), its result held in `group` (the caller releases it before the
/// program goes on): the objectId, and the answer.
pub(super) fn command_line_object(
    cdp: &mut Cdp,
    backlog: &mut VecDeque<Incoming>,
    main: i64,
    expression: &str,
    group: &str,
) -> Result<(Option<String>, Result<Value, Value>)> {
    let answer = call(
        cdp,
        backlog,
        "Runtime.evaluate",
        json!({"expression": expression, "includeCommandLineAPI": true, "contextId": main,
            "objectGroup": group, "silent": true}),
    )?;
    let object = answer.as_ref().ok().and_then(|r| {
        r.pointer("/result/objectId")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    Ok((object, answer))
}

/// The exception or refusal in an answer, in words; `None` when it succeeded.
pub(super) fn failure(answer: &Result<Value, Value>) -> Option<String> {
    match answer {
        Ok(result) => {
            let details = result.get("exceptionDetails")?;
            Some(
                details
                    .pointer("/exception/description")
                    .and_then(Value::as_str)
                    .or_else(|| details["text"].as_str())
                    .unwrap_or("an exception")
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned(),
            )
        }
        Err(e) => Some(e.to_string()),
    }
}

/// Sends one request and waits for its answer; other messages go to `backlog`.
pub(super) fn call(
    cdp: &mut Cdp,
    backlog: &mut VecDeque<Incoming>,
    method: &str,
    params: Value,
) -> Result<Result<Value, Value>> {
    cdp.call(None, method, params, CALL_LIMIT, &mut |_, message| {
        backlog.push_back(message)
    })
}

/// Removes a breakpoint; one that is gone already (its realm ended) is no error.
pub(super) fn remove_breakpoint(
    cdp: &mut Cdp,
    backlog: &mut VecDeque<Incoming>,
    id: &str,
) -> Result<()> {
    call(
        cdp,
        backlog,
        "Debugger.removeBreakpoint",
        json!({"breakpointId": id}),
    )?
    .ok();
    Ok(())
}

/// Whether a `Debugger.paused` was at breakpoint `id`.
pub(super) fn hit(params: &Value, id: Option<&str>) -> bool {
    id.is_some_and(|id| {
        params["hitBreakpoints"]
            .as_array()
            .is_some_and(|hit| hit.iter().any(|h| h.as_str() == Some(id)))
    })
}
