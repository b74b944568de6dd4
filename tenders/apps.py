from django.apps import AppConfig


class TendersConfig(AppConfig):
    name = "tenders"
    # (its rows may be read from a replica a little behind: core/replicas.py)
    reads_may_be_stale = True
    verbose_name = "Tenders"

    def ready(self):
        # Before the first request: the gate runs before any URL is resolved.
        from core.limits import counts_as_a_large_read

        from .api.feed import is_a_feed_page_of_parts

        counts_as_a_large_read(is_a_feed_page_of_parts)
