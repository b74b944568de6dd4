"""Telling open data of the tenders' committed changes (tenders.extensions.TENDER_CHANGED).

A change leaves its tender `untold`. The background tells of it soon after (the chronograph's
loop: Tender.objects.tell_untold), or a read that must show it (tell_untold_of). A change made
to a tender still untold does not tell of the last state itself, which would cost it a whole
rendering of the tender: it keeps that state's rows, as they stand, in one statement, before it
changes anything (an UntoldState, core.snapshots), and the background tells of the kept states
in order, each read as it was (its rows put back inside a savepoint rolled back after), then of
the tender as it is. So every state the public could see is told once, in order, and a write
pays one statement for it at most."""

import logging
from collections import Counter
from functools import cache

from django.db import connection, models, transaction

from core.reads import Prepared
from core.snapshots import Rows
from core.transactions import all_or_nothing, recoverable
from tenders.extensions import TENDER_CHANGED, each_told

logger = logging.getLogger(__name__)


class UntoldState(models.Model):
    """A state of a tender open data was not told of before the tender changed again: its
    rows as they stood then, kept by the change that came next, before it changed anything;
    the background tells of it, then forgets it."""

    # (found by the unique constraint's index, the tender first: no index of its own)
    tender = models.ForeignKey(
        "tenders.Tender", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    # The tender's dateModified in that state.
    date_modified = models.DateTimeField()
    rows = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tender", "date_modified"], name="one_state_a_stamp")
        ]

    def __str__(self) -> str:
        return f"{self.tender_id} at {self.date_modified.isoformat()}"


# What a tender's rendering reads of it besides its row: what a state keeps. (Every claim names
# its tender, the claims against its awards too: "complaints" holds them all.)
KEPT_PATHS = (
    "bids", "bids__documents", "awards", "awards__documents", "complaints",
    "complaints__documents", "contracts", "contracts__documents", "contracts__changes",
    "cancellations", "cancellations__documents", "documents", "questions", "auctions",
)  # fmt: skip


@cache
def _rows() -> Rows:
    from .tender_queries import TenderQuerySet

    return Rows("tenders.Tender", KEPT_PATHS, blank=TenderQuerySet.UNLISTED)


class UntoldChanges:
    """Mixed into the tenders' queryset."""

    def tell_untold(self, *, limit: int = 200) -> int:
        """Tell open data of the changes of untold tenders, up to `limit` states in all (each
        tender's kept states and the state it is in: a transaction holds their locks no longer
        than that many renderings), in one transaction (the background's step; a tender a
        change holds is skipped: that change keeps its state); how many tenders. Should that
        fail, they are told one by one, so that one that cannot be told holds up no other (it
        is logged, and tried again on the next pass)."""
        untold = self.filter(untold=True).only("id", "untold")
        candidates = list(untold.values_list("pk", flat=True)[:limit])
        kept = Counter(
            UntoldState.objects.filter(tender_id__in=candidates).values_list("tender_id", flat=True)
        )
        chosen, budget = [], limit
        for pk in candidates:
            if chosen and 1 + kept[pk] > budget:
                break
            chosen.append(pk)
            budget -= 1 + kept[pk]
        try:
            with all_or_nothing():
                tenders = list(untold.select_for_update(skip_locked=True).filter(pk__in=chosen))
                tell_untold(tenders)
            return len(tenders)
        except Exception:
            logger.exception("open data: a batch failed; its tenders are told one by one")
        told = 0
        for pk in chosen:
            try:
                with all_or_nothing():
                    tell_untold(list(untold.select_for_update(skip_locked=True).filter(pk=pk)))
                    told += 1
            except Exception:
                logger.exception("open data: tender %s could not be told", pk)
        return told

    def tell_untold_of(self, pk: str) -> None:
        """Tell open data of this tender's changes now, if it has not been told of them (a
        read of its open data that must show them)."""
        with all_or_nothing():
            tell_untold(list(self.select_for_update().filter(pk=pk, untold=True).only("id")))


def tell_untold(tenders: list) -> None:
    """`tenders`, their rows just locked: those holding changes open data was not told of are
    told now (tenders.extensions.TENDER_CHANGED: each state kept, oldest first, then the tenders
    as they are, together), and no longer hold them."""
    untold = [tender for tender in tenders if tender.untold]
    if not untold:
        return
    model, ids = type(untold[0]), [tender.pk for tender in untold]
    with recoverable():
        kept = UntoldState.objects.filter(tender_id__in=ids).order_by("tender_id", "date_modified")
        for state in kept:
            _keep(_seen_as_it_was(model, state))
        _keep(each_told(TENDER_CHANGED, model, tender_ids=ids))
        UntoldState.objects.filter(tender_id__in=ids).delete()
        model.objects.filter(pk__in=ids).update(untold=False)
    for tender in untold:
        tender.untold = False


def _seen_as_it_was(model, state: UntoldState) -> list:
    """What the receivers make of the tender as it was in `state`: its rows put back inside a
    savepoint, read, and the savepoint rolled back. A state that cannot be put back (kept
    before a migration changed its tables, say) is logged and passed over."""
    made = []
    try:
        with transaction.atomic():
            _rows().put_back(state.tender_id, state.rows)
            made = each_told(TENDER_CHANGED, model, tender_ids=[state.tender_id])
            transaction.set_rollback(True)
    except Exception:
        logger.exception("open data: %s could not be told; it is passed over", state)
        return []
    return made


def _keep(made: list) -> None:
    for _receiver, keep in made:
        if keep is not None:
            keep()


def keep_untold_states(tenders: list) -> None:
    """`tenders`, their rows just locked, about to be changed: the state of each that open data
    was not told of is kept (its rows, in one statement), to be told later. A failure is
    logged, and holds up no change (that state then goes untold)."""
    kept = [
        tender
        for tender in tenders
        if tender.untold
        and getattr(tender, "state_kept_at", None) != tender.date_modified
        and tender.published is not None
        and tender.mode != "test"
    ]
    if not kept:
        return
    try:
        with recoverable():
            _keep_states(kept)
    except Exception:
        logger.exception("open data: the states of tenders %s were not kept", [t.pk for t in kept])
        return
    for tender in kept:
        tender.state_kept_at = tender.date_modified


def _keeping_sql(vendor: str, condition: str) -> str:
    from .tender import Tender

    table, tenders = UntoldState._meta.db_table, Tender._meta.db_table
    return (
        f'INSERT INTO "{table}" (tender_id, date_modified, rows) '
        f"SELECT t.id, t.date_modified, {_rows().json_sql('t.id', vendor)} "
        f'FROM "{tenders}" t WHERE {condition} AND NOT EXISTS '
        f'(SELECT 1 FROM "{table}" s WHERE s.tender_id = t.id '
        "AND s.date_modified = t.date_modified)"
    )


@cache
def _keeping() -> Prepared:
    """(PostgreSQL) The states of the tenders named, kept: one statement, prepared once."""
    return Prepared("keep_untold_states", _keeping_sql("postgresql", "t.id = ANY(%s::varchar[])"))


def _keep_states(tenders: list) -> None:
    """The states of `tenders`, kept in one statement (each once)."""
    ids = [tender.pk for tender in tenders]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            _keeping().execute(cursor, [ids])
        else:
            marks = ", ".join(["%s"] * len(ids))
            cursor.execute(_keeping_sql(connection.vendor, f"t.id IN ({marks})"), ids)
