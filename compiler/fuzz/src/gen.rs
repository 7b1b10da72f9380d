//! A structure-aware generator: projects built from `arbitrary` bytes
//! (expressions, nesting, long operator chains, windows in the config or
//! in FROM, joins, set operations) and rendered to text. These reach the
//! paths random bytes never do: a refused UNION over a deep expression,
//! a hop window of absurd size over slide.

use arbitrary::Arbitrary;

#[derive(Arbitrary, Debug)]
pub struct Model {
    items: Vec<(Expr, bool)>,
    filter: Option<Expr>,
    group: Grouping,
    from: Input,
    set: Option<(SetOp, Box<Model>)>,
}

#[derive(Arbitrary, Debug)]
enum Input {
    Orders,
    Join(Option<Expr>),
    Window(Window, bool),
    Sub(Box<Model>),
}

#[derive(Arbitrary, Debug)]
enum Window {
    Tumble(u32),
    Hop(u32, u32),
    Session(u32),
}

#[derive(Arbitrary, Debug)]
enum Grouping {
    None,
    ByCustomer(Vec<Agg>, Option<Expr>),
    ByWindow(Vec<Agg>),
    RowNumber(u8),
}

#[derive(Arbitrary, Debug)]
enum Agg {
    Count,
    Sum(Col),
    Min(Col),
    Max(Col),
    Avg(Col),
    CountDistinct(Col),
}

