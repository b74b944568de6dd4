"""The belowThreshold tender's transition table: who may do what, from which status (the frame,
core/transitions.py, reads it through the tender's procedure), and the way a tender goes when
nothing ends it early."""

from core.actors import Role
from core.transitions import NEW, UNCHANGED, transition
from tenders.models.statuses import TenderStatus

T = TenderStatus
LIVE = frozenset(T) - T.terminal()
TRANSITIONS = {
    # Registering: public at once (whatever its periods say, as 2.3 takes them), or a draft.
    "register": transition({NEW}, T.ENQUIRIES, Role.TENDER_OWNER),
    "register_draft": transition({NEW}, T.DRAFT, Role.TENDER_OWNER),
    # The owner's changes.
    "publish": transition({T.DRAFT}, T.ENQUIRIES, Role.TENDER_OWNER),
    "edit": transition(LIVE - {T.DRAFT}, UNCHANGED, Role.TENDER_OWNER),
    # The portal's "edit the draft": the whole document written anew.
    "rewrite_draft": transition({T.DRAFT}, UNCHANGED, Role.TENDER_OWNER),
    # The portal's "amend the tender": the same, published, while questions are taken.
    "amend": transition({T.ENQUIRIES}, UNCHANGED, Role.TENDER_OWNER),
    "add_document": transition({T.DRAFT, T.ENQUIRIES}, UNCHANGED, Role.TENDER_OWNER),
    "update_document": transition({T.DRAFT, T.ENQUIRIES}, UNCHANGED, Role.TENDER_OWNER),
    # The auction module's protocol, while the auction is held and the bids decided.
    "auction_add_document": transition({T.AUCTION, T.QUALIFICATION}, UNCHANGED, Role.AUCTION),
    "auction_update_document": transition({T.AUCTION, T.QUALIFICATION}, UNCHANGED, Role.AUCTION),
    "add_lot": transition({T.DRAFT, T.ENQUIRIES}, UNCHANGED, Role.TENDER_OWNER),
    "update_lot": transition({T.DRAFT, T.ENQUIRIES}, UNCHANGED, Role.TENDER_OWNER),
    "delete_lot": transition({T.DRAFT, T.ENQUIRIES}, UNCHANGED, Role.TENDER_OWNER),
    # Answers are given until tendering starts (2.3); questions are asked by anyone known
    # (Question.objects.ask).
    "update_question": transition({T.ENQUIRIES}, UNCHANGED, Role.TENDER_OWNER),
    "cancel": transition(LIVE, T.CANCELLED, Role.TENDER_OWNER),
    # Caused by time, or by a decision on an award or a contract.
    "start_tendering": transition({T.ENQUIRIES}, T.TENDERING, Role.SYSTEM),
    "close_tendering": transition(
        {T.TENDERING},
        {T.AUCTION, T.QUALIFICATION, T.UNSUCCESSFUL},
        Role.SYSTEM,
        picked_by="status_after_tendering",
    ),
    # Every auction is over: the best bids' awards are made.
    "auctions_over": transition({T.AUCTION}, T.QUALIFICATION, Role.SYSTEM),
    "awarded": transition({T.QUALIFICATION}, T.AWARDED, Role.SYSTEM),
    "reopen_qualification": transition({T.AWARDED}, T.QUALIFICATION, Role.SYSTEM),
    # (With lots, the last lot may end while another lot's award is still pending: the
    # tender then ends from qualification.)
    "fail": transition(T.deciding(), T.UNSUCCESSFUL, Role.SYSTEM),
    "complete": transition(T.deciding(), T.COMPLETE, Role.SYSTEM),
}

# The way a tender goes when nothing ends it early (each step a transition above; closing
# tendering leads to the auction when two or more bids compete): the stages the portal shows.
LIFECYCLE = [T.ENQUIRIES, T.TENDERING, T.AUCTION, T.QUALIFICATION, T.AWARDED, T.COMPLETE]
