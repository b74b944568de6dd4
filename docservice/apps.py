from django.apps import AppConfig


class DocserviceConfig(AppConfig):
    name = "docservice"
    verbose_name = "Document service"
