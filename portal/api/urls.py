"""Every path of the 2.3 API, spelled out. Path segments are not constrained: an unknown id
answers 404 naming its segment (tender_id, award_id...), as 2.3 does."""

from django.urls import path

from complaints.api import ComplaintDocumentViewSet, ComplaintViewSet
from tenders.api.views import (
    AwardViewSet,
    BidViewSet,
    CancellationViewSet,
    ContractViewSet,
    TenderDocumentViewSet,
    TenderViewSet,
)

from . import views

DOCUMENTS = {"get": "list", "post": "create"}
DOCUMENT = {"get": "retrieve", "put": "update", "patch": "partial_update"}

app_name = "api"

urlpatterns = [
    path("spore", views.spore, name="spore"),
    path("health", views.health, name="health"),
    path("tenders", TenderViewSet.as_view({"get": "list", "post": "create"}), name="tenders"),
    path(
        "tenders/<str:tender_id>",
        TenderViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="tender",
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
        "tenders/<str:tender_id>/bids",
        BidViewSet.as_view({"get": "list", "post": "create"}),
        name="bids",
    ),
    path(
        "tenders/<str:tender_id>/bids/<str:bid_id>",
        BidViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
        name="bid",
    ),
    path("tenders/<str:tender_id>/awards", AwardViewSet.as_view({"get": "list"}), name="awards"),
    path(
        "tenders/<str:tender_id>/awards/<str:pk>",
        AwardViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="award",
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
        "tenders/<str:tender_id>/cancellations",
        CancellationViewSet.as_view({"get": "list", "post": "create"}),
        name="cancellations",
    ),
    path(
        "tenders/<str:tender_id>/cancellations/<str:pk>",
        CancellationViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="cancellation",
    ),
]
