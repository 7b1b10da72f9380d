//! The syntax tree of a model written in a plain subset of `SELECT`, built
//! straight from its tokens ([`super::tokens`]). sqlparser's parser tries
//! other syntax at nearly every token (a type name before each name, a
//! named argument before each argument) and formats the error of each
//! attempt it drops; that was the largest cost of a cold `check`.
//!
//! The subset: `SELECT` items (expressions, `*`, with or without an alias)
//! `FROM` one call such as `source('x')` with an optional alias, then
//! `WHERE`, `GROUP BY` and `HAVING`. Expressions are names, `a.b`, whole
//! numbers, strings, `NULL`, `TRUE`, `FALSE`, calls, parentheses, `NOT`, unary
//! `-` and `+`, `IS [NOT] NULL`, `AND`, `OR`, comparisons and arithmetic.
//! Anything else, or any doubt, returns `None` and sqlparser parses the
//! text. What this returns is the tree sqlparser makes of the same tokens,
//! spans included: the tests below and the `sql` fuzz target compare the two.

use sqlparser::ast::{
    BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, GroupByExpr, Ident,
    ObjectName, Query, Select, SelectFlavor, SelectItem, SetExpr, Statement, TableAlias, TableFactor, TableFunctionArgs,
    TableWithJoins, UnaryOperator, Value, ValueWithSpan, WildcardAdditionalOptions,
};
use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// Nesting of expressions (parentheses, `NOT`, signs) past which sqlparser
/// decides: well inside its recursion limit, so that its error stays its own.
const MAX_NESTING: u32 = 24;

/// Operator precedences, sqlparser's for the generic dialect.
const OR: u8 = 5;
const AND: u8 = 10;
const UNARY_NOT: u8 = 15;
const IS: u8 = 17;
const COMPARE: u8 = 20;
const PLUS_MINUS: u8 = 30;
const MUL_DIV: u8 = 40;

/// The statements of `tokens` when they are one query in the subset.
pub fn plain_statements(tokens: &[TokenWithSpan]) -> Option<Vec<Statement>> {
    let tokens: Vec<&TokenWithSpan> = tokens.iter().filter(|t| !matches!(t.token, Token::Whitespace(_))).collect();
    let mut p = Plain { tokens, at: 0, nesting: 0 };
    while p.eat(&Token::SemiColon) {}
    let query = p.query()?;
    while p.eat(&Token::SemiColon) {}
    (p.at == p.tokens.len()).then(|| vec![Statement::Query(Box::new(query))])
}

struct Plain<'t> {
    tokens: Vec<&'t TokenWithSpan>,
    at: usize,
    nesting: u32,
}

