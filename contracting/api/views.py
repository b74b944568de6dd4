"""Contracting over the 2.3 paths (/contracts): the feed of signed contracts, each one, its
credentials, its changes and its documents. Views find the contract, resolve the actor, call one
model method and show the result; the rules are on the models (contracting/models/)."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets

from contracting.schemas import ChangeSchema, SignedContractPatchSchema
from core.actors import Role
from core.api import feed
from core.api.auth import actor_for, api_context
from core.api.envelope import answered_with_the_write, created, ok, read_data
from core.api.lookup import child
from core.api.openapi import OWNER_TOKEN, Feed, data_of, errors, patch_of
from core.errors import NotFound
from core.ids import is_id
from core.schema import iso
from tenders.api.documents import DocumentViewSet, document_operations
from tenders.api.feed import FEED_PARAMETERS
from tenders.documents import ContractDocumentInput, ContractDocumentMetadata

from ..models import SignedContract
from .serializers import ChangeOut, ChangeShape, ContractingOut, ContractingShape

CONTRACT = data_of("ContractInContracting", ContractingShape)
CHANGE = data_of("ContractChange", ChangeShape)


def contract_of(contract_id: str) -> SignedContract:
    """The signed contract the URL names, with its tender and changes; 404 names it."""
    if not is_id(contract_id):
        raise NotFound("contract_id")
    contract = (
        SignedContract.objects.in_contracting()
        .select_related("tender", "tender__broker")
        .prefetch_related("changes")
        .filter(pk=contract_id)
        .first()
    )
    if contract is None:
        raise NotFound("contract_id")
    return contract


def shown(request, contract_id: str) -> dict:
    """The contract as it now is (read again after a change)."""
    return ContractingOut(contract_of(contract_id), context=api_context(request)).data


def owner_of(request, contract) -> object:
    """The actor, checked to hold the contract's own token."""
    actor = actor_for(request, (Role.CONTRACT_OWNER, contract))
    contract.check_party(actor)
    return actor


def _listing(mode: str, fields: list[str]):
    def listing():
        contracts = SignedContract.objects.in_contracting()
        if mode == "test":
            contracts = contracts.filter(tender__mode="test")
        elif mode != "_all_":
            contracts = contracts.exclude(tender__mode="test")
        if fields:
            # (a page of them reads their changes and documents in two more queries)
            return contracts.select_related("tender", "tender__broker").prefetch_related(
                "changes", "documents"
            )
        return contracts.only("id", "date_modified")

    return listing


def _listed(request, fields: list[str]):
    context = api_context(request)

    def show(contract, fields: list[str]) -> dict:
        listed = {"id": contract.id, "dateModified": iso(contract.date_modified)}
        if fields:
            full = ContractingOut(contract, context=context).data
            listed.update({field: full[field] for field in fields if field in full})
        return listed

    return show


