from enum import StrEnum


class UpdateWebhookEndpointRequestStatus(StrEnum):
    DISABLED = "disabled"
    ENABLED = "enabled"

    def __str__(self) -> str:
        return str(self.value)
