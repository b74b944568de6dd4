import hashlib
import json
from base64 import b64decode

import psycopg
from django.conf import settings
from django.http import JsonResponse
from django.urls import path

from bench.floor.models import TenderRow


def read(request, pk):
    row = TenderRow.objects.values("id", "date_modified").get(pk=pk)
    return JsonResponse(
        {"data": {"id": row["id"], "dateModified": row["date_modified"].isoformat()}}
    )


_connection: psycopg.Connection | None = None


def database() -> psycopg.Connection:
    global _connection
    if _connection is None or _connection.closed:
        db = settings.DATABASES["default"]
        _connection = psycopg.connect(
            host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"]
        )
    return _connection


def write(request, tender_id, claim_id):
    """A claim's answer as the database costs it: one transaction of five statements."""
    key = b64decode(request.headers["Authorization"].split()[1]).decode().split(":")[0]
    answer = json.loads(request.body)["data"]
    with database().transaction(), database().cursor() as cursor:
        cursor.execute(
            "SELECT id FROM portal_broker WHERE key_digest = %s AND is_active",
            [hashlib.sha256(key.encode()).hexdigest()],
        )
        if cursor.fetchone() is None:
            return JsonResponse({"status": "error"}, status=401)
        cursor.execute("SELECT id FROM tenders_tender WHERE id = %s FOR UPDATE", [tender_id])
        cursor.execute(
            "SELECT id, status, resolution FROM complaints_complaint WHERE tender_id = %s",
            [tender_id],
        )
        cursor.fetchall()
        cursor.execute(
            "UPDATE complaints_complaint SET resolution = %s, date_answered = now() "
            "WHERE id = %s AND tender_id = %s",
            [answer["resolution"], claim_id, tender_id],
        )
    return JsonResponse({"data": {"id": claim_id, "status": "answered"}})


urlpatterns = [
    path("read/<str:pk>", read),
    path("write/<str:tender_id>/<str:claim_id>", write),
]
