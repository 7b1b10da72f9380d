//! **What a Kafka sink promises a reader after a failure** on Flink
//! (docs/deploy.md, "Delivery"): which sinks write exactly-once, the
//! transactional-id prefix and producer transaction timeout each takes, which
//! sources read committed records only, the checkpoint interval the job needs,
//! and the timeout rules `check` lints (E0871, E0872, W0870).
//!
//! The guarantee is not part of any node's identity: it changes no value a
//! Streamform node stores, only how the sink hands records to Kafka.

use std::collections::BTreeSet;

use crate::config::project::{Delivery, Property};
use crate::config::{Connector, ProjectConfig, SinkConfig, Target};
use crate::db::{Db, Environment, Project};
use crate::diagnostic::{Code, Diagnostic};
use crate::duration::Duration;
use crate::project::{project_config, CONFIG_FILE};
use crate::target::{resolved_target, TargetName};

/// How long `apply` waits for a stop-with-savepoint (cli/src/deploy/flink.rs).
pub const APPLY_SAVEPOINT_WAIT_MS: u64 = 120_000;
/// How long `apply` waits for a statement's result (the submission).
pub const APPLY_STATEMENT_WAIT_MS: u64 = 120_000;
/// How long `apply` waits for a submitted job to run.
pub const APPLY_RUNNING_WAIT_MS: u64 = 90_000;
/// The longest a job's sinks stay uncommitted across an `apply`: the
/// savepoint, the submission and the start, each at its bound.
pub const APPLY_LONGEST_STOP_MS: u64 = APPLY_SAVEPOINT_WAIT_MS + APPLY_STATEMENT_WAIT_MS + APPLY_RUNNING_WAIT_MS;
/// `execution.checkpointing.interval` when the target names none.
pub const DEFAULT_CHECKPOINT_INTERVAL: Duration = Duration(60_000);
/// Kafka's default `transaction.max.timeout.ms` (15 minutes).
pub const BROKER_DEFAULT_MAX_TIMEOUT_MS: u64 = 900_000;
/// The producer property Flink's exactly-once sink opens transactions with.
const TIMEOUT_PROPERTY: &str = "transaction.timeout.ms";
/// The consumer property that hides aborted and open transactions.
const ISOLATION_PROPERTY: &str = "isolation.level";

/// The guarantee of a model's sink: its own `delivery:`, else the project's,
/// else at-least-once. Only a Kafka sink has one (E0870 refuses the key on
/// another connector).
pub fn sink_delivery(config: &ProjectConfig, sink: &SinkConfig) -> Delivery {
    if sink.connector != Connector::Kafka {
        return Delivery::AtLeastOnce;
    }
    sink.delivery.map(|(d, _)| d).or(config.delivery).unwrap_or_default()
}

/// What an exactly-once Kafka sink adds to its table's options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExactlyOnce {
    /// `sink.transactional-id-prefix`.
    pub prefix: String,
    /// `properties.transaction.timeout.ms`, unless the target's Kafka
    /// properties already set it (they reach every table).
    pub timeout_ms: Option<u64>,
}

/// `streamform/<project>/<target>/<model>::sink::0`: the sink's node id,
/// under the project and target, so two targets or projects on one cluster
/// never share a prefix (a shared prefix fences the other job's
/// transactions), and an upgrade that keeps the model keeps it.
/// (`build` without a target leaves the target out.)
pub fn transactional_id_prefix(project: &str, target: &str, model: &str) -> String {
    match target {
        "" => format!("streamform/{project}/{model}::sink::0"),
        t => format!("streamform/{project}/{t}/{model}::sink::0"),
    }
}

/// The exactly-once options of `model`'s sink on `target`, or None when it
/// writes at-least-once.
pub fn exactly_once(config: &ProjectConfig, target: &Target, model: &str, sink: &SinkConfig) -> Option<ExactlyOnce> {
    if sink_delivery(config, sink) != Delivery::ExactlyOnce {
        return None;
    }
    let timeout_ms = match written_timeout(target) {
        Some(_) => None,
        None => Some(broker_max_ms(target)),
    };
    Some(ExactlyOnce { prefix: transactional_id_prefix(&config.name, &target.name, model), timeout_ms })
}

/// Whether any Kafka sink of the project writes exactly-once (the job then
/// needs checkpoints: a transaction commits at each one).
pub fn any_exactly_once(config: &ProjectConfig) -> bool {
    config.models.iter().filter_map(|m| m.sink.as_ref()).any(|s| sink_delivery(config, s) == Delivery::ExactlyOnce)
}

/// The checkpoint interval of a job on `target`.
pub fn checkpoint_interval(target: &Target) -> Duration {
    target.flink.as_ref().and_then(|f| f.checkpoint_interval).unwrap_or(DEFAULT_CHECKPOINT_INTERVAL)
}

/// The interval as the script's `SET` writes it: the default as `60s`, as
/// the original writes it for Iceberg, a declared one canonically.
pub fn checkpoint_interval_text(target: &Target) -> String {
    match target.flink.as_ref().and_then(|f| f.checkpoint_interval) {
        Some(d) => d.to_string(),
        None => format!("{}s", DEFAULT_CHECKPOINT_INTERVAL.millis() / 1000),
    }
}

