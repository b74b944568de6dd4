"""A procedure is a module and a registration, with no edit to the tender core: a procedure made
up here (belowThreshold's table, no auction, bids taken for at least five days, a stand-still
of one working day) is registered for these tests only and driven through the 2.3 API from its
registration to a signed contract."""

from dataclasses import dataclass
from datetime import timedelta

import pytest

from belowthreshold.procedure import BELOW_THRESHOLD
from belowthreshold.table import TRANSITIONS
from core.schema import iso, parse_iso
from tenders.extensions import PROCEDURES
from tenders.models.legal_periods import ShortPeriod
from tenders.models.statuses import TenderStatus as T
from tenders.procedures import Procedure
from tenders.workdays import shift
from tests.helpers import (
    create_tender,
    decide,
    error,
    past_stand_still,
    place_bid,
    sign,
    single_error,
    tender_data,
)

pytestmark = pytest.mark.django_db

BIDS_TAKEN = timedelta(days=5)


@dataclass(frozen=True)
class QuickNoAuction(Procedure):
    def check_periods(self, by, now, enquiry_end, tender_end) -> None:
        if tender_end - enquiry_end < BIDS_TAKEN:
            raise ShortPeriod(
                "Bids are taken for at least 5 days",
                code="made_up_bids_period",
                field="tender_end",
                name="tenderPeriod",
                earliest=enquiry_end + BIDS_TAKEN,
            )


MADE_UP = QuickNoAuction(
    method_type="quickNoAuction",
    transitions=TRANSITIONS,
    lifecycle=[T.ENQUIRIES, T.TENDERING, T.QUALIFICATION, T.AWARDED, T.COMPLETE],
    name="a procedure made up for a test",
    has_auction=False,
    stand_still=timedelta(days=1),
    publishing_kinds=BELOW_THRESHOLD.publishing_kinds,
)


@pytest.fixture(scope="module", autouse=True)
def made_up():
    """(for the module: the check every test ends with reads its tenders after the test)"""
    PROCEDURES.plug(MADE_UP.method_type, MADE_UP)
    yield MADE_UP
    PROCEDURES.unplug(MADE_UP.method_type)


def periods(clock, bids_for: timedelta, method_type="quickNoAuction") -> dict:
    enquiry_end = clock.now() + timedelta(days=2)
    return {
        "procurementMethodType": method_type,
        "enquiryPeriod": {"endDate": iso(enquiry_end)},
        "tenderPeriod": {"endDate": iso(enquiry_end + bids_for)},
    }


def test_a_registered_procedure_is_driven_to_a_signed_contract(api, clock):
    short = api.post("/tenders", tender_data(clock.now(), **periods(clock, timedelta(days=4))))
    assert single_error(short, 422)["name"] == "tenderPeriod"

    tender = create_tender(api, **periods(clock, BIDS_TAKEN))
    data = tender.read()
    assert data["procurementMethodType"] == "quickNoAuction"
    assert data["status"] == "active.enquiries"

    clock.move_to(parse_iso(data["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    place_bid(api, tender, 450, identifier="00000001")
    place_bid(api, tender, 400, identifier="00000002")
    assert "auctionPeriod" not in tender.read()

    clock.move_to(parse_iso(data["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    data = tender.read()
    # No auction: the best bid is awarded as tendering closes.
    assert data["status"] == "active.qualification"
    assert "auctionPeriod" not in data
    [award] = data["awards"]
    assert award["value"]["amount"] == 400 and award["status"] == "pending"

    assert decide(api, tender, award["id"], "active").status_code == 200
    award = tender.read()["awards"][0]
    decided = parse_iso(award["date"])
    one_working_day = shift(decided, timedelta(days=1), working_days=True)
    assert parse_iso(award["complaintPeriod"]["endDate"]) == one_working_day
    early = sign(api, tender, award["id"])
    assert early.status_code == 403, early.content  # within the stand-still

    past_stand_still(tender, clock)
    signed = sign(api, tender, award["id"])

    assert signed.status_code == 200, signed.content
    assert tender.read()["status"] == "complete"


def test_a_procedure_nobody_registered_is_not_implemented(api, clock):
    unknown = periods(clock, BIDS_TAKEN, method_type="quickWithAuction")
    response = api.post("/tenders", tender_data(clock.now(), **unknown))
    assert error(response, 415) == [
        {"description": "Not implemented", "location": "data", "name": "procurementMethodType"}
    ]
