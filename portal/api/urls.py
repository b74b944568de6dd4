"""Every path of the 2.3 API, spelled out. Path segments are not constrained: an unknown id
answers 404 naming its segment (tender_id, award_id...), as 2.3 does."""

from django.conf import settings
from django.http import HttpResponse
from django.urls import path
from django.utils.csp import CSP
from django.views.decorators.cache import cache_page
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView

from complaints.api.views import (
    ComplaintDocumentViewSet,
    ComplaintViewSet,
    TenderComplaintDocumentViewSet,
    TenderComplaintViewSet,
)
from contracting.api.views import (
    ChangeViewSet,
    ContractingViewSet,
    SignedContractDocumentViewSet,
)
from core.api import openapi, views  # noqa: F401  (openapi: its field extensions register on import)
from core.replicas import may_read_a_replica
from opendata.api import ReleaseFeedViewSet, extension_file
from tenders.api.auction_views import AuctionViewSet, LotAuctionViewSet
from tenders.api.document_views import (
    AwardDocumentViewSet,
    BidDocumentViewSet,
    CancellationDocumentViewSet,
    ContractDocumentViewSet,
    TenderDocumentViewSet,
)
from tenders.api.views import (
    AwardViewSet,
    BidViewSet,
    CancellationViewSet,
    ContractViewSet,
    LotViewSet,
    QuestionViewSet,
    TenderViewSet,
)

DOCUMENTS = {"get": "list", "post": "create"}
DOCUMENT = {"get": "retrieve", "put": "update", "patch": "partial_update"}
AUCTION = {"get": "retrieve", "patch": "partial_update", "post": "create"}

# The description depends on the code alone, and takes ~45 ms to generate: it is generated
# once an hour, not for every request (which a rate limit alone would let through ~1,200 times
# a minute per address).
description = cache_page(60 * 60)(SpectacularJSONAPIView.as_view())


class ReferencePage(SpectacularSwaggerSplitView):
    """The page itself: GET and HEAD. OPTIONS says so (a page has no description of its own to
    render: DRF's answer to OPTIONS needed a template it has none of, a 500)."""

    def options(self, request, *args, **kwargs):
        return HttpResponse(headers={"Allow": "GET, HEAD, OPTIONS"})


# Swagger UI sets inline styles as it lays the page out: this page alone allows them.
reference_page = csp_override({**settings.SECURE_CSP, "style-src": [CSP.SELF, CSP.UNSAFE_INLINE]})(
    ReferencePage.as_view(url_name="api:openapi")
)

app_name = "api"

