from enum import StrEnum


class FileLinkKind(StrEnum):
    ARCHIVE = "archive"
    ATTACHMENT = "attachment"
    AUDIT_TRAIL = "audit_trail"
    ORIGINAL = "original"
    SIGNED = "signed"
    TEMPLATE = "template"

    def __str__(self) -> str:
        return str(self.value)