#[derive(Arbitrary, Debug)]
enum SetOp {
    UnionAll,
    Union,
    Intersect,
    Except,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Col {
    Id,
    Customer,
    Qty,
    Amount,
    Status,
    Ok,
    Score,
    Ts,
}

#[derive(Arbitrary, Debug)]
enum Expr {
    Col(Col),
    Int(i64),
    Dec(u32, u8),
    Str(u8),
    Bool(bool),
    Null,
    Bin(Box<Expr>, BinOp, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    IsNull(Box<Expr>),
    Case(Vec<(Expr, Expr)>, Option<Box<Expr>>),
    Cast(Box<Expr>, Ty),
    Func(Func, Vec<Expr>),
    /// `c op c op …`: `n` terms, the shape no recursion of the parser
    /// stops.
    Chain(Col, BinOp, u16),
    Between(Box<Expr>, Box<Expr>, Box<Expr>),
    In(Box<Expr>, Vec<Expr>),
    Like(Box<Expr>, u8),
    Interval(u32, Unit),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Lt,
    Ge,
    And,
    Or,
    Concat,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Ty {
    Int,
    BigInt,
    Double,
    Decimal(u8, u8),
    String,
    Boolean,
    Timestamp,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Func {
    Abs,
    Coalesce,
    Upper,
    Lower,
    Substring,
    Round,
    Floor,
    Concat,
    CharLength,
    DateFormat,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Unit {
    Second,
    Minute,
    Hour,
    Day,
}

/// The rendered project: `streamform.yml` and the model `m`'s SQL.
pub struct Rendered {
    pub config: String,
    pub sql: String,
}

/// How many terms a chain has: one in eight is long, within 100 terms of
/// the depth limit on either side (where the limit error is, and where a
/// recursion would overflow), the rest short. Tokenizing a long chain is
/// most of an input's time (uniform up to 2,500 terms, the target ran 55
/// inputs a second), so long ones are the exception.
fn chain_len(n: u16) -> usize {
    let limit = streamform::sql::limits::MAX_EXPR_DEPTH;
    let k = usize::from(n >> 3);
    if n & 7 == 0 { limit - 100 + k % 200 } else { k % 64 + 1 }
}

impl Model {
    pub fn render(&self) -> Rendered {
        let mut config = String::from("name: fuzz\nversion: 1\n");
        if let Input::Window(w, false) = &self.from {
            config.push_str(&format!("models:\n  m:\n    window: {}\n", w.config()));
        }
        Rendered { config, sql: self.sql() }
    }

    fn sql(&self) -> String {
        let mut items: Vec<String> = Vec::new();
        match &self.group {
            Grouping::None => {}
            Grouping::ByCustomer(..) => items.push("customer".into()),
            Grouping::ByWindow(_) => items.extend(["window_start".into(), "window_end".into()]),
            Grouping::RowNumber(_) => items.push("ROW_NUMBER() OVER (PARTITION BY customer ORDER BY ts DESC) AS rn".into()),
        }
        let aggs = match &self.group {
            Grouping::ByCustomer(a, _) | Grouping::ByWindow(a) => &a[..],
            _ => &[],
        };
        items.extend(aggs.iter().enumerate().map(|(i, a)| format!("{} AS a{i}", a.render())));
        if !matches!(self.group, Grouping::ByCustomer(..) | Grouping::ByWindow(_)) {
            items.extend(self.items.iter().enumerate().map(|(i, (e, aliased))| if *aliased { format!("{} AS c{i}", e.render()) } else { e.render() }));
        }
        if items.is_empty() {
            items.push("id".into());
        }
        let mut sql = format!("SELECT {} FROM {}", items.join(", "), self.from.render());
        if let Some(f) = &self.filter {
            sql.push_str(&format!(" WHERE {}", f.render()));
        }
        match &self.group {
            Grouping::ByCustomer(_, having) => {
                sql.push_str(" GROUP BY customer");
                if let Some(h) = having {
                    sql.push_str(&format!(" HAVING {}", h.render()));
                }
            }
            Grouping::ByWindow(_) => sql.push_str(" GROUP BY window_start, window_end"),
            Grouping::RowNumber(n) => sql = format!("SELECT * FROM ({sql}) WHERE rn <= {}", n % 4),
            Grouping::None => {}
        }
        if let Some((op, other)) = &self.set {
            sql = format!("{sql}\n{}\n{}", op.render(), other.sql());
        }
        sql
    }
}

impl Input {
    fn render(&self) -> String {
        match self {
            Input::Orders | Input::Window(_, false) => "source('orders')".into(),
            Input::Join(on) => {
                let extra = on.as_ref().map(|e| format!(" AND {}", e.render())).unwrap_or_default();
                format!("source('orders') o JOIN source('payments') p ON o.id = p.order_id{extra}")
            }
            Input::Window(w, true) => w.tvf(),
            Input::Sub(m) => format!("({})", m.sql()),
        }
    }
}

impl Window {
    fn config(&self) -> String {
        match self {
            Window::Tumble(s) => format!("{{type: tumbling, size: {s}ms}}"),
            Window::Hop(size, slide) => format!("{{type: hop, size: {size}ms, slide: {slide}ms}}"),
            Window::Session(g) => format!("{{type: session, gap: {g}ms}}"),
        }
    }

    fn tvf(&self) -> String {
        let iv = |ms: &u32| format!("INTERVAL '{}' SECOND", ms / 1000);
        match self {
            Window::Tumble(s) => format!("TABLE(TUMBLE(TABLE source('orders'), DESCRIPTOR(ts), {}))", iv(s)),
            Window::Hop(size, slide) => format!("TABLE(HOP(TABLE source('orders'), DESCRIPTOR(ts), {}, {}))", iv(slide), iv(size)),
            Window::Session(g) => format!("TABLE(SESSION(TABLE source('orders') PARTITION BY customer, DESCRIPTOR(ts), {}))", iv(g)),
        }
    }
}

impl Agg {
    fn render(&self) -> String {
        match self {
            Agg::Count => "COUNT(*)".into(),
            Agg::Sum(c) => format!("SUM({})", c.name()),
            Agg::Min(c) => format!("MIN({})", c.name()),
            Agg::Max(c) => format!("MAX({})", c.name()),
            Agg::Avg(c) => format!("AVG({})", c.name()),
            Agg::CountDistinct(c) => format!("COUNT(DISTINCT {})", c.name()),
        }
    }
}

impl SetOp {
    fn render(&self) -> &'static str {
        match self {
            SetOp::UnionAll => "UNION ALL",
            SetOp::Union => "UNION",
            SetOp::Intersect => "INTERSECT",
            SetOp::Except => "EXCEPT",
        }
    }
}

impl Col {
    fn name(self) -> &'static str {
        match self {
            Col::Id => "id",
            Col::Customer => "customer",
            Col::Qty => "qty",
            Col::Amount => "amount",
            Col::Status => "status",
            Col::Ok => "ok",
            Col::Score => "score",
            Col::Ts => "ts",
        }
    }
}

impl BinOp {
    fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Eq => "=",
            BinOp::Lt => "<",
            BinOp::Ge => ">=",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Concat => "||",
        }
    }
}

impl Ty {
    fn text(self) -> String {
        match self {
            Ty::Int => "INT".into(),
            Ty::BigInt => "BIGINT".into(),
            Ty::Double => "DOUBLE".into(),
            Ty::Decimal(p, s) => format!("DECIMAL({}, {})", p % 40, s % 40),
            Ty::String => "STRING".into(),
            Ty::Boolean => "BOOLEAN".into(),
            Ty::Timestamp => "TIMESTAMP(3)".into(),
        }
    }
}

impl Func {
    fn name(self) -> &'static str {
        match self {
            Func::Abs => "ABS",
            Func::Coalesce => "COALESCE",
            Func::Upper => "UPPER",
            Func::Lower => "LOWER",
            Func::Substring => "SUBSTRING",
            Func::Round => "ROUND",
            Func::Floor => "FLOOR",
            Func::Concat => "CONCAT",
            Func::CharLength => "CHAR_LENGTH",
            Func::DateFormat => "DATE_FORMAT",
        }
    }
}

