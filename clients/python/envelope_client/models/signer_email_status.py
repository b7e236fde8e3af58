from enum import StrEnum


class SignerEmailStatus(StrEnum):
    CANCELED = "canceled"
    FAILED = "failed"
    PENDING = "pending"
    SENT = "sent"

    def __str__(self) -> str:
        return str(self.value)
