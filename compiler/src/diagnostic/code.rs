//! Diagnostic codes. Each code is one variant with one meaning, the row of
//! docs/errors.md that documents it (`compiler/tests/architecture.rs`
//! checks that the table and this list agree). Control flow matches
//! variants; the code text is only for the user.

use std::fmt;

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $name:ident = $code:literal,)*) => {
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[doc = $doc])* $name,)*
        }

        impl Code {
            /// Every code, in the order of docs/errors.md.
            pub const ALL: &'static [Code] = &[$(Code::$name,)*];

            /// The code as printed: `E0401`, `W0764`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $code,)*
                }
            }

            /// What the code means, one line (its docs/errors.md row):
            /// SARIF's rule description.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Code::$name => concat!($($doc),*).trim(),)*
                }
            }
        }
    };
}

codes! {
    /// no `streamform.yml` in the project directory
    NoProjectFile = "E0100",
    /// a project file is not valid YAML
    InvalidYaml = "E0101",
    /// a value has the wrong shape (map, list, string expected)
    WrongShape = "E0102",
    /// unknown key (with a did-you-mean)
    UnknownKey = "E0103",
    /// a key appears twice in one map
    DuplicateKey = "E0104",
    /// a required key is missing
    MissingKey = "E0105",
    /// malformed duration
    MalformedDuration = "E0106",
    /// value not among the allowed ones
    ValueNotAllowed = "E0107",
    /// unsupported format `version`
    UnsupportedVersion = "E0108",
    /// unsupported or malformed column type
    BadColumnType = "E0109",
    /// two model files with the same stem
    DuplicateModelStem = "E0110",
    /// malformed fixture file: not a map, rows not maps, non-scalar values, missing or unknown `op`, no `model`
    MalformedFixture = "E0770",
    /// unknown key in a fixture file
    UnknownFixtureKey = "E0771",
    /// a fixture `watermark:` item is neither RFC 3339 UTC nor epoch ms
    BadFixtureWatermark = "E0775",
    /// a target has no `flink:` section
    TargetWithoutFlink = "E0701",
    /// the project reads or writes Kafka but a target has no `kafka:` section
    TargetWithoutKafka = "E0702",
    /// a model writes Iceberg but a target has no `iceberg:` section
    TargetWithoutIceberg = "E0703",
    /// a target's `flink.gateway` or `flink.rest` is not an `http://host:port` URL
    BadTargetUrl = "E0704",
    /// a target's `flink.savepoint_dir` is neither an absolute path nor a URI
    BadSavepointDir = "E0705",
    /// a model is configured but has no SQL file (did-you-mean)
    ConfiguredModelWithoutSql = "E0710",
    /// a sink lacks its destination (`topic`, `path` or `table` for its connector)
    SinkWithoutDestination = "E0711",
    /// an iceberg sink table is not `namespace.table` (letters, digits, `_`)
    BadIcebergTable = "E0712",
    /// an upsert model writes a file sink, which cannot carry updates
    UpsertToFileSink = "E0713",
    /// a sink's Flink table `sink_<model>` has the name of another model or a source
    SinkTableNameTaken = "E0714",
    /// two models write the same topic, path or table
    SharedSinkDestination = "W0715",
    /// an append model declares a `key`, which is ignored
    KeyOnAppendModel = "W0716",
    /// `retention` without an event-time source upstream
    RetentionWithoutEventTime = "E0717",
    /// a windowed model is materialized as upsert
    WindowedUpsertModel = "E0718",
    /// window size or session gap is zero
    ZeroWindowSize = "E0719",
    /// a model declares both a window and retention
    WindowWithRetention = "E0720",
    /// a window without an event-time source upstream
    WindowWithoutEventTime = "E0721",
    /// a window over a source with `late_events: keep`
    WindowOverKeptLateEvents = "E0722",
    /// a model and a source share a name
    ModelNamedLikeSource = "E0723",
    /// a hop window's slide is zero, longer than its size, or does not divide it
    BadHopSlide = "E0724",
    /// `source('x')` names no declared source (did-you-mean)
    UnknownSource = "E0730",
    /// `ref('x')` names no model (did-you-mean)
    UnknownModel = "E0731",
    /// a model reads itself
    ModelReadsItself = "E0732",
    /// models form a reference cycle
    ReferenceCycle = "E0733",
    /// a kafka source without `topic`, or a file source without `path`
    SourceWithoutDestination = "E0740",
    /// an iceberg source (models cannot read Iceberg yet)
    IcebergSource = "E0741",
    /// a source declares no schema
    SourceWithoutSchema = "W0742",
    /// `event_time` names no column (did-you-mean)
    UnknownEventTimeColumn = "E0743",
    /// `event_time` column is not a timestamp
    EventTimeNotTimestamp = "E0744",
    /// `watermark`, `late_events` or `idle_timeout` without `event_time`
    TimeOptionWithoutEventTime = "E0745",
    /// contracts without a quarantine
    ContractsWithoutQuarantine = "E0746",
    /// a quarantine without contracts
    QuarantineWithoutContracts = "E0747",
    /// a contract declares both or neither of `not_null` and `check`
    ContractRuleCount = "E0748",
    /// two contracts with the same name
    DuplicateContractName = "E0749",
    /// a `not_null` contract lists no columns
    EmptyNotNull = "E0750",
    /// a `not_null` contract names an unknown column (did-you-mean)
    UnknownNotNullColumn = "E0751",
    /// a contract `check` does not compile (syntax, unknown column, unsupported, not boolean)
    ContractCheckDoesNotCompile = "E0752",
    /// the source `key` names an unknown column
    UnknownSourceKeyColumn = "E0753",
    /// the project defines no models
    NoModels = "W0760",
    /// a source is never read
    UnreadSource = "W0761",
    /// a windowed model's event-time Kafka source has no `idle_timeout` (a silent partition holds every window open)
    WindowWithoutIdleTimeout = "W0762",
    /// a windowed model's event-time column has no `not_null` contract (a record without it fails the Flink job)
    WindowWithoutEventTimeContract = "W0763",
    /// a computed output column has no alias, so it gets a generated name (`sum(amount)`, `sum(orders.qty) * Int64(2)`)
    UnaliasedColumn = "W0764",
    /// a model aggregates a kafka source that declares no `key` (update order may differ from the tests across partitions)
    AggregateOverUnkeyedKafka = "W0765",
    /// the GROUP BY does not include the source's `key` columns
    GroupByMissesSourceKey = "W0766",
    /// a `warnings: {allow: [...]}` entry names no Streamform warning code
    AllowUnknownCode = "E0324",
    /// a `warnings: {allow: [...]}` entry names an error (or W0325), which cannot be allowed
    AllowNotAWarning = "E0325",
    /// a `warnings: {allow: [...]}` entry matches no warning of its model or project
    AllowMatchesNothing = "W0325",
    /// an append model's output is an upsert changelog (it aggregates)
    AppendModelEmitsUpdates = "E0301",
    /// an upsert model declares no key
    UpsertWithoutKey = "E0302",
    /// the declared key differs from the GROUP BY key (order matters)
    KeyDiffersFromGroupBy = "E0303",
    /// a window of size zero, or a session of gap zero, reaches planning
    PlannedZeroWindow = "E0310",
    /// window and retention reach planning together
    PlannedWindowWithRetention = "E0311",
    /// a window on a model that does not aggregate
    WindowWithoutAggregate = "E0312",
    /// an output column written to a sink has a type Streamform cannot write (`date`, `float`, `smallint`, an untyped NULL, …)
    SinkColumnTypeUnsupported = "E0320",
    /// an upsert model with a sink declares a `key` column its output does not have (Flink's PRIMARY KEY must be a column of the sink)
    KeyNotInOutput = "E0321",
    /// an upsert model without key writes a Kafka sink in a format other than json
    KeylessUpsertSinkFormat = "E0322",
    /// models that rank rows declare different retentions (Flink has one job-wide TTL for them)
    RankRetentionsDiffer = "E0323",
    /// the SQL does not parse, is empty, holds several statements, or is not a SELECT
    SqlNotOneSelect = "E0400",
    /// a construct outside the supported subset (CASE, IN, LIKE, functions other than sum/count/min/max, DISTINCT, joins, UNION, LIMIT, …)
    UnsupportedConstruct = "E0401",
    /// ORDER BY over an unbounded input
    OrderByOverUnbounded = "E0402",
    /// a SELECT without FROM
    SelectWithoutFrom = "E0403",
    /// HAVING without aggregation
    HavingWithoutAggregate = "E0404",
    /// a windowed aggregate over an updating (upsert) stream
    AggregateOverUpdatingStream = "E0405",
    /// GROUP BY a position that is out of range or a wildcard
    BadGroupByPosition = "E0406",
    /// a windowed aggregate does not group by both `window_start` and `window_end`
    WindowNotGrouped = "E0407",
    /// a windowed aggregate's input carries no event time
    WindowInputWithoutEventTime = "E0408",
    /// `*` selected from an aggregate
    WildcardOverAggregate = "E0409",
    /// an aggregate called with the wrong arguments
    BadAggregateArguments = "E0410",
    /// a Flink hint comment (`/*+ OPTIONS(…) */`, `/*+ STATE_TTL(…) */`, …), which a model cannot carry
    SqlHint = "E0411",
    /// `t.*` with a qualifier the query does not read
    UnknownQualifier = "E0501",
    /// two output columns with the same name
    DuplicateOutputColumn = "E0502",
    /// an aggregate over a type it cannot compute
    AggregateOverWrongType = "E0503",
    /// WHERE/HAVING is not boolean
    PredicateNotBoolean = "E0504",
    /// NOT/AND/OR over a non-boolean
    LogicOverNonBoolean = "E0505",
    /// arithmetic over incompatible types
    ArithmeticTypeMismatch = "E0506",
    /// an aggregate where none is allowed
    AggregateNotAllowedHere = "E0507",
    /// a selected column neither grouped nor aggregated
    ColumnNotGrouped = "E0508",
    /// an unknown column (did-you-mean)
    UnknownColumn = "E0509",
    /// `window_start`/`window_end` used below the aggregate (in WHERE or a plain projection)
    WindowColumnBelowAggregate = "E0510",
    /// a WITH query name defined twice
    DuplicateCteName = "E0511",
    /// a column-alias list of the wrong length on a CTE or derived table
    ColumnAliasCount = "E0512",
    /// a scalar function, CASE, IN, BETWEEN, LIKE, `%` or string concatenation over operands of the wrong type or number
    ScalarOperandMismatch = "E0513",
    /// the inputs of a UNION ALL differ in their number of columns or in a column's name
    UnionColumnsDiffer = "E0830",
    /// the inputs of a UNION ALL give one column different types
    UnionColumnTypesDiffer = "E0831",
    /// an input of a UNION ALL is updating (reads an upsert model or aggregates)
    UnionOverUpdatingInput = "E0832",
    /// a column both inputs of a join have, used unqualified (or one relation read on both sides without aliases)
    AmbiguousColumn = "E0850",
    /// the two columns of a join's equality have different types
    JoinKeyTypesDiffer = "E0851",
    /// a join whose ON has no equality of a column of each side
    JoinWithoutEquality = "E0852",
    /// an input of a join is updating with no key (a global aggregate) or is an outer join's output
    JoinOverUpdatingInput = "E0853",
    /// `SELECT *` over a join whose inputs share a column name
    JoinWildcardNameClash = "E0854",
    /// an interval join whose lower time bound is above its upper one, so no rows can join
    EmptyJoinInterval = "E0855",
    /// an interval join bounding the time between its sides twice in one direction
    IntervalJoinBoundTwice = "E0856",
    /// an outer join's WHERE filters a side the join pads with nulls
    OuterJoinWhereOnPaddedSide = "E0857",
    /// a model writes a join's output (retract) by a key that is none of the upsert keys Flink infers for it
    RetractIntoSink = "E0858",
    /// an interval join reads an updating input
    IntervalJoinOverUpdatingInput = "E0859",
    /// a temporal join's versioned side has no primary key (it is not an upsert model with `key:`)
    TemporalJoinWithoutKey = "E0865",
    /// a temporal join's ON does not equate every column of the versioned side's key
    TemporalJoinKeyNotEquated = "E0866",
    /// a temporal join's probe (left) side is updating
    TemporalJoinOverUpdatingProbe = "E0867",
    /// a side of a temporal join has no event time
    TemporalJoinWithoutEventTime = "E0868",
    /// a temporal join's AS OF is not the probe side's event-time column (processing time, a lookup join), or it is RIGHT/FULL, or AS OF is outside a join's right side
    TemporalJoinUnsupportedForm = "E0869",
    /// a join keeps both inputs in state with no retention, so its state grows without bound
    UnboundedJoinState = "W0860",
    /// a model with an interval join declares retention, which the interval join does not use
    RetentionUnusedByIntervalJoin = "W0861",
    /// a bare table name
    BareTableName = "E0601",
    /// `source()`/`ref()` without one single-quoted name
    MalformedReference = "E0602",
    /// reads an undeclared source
    ReadsUnknownSource = "E0603",
    /// reads a source whose contracts do not compile
    ReadsBrokenSource = "E0604",
    /// reads a missing model
    ReadsMissingModel = "E0606",
    /// reads a model that does not compile
    ReadsBrokenModel = "E0607",
    /// on or downstream of a reference cycle
    InReferenceCycle = "E0608",
    /// reads an iceberg source
    ReadsIcebergSource = "E0609",
    /// a window function (`… OVER`) outside the Top-N and deduplication shape
    WindowFunctionOutsideTopN = "E0800",
    /// the filter on the row number is not `rn = 1`, `rn <= N` or `rn < N` on its own
    BadRowNumberFilter = "E0801",
    /// `ROW_NUMBER()`'s window is not PARTITION BY and ORDER BY over selected columns, or the row number has no name
    BadRowNumberWindow = "E0802",
    /// a Top-N or deduplication over an updating (upsert) stream
    RankOverUpdatingStream = "E0803",
    /// a Top-N of more than one row whose output does not carry its row number
    TopNWithoutRowNumber = "E0804",
    /// a Top-N or deduplication partitioned by both `window_start` and `window_end`: Flink's window Top-N, not supported
    WindowTopN = "E0809",
    /// a model ranks a kafka source that declares no `key` (which rows a Top-N or deduplication keeps may differ from the tests across partitions)
    RankOverUnkeyedKafka = "W0820",
    /// a Rank's PARTITION BY does not include the source's `key` columns
    RankPartitionMissesSourceKey = "W0821",
    /// the fixture's model does not exist (did-you-mean)
    FixtureUnknownModel = "E0772",
    /// an expected row names a column the model does not produce
    FixtureUnknownColumn = "E0773",
    /// an expected row lacks an output column
    FixtureMissingColumn = "E0774",
    /// (`test`) a fixture value has more integer digits than its decimal column allows; Flink would read it as null
    FixtureValueOverPrecision = "W0776",
    /// (`test`) a fixture event has a column its source does not declare (the help lists the columns); the fixture fails without running
    FixtureUndeclaredEventColumn = "E0777",
    /// (`test`) a fixture event value does not fit its column's type (the help says what to write); the fixture fails without running
    FixtureEventTypeMismatch = "E0778",
    /// a fixture event does not name its source, and its model reads several (the help shows the form)
    FixtureEventWithoutSource = "E0833",
    /// a fixture item names a source its model does not read (the help lists the sources)
    FixtureUnreadSource = "E0834",
    /// a `nodes:` hint names a node the model's plan does not have (the help lists the nodes)
    HintUnknownNode = "E0780",
    /// a `nodes:` hint key is not `<kind>.<ordinal>` (kind one of source, filter, project, aggregate, rank, sink, union, join; ordinal a plain number)
    HintMalformedNode = "E0781",
    /// a hint's `was` is not a node id `<model>::<kind>::<ordinal>`, so it can never match
    HintMalformedWas = "W0782",
    /// retention becomes a STATE_TTL hint, which Flink enforces in processing time
    RetentionAsProcessingTimeTtl = "W0790",
    /// a model has neither a sink nor a reader, so the Flink job does not run it
    ModelNeverRuns = "W0791",
    /// an upsert Kafka sink's key column may be null; Flink's primary key is NOT NULL, so rows with a null key are left out of the sink
    SinkNullKeyDropped = "W0792",
    /// (`test`) a fixture integer is outside int64's range; the simulator saturates it to the nearest bound, as the original does
    FixtureIntegerSaturated = "W0779",
    /// a `${…}` outside `targets:` in streamform.yml, or in sources.yml
    ReferenceOutsideTargets = "E0880",
    /// a malformed `${…}` (not closed, or not a variable name)
    MalformedEnvReference = "E0881",
    /// a `${VAR}` without default whose variable is not set, when a command resolves the target
    UnsetVariable = "E0882",
    /// a Kafka property that names a credential is written into streamform.yml instead of read from the environment
    CredentialInFile = "E0883",
    /// a target's `topics:` names a source or model that has no such Kafka topic
    UnknownTopicOverride = "E0884",
    /// `delivery:` on a sink that is not Kafka
    DeliveryOnNonKafkaSink = "E0870",
    /// an exactly-once sink's transaction timeout is above the brokers' `transaction.max.timeout.ms`
    TransactionTimeoutAboveBrokerMax = "E0871",
    /// a target's Kafka property `transaction.timeout.ms` is not a number of milliseconds
    TransactionTimeoutNotMillis = "E0872",
    /// an exactly-once sink's transaction timeout is shorter than the checkpoint interval plus the longest stop `apply` allows
    TransactionTimeoutTooShort = "W0870",
    /// an expression nests deeper than the limit (each operator is one level)
    ExpressionTooDeep = "E0890",
    /// a query chains more set operations (`UNION ALL`, …) than the limit
    TooManySetOperations = "E0891",
    /// a hop window's size over its slide (the windows each event falls in) is past the limit
    TooManyHopWindows = "E0892",
    /// a YAML file's maps and lists nest deeper than the limit
    YamlTooDeep = "E0893",
    /// a YAML file's aliases repeat more nodes than the limit
    YamlAliasesTooLarge = "E0894",
    /// a duration in a project file is longer than the limit
    DurationTooLong = "E0895",
    /// a project has more model files than the limit
    TooManyModels = "E0896",
    /// one value (a YAML scalar, a SQL string literal, a value of `run`'s input) is larger than the limit
    ValueTooLarge = "E0897",
    /// a fixture file is larger than the limit
    FixtureTooLarge = "E0898",
    /// a model is more ref()s above its sources than the limit
    RefChainTooDeep = "E0899",
}

/// Codes sort as their text, so diagnostics sorted by code keep their order.
impl Ord for Code {
    fn cmp(&self, other: &Code) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Code {
    fn partial_cmp(&self, other: &Code) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Shown as its text, as the code was before it had a type.
impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
