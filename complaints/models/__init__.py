from .complaint import Complaint, ComplaintDocument
from .table import MIN_RESOLUTION_LENGTH, TRANSITIONS, ComplaintStatus, ResolutionType

__all__ = [
    "MIN_RESOLUTION_LENGTH",
    "TRANSITIONS",
    "Complaint",
    "ComplaintDocument",
    "ComplaintStatus",
    "ResolutionType",
]
