from core.errors import NotFound
from core.ids import is_id


def child(parent, related: str, pk: str, segment: str):
    """`parent.<related>` with this pk, or 404 naming the path segment (award_id, bid_id...).
    Found among all of them (a tender has at most a few hundred parts of a kind): a parent read
    whole has them prefetched, and the read costs no query."""
    if not is_id(pk):
        raise NotFound(segment)
    obj = next((o for o in getattr(parent, related).all() if o.pk == pk), None)
    if obj is None:
        raise NotFound(segment)
    return obj