urlpatterns = [
    path("openapi.json", description, name="openapi"),
    path("docs/", reference_page, name="docs"),
    path("spore", views.spore, name="spore"),
    path("health", views.health, name="health"),
    # (what may be a little stale is read from a replica: the feeds, a tender, open data)
    path(
        "tenders",
        may_read_a_replica(TenderViewSet.as_view({"get": "list", "post": "create"})),
        name="tenders",
    ),
    path(
        "tenders/<str:tender_id>",
        may_read_a_replica(TenderViewSet.as_view({"get": "retrieve", "patch": "partial_update"})),
        name="tender",
    ),
    path(
        "tenders/<str:tender_id>/auction",
        AuctionViewSet.as_view(AUCTION),
        name="auction",
    ),
    path(
        "tenders/<str:tender_id>/auction/<str:lot_id>",
        LotAuctionViewSet.as_view(AUCTION),
        name="lot-auction",
    ),
    path(
        "tenders/<str:tender_id>/documents",
        TenderDocumentViewSet.as_view(DOCUMENTS),
        name="tender-documents",
    ),
    path(
        "tenders/<str:tender_id>/documents/<str:pk>",
        TenderDocumentViewSet.as_view(DOCUMENT),
        name="tender-document",
    ),
    path(
        "tenders/<str:tender_id>/lots",
        LotViewSet.as_view({"get": "list", "post": "create"}),
        name="lots",
    ),
    path(
        "tenders/<str:tender_id>/lots/<str:lot_id>",
        LotViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
        name="lot",
    ),
    path(
        "tenders/<str:tender_id>/questions",
        QuestionViewSet.as_view({"get": "list", "post": "create"}),
        name="questions",
    ),
    path(
        "tenders/<str:tender_id>/questions/<str:question_id>",
        QuestionViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="question",
    ),
    path(
        "tenders/<str:tender_id>/complaints",
        TenderComplaintViewSet.as_view({"get": "list", "post": "create"}),
        name="tender-complaints",
    ),
    path(
        "tenders/<str:tender_id>/complaints/<str:pk>",
        TenderComplaintViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="tender-complaint",
    ),
    path(
        "tenders/<str:tender_id>/complaints/<str:complaint_id>/documents",
        TenderComplaintDocumentViewSet.as_view(DOCUMENTS),
        name="tender-complaint-documents",
    ),
    path(
        "tenders/<str:tender_id>/complaints/<str:complaint_id>/documents/<str:pk>",
        TenderComplaintDocumentViewSet.as_view(DOCUMENT),
        name="tender-complaint-document",
    ),
    path(
        "tenders/<str:tender_id>/bids",
        BidViewSet.as_view({"get": "list", "post": "create"}),
        name="bids",
    ),
    path(
        "tenders/<str:tender_id>/bids/<str:bid_id>",
        BidViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
        name="bid",
    ),
    path(
        "tenders/<str:tender_id>/bids/<str:bid_id>/documents",
        BidDocumentViewSet.as_view(DOCUMENTS),
        name="bid-documents",
    ),
    path(
        "tenders/<str:tender_id>/bids/<str:bid_id>/documents/<str:pk>",
        BidDocumentViewSet.as_view(DOCUMENT),
        name="bid-document",
    ),
    path("tenders/<str:tender_id>/awards", AwardViewSet.as_view({"get": "list"}), name="awards"),
    path(
        "tenders/<str:tender_id>/awards/<str:pk>",
        AwardViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="award",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/documents",
        AwardDocumentViewSet.as_view(DOCUMENTS),
        name="award-documents",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/documents/<str:pk>",
        AwardDocumentViewSet.as_view(DOCUMENT),
        name="award-document",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/complaints",
        ComplaintViewSet.as_view({"get": "list", "post": "create"}),
        name="complaints",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/complaints/<str:pk>",
        ComplaintViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="complaint",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/complaints/<str:complaint_id>/documents",
        ComplaintDocumentViewSet.as_view(DOCUMENTS),
        name="complaint-documents",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/complaints/<str:complaint_id>/documents/<str:pk>",
        ComplaintDocumentViewSet.as_view(DOCUMENT),
        name="complaint-document",
    ),
    path(
        "tenders/<str:tender_id>/contracts",
        ContractViewSet.as_view({"get": "list"}),
        name="contracts",
    ),
    path(
        "tenders/<str:tender_id>/contracts/<str:pk>",
        ContractViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="contract",
    ),
    path(
        "tenders/<str:tender_id>/contracts/<str:contract_id>/documents",
        ContractDocumentViewSet.as_view(DOCUMENTS),
        name="contract-documents",
    ),
    path(
        "tenders/<str:tender_id>/contracts/<str:contract_id>/documents/<str:pk>",
        ContractDocumentViewSet.as_view(DOCUMENT),
        name="contract-document",
    ),
    path(
        "tenders/<str:tender_id>/cancellations",
        CancellationViewSet.as_view({"get": "list", "post": "create"}),
        name="cancellations",
    ),
    path(
        "tenders/<str:tender_id>/cancellations/<str:pk>",
        CancellationViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="cancellation",
    ),
    path(
        "tenders/<str:tender_id>/cancellations/<str:cancellation_id>/documents",
        CancellationDocumentViewSet.as_view(DOCUMENTS),
        name="cancellation-documents",
    ),
    path(
        "tenders/<str:tender_id>/cancellations/<str:cancellation_id>/documents/<str:pk>",
        CancellationDocumentViewSet.as_view(DOCUMENT),
        name="cancellation-document",
    ),
    # Open data: every published change of every public tender as an OCDS release.
    path(
        "releases", may_read_a_replica(ReleaseFeedViewSet.as_view({"get": "list"})), name="releases"
    ),
    path("ocds/extensions/<str:name>/<str:file>", extension_file, name="ocds-extension"),
    # Contracting: the signed contracts (the tenders' contracts, one row each).
    path(
        "contracts",
        may_read_a_replica(ContractingViewSet.as_view({"get": "list"})),
        name="contracts",
    ),
    path(
        "contracts/<str:contract_id>",
        ContractingViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="contracting-contract",
    ),
    path(
        "contracts/<str:contract_id>/credentials",
        ContractingViewSet.as_view({"patch": "credentials"}),
        name="contract-credentials",
    ),
    path(
        "contracts/<str:contract_id>/changes",
        ChangeViewSet.as_view({"get": "list", "post": "create"}),
        name="contract-changes",
    ),
    path(
        "contracts/<str:contract_id>/changes/<str:change_id>",
        ChangeViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="contract-change",
    ),
    path(
        "contracts/<str:contract_id>/documents",
        SignedContractDocumentViewSet.as_view(DOCUMENTS),
        name="contracting-documents",
    ),
    path(
        "contracts/<str:contract_id>/documents/<str:pk>",
        SignedContractDocumentViewSet.as_view(DOCUMENT),
        name="contracting-document",
    ),
]
