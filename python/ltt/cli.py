"""The ``ltt`` command: SQL over a trace and Parquet export.

    ltt sql [--proc PROC] [--format table|csv|json] QUERY TRACE
    ltt queries
    ltt export --parquet DIR [--host NAME] [--tables LIST] TRACE...
"""
import argparse
import json
import sys
import warnings

from . import TABLES, TraceError

USAGE = __doc__


def _warning(message, category, filename, lineno, file=None, line=None):
    print(f"ltt: warning: {message}", file=sys.stderr)


def cmd_sql(a):
    from .sql import QUERIES, connect
    con = connect(a.trace, a.proc)
    sql = QUERIES[a.query][1] if a.query in QUERIES else a.query
    rel = con.sql(sql)
    if rel is None:  # a statement without a result
        return 0
    cols = rel.columns
    rows = rel.fetchall()
    if a.format == "json":
        for r in rows:
            print(json.dumps(dict(zip(cols, r)), default=str))
    elif a.format == "csv":
        import csv
        w = csv.writer(sys.stdout)
        w.writerow(cols)
        w.writerows(rows)
    else:
        cells = [[("NULL" if v is None else str(v)) for v in r] for r in rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
        print("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip())
        print("  ".join("-" * w for w in widths))
        for r in cells:
            print("  ".join(v.rjust(w) if _numeric(v) else v.ljust(w)
                            for v, w in zip(r, widths)).rstrip())
        print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return 0


def _numeric(s):
    return s.lstrip("-").isdigit()


def cmd_queries(a):
    from .sql import QUERIES
    for name, (what, sql) in QUERIES.items():
        print(f"{name}: {what}")
        if a.verbose:
            print(sql.rstrip() + "\n")
    return 0


def cmd_export(a):
    from .export import export
    tables = TABLES if not a.tables else tuple(a.tables.split(","))
    bad = [t for t in tables if t not in TABLES]
    if bad:
        print(f"ltt export: unknown table '{bad[0]}'; tables: {','.join(TABLES)}",
              file=sys.stderr)
        return 2
    export(a.parquet, a.traces, tables=tables, host=a.host,
           log=None if a.quiet else (lambda s: print(s, file=sys.stderr)))
    return 0


def main(argv=None):
    warnings.showwarning = _warning
    ap = argparse.ArgumentParser(prog="ltt", description="ltt traces in SQL and Parquet "
                                 "(docs/python.md)")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    s = sub.add_parser("sql", help="run SQL (DuckDB) over a trace's tables",
                       description="Runs QUERY, SQL or the name of a ready query (ltt "
                       "queries), over the tables " + ", ".join(TABLES) + " of TRACE.")
    s.add_argument("query", metavar="QUERY")
    s.add_argument("trace", metavar="TRACE")
    s.add_argument("--proc", metavar="PROC", help="the .proc file (default: NAME.proc "
                   "beside NAME.trace)")
    s.add_argument("--format", choices=("table", "csv", "json"), default="table")
    s.set_defaults(func=cmd_sql)
    q = sub.add_parser("queries", help="list the ready queries")
    q.add_argument("-v", "--verbose", action="store_true", help="show their SQL")
    q.set_defaults(func=cmd_queries)
    e = sub.add_parser("export", help="write traces as a Parquet dataset",
                       description="Writes DIR/host=HOST/trace=NAME/TABLE.parquet for "
                       "every table of every TRACE, and trace.parquet with the trace's host, "
                       "kernel, backend and wall-clock anchor.")
    e.add_argument("--parquet", metavar="DIR", required=True, help="the dataset's folder")
    e.add_argument("--host", metavar="NAME", help="host name to use instead of the "
                   "trace header's")
    e.add_argument("--tables", metavar="LIST", help="comma-separated tables (default: "
                   "all)")
    e.add_argument("-q", "--quiet", action="store_true")
    e.add_argument("traces", nargs="+", metavar="TRACE")
    e.set_defaults(func=cmd_export)
    a = ap.parse_args(argv)
    if not a.cmd:
        ap.print_help(sys.stderr)
        return 2
    try:
        return a.func(a)
    except TraceError as err:
        print(f"ltt: {err}", file=sys.stderr)
        return 1
    except FileNotFoundError as err:
        print(f"ltt: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # duckdb's errors name the problem in the query
        if type(err).__module__.startswith("duckdb"):
            print(f"ltt sql: {err}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
