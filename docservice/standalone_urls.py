"""ROOT_URLCONF for the document service deployed on its own host: its paths at the root."""

from django.urls import include, path, re_path

from core.api.views import not_found

urlpatterns = [
    path("", include("docservice.urls")),
    re_path(r"", not_found),
]
