//! The Flink SQL Gateway (REST v2) and the JobManager REST API, as the
//! deployment commands use them. Every poll has a deadline.

use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use streamform::delivery;

use super::http::{root_cause, Endpoint, HttpError};

/// How long one statement may take to give its result, a job to start and a
/// savepoint to complete; `check` holds exactly-once transaction timeouts
/// against their sum, so the compiler owns them.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_millis(delivery::APPLY_STATEMENT_WAIT_MS);
pub const RUNNING_TIMEOUT: Duration = Duration::from_millis(delivery::APPLY_RUNNING_WAIT_MS);
pub const SAVEPOINT_TIMEOUT: Duration = Duration::from_millis(delivery::APPLY_SAVEPOINT_WAIT_MS);
const POLL: Duration = Duration::from_millis(300);

/// The Flink version the gateway reports (`GET /v2/info`): also the
/// reachability check.
pub fn gateway_version(gw: &Endpoint) -> Result<String, HttpError> {
    let v = gw.get("/v2/info")?;
    Ok(v["version"].as_str().unwrap_or("unknown").to_string())
}

/// The rows of a finished statement: its columns and each row's fields.
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    pub job_id: Option<String>,
}

impl Rows {
    /// The first row's value in `column`, as text.
    pub fn first(&self, column: &str) -> Option<String> {
        let i = self.columns.iter().position(|c| c == column)?;
        self.rows.first()?.get(i)?.as_str().map(str::to_string)
    }
}

/// One gateway session; closed by `close` (and on drop, best effort).
pub struct Session<'a> {
    gw: &'a Endpoint,
    handle: String,
    closed: bool,
}

