from django.conf import settings
from django.utils import translation
from django.utils.cache import patch_vary_headers


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


class PortalLanguageMiddleware:
    """Ukrainian unless the visitor chose English with the switch (the language cookie): the
    browser's own preference does not decide, so everyone sees the same page by default."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith(MachineFacesInEnglishMiddleware.PREFIXES):
            return self.get_response(request)
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        language = chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ["Cookie"])
        return response
