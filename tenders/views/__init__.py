"""The tender's pages, one module per page or part of it."""

from .bids import bid_documents, bid_place, bid_reprice, bid_withdraw
from .classifiers import cpv_options
from .documents import (
    award_document_download,
    award_of,
    download_version,
    part_document_download,
    tender_document_download,
)
from .new_tender import tender_edit, tender_new
from .owner import (
    award_decision,
    contract_sign,
    tender_cancel,
    tender_document_version,
    tender_documents,
    tender_publish,
)
from .page import bid_actor, current_tender, tender_detail
from .questions import question_answer, question_ask

__all__ = [
    "award_decision",
    "award_document_download",
    "award_of",
    "bid_actor",
    "bid_documents",
    "bid_place",
    "bid_reprice",
    "bid_withdraw",
    "contract_sign",
    "cpv_options",
    "current_tender",
    "download_version",
    "part_document_download",
    "question_answer",
    "question_ask",
    "tender_cancel",
    "tender_detail",
    "tender_document_download",
    "tender_document_version",
    "tender_documents",
    "tender_edit",
    "tender_new",
    "tender_publish",
]