@extend_schema_view(
    list=extend_schema(
        operation_id="listSignedContracts",
        summary="The feed: signed contracts by dateModified, followed by next_page",
        parameters=FEED_PARAMETERS,
        responses={200: Feed, **errors(404, 422)},
    ),
    retrieve=extend_schema(
        operation_id="getSignedContract",
        summary="A signed contract, as it stands after its changes",
        responses={200: CONTRACT, **errors(404)},
    ),
    partial_update=extend_schema(
        operation_id="patchSignedContract",
        summary="Change a signed contract (its terms only with a change pending), or "
        'terminate it (status "terminated", once amountPaid is set)',
        parameters=OWNER_TOKEN,
        request=patch_of("SignedContractPatch", SignedContractPatchSchema),
        responses={200: CONTRACT, **errors(403, 404, 409, 422)},
    ),
)
class ContractingViewSet(viewsets.ViewSet):
    def list(self, request):
        fields = [field for field in feed.opt_fields(request) if field in ContractingOut.FIELDS]
        listing = _listing(request.query_params.get("mode", ""), fields)
        return feed.page(request, listing, _listed(request, fields))

    def retrieve(self, request, contract_id):
        return ok(shown(request, contract_id))

    @answered_with_the_write
    def partial_update(self, request, contract_id):
        contract = contract_of(contract_id)
        actor = owner_of(request, contract)
        contract.patch_signed(by=actor, data=read_data(request))
        return ok(shown(request, contract_id))

    @extend_schema(
        operation_id="takeContractCredentials",
        summary="The contract's own token, for the tender owner's token (each call a new one)",
        parameters=OWNER_TOKEN,
        request=None,
        responses={
            200: data_of("ContractCredentials", ContractingShape, access=True),
            **errors(403, 404, 409),
        },
    )
    @answered_with_the_write
    def credentials(self, request, contract_id):
        contract = contract_of(contract_id)
        actor = actor_for(request, (Role.TENDER_OWNER, contract.tender))
        contract.check_party(actor)
        token = contract.issue_credentials(by=actor)
        return ok_with_token(shown(request, contract_id), token)


def ok_with_token(data: dict, token: str):
    response = ok(data)
    response.data["access"] = {"token": token}
    return response


@extend_schema_view(
    list=extend_schema(
        operation_id="listContractChanges",
        responses={200: data_of("ContractChanges", ChangeShape, many=True), **errors(404)},
    ),
    retrieve=extend_schema(
        operation_id="getContractChange", responses={200: CHANGE, **errors(404)}
    ),
    create=extend_schema(
        operation_id="addContractChange",
        summary="A pending change of the contract: its reasons (one pending at a time)",
        parameters=OWNER_TOKEN,
        request=data_of("ContractChangeCreate", ChangeSchema),
        responses={201: CHANGE, **errors(403, 404, 409, 422)},
    ),
    partial_update=extend_schema(
        operation_id="patchContractChange",
        summary='Edit a pending change, or sign it (status "active", with its dateSigned)',
        parameters=OWNER_TOKEN,
        request=patch_of("ContractChangePatch", ChangeSchema),
        responses={200: CHANGE, **errors(403, 404, 409, 422)},
    ),
)
class ChangeViewSet(viewsets.ViewSet):
    def list(self, request, contract_id):
        contract = contract_of(contract_id)
        return ok(ChangeOut(contract.changes.all(), many=True).data)

    def retrieve(self, request, contract_id, change_id):
        change = child(contract_of(contract_id), "changes", change_id, "change_id")
        return ok(ChangeOut(change).data)

    @answered_with_the_write
    def create(self, request, contract_id):
        contract = contract_of(contract_id)
        actor = owner_of(request, contract)
        change = contract.add_change(by=actor, data=read_data(request))
        location = reverse("api:contract-change", args=[contract.id, change.id])
        return created(request, ChangeOut(change).data, location)

    @answered_with_the_write
    def partial_update(self, request, contract_id, change_id):
        contract = contract_of(contract_id)
        change = child(contract, "changes", change_id, "change_id")
        change.contract = contract
        actor = owner_of(request, contract)
        contract.patch_change(change, by=actor, data=read_data(request))
        return ok(ChangeOut(change).data)


@document_operations(
    "SignedContract",
    input_schema=ContractDocumentInput,
    metadata_schema=ContractDocumentMetadata,
)
class SignedContractDocumentViewSet(DocumentViewSet):
    """A signed contract's documents (the same as its tender shows): read by anyone, added and
    replaced with the contract's own token while it is active."""

    route = "api:contracting-document"
    input_schema, metadata_schema = ContractDocumentInput, ContractDocumentMetadata

    def container_for_read(self, request, contract_id):
        return contract_of(contract_id)

    def container_for_write(self, request, contract_id):
        contract = contract_of(contract_id)
        return contract, owner_of(request, contract)

    def route_args(self, contract):
        return [contract.id]