impl Expr {
    fn render(&self) -> String {
        match self {
            Expr::Col(c) => c.name().into(),
            Expr::Int(i) => i.to_string(),
            Expr::Dec(m, s) => format!("{m}.{s}"),
            Expr::Str(n) => format!("'{}'", "ab%_'".chars().cycle().take(*n as usize % 12).collect::<String>().replace('\'', "''")),
            Expr::Bool(b) => b.to_string().to_uppercase(),
            Expr::Null => "NULL".into(),
            Expr::Bin(a, op, b) => format!("({} {} {})", a.render(), op.text(), b.render()),
            Expr::Not(e) => format!("NOT ({})", e.render()),
            Expr::Neg(e) => format!("-({})", e.render()),
            Expr::IsNull(e) => format!("{} IS NULL", e.render()),
            Expr::Case(arms, other) => {
                let arms: String = arms.iter().map(|(w, t)| format!(" WHEN {} THEN {}", w.render(), t.render())).collect();
                let other = other.as_ref().map(|e| format!(" ELSE {}", e.render())).unwrap_or_default();
                if arms.is_empty() {
                    "CASE WHEN TRUE THEN 1 END".into()
                } else {
                    format!("CASE{arms}{other} END")
                }
            }
            Expr::Cast(e, t) => format!("CAST({} AS {})", e.render(), t.text()),
            Expr::Func(f, args) => format!("{}({})", f.name(), args.iter().map(Expr::render).collect::<Vec<_>>().join(", ")),
            Expr::Chain(c, op, n) => vec![c.name(); chain_len(*n)].join(&format!(" {} ", op.text())),
            Expr::Between(e, lo, hi) => format!("{} BETWEEN {} AND {}", e.render(), lo.render(), hi.render()),
            Expr::In(e, list) => {
                let list: Vec<String> = list.iter().map(Expr::render).collect();
                format!("{} IN ({})", e.render(), if list.is_empty() { "1".into() } else { list.join(", ") })
            }
            Expr::Like(e, n) => format!("{} LIKE '{}'", e.render(), "a%_b".chars().cycle().take(*n as usize % 8).collect::<String>()),
            Expr::Interval(n, u) => format!("INTERVAL '{n}' {}", match u {
                Unit::Second => "SECOND",
                Unit::Minute => "MINUTE",
                Unit::Hour => "HOUR",
                Unit::Day => "DAY",
            }),
        }
    }
}

/// Decodes a project from bytes and runs it as [`super::entry::sql`]
/// does, with its own `streamform.yml`.
pub fn structured(data: &[u8]) {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(model) = Model::arbitrary(&mut u) else { return };
    let r = model.render();
    // To read what an input renders to, when triaging it.
    if std::env::var_os("STREAMFORM_FUZZ_PRINT").is_some() {
        eprintln!("--- streamform.yml\n{}\n--- models/m.sql\n{}", r.config, r.sql);
    }
    super::entry::session("structured", &[("sources.yml", super::entry::SOURCES)], &[("streamform.yml", &r.config), ("models/m.sql", &r.sql)], super::entry::compile);
}

/// How many models a [`Graph`] has beside `m`.
pub const GRAPH_MODELS: usize = 6;

/// Models `g0`…`g5` beside `m` (which reads `orders`), each reading sources,
/// `m` and each other through ref(): cycles, self-reads, reads of a missing
/// model and chains come and go from one input to the next on the kept
/// database, where each model's answer about the graph is built on its
/// reads' answers and salsa settles the models of a cycle.
#[derive(Arbitrary, Debug)]
pub struct Graph {
    models: [Vec<Read>; GRAPH_MODELS],
    /// `m`'s filter, so that `m`'s columns and changelog change too.
    m_filter: Option<Expr>,
}

#[derive(Arbitrary, Debug)]
enum Read {
    Orders,
    Payments,
    M,
    /// `g{n % 7}`: `g6` does not exist.
    G(u8),
    /// The read in a subquery with a filter.
    Filtered(Box<Read>, Expr),
}

impl Read {
    fn render(&self) -> String {
        match self {
            Read::Orders => "SELECT id FROM source('orders')".into(),
            Read::Payments => "SELECT order_id AS id FROM source('payments')".into(),
            Read::M => "SELECT id FROM ref('m')".into(),
            Read::G(n) => format!("SELECT id FROM ref('g{}')", usize::from(*n) % (GRAPH_MODELS + 1)),
            Read::Filtered(r, e) => format!("SELECT id FROM ({}) WHERE {}", r.render(), e.render()),
        }
    }
}

impl Graph {
    /// Each model's path and SQL, `m` first.
    pub fn render(&self) -> Vec<(String, String)> {
        let filter = self.m_filter.as_ref().map(|f| format!(" WHERE {}", f.render())).unwrap_or_default();
        let mut out = vec![("models/m.sql".to_string(), format!("SELECT id, customer, amount, ts FROM source('orders'){filter}"))];
        for (i, reads) in self.models.iter().enumerate() {
            let sql = if reads.is_empty() { Read::Orders.render() } else { reads.iter().map(Read::render).collect::<Vec<_>>().join("\nUNION ALL\n") };
            out.push((format!("models/g{i}.sql"), sql));
        }
        out
    }
}

/// Decodes a [`Graph`] from bytes and compiles it on the kept database.
pub fn graph(data: &[u8]) {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(g) = Graph::arbitrary(&mut u) else { return };
    let files = g.render();
    let edits: Vec<(&str, &str)> = files.iter().map(|(p, s)| (p.as_str(), s.as_str())).collect();
    super::entry::session("graph", &[("streamform.yml", super::entry::CONFIG), ("sources.yml", super::entry::SOURCES)], &edits, super::entry::compile);
}