/// The topics on `target` that an exactly-once sink of the project writes:
/// a source reading one reads committed records only.
#[salsa::tracked(returns(ref))]
pub fn exactly_once_topics<'db>(db: &'db dyn Db, project: Project, env: Environment, target: TargetName<'db>) -> BTreeSet<String> {
    let (Ok(config), Ok(resolved)) = (project_config(db, project), resolved_target(db, project, env, target)) else { return BTreeSet::new() };
    let t = &resolved.target;
    config
        .models
        .iter()
        .filter_map(|m| Some((m, m.sink.as_ref()?)))
        .filter(|(_, s)| sink_delivery(config, s) == Delivery::ExactlyOnce)
        .filter_map(|(m, s)| t.sink_topic(&m.name, s.topic.as_deref()).map(str::to_string))
        .collect()
}

/// Whether a Kafka source reading `topic` on `target` sets
/// `isolation.level=read_committed` itself (not when the target's
/// properties, which reach every table, already name an isolation level).
pub fn reads_committed(committed: &BTreeSet<String>, target: &Target, topic: &str) -> bool {
    committed.contains(topic) && !target.kafka_properties().iter().any(|p| p.key == ISOLATION_PROPERTY)
}

/// `transaction.timeout.ms` as the target's Kafka properties write it.
fn written_timeout(target: &Target) -> Option<&Property> {
    target.kafka_properties().iter().find(|p| p.key == TIMEOUT_PROPERTY)
}

/// The brokers' `transaction.max.timeout.ms`: as the target declares it, else Kafka's default.
fn broker_max_ms(target: &Target) -> u64 {
    target.kafka.as_ref().and_then(|k| k.transaction_max_timeout).map_or(BROKER_DEFAULT_MAX_TIMEOUT_MS, |(d, _)| d.millis())
}

/// The timeout rules of every target of a project with an exactly-once
/// sink: the producer's transaction timeout must be a number of
/// milliseconds (E0872), at most the brokers' maximum, or every
/// transaction is refused and the job restarts forever (E0871), and at least
/// the checkpoint interval plus the longest stop `apply` allows, or a
/// failure that long lets the brokers abort records Flink has already
/// counted as written (W0870).
pub fn timeout_diagnostics(config: &ProjectConfig) -> Vec<Diagnostic> {
    if !any_exactly_once(config) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for t in config.targets.iter().filter(|t| t.kafka.is_some()) {
        let at = Some(t.span.with_len(t.name.len()));
        let max = broker_max_ms(t);
        let max_span = t.kafka.as_ref().and_then(|k| k.transaction_max_timeout).map(|(_, s)| s);
        let timeout = match written_timeout(t) {
            None => max,
            // A value read from the environment is checked where it resolves: by Kafka.
            Some(p) if p.value.contains("${") => continue,
            Some(p) => match p.value.trim().parse::<u64>() {
                Ok(ms) => ms,
                Err(_) => {
                    out.push(
                        Diagnostic::error(Code::TransactionTimeoutNotMillis, format!("target `{}` sets Kafka property `{TIMEOUT_PROPERTY}` to `{}`, which is not a number of milliseconds", t.name, p.value))
                            .at(CONFIG_FILE, at)
                            .help(format!("write the timeout in milliseconds, e.g. `{TIMEOUT_PROPERTY}: \"{max}\"`, or remove it: Streamform then uses the brokers' maximum")),
                    );
                    continue;
                }
            },
        };
        if timeout > max {
            out.push(
                Diagnostic::error(Code::TransactionTimeoutAboveBrokerMax, format!("target `{}`: the exactly-once sinks' transaction timeout ({}) is above the brokers' `transaction.max.timeout.ms` ({}); Kafka refuses every transaction and the job restarts forever", t.name, Duration(timeout), Duration(max)))
                    .at(CONFIG_FILE, max_span.or(at))
                    .help(format!("lower `{TIMEOUT_PROPERTY}` to at most {max}, or declare the brokers' real maximum as `kafka.transaction_max_timeout`")),
            );
            continue;
        }
        let interval = checkpoint_interval(t);
        let needed = interval.millis() + APPLY_LONGEST_STOP_MS;
        if timeout < needed {
            out.push(
                Diagnostic::warning(Code::TransactionTimeoutTooShort, format!("target `{}`: the exactly-once sinks' transaction timeout ({}) is shorter than the checkpoint interval ({interval}) plus the longest stop `apply` allows ({}); a failure or an upgrade that long lets Kafka abort records Flink counts as written, and they are lost", t.name, Duration(timeout), Duration(APPLY_LONGEST_STOP_MS)))
                    .at(CONFIG_FILE, max_span.or(at))
                    .help(format!("raise the brokers' `transaction.max.timeout.ms` (and `kafka.transaction_max_timeout`) to at least {needed} ms, or shorten `flink.checkpoint_interval`")),
            );
        }
    }
    out
}

/// `delivery:` on a sink other than Kafka (E0870): Flink's file and
/// Iceberg sinks commit at checkpoints whatever is written.
pub fn sink_delivery_diagnostics(config: &ProjectConfig) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (m, start) in config.models_placed() {
        let Some(s) = &m.sink else { continue };
        if let (Some((d, span)), false) = (s.delivery, s.connector == Connector::Kafka) {
            out.push(
                Diagnostic::error(Code::DeliveryOnNonKafkaSink, format!("model `{}` sets `delivery: {}` on its {} sink; only a Kafka sink takes a delivery guarantee", m.name, d.as_str(), s.connector.as_str()))
                    .at(CONFIG_FILE, Some(span.placed_at(start)))
                    .help(format!("remove `delivery` from `models.{}.sink`: Flink's {} sink commits its files at each checkpoint, so a restart writes nothing twice", m.name, s.connector.as_str())),
            );
        }
    }
    out
}
