from enum import StrEnum


class SignerRefStatus(StrEnum):
    COMPLETED = "completed"
    DECLINED = "declined"
    PENDING = "pending"
    VIEWED = "viewed"

    def __str__(self) -> str:
        return str(self.value)