impl<'a> Session<'a> {
    pub fn open(gw: &'a Endpoint, name: &str, properties: &Value) -> Result<Session<'a>, HttpError> {
        let v = gw.post("/v2/sessions", &json!({"sessionName": name, "properties": properties}))?;
        let handle = v["sessionHandle"].as_str().ok_or_else(|| HttpError::Answer(format!("{} {}: no sessionHandle in {v}", gw.part, gw.base)))?.to_string();
        Ok(Session { gw, handle, closed: false })
    }

    /// Runs one statement to its end and returns its rows. A statement
    /// that fails reports Flink's root cause.
    pub fn execute(&self, statement: &str, config: Option<&Value>) -> Result<Rows, String> {
        let mut body = json!({"statement": statement});
        if let Some(c) = config {
            body["executionConfig"] = c.clone();
        }
        let base = format!("/v2/sessions/{}", self.handle);
        let op = self.gw.post(&format!("{base}/statements"), &body).map_err(|e| e.message().to_string())?;
        let op = op["operationHandle"].as_str().ok_or("the gateway gave no operationHandle")?.to_string();
        let deadline = Instant::now() + STATEMENT_TIMEOUT;
        let mut uri = format!("{base}/operations/{op}/result/0?rowFormat=JSON");
        let mut rows = Rows { columns: Vec::new(), rows: Vec::new(), job_id: None };
        loop {
            if Instant::now() > deadline {
                return Err(format!("the gateway gave no result within {}s", STATEMENT_TIMEOUT.as_secs()));
            }
            let page = match self.gw.get(&uri) {
                Ok(p) => p,
                Err(HttpError::Answer(m)) => return Err(m),
                Err(e) => return Err(e.message().to_string()),
            };
            let kind = page["resultType"].as_str().unwrap_or("");
            if let Some(j) = page["jobID"].as_str() {
                rows.job_id = Some(j.to_string());
            }
            if let Some(cols) = page["results"]["columns"].as_array() {
                rows.columns = cols.iter().filter_map(|c| c["name"].as_str().map(str::to_string)).collect();
            }
            let data = page["results"]["data"].as_array().cloned().unwrap_or_default();
            let empty = data.is_empty();
            rows.rows.extend(data.into_iter().map(|d| d["fields"].as_array().cloned().unwrap_or_default()));
            if kind == "EOS" {
                let _ = self.gw.delete(&format!("{base}/operations/{op}/close"));
                return Ok(rows);
            }
            match page["nextResultUri"].as_str() {
                Some(next) => uri = next.to_string(),
                None => return Ok(rows),
            }
            if empty {
                sleep(POLL);
            }
        }
    }

    pub fn close(mut self) {
        self.closed = true;
        let _ = self.gw.delete(&format!("/v2/sessions/{}", self.handle));
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if !self.closed {
            let _ = self.gw.delete(&format!("/v2/sessions/{}", self.handle));
        }
    }
}

/// A job as the JobManager reports it.
pub struct JobView {
    pub state: String,
    pub name: Option<String>,
    pub start_time: Option<i64>,
    pub tasks: (u32, u32),
}

/// `GET /jobs/<id>`; Ok(None) when the JobManager does not know the job.
pub fn job(jm: &Endpoint, id: &str) -> Result<Option<JobView>, HttpError> {
    let v = match jm.get(&format!("/jobs/{id}")) {
        Ok(v) => v,
        Err(HttpError::Answer(m)) if m.contains("HTTP 404") => return Ok(None),
        Err(e) => return Err(e),
    };
    let vertices = v["vertices"].as_array().cloned().unwrap_or_default();
    let running = vertices.iter().filter(|x| x["status"] == "RUNNING").count() as u32;
    Ok(Some(JobView {
        state: v["state"].as_str().unwrap_or("UNKNOWN").to_string(),
        name: v["name"].as_str().map(str::to_string),
        start_time: v["start-time"].as_i64(),
        tasks: (running, vertices.len() as u32),
    }))
}

/// The savepoint a job restored from (`latest.restored.external_path`).
pub fn restored_from(jm: &Endpoint, id: &str) -> Result<Option<String>, HttpError> {
    Ok(checkpoints(jm, id)?.restored_from)
}

/// What `/jobs/<id>/checkpoints` says of a job's recovery points.
pub struct Checkpoints {
    /// `latest.restored.external_path`.
    pub restored_from: Option<String>,
    /// `latest.completed`: its id and when its last acknowledgement came (epoch ms).
    pub last_completed: Option<(u64, i64)>,
}

pub fn checkpoints(jm: &Endpoint, id: &str) -> Result<Checkpoints, HttpError> {
    let v = jm.get(&format!("/jobs/{id}/checkpoints"))?;
    let done = &v["latest"]["completed"];
    Ok(Checkpoints {
        restored_from: v["latest"]["restored"]["external_path"].as_str().map(str::to_string),
        last_completed: done["id"].as_u64().zip(done["latest_ack_timestamp"].as_i64()),
    })
}

/// The root cause of a failed job, from its exception history.
pub fn failure(jm: &Endpoint, id: &str) -> Option<String> {
    let v = jm.get(&format!("/jobs/{id}/exceptions")).ok()?;
    let trace = v["exceptionHistory"]["entries"][0]["stacktrace"].as_str()?;
    root_cause(trace).or_else(|| trace.lines().next().map(str::to_string))
}

/// Waits until the job runs with every task running; Err with Flink's
/// reason when it fails or the deadline passes.
pub fn wait_running(jm: &Endpoint, id: &str) -> Result<JobView, String> {
    let deadline = Instant::now() + RUNNING_TIMEOUT;
    loop {
        match job(jm, id) {
            Ok(Some(j)) if j.state == "RUNNING" && j.tasks.0 == j.tasks.1 && j.tasks.1 > 0 => return Ok(j),
            Ok(Some(j)) if matches!(j.state.as_str(), "FAILED" | "CANCELED" | "FINISHED" | "FAILING") => {
                return Err(format!("job {id} is {}: {}", j.state, failure(jm, id).unwrap_or_else(|| "Flink gives no cause".into())));
            }
            Ok(_) => {}
            Err(e) => return Err(e.message().to_string()),
        }
        if Instant::now() > deadline {
            return Err(format!("job {id} was not running after {}s", RUNNING_TIMEOUT.as_secs()));
        }
        sleep(POLL);
    }
}

/// Stops a job with a savepoint into `dir` (`POST /jobs/<id>/stop`, then
/// polls the trigger). A failed savepoint also says COMPLETED: only a
/// location counts.
pub fn stop_with_savepoint(jm: &Endpoint, id: &str, dir: &str) -> Result<String, String> {
    let t = jm.post(&format!("/jobs/{id}/stop"), &json!({"targetDirectory": dir, "drain": false})).map_err(|e| e.message().to_string())?;
    let trigger = t["request-id"].as_str().ok_or("the JobManager gave no request-id")?.to_string();
    let deadline = Instant::now() + SAVEPOINT_TIMEOUT;
    loop {
        let s = jm.get(&format!("/jobs/{id}/savepoints/{trigger}")).map_err(|e| e.message().to_string())?;
        if s["status"]["id"] == "COMPLETED" {
            if let Some(loc) = s["operation"]["location"].as_str() {
                return Ok(loc.to_string());
            }
            let cause = &s["operation"]["failure-cause"];
            let text = cause["stack-trace"].as_str().and_then(root_cause).or_else(|| cause["class"].as_str().map(str::to_string));
            // The savepoint was written, then the job failed while stopping (a
            // TaskManager died): Flink calls it consistent, and restoring it
            // commits its sinks' pending transactions. The job is gone, so
            // the stop counts as done.
            if let Some(loc) = text.as_deref().and_then(created_savepoint) {
                return Ok(loc.to_string());
            }
            return Err(format!("the savepoint failed: {}", text.unwrap_or_else(|| cause.to_string())));
        }
        if Instant::now() > deadline {
            return Err(format!("the savepoint was not done after {}s", SAVEPOINT_TIMEOUT.as_secs()));
        }
        sleep(POLL);
    }
}

/// The savepoint of Flink's `StopWithSavepointStoppingException` ("A
/// savepoint has been created at: <path>, but the corresponding job … failed
/// during stopping").
fn created_savepoint(cause: &str) -> Option<&str> {
    let rest = cause.split_once("A savepoint has been created at: ")?.1;
    let (path, tail) = rest.split_once(", but the corresponding job")?;
    tail.contains("failed during stopping").then_some(path)
}

/// Waits until the job has left RUNNING (after a stop), bounded.
pub fn wait_ended(jm: &Endpoint, id: &str) -> Result<String, String> {
    let deadline = Instant::now() + RUNNING_TIMEOUT;
    loop {
        if let Ok(Some(j)) = job(jm, id) {
            if matches!(j.state.as_str(), "FINISHED" | "CANCELED" | "FAILED") {
                return Ok(j.state);
            }
        }
        if Instant::now() > deadline {
            return Err(format!("job {id} had not ended {}s after the stop", RUNNING_TIMEOUT.as_secs()));
        }
        sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::created_savepoint;

    #[test]
    fn a_savepoint_whose_job_failed_while_stopping_is_kept() {
        // As Flink 2.3 said it when a TaskManager died during stop-with-savepoint.
        let cause = "org.apache.flink.runtime.scheduler.stopwithsavepoint.StopWithSavepointStoppingException: A savepoint has been created at: file:/tmp/rp/savepoints/savepoint-238ca7-8236a923ac99, but the corresponding job 238ca78e8ca0ea7925e327fe34c7e671 failed during stopping. The savepoint is consistent, but might have uncommitted transactions. If you want to commit the transaction please restart a job from this savepoint.";
        assert_eq!(created_savepoint(cause), Some("file:/tmp/rp/savepoints/savepoint-238ca7-8236a923ac99"));
        assert_eq!(created_savepoint("java.util.concurrent.CompletionException: java.io.IOException: Permission denied"), None);
    }
}
