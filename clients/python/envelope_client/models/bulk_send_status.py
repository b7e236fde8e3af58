from enum import StrEnum


class BulkSendStatus(StrEnum):
    COMPLETED = "completed"
    PROCESSING = "processing"

    def __str__(self) -> str:
        return str(self.value)
