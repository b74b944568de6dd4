from django.utils import translation


class MachineFacesInEnglishMiddleware:
    """The API and the document service answer in 2.3's English whatever the client's language;
    translation is for the portal's pages."""

    PREFIXES = ("/api/", "/ds/")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith(self.PREFIXES):
            with translation.override("en"):
                return self.get_response(request)
        return self.get_response(request)
