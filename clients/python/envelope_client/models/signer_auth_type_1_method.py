from enum import StrEnum


class SignerAuthType1Method(StrEnum):
    ACCESS_CODE = "access_code"
    EMAIL_CODE = "email_code"

    def __str__(self) -> str:
        return str(self.value)
