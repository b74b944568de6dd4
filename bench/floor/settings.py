"""Settings of the benchmark's bare floor: what serving one query needs, nothing more."""

import os

import dj_database_url

SECRET_KEY = os.environ["SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = ["bench.floor"]
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "bench.floor.urls"
WSGI_APPLICATION = "bench.floor.wsgi.application"
DATABASES = {"default": dj_database_url.config(conn_max_age=600)}
USE_TZ = True
TIME_ZONE = "UTC"
