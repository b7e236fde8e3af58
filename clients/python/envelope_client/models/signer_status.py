from enum import StrEnum


class SignerStatus(StrEnum):
    COMPLETED = "completed"
    DECLINED = "declined"
    PENDING = "pending"
    VIEWED = "viewed"

    def __str__(self) -> str:
        return str(self.value)
