"""Values as people write them, for sentences the portal composes in Python (templates use
the `date` and `floatformat` filters the same way)."""

from django.template.defaultfilters import floatformat
from django.utils import timezone
from django.utils.formats import date_format


def moment(value) -> str:
    """A moment in the site's time zone, as the pages show it: 25.11.2026 18:00."""
    return date_format(timezone.localtime(value), "d.m.Y H:i")


def money(value: dict) -> str:
    """A 2.3 value ({"amount", "currency"}) with its digits grouped: 920 000,00 UAH."""
    return f"{floatformat(value['amount'], '2g')} {value.get('currency', '')}".strip()
