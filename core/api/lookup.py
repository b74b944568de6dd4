from core.errors import NotFound
from core.ids import is_id


def child(parent, related: str, pk: str, segment: str):
    """`parent.<related>` with this pk, or 404 naming the path segment (award_id, bid_id...).
    Uses what was prefetched, so that reads keep their query count."""
    if not is_id(pk):
        raise NotFound(segment)
    if related in getattr(parent, "_prefetched_objects_cache", {}):
        obj = next((o for o in getattr(parent, related).all() if o.pk == pk), None)
    else:
        obj = getattr(parent, related).filter(pk=pk).first()
    if obj is None:
        raise NotFound(segment)
    return obj
