"""The project's URLs and the floor the benchmark measures them against: a minimal view that
reads one row by primary key and answers a small JSON, served by the same process the same way."""

from django.http import JsonResponse
from django.urls import path

from portal.urls import handler404, handler500  # noqa: F401
from portal.urls import urlpatterns as project
from tenders.models import Tender


def floor(request, pk):
    row = Tender.objects.values("id", "date_modified").get(pk=pk)
    return JsonResponse(
        {"data": {"id": row["id"], "dateModified": row["date_modified"].isoformat()}}
    )


urlpatterns = [path("bench/floor/<str:pk>", floor), *project]
