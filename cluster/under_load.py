"""`make cluster-test`: the cluster of `make cluster` under a bounded mixed load (cluster/load.py)
while an application node, a chronograph, a mail worker and the replica are killed, then the
verdict:

- requests answered, and every answer and failure by its kind;
- acknowledged writes lost (tenders, their changes, documents, bids): must be 0;
- a broker's reads of what it had just written that showed something older: must be 0;
- changes the feed's crawler missed, or saw twice: must be 0;
- jobs done twice (a tender's status change, open data told of a change, a mail sent, a
  saved search's alert of a tender) and jobs left undone at the end: must be 0;
- the replica's lag while it ran, and the transactions it served.

The report is printed and written to build/cluster-test.md; the exit status is 1 when a
must-be-0 is not. CLUSTER_TEST_SECONDS (90) bounds the load.
"""

import os
import statistics
import sys
import threading
import time
from collections import Counter

import psycopg

from cluster import verdict
from cluster.load import Load
from cluster.processes import PYTHON, ROOT, Process
from cluster.topology import BROKERS, Cluster

SECONDS = float(os.environ.get("CLUSTER_TEST_SECONDS", "90"))
VISITORS = 3
SEARCHERS = 3
REPORT = ROOT / "build" / "cluster-test.md"


class LagWatch:
    """The replica's lag as the primary sees it (pg_stat_replication), and the transactions the
    replica committed (its reads), every half second."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.seconds: list[float] = []
        self.bytes: list[int] = []
        self.down_samples = 0
        self.replica_transactions = 0
        self._last_count = None
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            try:
                self.sample()
            except psycopg.Error:  # (the cluster stopping under it)
                return

    def sample(self) -> None:
        with psycopg.connect(self.cluster.pair.primary.url, autocommit=True) as primary:
            row = primary.execute(
                "SELECT COALESCE(EXTRACT(EPOCH FROM replay_lag), 0)::float, "
                "pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint "
                "FROM pg_stat_replication WHERE replay_lsn IS NOT NULL"
            ).fetchone()
        if row is None:
            self.down_samples += 1
        else:
            self.seconds.append(row[0])
            self.bytes.append(row[1])
        self.count_replica_transactions()

    def count_replica_transactions(self) -> None:
        try:
            with psycopg.connect(self.cluster.pair.replica.url, connect_timeout=1) as replica:
                count = replica.execute(
                    "SELECT sum(xact_commit + xact_rollback)::bigint FROM pg_stat_database"
                ).fetchone()[0]
        except psycopg.OperationalError:
            self._last_count = None
            return
        if self._last_count is not None and count > self._last_count:
            self.replica_transactions += count - self._last_count - 1  # (less this one)
        self._last_count = count

    def summary(self) -> str:
        if not self.seconds:
            return "no sample"
        return (
            f"median {statistics.median(self.seconds):.3f} s, max {max(self.seconds):.3f} s; "
            f"WAL not yet replayed: median {statistics.median(self.bytes):,.0f} B, "
            f"max {max(self.bytes):,} B ({len(self.seconds)} samples while it ran, "
            f"{self.down_samples} while it was down)"
        )


def kills(cluster: Cluster, started: float) -> list:
    """What is killed (and brought back) when, as fractions of the load's length."""

    def at(fraction, what, action, cuts_requests=False):
        return (started + fraction * SECONDS, what, action, cuts_requests)

    app, chronograph = cluster.processes["app1"], cluster.processes["chronograph1"]
    mailer = cluster.processes["mail1"]
    replica = cluster.pair.replica
    return [
        at(0.20, "application node app1 killed (SIGKILL, with its workers)", app.kill, True),
        at(0.35, "chronograph1 killed (SIGKILL); chronograph2 goes on alone", chronograph.kill),
        at(0.40, "mail worker mail1 killed (SIGKILL); mail2 queues again what it held, a "
                 "minute later", mailer.kill),
        at(0.45, "app1 started again", app.start),
        at(0.55, "the replica stopped (immediate: as if its machine died)",
           lambda: replica.stop("immediate"), True),
        at(0.80, "the replica started again (it catches up from the primary)", replica.start),
    ]  # fmt: skip


def run() -> int:
    cluster = Cluster(
        API_RATE_ANONYMOUS_READS="100000/minute",  # (the visitors are one address)
        API_RATE_BROKER_READS="100000/minute",
        API_RATE_BROKER_WRITES="100000/minute",
    ).start()
    try:
        seed = Process("setup", [PYTHON, "-m", "cluster.searchers", str(SEARCHERS)],
                       cluster.folder, cluster.shared(), None).start()  # fmt: skip
        if seed.popen.wait(120):
            raise RuntimeError("the searchers were not made: see build/cluster/setup.log")
        load, lag, events = Load(cluster, SECONDS), LagWatch(cluster), []
        threading.Thread(target=lag.run, daemon=True).start()
        started = time.monotonic()
        threads = load.start(BROKERS, VISITORS)
        cuts = []  # (when a kill may have cut the requests in flight)
        for moment, what, action, cuts_requests in kills(cluster, started):
            time.sleep(max(0.0, moment - time.monotonic()))
            if cuts_requests:
                cuts.append(time.monotonic())
            action()
            events.append(f"{time.monotonic() - started:5.1f} s: {what}")
            print(events[-1], flush=True)
        time.sleep(max(0.0, started + SECONDS - time.monotonic()))
        load.stopping.set()
        for thread in threads:
            thread.join(90)
        events.append(f"{time.monotonic() - started:5.1f} s: the load stopped")
        # (what the load was answered; the verdict's own reads after it are not counted)
        answers, failures = Counter(load.tally), list(load.http.failures)
        found = verdict.Verdict(cluster, load, SEARCHERS).reach(failures, cuts)
        lag.stopping.set()
        report = verdict.report(answers, load, found, events, lag, SECONDS)
    finally:
        cluster.stop()
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(report)
    print(report)
    return 0 if found.passed else 1


if __name__ == "__main__":
    sys.exit(run())
