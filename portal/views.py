from django.conf import settings
from django.shortcuts import render
from django.views.decorators.http import require_GET

from portal.api.errors import not_found_response, server_error_response
from tenders.models import Tender


@require_GET
def home(request):
    tenders = Tender.objects.published().exclude(mode="test").order_by("-date_modified")[:20]
    return render(
        request, "portal/home.html", {"tenders": tenders, "api_version": settings.API_VERSION}
    )


def page_not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return not_found_response()
    return render(request, "404.html", status=404)


def server_error(request):
    if request.path.startswith("/api/"):
        return server_error_response()
    return render(request, "500.html", status=500)
