from enum import StrEnum


class UnreadyReason(StrEnum):
    STORE_FAILED = "store_failed"
    STORE_UNREADABLE = "store_unreadable"
    STORE_UNRESPONSIVE = "store_unresponsive"
    STORE_UNWRITABLE = "store_unwritable"

    def __str__(self) -> str:
        return str(self.value)
