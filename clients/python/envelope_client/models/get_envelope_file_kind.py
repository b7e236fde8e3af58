from enum import StrEnum


class GetEnvelopeFileKind(StrEnum):
    ARCHIVE = "archive"
    ATTACHMENT = "attachment"
    AUDIT_TRAIL = "audit_trail"
    ORIGINAL = "original"
    SIGNED = "signed"

    def __str__(self) -> str:
        return str(self.value)
