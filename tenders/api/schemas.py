"""Other shapes a tender is read in (`GET /tenders/{id}?opt_schema=<name>`, as Prozorro's API
answers `opt_schema=ocds`): each answered by a part a higher layer plugs into OTHER_SHAPES (the
open data app plugs OCDS), given the request and the tender's id; its answer is the whole
body."""

from tenders.extensions import OTHER_SHAPES


def asked(request):
    """The part an `opt_schema` names (any case, as Prozorro reads it), if any."""
    named = request.query_params.get("opt_schema", "").lower()
    return next((answer for name, answer in OTHER_SHAPES.items() if name in named), None)
