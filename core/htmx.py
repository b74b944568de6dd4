"""Pages and their fragments: a full page, or, for htmx, the one fragment it asked for."""

from django.contrib import messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.cache import patch_vary_headers
from django_htmx.http import trigger_client_event


def partial_asked(request, partials) -> str | None:
    """The one of `partials` (the fragments a view allows) htmx asks for, or None: the page."""
    htmx = getattr(request, "htmx", None)
    target = htmx.target if htmx else None
    if htmx and target in partials and not htmx.boosted and not htmx.history_restore_request:
        return target
    return None


def render_page_or_partial(request, template: str, context: dict, *, partials=(), status=200):
    """Render `template`, or `template#<hx-target>` when htmx targets one of `partials` (the
    fragments this view allows: a fragment never skips the view's own checks)."""
    target = partial_asked(request, partials)
    if target:
        template = f"{template}#{target}"
    response = TemplateResponse(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response


def changed(request, notice, *, url: str, fresh, event: str):
    """The answer to a change made: a plain form is redirected to `url`, with the notice as a
    message; htmx gets the `fresh()` fragment and `event`, which announces the notice."""
    if not request.htmx:
        messages.success(request, notice)
        return redirect(url)
    return trigger_client_event(fresh(), event, {"notice": notice})
