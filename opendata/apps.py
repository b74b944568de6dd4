import re

from django.apps import AppConfig
from django.conf import settings
from django.core import checks

# An ocid prefix as the Open Contracting Partnership assigns them.
PREFIX = re.compile(r"ocds-[a-z0-9]{6}")


class OpendataConfig(AppConfig):
    name = "opendata"
    # (its rows may be read from a replica a little behind: core/replicas.py)
    reads_may_be_stale = True
    verbose_name = "Open data (OCDS)"

    def ready(self):
        from tenders.extensions import OTHER_SHAPES, TENDER_CHANGED

        from .releases import answer, keep_releases

        OTHER_SHAPES.plug("ocds", answer)
        TENDER_CHANGED.plug("opendata", keep_releases)
        checks.register(check_ocid_prefix)


def check_ocid_prefix(app_configs, **kwargs):
    if PREFIX.fullmatch(settings.OCID_PREFIX):
        return []
    return [
        checks.Error(
            f"OCID_PREFIX {settings.OCID_PREFIX!r} is not an ocid prefix (ocds- and six "
            "lowercase letters or digits, as the Open Contracting Partnership assigns them)",
            id="opendata.E001",
        )
    ]
