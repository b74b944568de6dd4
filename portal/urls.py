from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path

from portal import views
from portal.api import views as api_views

urlpatterns = [
    path("", views.home, name="home"),
    path("admin/", admin.site.urls),
    path(f"api/{settings.API_VERSION}/", include("portal.api.urls")),
    path("ds/", include("docservice.urls")),
    # Anything else under /api/ (or /ds/) is a JSON 404, never an HTML page.
    re_path(r"^(api|ds)/", api_views.not_found),
]

handler404 = "portal.views.page_not_found"
handler500 = "portal.views.server_error"
