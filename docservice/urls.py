from django.urls import path

from . import views

app_name = "docservice"

urlpatterns = [
    path("register", views.register, name="register"),
    path("upload", views.upload_unregistered, name="upload"),
    path("upload/<str:doc_id>", views.upload, name="upload-registered"),
    path("get/<str:doc_id>", views.get, name="get"),
]
