from django.apps import AppConfig


class AuctionsConfig(AppConfig):
    name = "auctions"
    # (its rows may be read from a replica a little behind: core/replicas.py)
    reads_may_be_stale = True
    verbose_name = "Auctions"

    def ready(self):
        # The tenders app ends our module's auctions (time drives them) but knows nothing of
        # their bids: it asks this app for the final prices and the protocol.
        from tenders.extensions import AUCTION_OUTCOME

        from .models import outcome

        AUCTION_OUTCOME.plug("outcome", outcome)
