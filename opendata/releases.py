"""Each published change of a tender kept as an OCDS release (opendata.models.Release), and the
packages read from them: a tender's latest release, its record, and the bulk feed.

A committed change of a tender leaves it `untold`; open data is told
(tenders.extensions.TENDER_CHANGED, into which `keep_releases` is plugged) by the background
soon after, or by the tender's next change once it holds the lock and before it changes
anything, or by a read of the tender's OCDS: the release is the tender as that change left it,
as the public sees it. The release is stamped as it is written, the last step of its
transaction, so the bulk feed pages releases by core/api/feed.py's watermark as the tenders'
feed pages tenders: every release once. Rendering the tender is work no write waits for, unless
a tender changes again before the background told of its last change."""

import hashlib
import json
from urllib.parse import urlencode

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core.actors import Viewer
from core.api.envelope import JSONRenderer
from core.errors import NotFound
from core.schema import iso
from docservice import links
from tenders.api.serializers import TenderOut
from tenders.models import Tender

from . import ocds
from .models import Release
from .schema import VERSION, declared_extensions, merger

PLACEHOLDER = "\x01"
# What a release shows besides what changed: two releases equal but for these told nothing new
# (the ocid's prefix is the registry's setting, applied as a release is read).
OWN = ("id", "date", "tag", "ocid")


class _Canonical:
    """The request a release is rendered for: the registry's own address (a release is
    written by a change, whoever made it; its document links name the reader's at read)."""

    def build_absolute_uri(self, location: str) -> str:
        return f"{settings.SITE_URL}{location}"


def keep_releases(sender, tender_ids: list[str], **kwargs):
    """The release of the state each tender named is in, to be kept (unless it shows the public
    nothing new, or the tender is not public: a draft, a test tender): rendered now, written by
    the function returned (tenders/models/untold.py calls it at once, or, for a state it put back
    to be read, once that is rolled back). However many tenders (a chronograph's pass), the same
    few statements: the tenders read with their parts, their latest releases, the contracts'
    signed changes, then the new releases."""
    tenders = list(
        Tender.objects.with_related()
        .filter(pk__in=tender_ids, published__isnull=False)
        .exclude(mode="test")
    )
    if not tenders:
        return None
    request = _Canonical()
    base = links.base_url(request)
    public = {
        tender.pk: json.loads(JSONRenderer().render(
            TenderOut(tender, context={"request": request, "viewer": Viewer()}).data
        ))
        for tender in tenders
    }  # fmt: skip
    amendments = ocds.amendments_of(*public.values())
    latest = {release.tender_id: release for release in latest_releases(public)}
    kept = []
    for tender in tenders:
        previous = latest.get(tender.pk)
        before = _loaded(previous.text, base) if previous else None
        release = ocds.release_of(public[tender.pk], amendments, before)
        digest = digest_of(release, base)
        if previous is not None and previous.digest == digest:
            continue
        text = json.dumps(release, ensure_ascii=False, separators=(",", ":"))
        kept.append(
            Release(
                tender_id=tender.pk,
                tender_modified=tender.date_modified,
                text=text.replace(f"{base}/get/", f"{PLACEHOLDER}/get/"),
                digest=digest,
            )
        )
    return lambda: _written(kept)


def _written(releases: list[Release]) -> list[Release]:
    if not releases:
        return []
    stamped = timezone.now()  # (after the rendering: as close to the commit as it can be)
    for release in releases:
        release.date_modified = stamped
    return Release.objects.bulk_create(releases)


def latest_releases(tender_ids) -> models.QuerySet:
    """The latest release of each of the tenders (one query)."""
    later = Release.objects.filter(
        tender_id=OuterRef("tender_id"), tender_modified__gt=OuterRef("tender_modified")
    )
    return Release.objects.filter(tender_id__in=list(tender_ids)).exclude(Exists(later))


def digest_of(release: dict, base: str) -> str:
    """What the release tells, whoever it was rendered for (`base`: the document service's
    address in its links)."""
    content = {key: value for key, value in release.items() if key not in OWN}
    text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.replace(f"{base}/get/", PLACEHOLDER).encode()).hexdigest()


def _loaded(text: str, base: str) -> dict:
    return json.loads(text.replace(PLACEHOLDER, base))


def read(request, release: Release) -> dict:
    """The release as this reader reads it: its document links on the reader's document
    service, its ocid with the registry's prefix (OCDS prefixes are "ocds-" and six
    characters, README "Open data")."""
    found = _loaded(release.text, links.base_url(request))
    found["ocid"] = f"{settings.OCID_PREFIX}-{found['ocid'].split('-', 2)[2]}"
    return found


# --- the packages --------------------------------------------------------------------------


def current_public_tender(tender_id: str) -> Tender:
    """The tender, once every change due by now is applied and open data is told of its last
    change; a draft, an unknown id and a test tender (no contracting process) are not found."""
    row = Tender.objects.kept_representation(tender_id)
    if row is None or not row.shown_to(Viewer()) or row.mode == "test":
        raise NotFound("tender_id")
    if row.is_due(timezone.now()):
        Tender.objects.current(tender_id, viewer=Viewer())
    if row.untold or row.is_due(timezone.now()):
        Tender.objects.tell_untold_of(tender_id)
    return row


def releases_of(request, tender_id: str, *, latest: bool = False) -> list[dict]:
    """Every release of the tender, oldest first (`latest`: the last alone)."""
    current_public_tender(tender_id)
    kept = Release.objects.filter(tender_id=tender_id).order_by("tender_modified")
    if latest:
        kept = kept.reverse()[:1]
    releases = [read(request, release) for release in kept]
    if not releases:  # (open data could not be told of it: logged) the tender as it stands
        public = ocds.public_tender(request, tender_id)
        releases = [ocds.release_of(public, ocds.amendments_of(public))]
    return releases


def release_package(request, tender_id: str) -> dict:
    """GET /tenders/{id}?opt_schema=ocds: the tender's latest release (as Prozorro answers:
    the tender as it stands)."""
    [latest] = releases_of(request, tender_id, latest=True)
    return package(request, [latest], published=latest["date"])


def record_package(request, tender_id: str) -> dict:
    """`opt_schema=ocds-record`: the tender's record, its releases and the release compiled
    from them."""
    releases = releases_of(request, tender_id)
    record = {
        "ocid": releases[-1]["ocid"],
        "releases": releases,
        "compiledRelease": merger().create_compiled_release(releases),
    }
    frame = package(request, [], published=releases[-1]["date"])
    del frame["releases"]
    return {**frame, "records": [record]}


def package(request, releases: list[dict], *, published: str) -> dict:
    return {
        # (the path and the schema asked for: never a token the caller sent along)
        "uri": request.build_absolute_uri(request.path)
        + (f"?{urlencode({'opt_schema': request.query_params['opt_schema']})}"
           if request.query_params.get("opt_schema") else ""),
        "version": VERSION,
        "extensions": declared_extensions(),
        "publishedDate": published,
        "publisher": {"name": ocds.PUBLISHER, "uri": settings.SITE_URL},
        "releases": releases,
    }  # fmt: skip


def answer(request, tender_id) -> dict:
    """GET /tenders/{id}?opt_schema=ocds (a release package), or ocds-record (a record
    package)."""
    if "record" in request.query_params.get("opt_schema", "").lower():
        return record_package(request, tender_id)
    return release_package(request, tender_id)


def published_now() -> str:
    return iso(timezone.now())
