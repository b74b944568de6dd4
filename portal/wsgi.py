"""The WSGI application, and what every worker reads once, to be read before the workers are
forked: gunicorn (gunicorn.conf.py) loads the application in its master and calls
`load_shared()` there, so that the workers share those pages with it (copy on write) instead of
each reading its own copy on its first search or its first new tender."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

application = get_wsgi_application()


def load_shared() -> None:
    """Read what every worker reads once (its views, which Django imports at the first
    request, about 13 MB; the Ukrainian lemmatizer's dictionary, about 24 MB; the ДК 021
    catalogue in both languages, about 5 MB), leave no connection open to be inherited, and
    keep the collector off what is read (it would touch, and so copy, every page of it in
    every worker)."""
    from django.db import connections
    from django.urls import get_resolver

    from tenders.classifiers import cpv_names
    from tenders.lemmas import analyzer

    get_resolver().url_patterns  # noqa: B018 (the views imported)
    analyzer()
    for language in ("uk", "en"):
        cpv_names(language)
    connections.close_all()
    gc.collect()
    gc.freeze()
