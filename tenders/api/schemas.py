"""Other shapes a tender is read in (`GET /tenders/{id}?opt_schema=<name>`, as Prozorro's API
answers `opt_schema=ocds`): each answered by a function a higher layer registers here (the
open data app registers OCDS), given the request and the tender's id; its answer is the whole
body."""

ANSWERS = {}


def answer_in(name: str, answer) -> None:
    ANSWERS[name] = answer


def asked(request):
    """The registered answer an `opt_schema` names (any case, as Prozorro reads it), if any."""
    named = request.query_params.get("opt_schema", "").lower()
    return next((answer for name, answer in ANSWERS.items() if name in named), None)
