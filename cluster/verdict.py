"""What `make cluster-test` finds once the load has stopped and the cluster has settled: every
acknowledged write looked for, the feed crawled to its head and set against every tender's
last change, the jobs done twice and those left undone counted (on the primary, in SQL, and in
the mail the mailbox kept), and the report."""

import re
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser

import psycopg

from cluster.load import API, Load, Refused

# How long the cluster may take to settle after the load (auctions end, mail goes out).
SETTLE_SECONDS = 120
TENDER_LINK = re.compile(r"/tenders/([0-9a-f]{32})/")
# A request failing this long after a node or the replica was killed was in flight then.
CUT_SECONDS = 5
# Tenders one alert lists (portal/alerts.py's LISTED; read here without loading Django).
LISTED = 20


@dataclass
class Found:
    lost: Counter = field(default_factory=Counter)
    feed_missed: int = 0
    feed_twice: int = 0
    twice: Counter = field(default_factory=Counter)
    undone: Counter = field(default_factory=Counter)
    done: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)
    server_errors: int = 0
    unexplained_failures: Counter = field(default_factory=Counter)
    stale_own_reads: int = 0

    @property
    def passed(self) -> bool:
        return not (
            sum(self.lost.values()) or self.feed_missed or self.feed_twice
            or sum(self.twice.values()) or sum(self.undone.values())
            or self.server_errors or self.stale_own_reads
            or sum(self.unexplained_failures.values())
        )  # fmt: skip


