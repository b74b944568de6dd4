from portal.errors import NotFound


def child(parent, related: str, pk: str, segment: str):
    """`parent.<related>` with this pk, or 404 naming the path segment (award_id, bid_id...)."""
    obj = getattr(parent, related).filter(pk=pk).first()
    if obj is None:
        raise NotFound(segment)
    return obj
