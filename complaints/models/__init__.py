from .complaint import Complaint
from .document import ComplaintDocument
from .table import (
    MIN_RESOLUTION_LENGTH,
    OUTCOMES,
    RESOLUTION_MEANING,
    TRANSITIONS,
    ComplaintStatus,
    ResolutionType,
)

__all__ = [
    "MIN_RESOLUTION_LENGTH",
    "OUTCOMES",
    "RESOLUTION_MEANING",
    "TRANSITIONS",
    "Complaint",
    "ComplaintDocument",
    "ComplaintStatus",
    "ResolutionType",
]
