"""A PySpark job over an ltt Parquet dataset of many hosts (ltt export).

    spark-submit --master 'local[2]' $(python -c 'import ltt.fleet_spark as f;
        print(f.__file__)') DATASET [--out DIR] [--top N]

Answers two fleet questions and writes each answer as JSON lines in --out
(and prints the heads):

  syscalls_by_process  per host and process: system calls made, timed,
                       their total time and errors (host, pid, name, count,
                       timed, total_ns, errors)
  hosts_by_p99_latency hosts ranked by the 99th percentile of their
                       scheduling latencies (the wait to run after a
                       preemption, a wakeup or a fork), with the maximum
                       and the number of waits

Spark reads the dataset as it is (Hive partitions host=/trace=); nothing
of ltt runs on the executors.
"""
import argparse
import os
import sys


def syscalls_by_process(spark, dataset):
    sc = (spark.read.option("basePath", dataset)
          .parquet(os.path.join(dataset, "host=*", "trace=*", "syscalls.parquet")))
    procs = (spark.read.option("basePath", dataset)
             .parquet(os.path.join(dataset, "host=*", "trace=*", "processes.parquet")))
    sc.createOrReplaceTempView("syscalls")
    procs.createOrReplaceTempView("processes")
    return spark.sql("""
        SELECT s.host, s.pid, p.name, count(*) AS count, count(s.duration_ns) AS timed,
               coalesce(sum(s.duration_ns), 0) AS total_ns,
               count(CASE WHEN s.ret < 0 THEN 1 END) AS errors
        FROM syscalls s
        LEFT JOIN (SELECT host, trace, pid, max_by(name, start_ns) AS name
                   FROM processes GROUP BY host, trace, pid) p
               ON s.host = p.host AND s.trace = p.trace AND s.pid = p.pid
        GROUP BY s.host, s.pid, p.name
        ORDER BY s.host, total_ns DESC, s.pid
    """)


def hosts_by_p99_latency(spark, dataset):
    sched = (spark.read.option("basePath", dataset)
             .parquet(os.path.join(dataset, "host=*", "trace=*", "sched.parquet")))
    sched.createOrReplaceTempView("sched")
    return spark.sql("""
        SELECT host, CAST(percentile(delay_ns, 0.99) AS BIGINT) AS p99_delay_ns,
               max(delay_ns) AS max_delay_ns, count(*) AS waits,
               rank() OVER (ORDER BY percentile(delay_ns, 0.99) DESC) AS rank
        FROM sched WHERE delay_ns IS NOT NULL
        GROUP BY host
        ORDER BY rank, host
    """)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", help="the dataset folder (ltt export --parquet DIR)")
    ap.add_argument("--out", help="write the answers here as JSON lines")
    ap.add_argument("--top", type=int, default=10, help="rows of each answer to print")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.dataset):
        print(f"fleet_spark: no dataset folder {a.dataset}", file=sys.stderr)
        return 2

    from pyspark.sql import SparkSession
    spark = SparkSession.builder.appName("ltt-fleet").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    answers = {
        "syscalls_by_process": syscalls_by_process(spark, a.dataset),
        "hosts_by_p99_latency": hosts_by_p99_latency(spark, a.dataset),
    }
    for name, df in answers.items():
        if a.out:
            # One JSON-lines file per answer (collected: answers are small).
            os.makedirs(a.out, exist_ok=True)
            import json
            with open(os.path.join(a.out, f"{name}.jsonl"), "w") as f:
                for row in df.collect():
                    f.write(json.dumps(row.asDict()) + "\n")
        print(f"== {name}")
        df.show(a.top, truncate=False)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
