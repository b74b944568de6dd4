"""Contracting over the 2.3 paths (/contracts): the feed of signed contracts and each one.
Views find the contract, call one model method and show the result; the rules are on the
models."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets

from core.api import feed
from core.api.auth import api_context
from core.api.envelope import ok
from core.api.openapi import Feed, data_of, errors
from core.errors import NotFound
from core.schema import iso
from tenders.api.feed import FEED_PARAMETERS
from tenders.models import Contract, ContractStatus

from .serializers import ContractingOut, ContractingShape

CONTRACT = data_of("ContractInContracting", ContractingShape)


def in_contracting():
    """The contracts signed (active, or terminated since)."""
    return Contract.objects.filter(status__in=ContractStatus.in_contracting())


def contract_shown(contract_id: str) -> Contract:
    contract = (
        in_contracting().select_related("tender", "tender__broker").filter(pk=contract_id).first()
    )
    if contract is None:
        raise NotFound("contract_id")
    return contract


def _listing(mode: str, fields: list[str]):
    def listing():
        contracts = in_contracting()
        if mode == "test":
            contracts = contracts.filter(tender__mode="test")
        elif mode != "_all_":
            contracts = contracts.exclude(tender__mode="test")
        if fields:
            return contracts.select_related("tender", "tender__broker")
        return contracts.only("id", "date_modified")

    return listing


def _listed(request, fields: list[str]):
    context = api_context(request)

    def show(contract, fields: list[str]) -> dict:
        shown = {"id": contract.id, "dateModified": iso(contract.date_modified)}
        if fields:
            full = ContractingOut(contract, context=context).data
            shown.update({field: full[field] for field in fields if field in full})
        return shown

    return show


@extend_schema_view(
    list=extend_schema(
        operation_id="listContracts",
        summary="The feed: signed contracts by dateModified, followed by next_page",
        parameters=FEED_PARAMETERS,
        responses={200: Feed, **errors(404, 422)},
    ),
    retrieve=extend_schema(
        operation_id="getContract",
        summary="A signed contract, as it stands after its changes",
        responses={200: CONTRACT, **errors(404)},
    ),
)
class ContractingViewSet(viewsets.ViewSet):
    def list(self, request):
        fields = [field for field in feed.opt_fields(request) if field in ContractingOut.FIELDS]
        listing = _listing(request.query_params.get("mode", ""), fields)
        return feed.page(request, listing, _listed(request, fields))

    def retrieve(self, request, contract_id):
        contract = contract_shown(contract_id)
        return ok(ContractingOut(contract, context=api_context(request)).data)
