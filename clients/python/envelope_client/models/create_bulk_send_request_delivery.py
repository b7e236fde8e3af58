from enum import StrEnum


class CreateBulkSendRequestDelivery(StrEnum):
    EMAIL = "email"
    EMBEDDED = "embedded"

    def __str__(self) -> str:
        return str(self.value)
