"""Telling open data of the tenders' committed changes (tenders.signals.tender_changed): a change
leaves its tender `untold`; it is told by the background, by the tender's next change before it
changes anything (Tender.locked_as_loaded, the chronograph's pass), or by a read that must show
it."""

import logging

from core.transactions import all_or_nothing, recoverable
from tenders.signals import tender_changed

logger = logging.getLogger(__name__)


class UntoldChanges:
    """Mixed into the tenders' queryset."""

    def tell_untold(self, *, limit: int = 200) -> int:
        """Tell open data of up to `limit` tenders' changes it has not been told of (the
        background's step; a tender a change holds is skipped: that change tells it), in one
        transaction; how many. Should that fail, they are told one by one, so that one that
        cannot be told holds up no other (it is logged, and tried again on the next pass)."""
        untold = self.filter(untold=True).only("id", "untold")
        try:
            with all_or_nothing():
                tenders = list(untold.select_for_update(skip_locked=True)[:limit])
                tell_untold(tenders)
            return len(tenders)
        except Exception:
            logger.exception("open data: a batch failed; its tenders are told one by one")
        told = 0
        for pk in untold.values_list("pk", flat=True)[:limit]:
            try:
                with all_or_nothing():
                    tell_untold(list(untold.select_for_update(skip_locked=True).filter(pk=pk)))
                    told += 1
            except Exception:
                logger.exception("open data: tender %s could not be told", pk)
        return told

    def tell_untold_of(self, pk: str) -> None:
        """Tell open data of this tender's change now, if it has not been told of it (a read
        of its open data that must show it)."""
        with all_or_nothing():
            tell_untold(list(self.select_for_update().filter(pk=pk, untold=True).only("id")))


def tell_untold(tenders: list, *, or_log: bool = False) -> None:
    """`tenders`, their rows just locked: those holding a change open data was not told of are
    told now (tenders.signals.tender_changed, once for them all), and no longer hold it.
    `or_log`: a failure to tell is logged and leaves them untold, rather than failing the
    change about to be made (which would then be told in their place)."""
    untold = [tender for tender in tenders if tender.untold]
    if not untold:
        return
    model, ids = type(untold[0]), [tender.pk for tender in untold]
    try:
        with recoverable():
            tender_changed.send(model, tender_ids=ids)
            model.objects.filter(pk__in=ids).update(untold=False)
    except Exception:
        if not or_log:
            raise
        logger.exception("open data: tenders %s could not be told", ids)
        return
    for tender in untold:
        tender.untold = False
