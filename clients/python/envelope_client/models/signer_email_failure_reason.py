from enum import StrEnum


class SignerEmailFailureReason(StrEnum):
    EMAIL_LIMIT = "email_limit"
    REFUSED = "refused"
    RETRIES_EXHAUSTED = "retries_exhausted"

    def __str__(self) -> str:
        return str(self.value)
