from enum import StrEnum


class EnvelopeStatus(StrEnum):
    COMPLETED = "completed"
    DRAFT = "draft"
    SENT = "sent"
    VOIDED = "voided"

    def __str__(self) -> str:
        return str(self.value)
