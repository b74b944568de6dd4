"""How many questions, claims, bids and cancellations one tender holds, and how many of them one
caller may add: every one is in what each reader of the tender is sent, so their number is
bounded (README, "How much one request may be"), and one caller's share of the bound is too, so
that no one broker or organization can fill a tender and leave the others no room."""

from django.db.models import Count, Q

from core.actors import Actor
from core.errors import InvalidData
from core.schema import too_many


def check_room(objects, by: Actor, *, name: str, most: int, most_of_one: int | None) -> None:
    """Refuse one more of `objects` (what a tender holds of them) past `most`, or past
    `most_of_one` of `by`'s (its broker's, or its portal organization's): 422 naming `name`."""
    counting = {"all": Count("pk")}
    if most_of_one is not None:
        caller = Q(broker=by.broker) if by.broker else Q(organization=by.organization)
        counting["own"] = Count("pk", filter=caller)
    counted = objects.aggregate(**counting)
    if counted["all"] >= most:
        raise too_many(name, most)
    if most_of_one is not None and counted["own"] >= most_of_one:
        raise InvalidData.field(
            name, f"One broker or organization has at most {most_of_one} {name} on a tender"
        )
