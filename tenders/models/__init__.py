from .auction import Auction, auction_fields, participation_url
from .award import Award
from .base import AuditEvent, Counter, Owned, new_id
from .bid import Bid
from .cancellation import Cancellation
from .contract import Contract
from .document import (
    AwardDocument,
    BidDocument,
    CancellationDocument,
    ContractDocument,
    TenderDocument,
)
from .questions import Question, QuestionOf
from .statuses import (
    AwardStatus,
    BidStatus,
    CancellationStatus,
    ContractStatus,
    LotStatus,
    TenderStatus,
)
from .tender import Tender
from .tender_search import TenderSearch
from .untold import UntoldState

__all__ = [
    "Auction",
    "AuditEvent",
    "Award",
    "AwardDocument",
    "AwardStatus",
    "Bid",
    "BidDocument",
    "BidStatus",
    "Cancellation",
    "CancellationDocument",
    "CancellationStatus",
    "Contract",
    "ContractDocument",
    "ContractStatus",
    "Counter",
    "LotStatus",
    "Owned",
    "Question",
    "QuestionOf",
    "Tender",
    "TenderDocument",
    "TenderSearch",
    "TenderStatus",
    "UntoldState",
    "auction_fields",
    "new_id",
    "participation_url",
]
