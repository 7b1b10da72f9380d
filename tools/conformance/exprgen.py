"""Random projects of typed expressions, for the differential run on Flink.

Each project has one source of exact and inexact numeric columns and a few
append models, each selecting a dozen random expressions (arithmetic over
columns and integer, decimal and float literals, casts, ROUND, ABS, CASE,
COALESCE) under a random predicate (comparisons, BETWEEN, IN). One fixture
per model feeds random rows. run.py plans and runs them like testdata's
projects: Flink's changelog must equal the simulator's exactly.

The generator stays inside what both engines define: divisors are non-zero
literals, values are small enough that no type overflows, and a cast to a
decimal has room for its value. A seed names the projects.
"""

import os
import random

COLUMNS = {
    "i32": "int32",
    "i64": "int64",
    "d2": "decimal(10,2)",
    "d4": "decimal(12,4)",
    "f": "float64",
    "r": "decimal(38,18)",
}
EXACT = ["i32", "i64", "d2", "d4"]
FLOATS = [0.1, 0.2, 0.3, 2.5, -3.75, 0.001, 1.1, 100.5, -0.7]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def decimal_literal(self):
        ints = self.r.choice(["0", str(self.r.randint(1, 9)), str(self.r.randint(10, 99))])
        frac = "".join(str(self.r.randint(0, 9)) for _ in range(self.r.randint(1, 4)))
        if frac.strip("0") == "" and ints == "0":
            frac = frac[:-1] + "5"
        return f"{ints}.{frac}"

    def number(self, depth):
        """A numeric expression of at most `depth` nested operations."""
        r = self.r
        if depth <= 0 or r.random() < 0.3:
            k = r.random()
            if k < 0.55:
                return r.choice(EXACT + ["f"])
            if k < 0.8:
                return self.decimal_literal()
            return str(r.randint(1, 20))
        k = r.random()
        if k < 0.6:
            op = r.choice(["+", "-", "*"])
            return f"({self.number(depth - 1)} {op} {self.number(depth - 1)})"
        if k < 0.72:
            divisor = r.choice([self.decimal_literal(), str(r.randint(1, 9))])
            return f"({self.number(depth - 1)} / {divisor})"
        if k < 0.8:
            to = r.choice(["DOUBLE", "DECIMAL(18,4)", "DECIMAL(20,6)"])
            return f"CAST({self.number(depth - 1)} AS {to})"
        if k < 0.87:
            return f"ROUND({self.number(depth - 1)}, {r.randint(0, 3)})"
        if k < 0.92:
            return f"ABS({self.number(depth - 1)})"
        if k < 0.96:
            return f"CASE WHEN {self.predicate(0)} THEN {self.number(depth - 1)} ELSE {self.number(depth - 1)} END"
        return f"COALESCE({r.choice(EXACT)}, {self.decimal_literal()})"

    def predicate(self, depth):
        r = self.r
        k = r.random()
        if depth > 0 and k < 0.2:
            return f"({self.predicate(depth - 1)} {r.choice(['AND', 'OR'])} {self.predicate(depth - 1)})"
        col = r.choice(EXACT + ["f", "r", "r"])
        if k < 0.6:
            lhs = col if r.random() < 0.6 else self.number(1)
            return f"{lhs} {r.choice(['>', '>=', '<', '<=', '=', '<>'])} {self.decimal_literal()}"
        if k < 0.8:
            lo, hi = sorted([self.decimal_literal(), self.decimal_literal()], key=float)
            return f"{col} {r.choice(['', 'NOT '])}BETWEEN {lo} AND {hi}"
        items = ", ".join(self.decimal_literal() for _ in range(r.randint(1, 3)))
        return f"{col} {r.choice(['', 'NOT '])}IN ({items})"

    def row(self, i):
        r = self.r

        def dec(scale, lo, hi):
            return f"{r.randint(lo * 10 ** scale, hi * 10 ** scale) / 10 ** scale:.{scale}f}"

        row = {
            "id": i,
            "i32": r.randint(-30, 30),
            "i64": r.randint(-500, 500),
            "d2": dec(2, -50, 50),
            "d4": dec(4, -20, 20),
            "f": r.choice(FLOATS),
            # Close to the literals the predicates compare with, past a double's digits.
            "r": r.choice(["0.1", "0.100000000000000001", "0.099999999999999999", "0.25", "1.5", "1.500000000000000001"]),
        }
        for c in COLUMNS:
            if r.random() < 0.08:
                row[c] = None
        return row


def write(seed, root, models=4, exprs=12, rows=12):
    """Writes one project under `root`/gen_<seed>; returns its path."""
    g = Gen(seed)
    d = os.path.join(root, f"gen_{seed}")
    os.makedirs(os.path.join(d, "models"))
    os.makedirs(os.path.join(d, "tests"))
    with open(os.path.join(d, "sources.yml"), "w") as f:
        f.write("sources:\n  t:\n    connector: kafka\n    topic: t\n    schema:\n      id: int64\n")
        for c, ty in COLUMNS.items():
            f.write(f"      {c}: {ty}\n")
    with open(os.path.join(d, "streamform.yml"), "w") as f:
        f.write(f"name: gen_{seed}\nversion: 1\nmodels:\n")
        for m in range(models):
            f.write(f"  m{m}:\n    materialized: append\n    sink: {{connector: kafka, topic: m{m}}}\n")
    for m in range(models):
        items = ",\n  ".join(f"{g.number(3)} AS e{i}" for i in range(exprs))
        with open(os.path.join(d, "models", f"m{m}.sql"), "w") as f:
            f.write(f"SELECT\n  id,\n  {items}\nFROM source('t')\nWHERE {g.predicate(1)}\n")
        with open(os.path.join(d, "tests", f"m{m}.yml"), "w") as f:
            f.write(f"model: m{m}\ngiven:\n")
            for i in range(rows):
                cells = ", ".join(f"{k}: {'null' if v is None else (repr(v) if not isinstance(v, str) else chr(34) + v + chr(34))}" for k, v in g.row(i).items())
                f.write(f"  - {{{cells}}}\n")
            f.write("expect: []\n")
    return d


if __name__ == "__main__":
    import sys

    print(write(int(sys.argv[1]), sys.argv[2]))