impl<'t> Plain<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.peek_nth(0)
    }

    fn peek_nth(&self, n: usize) -> Option<&'t Token> {
        self.tokens.get(self.at + n).map(|t| &t.token)
    }

    fn next(&mut self) -> Option<&'t TokenWithSpan> {
        let t = self.tokens.get(self.at).copied()?;
        self.at += 1;
        Some(t)
    }

    fn eat(&mut self, token: &Token) -> bool {
        let found = self.peek() == Some(token);
        self.at += usize::from(found);
        found
    }

    fn peek_keyword(&self, n: usize, k: Keyword) -> bool {
        matches!(self.peek_nth(n), Some(Token::Word(w)) if w.keyword == k)
    }

    fn eat_keyword(&mut self, k: Keyword) -> bool {
        let found = self.peek_keyword(0, k);
        self.at += usize::from(found);
        found
    }

    /// The next token when it is a word, as an identifier.
    fn ident(&mut self) -> Option<Ident> {
        let t = self.tokens.get(self.at)?;
        let Token::Word(w) = &t.token else { return None };
        self.at += 1;
        Some(w.clone().into_ident(t.span))
    }

    /// The optional alias after an item or a call: `AS name` (any word), or
    /// a name that is no keyword.
    fn alias(&mut self) -> Option<Option<(bool, Ident)>> {
        if self.eat_keyword(Keyword::AS) {
            return Some(Some((true, self.ident()?)));
        }
        Some(match self.peek() {
            Some(Token::Word(w)) if w.keyword == Keyword::NoKeyword => Some((false, self.ident()?)),
            _ => None,
        })
    }

    fn query(&mut self) -> Option<Query> {
        let select_token = self.next().filter(|t| matches!(&t.token, Token::Word(w) if w.keyword == Keyword::SELECT))?.clone();
        let mut projection = vec![self.select_item()?];
        while self.eat(&Token::Comma) {
            projection.push(self.select_item()?);
        }
        let from = if self.eat_keyword(Keyword::FROM) {
            vec![TableWithJoins { relation: self.table_factor()?, joins: vec![] }]
        } else {
            vec![]
        };
        let selection = if self.eat_keyword(Keyword::WHERE) { Some(self.expr(0)?) } else { None };
        let mut group_by = vec![];
        if self.peek_keyword(0, Keyword::GROUP) && self.peek_keyword(1, Keyword::BY) {
            self.at += 2;
            loop {
                // `()`, GROUPING SETS, CUBE and ROLLUP are not expressions
                // of the subset, and so are sqlparser's.
                group_by.push(self.expr(0)?);
                if !self.eat(&Token::Comma) {
                    break;
                }
            }
        }
        let having = if self.eat_keyword(Keyword::HAVING) { Some(self.expr(0)?) } else { None };
        let select = Select {
            select_token: AttachedToken(select_token),
            optimizer_hints: vec![],
            distinct: None,
            select_modifiers: None,
            top: None,
            top_before_distinct: false,
            projection,
            exclude: None,
            into: None,
            from,
            lateral_views: vec![],
            prewhere: None,
            selection,
            group_by: GroupByExpr::Expressions(group_by, vec![]),
            cluster_by: vec![],
            distribute_by: vec![],
            sort_by: vec![],
            having,
            named_window: vec![],
            window_before_qualify: false,
            qualify: None,
            value_table_mode: None,
            connect_by: vec![],
            flavor: SelectFlavor::Standard,
        };
        Some(Query {
            with: None,
            body: Box::new(SetExpr::Select(Box::new(select))),
            order_by: None,
            limit_clause: None,
            fetch: None,
            locks: vec![],
            for_clause: None,
            settings: None,
            format_clause: None,
            pipe_operators: vec![],
        })
    }

    fn select_item(&mut self) -> Option<SelectItem> {
        if self.peek() == Some(&Token::Mul) {
            let token = self.next()?.clone();
            // `* EXCEPT (…)`, `* REPLACE …` and the like are sqlparser's.
            if !matches!(self.peek(), None | Some(Token::Comma | Token::SemiColon)) && !self.peek_keyword(0, Keyword::FROM) {
                return None;
            }
            return Some(SelectItem::Wildcard(WildcardAdditionalOptions {
                wildcard_token: AttachedToken(token),
                opt_ilike: None,
                opt_exclude: None,
                opt_except: None,
                opt_replace: None,
                opt_rename: None,
                opt_alias: None,
            }));
        }
        let expr = self.expr(0)?;
        Some(match self.alias()? {
            Some((_, alias)) => SelectItem::ExprWithAlias { expr, alias },
            None => SelectItem::UnnamedExpr(expr),
        })
    }

    /// `name('arg', …)`, as `source('x')` and `ref('m')` are written.
    fn table_factor(&mut self) -> Option<TableFactor> {
        let table_name = matches!(self.peek(), Some(Token::Word(w)) if matches!(w.keyword, Keyword::NoKeyword | Keyword::SOURCE | Keyword::REF));
        if !table_name || self.peek_nth(1) != Some(&Token::LParen) {
            return None;
        }
        let name = ObjectName::from(vec![self.ident()?]);
        self.at += 1;
        let args = self.arguments(false)?;
        let alias = self.alias()?.map(|(explicit, name)| TableAlias { explicit, name, columns: vec![], at: None });
        // Column names after the alias are sqlparser's.
        if self.peek() == Some(&Token::LParen) {
            return None;
        }
        Some(TableFactor::Table {
            name,
            alias,
            args: Some(TableFunctionArgs { args, settings: None }),
            with_hints: vec![],
            version: None,
            with_ordinality: false,
            partitions: vec![],
            json_path: None,
            sample: None,
            index_directives: vec![],
            inheritance: None,
        })
    }

    /// The arguments of a call, after its `(`, through its `)`.
    fn arguments(&mut self, star: bool) -> Option<Vec<FunctionArg>> {
        let mut args = vec![];
        if self.eat(&Token::RParen) {
            return Some(args);
        }
        loop {
            let arg = if star && self.peek() == Some(&Token::Mul) {
                self.at += 1;
                FunctionArgExpr::Wildcard
            } else {
                FunctionArgExpr::Expr(self.expr(0)?)
            };
            args.push(FunctionArg::Unnamed(arg));
            if self.eat(&Token::RParen) {
                return Some(args);
            }
            if !self.eat(&Token::Comma) {
                return None;
            }
        }
    }

    /// An expression whose operators bind tighter than `precedence`.
    fn expr(&mut self, precedence: u8) -> Option<Expr> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return None;
        }
        let mut expr = self.prefix()?;
        loop {
            let next = match self.peek() {
                None | Some(Token::Comma | Token::RParen | Token::SemiColon) => 0,
                Some(Token::Word(w)) => match w.keyword {
                    Keyword::OR => OR,
                    Keyword::AND => AND,
                    Keyword::IS => IS,
                    // What may follow an expression in the subset.
                    Keyword::NoKeyword | Keyword::AS | Keyword::FROM | Keyword::WHERE | Keyword::GROUP | Keyword::HAVING => 0,
                    _ => return None,
                },
                Some(Token::Eq | Token::Neq | Token::Lt | Token::LtEq | Token::Gt | Token::GtEq) => COMPARE,
                Some(Token::Plus | Token::Minus) => PLUS_MINUS,
                Some(Token::Mul | Token::Div | Token::Mod) => MUL_DIV,
                Some(_) => return None,
            };
            if precedence >= next {
                break;
            }
            expr = self.infix(expr, next)?;
        }
        self.nesting -= 1;
        Some(expr)
    }

    fn infix(&mut self, left: Expr, precedence: u8) -> Option<Expr> {
        let op = match &self.next()?.token {
            Token::Word(w) if w.keyword == Keyword::IS => {
                let negated = self.eat_keyword(Keyword::NOT);
                if !self.eat_keyword(Keyword::NULL) {
                    return None;
                }
                return Some(if negated { Expr::IsNotNull(Box::new(left)) } else { Expr::IsNull(Box::new(left)) });
            }
            Token::Word(w) if w.keyword == Keyword::AND => BinaryOperator::And,
            Token::Word(w) if w.keyword == Keyword::OR => BinaryOperator::Or,
            Token::Eq => BinaryOperator::Eq,
            Token::Neq => BinaryOperator::NotEq,
            Token::Lt => BinaryOperator::Lt,
            Token::LtEq => BinaryOperator::LtEq,
            Token::Gt => BinaryOperator::Gt,
            Token::GtEq => BinaryOperator::GtEq,
            Token::Plus => BinaryOperator::Plus,
            Token::Minus => BinaryOperator::Minus,
            Token::Mul => BinaryOperator::Multiply,
            Token::Div => BinaryOperator::Divide,
            Token::Mod => BinaryOperator::Modulo,
            _ => return None,
        };
        let right = self.expr(precedence)?;
        Some(Expr::BinaryOp { left: Box::new(left), op, right: Box::new(right) })
    }

    fn prefix(&mut self) -> Option<Expr> {
        let t = self.next()?;
        let value = |value| Some(Expr::Value(ValueWithSpan { value, span: t.span }));
        match &t.token {
            Token::Number(n, long) => value(Value::Number(n.clone(), *long)),
            Token::SingleQuotedString(s) => value(Value::SingleQuotedString(s.clone())),
            Token::Word(w) => match w.keyword {
                Keyword::NULL => value(Value::Null),
                Keyword::TRUE => value(Value::Boolean(true)),
                Keyword::FALSE => value(Value::Boolean(false)),
                Keyword::NOT => Some(Expr::UnaryOp { op: UnaryOperator::Not, expr: Box::new(self.expr(UNARY_NOT)?) }),
                Keyword::NoKeyword => self.named(w, t),
                Keyword::COUNT | Keyword::SUM | Keyword::MIN | Keyword::MAX | Keyword::AVG if self.peek() == Some(&Token::LParen) => self.named(w, t),
                _ => None,
            },
            Token::LParen => {
                let inner = self.expr(0)?;
                self.eat(&Token::RParen).then(|| Expr::Nested(Box::new(inner)))
            }
            Token::Minus => Some(Expr::UnaryOp { op: UnaryOperator::Minus, expr: Box::new(self.expr(MUL_DIV)?) }),
            Token::Plus => Some(Expr::UnaryOp { op: UnaryOperator::Plus, expr: Box::new(self.expr(MUL_DIV)?) }),
            _ => None,
        }
    }

    /// A name, `a.b`, or a call, after its first word.
    fn named(&mut self, w: &Word, t: &TokenWithSpan) -> Option<Expr> {
        let first = w.clone().into_ident(t.span);
        match self.peek() {
            Some(Token::LParen) => {
                self.at += 1;
                let args = self.arguments(true)?;
                // `f(…)(…)` (parameters) is sqlparser's; so are FILTER, OVER and
                // the like, which the caller refuses as words it does not know.
                if self.peek() == Some(&Token::LParen) {
                    return None;
                }
                Some(Expr::Function(Function {
                    name: ObjectName::from(vec![first]),
                    uses_odbc_syntax: false,
                    parameters: FunctionArguments::None,
                    args: FunctionArguments::List(FunctionArgumentList { duplicate_treatment: None, args, clauses: vec![] }),
                    filter: None,
                    null_treatment: None,
                    over: None,
                    within_group: vec![],
                }))
            }
            Some(Token::Period) => {
                let mut parts = vec![first];
                while self.eat(&Token::Period) {
                    // `a.*`, `a.f(…)` and `a.'x'` are sqlparser's.
                    if !matches!(self.peek(), Some(Token::Word(_))) || self.peek_nth(1) == Some(&Token::LParen) {
                        return None;
                    }
                    parts.push(self.ident()?);
                }
                Some(Expr::CompoundIdentifier(parts))
            }
            _ => Some(Expr::Identifier(first)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::tokens::simple_tokens;
    use sqlparser::dialect::GenericDialect;
    use sqlparser::keywords::ALL_KEYWORDS;
    use sqlparser::parser::Parser;

    /// sqlparser's statements for the same tokens, shown in full (its `==`
    /// ignores spans), or its error.
    fn sqlparser_statements(tokens: Vec<TokenWithSpan>) -> Result<String, String> {
        Parser::new(&GenericDialect {})
            .with_tokens_with_locations(tokens)
            .parse_statements()
            .map(|s| format!("{s:?}"))
            .map_err(|e| e.to_string())
    }

    /// Checks one text: when the subset takes it, its tree is sqlparser's.
    /// True when the subset took it.
    fn agrees(text: &str) -> bool {
        let Some(tokens) = simple_tokens(text) else { return false };
        match plain_statements(&tokens) {
            Some(ours) => {
                assert_eq!(Ok(format!("{ours:?}")), sqlparser_statements(tokens), "the trees of {text:?} differ");
                true
            }
            None => false,
        }
    }

    #[test]
    fn plain_models_are_in_the_subset() {
        for text in [
            "SELECT k, COUNT(*) AS n, SUM(amt) AS total, MAX(v) AS mv FROM source('src_007') GROUP BY k",
            "SELECT k, SUM(v) AS sv, MIN(amt) AS lo FROM source('src_090') WHERE s IS NOT NULL GROUP BY k HAVING COUNT(*) > 0",
            "select o.id, o.amount * 2 as doubled\nfrom ref('orders') o\nwhere o.status <> 'void' and o.qty >= 1;\n",
            "SELECT * FROM ref('m') WHERE NOT (a = 1 OR b IS NULL) AND -c < +d % 3",
            "SELECT a - b - c, a / b * c, (a + b) * c, f(g(x), 'y', 2) z FROM source('s') AS s",
            "SELECT TRUE, FALSE, NULL, 1, f(a = 1)",
            ";SELECT a FROM ref('m');;",
        ] {
            assert!(agrees(text), "{text:?} is not in the subset");
        }
    }

    #[test]
    fn other_sql_is_left_to_sqlparser() {
        for text in [
            "SELECT DISTINCT a FROM source('s')",
            "SELECT a FROM source('s') ORDER BY a",
            "SELECT a FROM source('s') JOIN ref('m') ON a = b",
            "SELECT a FROM source('s'), ref('m')",
            "SELECT a FROM source('s') UNION ALL SELECT a FROM ref('m')",
            "SELECT CAST(a AS INT) FROM source('s')",
            "SELECT COUNT(DISTINCT a) FROM source('s')",
            "SELECT SUM(a) OVER (PARTITION BY b) FROM source('s')",
            "SELECT a FROM source('s') WHERE a IN (1, 2)",
            "SELECT a FROM source('s') WHERE a BETWEEN 1 AND 2",
            "SELECT a FROM source('s') WHERE a LIKE 'x%'",
            "SELECT a FROM source('s') WHERE a IS TRUE",
            "SELECT a, FROM source('s')",
            "SELECT a FROM source('s') GROUP BY ()",
            "SELECT a FROM (SELECT a FROM source('s'))",
            "SELECT a FROM t",
            "SELECT a b c FROM source('s')",
            "SELECT a FROM source('s'); SELECT b FROM source('s')",
            "SELECT",
            "",
        ] {
            let taken = simple_tokens(text).and_then(|t| plain_statements(&t)).is_some();
            assert!(!taken, "{text:?} is in the subset");
        }
    }

    #[test]
    fn deep_nesting_is_left_to_sqlparser() {
        // On a command's stack: printing and dropping a tree of 3,000
        // operators recurse once per operator.
        let test = || {
            let deep = format!("SELECT {}a{} FROM source('s')", "(".repeat(100), ")".repeat(100));
            assert!(!agrees(&deep));
            let shallow = format!("SELECT {}a{} FROM source('s')", "(".repeat(10), ")".repeat(10));
            assert!(agrees(&shallow));
            // A long chain is a loop, not nesting.
            let long = format!("SELECT {} AS x FROM source('s')", vec!["a"; 3000].join(" + "));
            assert!(agrees(&long));
        };
        let thread = std::thread::Builder::new().stack_size(crate::driver::STACK_SIZE).spawn(test).expect("a thread starts");
        thread.join().expect("the test passes");
    }

    #[test]
    fn every_model_of_the_test_data_agrees() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        let mut pending = vec![root];
        let (mut files, mut plain) = (0, 0);
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("testdata is readable").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "sql") {
                    let Ok(text) = std::fs::read_to_string(&path) else { continue };
                    files += 1;
                    plain += usize::from(agrees(&text));
                }
            }
        }
        assert!(files > 100 && plain * 4 > files, "{plain} of {files} models in the subset");
    }

    #[test]
    fn every_keyword_agrees_in_every_place() {
        let places = [
            "SELECT {} FROM source('s')",
            "SELECT {}(a) FROM source('s')",
            "SELECT {}(*) FROM source('s')",
            "SELECT {}.a FROM source('s')",
            "SELECT a.{} FROM source('s')",
            "SELECT a AS {} FROM source('s')",
            "SELECT a {} FROM source('s')",
            "SELECT {} a FROM source('s')",
            "SELECT a, {} FROM source('s')",
            "SELECT f(a) {} FROM source('s')",
            "SELECT f(a {}) FROM source('s')",
            "SELECT f({} a) FROM source('s')",
            "SELECT * {} FROM source('s')",
            "SELECT a FROM {}('s')",
            "SELECT a FROM source('s') {}",
            "SELECT a FROM source('s') AS {}",
            "SELECT a FROM source('s') x {}",
            "SELECT a FROM source('s') WHERE {}",
            "SELECT a FROM source('s') WHERE a {} b",
            "SELECT a FROM source('s') WHERE a = {}",
            "SELECT a FROM source('s') WHERE a IS {}",
            "SELECT a FROM source('s') WHERE a IS NOT {}",
            "SELECT a FROM source('s') WHERE NOT {}",
            "SELECT a FROM source('s') WHERE -{}",
            "SELECT a FROM source('s') WHERE ({})",
            "SELECT a FROM source('s') GROUP BY {}",
            "SELECT a FROM source('s') GROUP BY a {}",
            "SELECT a FROM source('s') GROUP BY a HAVING {}",
            "SELECT a FROM source('s') {} BY a",
            "SELECT a FROM source('s') {} a",
            "SELECT a FROM source('s') WHERE a > 1 {}",
            "SELECT {} FROM source('s') WHERE a",
            "SELECT a FROM source('s'); {}",
        ];
        for k in ALL_KEYWORDS {
            for word in [k.to_string(), k.to_lowercase()] {
                for place in places {
                    agrees(&place.replace("{}", &word));
                }
            }
        }
    }

    /// Texts from the subset's pieces and their neighbours, most of them
    /// not SQL at all.
    #[test]
    fn random_text_agrees() {
        let pieces: &[&str] = &[
            "SELECT ", "FROM ", "WHERE ", "GROUP BY ", "HAVING ", "AS ", "AND ", "OR ", "NOT ", "IS ", "NULL ", "TRUE ",
            "a ", "b ", "t.a ", "x ", "COUNT", "sum", "f", "source('s') ", "ref('m') ", "1 ", "22 ", "'v' ", "(", ")",
            "*", ",", ";", "+", "-", "/", "%", "=", "<>", "<", ">=", ".", " ", "\n", "IN ", "LIKE ", "BETWEEN ", "JOIN ",
            "ON ", "DISTINCT ", "ORDER BY ", "CAST(", "INT", "OVER ", "EXISTS ", "SELECT a FROM source('s') ",
        ];
        let mut next = crate::test_rng::xorshift(0x9a25_e7a1);
        let mut taken = 0;
        for _ in 0..100_000 {
            let mut text = String::from("SELECT ");
            for _ in 0..(next() % 16) {
                text.push_str(pieces[(next() as usize) % pieces.len()]);
            }
            taken += usize::from(agrees(&text));
        }
        assert!(taken > 1_000, "only {taken} random texts were in the subset");
    }

    /// Queries of the subset's grammar, so that the trees compared are large.
    #[test]
    fn generated_queries_agree() {
        let mut next = crate::test_rng::xorshift(0x51ec_7a11);
        for _ in 0..20_000 {
            let mut r = || next();
            let q = query(&mut r);
            assert!(agrees(&q), "{q:?} is not in the subset");
        }
    }

    fn query(r: &mut dyn FnMut() -> u64) -> String {
        let items: Vec<String> = (0..1 + r() % 4)
            .map(|_| match r() % 4 {
                0 => expr(r, 3),
                1 => format!("{} AS c{}", expr(r, 3), r() % 9),
                2 => format!("{} n{}", expr(r, 3), r() % 9),
                _ => "*".to_string(),
            })
            .collect();
        let mut q = format!("SELECT {} FROM {}('x{}')", items.join(", "), ["source", "ref", "SOURCE"][(r() % 3) as usize], r() % 5);
        match r() % 3 {
            0 => q.push_str(" AS t"),
            1 => q.push_str(" t"),
            _ => {}
        }
        if r() % 2 == 0 {
            q.push_str(&format!("\nWHERE {}", expr(r, 4)));
        }
        if r() % 2 == 0 {
            q.push_str(&format!(" GROUP BY {}, t.k", expr(r, 2)));
            if r() % 2 == 0 {
                q.push_str(&format!(" HAVING {}", expr(r, 3)));
            }
        }
        if r() % 3 == 0 {
            q.push(';');
        }
        q
    }

    fn expr(r: &mut dyn FnMut() -> u64, depth: u32) -> String {
        if depth == 0 || r() % 3 == 0 {
            return match r() % 8 {
                0 => format!("{}", r() % 1000),
                1 => format!("'s{}'", r() % 10),
                2 => "NULL".into(),
                3 => "t.a".into(),
                4 => ["TRUE", "false"][(r() % 2) as usize].into(),
                _ => ["a", "b", "amt", "K"][(r() % 4) as usize].into(),
            };
        }
        let d = depth - 1;
        match r() % 9 {
            0 => format!("({})", expr(r, d)),
            1 => format!("NOT {}", expr(r, d)),
            2 => format!("- {}", expr(r, d)),
            3 => format!("{} IS {}NULL", expr(r, d), ["", "NOT "][(r() % 2) as usize]),
            4 => format!("{}(*)", ["COUNT", "count"][(r() % 2) as usize]),
            5 => format!("{}({})", ["SUM", "max", "f", "Min", "avg"][(r() % 5) as usize], expr(r, d)),
            6 => format!("g({}, {})", expr(r, d), expr(r, d)),
            _ => {
                let op = ["+", "-", "*", "/", "%", "=", "<>", "!=", "<", "<=", ">", ">=", "AND", "or"][(r() % 14) as usize];
                format!("{} {op} {}", expr(r, d), expr(r, d))
            }
        }
    }
}
