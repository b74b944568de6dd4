from django.apps import AppConfig


class OpendataConfig(AppConfig):
    name = "opendata"
    verbose_name = "Open data (OCDS)"

    def ready(self):
        from tenders.api import schemas

        from .ocds import answer

        schemas.answer_in("ocds", answer)
