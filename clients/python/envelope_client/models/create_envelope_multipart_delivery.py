from enum import StrEnum


class CreateEnvelopeMultipartDelivery(StrEnum):
    EMAIL = "email"
    EMBEDDED = "embedded"

    def __str__(self) -> str:
        return str(self.value)
