"""The ДК 021 catalogue, to choose a CPV code from: options for the code fields' list (htmx),
or a page of its own to look codes up without JavaScript."""

from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from tenders.classifiers import cpv_name, find_cpv

SHOWN = 30


@require_GET
def cpv_options(request):
    """The codes matching what was typed: `q`, or the value of the code field that asks (htmx
    sends it under the field's own name)."""
    typed = request.GET.get("q") or next(
        (value for name, value in request.GET.items() if name.endswith("cpv")), ""
    )
    typed = typed[:200]
    language = (get_language() or "uk")[:2]
    found = [(code, cpv_name(code, language)) for code in find_cpv(typed, limit=SHOWN)]
    template = "tenders/cpv.html#options" if request.htmx else "tenders/cpv.html"
    return render(request, template, {"typed": typed, "found": found, "shown": SHOWN})
