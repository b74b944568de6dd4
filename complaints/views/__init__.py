"""Claims in the portal: filing one (filing.py), and a claim's page with what may be done on
it (claim.py)."""

from .claim import (
    claim_actor,
    claim_answer,
    claim_cancel,
    claim_decision,
    claim_detail,
    claim_document_download,
    claim_documents,
    claim_draft,
)
from .filing import claim_new, tender_claim_new

__all__ = [
    "claim_actor",
    "claim_answer",
    "claim_cancel",
    "claim_decision",
    "claim_detail",
    "claim_document_download",
    "claim_documents",
    "claim_draft",
    "claim_new",
    "tender_claim_new",
]
