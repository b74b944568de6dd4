"""Pages and their fragments: a full page, or, for htmx, the one fragment it asked for."""

from django.template.response import TemplateResponse
from django.utils.cache import patch_vary_headers


def render_page_or_partial(request, template: str, context: dict, *, partials=(), status=200):
    """Render `template`, or `template#<hx-target>` when htmx targets one of `partials` (the
    fragments this view allows: a fragment never skips the view's own checks)."""
    htmx = getattr(request, "htmx", None)
    target = htmx.target if htmx else None
    if htmx and target in partials and not htmx.boosted and not htmx.history_restore_request:
        template = f"{template}#{target}"
    response = TemplateResponse(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response