class Verdict:
    def __init__(self, cluster, load: Load, searchers: int):
        self.cluster, self.load, self.searchers = cluster, load, searchers
        self.found = Found()

    def sql(self, statement: str, *parameters):
        with psycopg.connect(self.cluster.pair.primary.url) as primary:
            return primary.execute(statement, parameters).fetchall()

    def reach(self, failures: list, cuts: list) -> Found:
        """`failures`: the load's answers 5xx and requests unanswered, (when, kind); `cuts`:
        when a node or the replica was killed. Only a failure within CUT_SECONDS after a kill
        is explained (the requests in flight then), and never a 500."""
        for moment, kind in failures:
            if kind == "500" or not any(0 <= moment - cut <= CUT_SECONDS for cut in cuts):
                self.found.unexplained_failures[kind] += 1
        self.settle()
        self.look_for_writes()
        self.crawl_to_the_end()
        self.count_jobs()
        self.found.server_errors = self.load.tally["500"]
        self.found.stale_own_reads = self.load.written.stale_own_reads
        return self.found

    def settle(self) -> None:
        """Until no tender's time-driven change is due, open data was told of every change, no
        mail waits, and each searcher's alerts have looked past the last tender published."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline and self.waiting():
            time.sleep(1)

    def waiting(self) -> bool:
        ((due, untold, queued, behind),) = self.sql(
            "SELECT (SELECT count(*) FROM tenders_tender WHERE next_check <= now()),"
            " (SELECT count(*) FROM tenders_tender WHERE untold),"
            " (SELECT count(*) FROM django_tasks_database_dbtaskresult"
            "  WHERE status IN ('READY', 'RUNNING')),"
            " (SELECT count(*) FROM portal_savedsearch"
            "  WHERE seen_until < (SELECT max(date) FROM tenders_tender))"
        )
        return bool(due or untold or queued or behind)

    def look_for_writes(self) -> None:
        written = self.load.written
        kept = dict(
            self.sql(
                "SELECT id, description FROM tenders_tender WHERE id = ANY(%s)",
                list(written.tenders),
            )
        )
        for tender_id, wrote in written.tenders.items():
            if tender_id not in kept:
                self.found.lost["tenders"] += 1
            elif wrote["description"] and kept[tender_id] != wrote["description"]:
                self.found.lost["changes of a tender"] += 1
        for tender_id, document_id, content in written.documents:
            if self.document(tender_id, document_id) != content:
                self.found.lost["documents"] += 1
        for tender_id, bid_id, token, broker in written.bids:
            path = f"{API}/tenders/{tender_id}/bids/{bid_id}?acc_token={token}"
            if self.get(path, self.cluster.keys[broker]) is None:
                self.found.lost["bids"] += 1

    def get(self, path: str, key: str | None = None):
        for _ in range(3):
            try:
                answer = self.load.http.call("GET", path, key=key)
            except Refused:
                continue
            return answer.json() if answer.status == 200 else None
        return None

    def document(self, tender_id: str, document_id: str) -> bytes | None:
        shown = self.get(f"{API}/tenders/{tender_id}/documents/{document_id}")
        if shown is None:
            return None
        try:
            with urllib.request.urlopen(shown["data"]["url"], timeout=30) as got:
                return got.read()
        except OSError:  # (urllib's HTTPError and URLError among them: counted as lost)
            return None

    def crawl_to_the_end(self) -> None:
        """The crawler goes on to the feed's head; every tender's last change must be among
        what it saw (looked for again for a while: a change waits for the watermark)."""
        final = dict(
            self.sql(
                "SELECT id, date_modified FROM tenders_tender WHERE id = ANY(%s)",
                list(self.load.written.tenders),
            )
        )
        self.found.statuses.update(
            dict(self.sql("SELECT status, count(*) FROM tenders_tender GROUP BY status"))
        )
        deadline = time.monotonic() + 30
        while True:
            self.load.crawl(until_empty=True)
            missed = [pair for pair in final.items() if pair not in self.load.seen]
            if not missed or time.monotonic() > deadline:
                break
            time.sleep(1)
        self.found.feed_missed = len(missed)
        self.found.feed_twice = sum(1 for times in self.load.seen.values() if times > 1)

    def count_jobs(self) -> None:
        ((changes, changed_twice),) = self.sql(
            "SELECT count(*), count(*) - count(DISTINCT (tender_id, subject_type, subject_id,"
            " action, from_status, to_status)) FROM tenders_auditevent"
            " WHERE from_status <> to_status AND from_status <> ''"
        )
        ((releases, told_twice),) = self.sql(
            "SELECT count(*), count(*) - count(DISTINCT (tender_id, tender_modified))"
            " FROM opendata_release"
        )
        ((auctions,),) = self.sql("SELECT count(*) FROM tenders_auction WHERE ended IS NOT NULL")
        self.found.done["auctions held"] = auctions
        self.found.done["status changes"] = changes
        self.found.twice["status changes"] = changed_twice
        self.found.done["open data releases"] = releases
        self.found.twice["open data releases"] = told_twice
        ((due, untold, failed),) = self.sql(
            "SELECT (SELECT count(*) FROM tenders_tender WHERE next_check <= now()),"
            " (SELECT count(*) FROM tenders_tender WHERE untold),"
            " (SELECT count(*) FROM django_tasks_database_dbtaskresult"
            "  WHERE status <> 'SUCCESSFUL')"
        )
        self.found.undone["time-driven changes due"] = due
        self.found.undone["changes open data was not told of"] = untold
        self.found.undone["mail not sent"] = failed
        self.count_mail()

    def count_mail(self) -> None:
        messages, told, listings = Counter(), Counter(), {}
        for path in sorted((self.cluster.folder / "mail").glob("*.eml")):
            message = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
            text = message.get_body(preferencelist=("plain",)).get_content()
            recipient = message["X-Envelope-To"]
            # (a mail sent again carries the Message-ID it was queued with: core.notices)
            messages[(recipient, message["Message-ID"] or text)] += 1
            listed = set(TENDER_LINK.findall(text))
            listings.setdefault(recipient, []).append(listed)
            for tender_id in listed:
                told[(recipient, tender_id)] += 1
        self.found.done["mails sent"] = sum(messages.values())
        self.found.twice["mails"] = sum(times - 1 for times in messages.values())
        self.found.done["tenders told to searchers"] = len(told)
        self.found.twice["tenders told to a searcher"] = sum(t - 1 for t in told.values())
        published = dict(self.sql("SELECT id, published FROM tenders_tender"))
        self.found.undone["tenders not told to a searcher"] = sum(
            1
            for searcher in (f"searcher{n}@cluster.localhost" for n in range(1, self.searchers + 1))
            for tender in self.load.written.tenders
            if (searcher, tender) not in told
            and not linked_for_the_rest(published[tender], listings.get(searcher, []), published)
        )


def linked_for_the_rest(moment, listings: list[set], published: dict) -> bool:
    """Whether a tender published at `moment` was among those a mail did not list: a mail lists
    the LISTED newest of the tenders published since the search's previous mail, and links the
    search for the rest (portal/alerts.py). Its window: after the previous mail's newest,
    before its own oldest."""
    spans = sorted(
        (min(published[t] for t in listed), max(published[t] for t in listed), len(listed))
        for listed in listings
        if listed
    )
    previous_newest = None
    for oldest, newest, count in spans:
        if (
            count >= LISTED
            and (previous_newest is None or previous_newest < moment)
            and (moment < oldest)
        ):
            return True
        previous_newest = newest
    return False


def report(answers: Counter, load: Load, found: Found, events, lag, seconds) -> str:
    answered = sum(count for kind, count in answers.items() if kind.isdigit())
    written = load.written
    kinds = "\n".join(
        f"| {kind} | {count:,} |"
        for kind, count in sorted(answers.items(), key=lambda item: (-item[1], item[0]))
    )
    lines = [
        f"## `make cluster-test`: {'passed' if found.passed else 'FAILED'}",
        "",
        f"{seconds:.0f} s of load through the balancer ({load.actors}) on two application "
        "nodes of 2 gunicorn workers each, the document service apart on SeaweedFS, two "
        "chronographs, two mail workers, two alert runners, a PostgreSQL primary and its "
        "streaming replica, Redis.",
        "",
        "What happened:",
        "",
        *[f"- {event}" for event in events],
        "",
        f"Requests answered: {answered:,} (of {sum(answers.values()):,} sent)",
        "",
        "| answer | requests |",
        "|---|---|",
        kinds,
        "",
        "| must be 0 | found |",
        "|---|---|",
        f"| acknowledged writes lost | {sum(found.lost.values())} "
        f"(of {len(written.tenders)} tenders, "
        f"{sum(1 for w in written.tenders.values() if w['description'])} changes, "
        f"{len(written.documents)} documents, {len(written.bids)} bids){_detail(found.lost)} |",
        f"| a broker's read of its own write showing an older state | {found.stale_own_reads} "
        f"(of {written.own_reads} reads) |",
        f"| changes the feed's crawler missed | {found.feed_missed} "
        f"(it saw {len(load.seen):,} changes of {len({i for i, _ in load.seen})} tenders) |",
        f"| changes the feed's crawler saw twice | {found.feed_twice} |",
        f"| jobs done twice | {sum(found.twice.values())} "
        f"({', '.join(f'{n}: {found.done[n]:,}' for n in found.done)}){_detail(found.twice)} |",
        f"| jobs left undone | {sum(found.undone.values())}{_detail(found.undone)} |",
        f"| answers 500 | {found.server_errors} |",
        f"| other answers 5xx, and requests unanswered, but those in flight when a node or the "
        f"replica was killed (within {CUT_SECONDS} s) | "
        f"{sum(found.unexplained_failures.values())}{_detail(found.unexplained_failures)} |",
        "",
        f"The replica's lag: {lag.summary()}; it served {lag.replica_transactions:,} "
        "transactions (reads).",
        "",
        "The tenders at the end: "
        + ", ".join(f"{status} {count}" for status, count in found.statuses.most_common())
        + ".",
        "",
    ]
    return "\n".join(lines)


def _detail(counter: Counter) -> str:
    shown = [f"{name} {count}" for name, count in counter.items() if count]
    return f": {', '.join(shown)}" if shown else ""
