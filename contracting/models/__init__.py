from .change import ChangeStatus, ContractChange
from .signed_contract import SignedContract

__all__ = ["ChangeStatus", "ContractChange", "SignedContract"]
