from enum import StrEnum


class DeletedObject(StrEnum):
    TEMPLATE = "template"
    WEBHOOK_ENDPOINT = "webhook_endpoint"

    def __str__(self) -> str:
        return str(self.value)
