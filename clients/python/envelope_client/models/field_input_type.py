from enum import StrEnum


class FieldInputType(StrEnum):
    ATTACHMENT = "attachment"
    CHECKBOX = "checkbox"
    DATE = "date"
    INITIALS = "initials"
    NUMBER = "number"
    RADIO = "radio"
    SELECT = "select"
    SIGNATURE = "signature"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
