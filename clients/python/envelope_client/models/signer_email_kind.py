from enum import StrEnum


class SignerEmailKind(StrEnum):
    CODE = "code"
    COMPLETED = "completed"
    REMINDER = "reminder"
    SIGNING_REQUEST = "signing_request"
    VOIDED = "voided"

    def __str__(self) -> str:
        return str(self.value)
